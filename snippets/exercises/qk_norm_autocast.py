import torch
from transformers import Qwen3Config
from transformers.models.qwen3.modeling_qwen3 import (
    Qwen3RMSNorm,
    Qwen3RotaryEmbedding,
    apply_rotary_pos_emb,
)

from snippets.kernel_in_practice.bfloat16 import bfloat16_rounded

class OneCast(Qwen3RMSNorm):
    """Qwen3RMSNorm with one change: the gain multiplies in float32, then one cast."""

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        h = hidden_states.to(torch.float32)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.variance_epsilon)
        return (self.weight * h).to(input_dtype)  # was: self.weight * h.to(input_dtype)

def off(y, exact):
    """Cast to bfloat16, as autocast does at a matrix multiplication: how many values
    differ from the exact value rounded once (exact.to(torch.bfloat16) would round
    twice, through float32)."""
    wrong = (y.to(torch.bfloat16) != bfloat16_rounded(exact)).sum().item()
    return (
        f"{str(y.dtype)[6:]}, off in {wrong} of {y.numel()} ({wrong / y.numel():.3%})"
    )

torch.manual_seed(0)
head_dim, positions = 128, 4096
query = torch.randn(1, 1, positions, head_dim).to(torch.bfloat16)  # q_proj's output
gain = 1 + 0.1 * torch.randn(head_dim)  # a float32 parameter, as in mixed precision
# Qwen3's rotary embedding: float32 cos and sin, since the residual stream is float32.
rotary = Qwen3RotaryEmbedding(Qwen3Config(head_dim=head_dim))
stream = torch.zeros(1, positions, head_dim)
cos, sin = rotary(stream, torch.arange(positions)[None])

# The exact values, in float64: the norm's output, and the query the attention gets.
q64 = query.double()
normed = gain.double() * q64 / (q64.pow(2).mean(-1, keepdim=True) + 1e-6).sqrt()
rotated, _ = apply_rotary_pos_emb(normed, normed, cos.double(), sin.double())

outputs = {}
for norm_class in [Qwen3RMSNorm, OneCast]:
    norm = norm_class(head_dim, eps=1e-6)
    with torch.no_grad():
        norm.weight.copy_(gain)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = norm(query)
        q, _ = apply_rotary_pos_emb(y, y, cos, sin)
    outputs[norm_class.__name__] = y, q

for name, (y, q) in outputs.items():
    print(f"{name:<12} returns {off(y, normed)}")
    #> Qwen3RMSNorm returns float32, off in 135639 of 524288 (25.871%)
    #> OneCast      returns bfloat16, off in 6 of 524288 (0.001%)
for name, (y, q) in outputs.items():
    print(f"{name:<12} rotated {off(q, rotated)}")
    #> Qwen3RMSNorm rotated float32, off in 169057 of 524288 (32.245%)
    #> OneCast      rotated float32, off in 171718 of 524288 (32.753%)

# OneCast's few: its float32 value, before the cast, already lies on or past the point
# halfway between the two bfloat16 values around the exact one, on the wrong side of it.
h = query.float()
before_cast = gain * (h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6))
y = outputs["OneCast"][0]
wrong = y != bfloat16_rounded(normed)
right, got = bfloat16_rounded(normed[wrong]).double(), y[wrong].double()
halfway = (right + got) / 2
on = (before_cast[wrong].double() == halfway).sum().item()
past = ((before_cast[wrong].double() - halfway) * (got - halfway) > 0).sum().item()
print(f"OneCast's {wrong.sum().item()} off: on the halfway point {on}, past it {past}")
#> OneCast's 6 off: on the halfway point 3, past it 3
