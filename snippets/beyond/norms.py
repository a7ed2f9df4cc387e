"""What replaces or reshapes the norm: DeepNorm's constants, nGPT's Norm, and DyT."""

import torch
from torch import nn

def deepnorm_constants(layers):
    """DeepNet's constants for a decoder-only model of `layers` layers (two sublayers
    each): the residual scale α and the gain β of the scaled weights' initialization."""
    return (2 * layers) ** 0.25, (8 * layers) ** -0.25

def unit(x):
    """nGPT's Norm: divide by the Euclidean length, onto the unit sphere (norm 1, not RMS 1).
    An all-zero row has no direction and gives NaN; transformers' DoryL2Norm adds its eps
    (1e-6 by default) under the root, which gives zeros."""
    return x / x.norm(dim=-1, keepdim=True)

class DyT(nn.Module):
    """Dynamic Tanh, γ ⊙ tanh(αx) + β: elementwise, no mean, no sum over the width."""

    def __init__(self, width, alpha=0.5):
        super().__init__()
        # The paper's default start. Its LLaMA 2 runs (other_tasks/LLaMA/README.md in
        # jiachenzhu/DyT) start alpha before attention / before the MLP and the final one
        # at 0.8 / 0.2 (7B), 0.6 / 0.15 (13B) and 0.2 / 0.05 (34B and 70B).
        self.alpha = nn.Parameter(torch.tensor(float(alpha)))  # one learned scalar
        self.weight = nn.Parameter(torch.ones(width))  # γ
        self.bias = nn.Parameter(torch.zeros(width))  # β

    def forward(self, x):
        return self.weight * torch.tanh(self.alpha * x) + self.bias
