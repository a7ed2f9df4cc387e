"""The Placement page's tiny language model with the norm replaced or reshaped."""

import torch
from torch import nn

from snippets.beyond.norms import DyT, deepnorm_constants
from snippets.placement.tiny_lm import (
    Attention,
    corpus,
    held_out_loss,
    one_thread,
    training_steps,
)

LM_VARIANTS = ["pre-norm", "post-norm", "DeepNorm", "Peri-LN", "DyT"]

def rms_norm(width):
    """RMSNorm with the Placement page's eps (nn.RMSNorm's default would be float32's
    machine epsilon, 1.19e-07)."""
    return nn.RMSNorm(width, eps=1e-6)

class Layer(nn.Module):
    def __init__(self, width, heads, variant, alpha):
        super().__init__()
        self.variant, self.alpha = variant, alpha
        self.attention = Attention(width, heads)
        self.mlp = nn.Sequential(
            nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width)
        )
        norm = DyT if variant == "DyT" else rms_norm
        self.norm1, self.norm2 = norm(width), norm(width)
        if variant == "Peri-LN":  # a second norm per sublayer, on its output
            self.out1, self.out2 = rms_norm(width), rms_norm(width)

    def forward(self, x):
        if self.variant in ("pre-norm", "DyT"):  # x + F(Norm(x))
            x = x + self.attention(self.norm1(x))
            return x + self.mlp(self.norm2(x))
        if self.variant == "Peri-LN":  # x + Norm_out(F(Norm_in(x)))
            x = x + self.out1(self.attention(self.norm1(x)))
            return x + self.out2(self.mlp(self.norm2(x)))
        # post-norm: Norm(x + F(x)); DeepNorm: Norm(αx + F(x)), α > 1
        x = self.norm1(self.alpha * x + self.attention(x))
        return self.norm2(self.alpha * x + self.mlp(x))

class TinyLM(nn.Module):
    def __init__(self, vocab, variant, width=64, heads=4, layers=4, length=32):
        super().__init__()
        alpha, beta = deepnorm_constants(layers)
        alpha = alpha if variant == "DeepNorm" else 1.0
        self.embed = nn.Embedding(vocab, width)
        self.position = nn.Parameter(torch.randn(length, width) * 0.02)
        self.layers = nn.ModuleList(
            Layer(width, heads, variant, alpha) for _ in range(layers)
        )
        # The post-norm layouts end with a norm; the others need a final one.
        final = {"pre-norm": rms_norm(width), "Peri-LN": rms_norm(width)}
        self.final_norm = DyT(width) if variant == "DyT" else final.get(variant)
        self.head = nn.Linear(width, vocab)
        # Xavier-normal weights for every variant, the queries, keys and values each as
        # its own matrix. DeepNorm's gain is β for the values, the attention's output
        # projection and the MLP, and 1 for the queries and keys.
        gain = beta if variant == "DeepNorm" else 1.0
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.xavier_normal_(module.weight)
                nn.init.zeros_(module.bias)
        for layer in self.layers:
            q, k, v = layer.attention.qkv.weight.data.view(3, width, width)
            for part, part_gain in [(q, 1.0), (k, 1.0), (v, gain)]:
                nn.init.xavier_normal_(part, gain=part_gain)
            for linear in [layer.attention.out, layer.mlp[0], layer.mlp[2]]:
                nn.init.xavier_normal_(linear.weight, gain=gain)

    def forward(self, tokens):
        x = self.embed(tokens) + self.position[: tokens.shape[1]]
        for layer in self.layers:
            x = layer(x)
        if self.final_norm is not None:
            x = self.final_norm(x)
        return self.head(x)

@one_thread()
def train(variant, lr, steps=80, batch=16, length=16, seed=0):
    """AdamW at a constant learning rate, no warmup: every step's training loss, and
    the held-out loss at the end."""
    ids, windows, vocab = corpus(length)
    torch.manual_seed(seed)
    model = TinyLM(len(vocab), variant, length=length)
    losses = list(training_steps(model, ids, lr, steps, batch, length))
    return losses, held_out_loss(model, windows)
