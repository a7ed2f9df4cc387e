"""A deep stack of residual MLP blocks, with RMSNorm before (pre) or after (post) each."""

import torch
from torch import nn

class Block(nn.Module):
    """One residual block: post-norm y = Norm(x + F(x)), pre-norm y = x + F(Norm(x))."""

    def __init__(self, width, placement):
        super().__init__()
        self.placement = placement
        self.norm = nn.RMSNorm(width, eps=1e-6)
        # F = Linear-ReLU-Linear, four times wider inside, as in a transformer's MLP.
        self.fc1 = nn.Linear(width, 4 * width)
        self.fc2 = nn.Linear(4 * width, width)

    def f(self, x):
        return self.fc2(torch.relu(self.fc1(x)))

    def forward(self, x):
        if self.placement == "pre":
            return x + self.f(self.norm(x))
        return self.norm(x + self.f(x))

class Stack(nn.Module):
    def __init__(self, depth, width, classes, placement):
        super().__init__()
        self.blocks = nn.ModuleList(Block(width, placement) for _ in range(depth))
        # Pre-norm never normalizes the residual stream itself, so the head gets a final
        # norm; a post-norm stack's last block already ends with one.
        self.final_norm = nn.RMSNorm(width, eps=1e-6) if placement == "pre" else None
        self.head = nn.Linear(width, classes)
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.xavier_uniform_(module.weight)
                nn.init.zeros_(module.bias)

    def forward(self, x):
        """The logits, and the input of every block (the residual stream under pre-norm)."""
        inputs = []
        for block in self.blocks:
            inputs.append(x)
            x = block(x)
        if self.final_norm is not None:
            x = self.final_norm(x)
        return self.head(x), inputs

def layer_statistics(placement, seed, depth=48, width=256, batch=64, classes=16):
    """Per block, at initialization: the gradient norms of its two linear layers' weights,
    the gradient norm with respect to its input, and the RMS of that input."""
    torch.manual_seed(seed)
    # float64, so that the rounded numbers do not depend on the CPU's summation order.
    model = Stack(depth, width, classes, placement).double()
    x = torch.randn(batch, width, dtype=torch.float64, requires_grad=True)
    return block_statistics(model, x, torch.randint(classes, (batch,)))

def block_statistics(model, x, labels):
    """The four statistics per block of `model` (blocks with an fc1 and an fc2; a
    forward returning the logits and each block's input), from one backward pass of
    cross-entropy."""
    logits, inputs = model(x)
    for h in inputs:
        h.retain_grad()
    nn.functional.cross_entropy(logits, labels).backward()
    return {
        "weight_grad": torch.stack([b.fc1.weight.grad.norm() for b in model.blocks]),
        "second_weight_grad": torch.stack(
            [b.fc2.weight.grad.norm() for b in model.blocks]
        ),
        "input_grad": torch.stack([h.grad.norm() for h in inputs]),
        "stream_rms": torch.stack([h.detach().pow(2).mean().sqrt() for h in inputs]),
    }
