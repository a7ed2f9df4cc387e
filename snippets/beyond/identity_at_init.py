import torch
from torch import nn

class Block(nn.Module):
    """A residual MLP block without a norm: x + alpha * F(x)."""

    def __init__(self, width, design):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)
        if design == "ReZero":  # a learned scalar on the branch, started at 0
            self.alpha = nn.Parameter(torch.zeros(()))
        else:  # Fixup: the branch's last layer started at 0 (its other scalings left out)
            self.alpha = torch.ones(())
            nn.init.zeros_(self.fc2.weight)
            nn.init.zeros_(self.fc2.bias)

    def forward(self, x):
        return x + self.alpha * self.fc2(torch.relu(self.fc1(x)))

def has_gradient(part):
    """Whether a scalar parameter or any weight of a linear layer got a nonzero gradient."""
    tensors = [part] if isinstance(part, torch.Tensor) else [part.weight, part.bias]
    return any(t.grad is not None and bool(t.grad.abs().sum() > 0) for t in tensors)

torch.manual_seed(0)
x = torch.randn(64, 256)
for design in ["ReZero", "Fixup"]:
    stack = nn.Sequential(*(Block(256, design) for _ in range(48)))
    y = stack(x)
    y.pow(2).mean().backward()  # any loss
    # Which parameters get a gradient at the first step, in how many of the 48 blocks.
    moved = {
        name: sum(has_gradient(getattr(block, name)) for block in stack)
        for name in (["alpha"] if design == "ReZero" else []) + ["fc1", "fc2"]
    }
    print(f"{design}: output = input {torch.equal(y, x)}, gradients in {moved}")
    #> ReZero: output = input True, gradients in {'alpha': 48, 'fc1': 0, 'fc2': 0}
    #> Fixup: output = input True, gradients in {'fc1': 0, 'fc2': 48}
