"""The Placement page's deep stack of residual MLP blocks, with the norm replaced or reshaped."""

import torch
from torch import nn

from snippets.beyond.norms import DyT, deepnorm_constants, unit
from snippets.placement.stack import block_statistics

VARIANTS = ["pre-norm", "post-norm", "DeepNorm", "Peri-LN", "nGPT", "DyT"]
NGPT_RATE = 0.05  # nGPT's α at initialization, per channel

class Block(nn.Module):
    def __init__(self, width, variant, alpha=1.0):
        super().__init__()
        self.variant, self.alpha = variant, alpha
        # F = Linear-ReLU-Linear, four times wider inside, as on the Placement page.
        self.fc1 = nn.Linear(width, 4 * width)
        self.fc2 = nn.Linear(4 * width, width)
        if variant == "DyT":
            self.norm = DyT(width)
        elif variant == "nGPT":
            self.rate = nn.Parameter(torch.full((width,), NGPT_RATE))
        else:
            self.norm = nn.RMSNorm(width, eps=1e-6)
        if variant == "Peri-LN":
            self.norm_out = nn.RMSNorm(width, eps=1e-6)

    def f(self, x):
        return self.fc2(torch.relu(self.fc1(x)))

    def forward(self, x):
        v = self.variant
        if v in ("pre-norm", "DyT"):  # x + F(Norm(x)), DyT in place of the norm
            return x + self.f(self.norm(x))
        if v == "post-norm":  # Norm(x + F(x))
            return self.norm(x + self.f(x))
        if v == "DeepNorm":  # Norm(αx + F(x))
            return self.norm(self.alpha * x + self.f(x))
        if v == "Peri-LN":  # x + Norm_out(F(Norm_in(x)))
            return x + self.norm_out(self.f(self.norm(x)))
        # nGPT: step from x toward Norm(F(x)) at rate α, back onto the sphere
        return unit(x + self.rate * (unit(self.f(x)) - x))

class Stack(nn.Module):
    def __init__(self, depth, width, classes, variant):
        super().__init__()
        self.variant = variant
        # DeepNorm: the stack's blocks hold one sublayer each, as many as a transformer
        # of depth / 2 layers of two sublayers.
        alpha, beta = deepnorm_constants(depth / 2)
        alpha = alpha if variant == "DeepNorm" else 1.0
        self.blocks = nn.ModuleList(Block(width, variant, alpha) for _ in range(depth))
        finals = {
            "pre-norm": nn.RMSNorm(width, eps=1e-6),
            "Peri-LN": nn.RMSNorm(width, eps=1e-6),
        }
        self.final_norm = DyT(width) if variant == "DyT" else finals.get(variant)
        self.head = nn.Linear(width, classes)
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.xavier_uniform_(module.weight)
                nn.init.zeros_(module.bias)
        if variant == "DeepNorm":  # F's weights start multiplied by β
            for block in self.blocks:
                block.fc1.weight.data *= beta
                block.fc2.weight.data *= beta

    def forward(self, x):
        """The logits, and the input of every block."""
        if self.variant == "nGPT":
            x = unit(x)
        inputs = []
        for block in self.blocks:
            inputs.append(x)
            x = block(x)
        if self.final_norm is not None:
            x = self.final_norm(x)
        if self.variant == "nGPT":
            # A fixed logit scale: the head sees RMS 1, as after a final RMSNorm.
            x = x * x.shape[-1] ** 0.5
        return self.head(x), inputs

def layer_statistics(
    variant, seed, depth=48, width=128, batch=32, classes=16, scale=1.0
):
    """Per block, at initialization: the gradient norm of its first linear layer's weight,
    the gradient norm with respect to its input, and the RMS of that input. scale
    multiplies each block's second linear layer (the Placement page's scaled init)."""
    torch.manual_seed(seed)
    model = Stack(depth, width, classes, variant).double()
    with torch.no_grad():
        for block in model.blocks:
            block.fc2.weight.mul_(scale)
    x = torch.randn(batch, width, dtype=torch.float64, requires_grad=True)
    return block_statistics(model, x, torch.randint(classes, (batch,)))
