"""Gemma 3's norm, add and norm between attention and the MLP in one function, against
transformers' own norms."""

import torch
from transformers.models.gemma3.modeling_gemma3 import Gemma3RMSNorm

from snippets.implementations.variants import rms_norm_gemma

def norm_add_norm(y, residual, post_weight, pre_weight, eps=1e-6):
    """From attention's output y: the new residual stream h = residual + Norm_post(y)
    and the MLP's input Norm_pre(h), rounded where transformers rounds them (the
    first norm's output, the sum, the second norm's output). Returns (MLP input, h)."""
    h = residual + rms_norm_gemma(y, post_weight, eps)
    return rms_norm_gemma(h, pre_weight, eps), h

torch.manual_seed(0)
n = 2560  # Gemma 3 4B's hidden size
y = torch.randn(64, n).to(torch.bfloat16)  # attention's output
residual = (4 * torch.randn(64, n)).to(torch.bfloat16)  # the residual stream
post, pre = Gemma3RMSNorm(n, eps=1e-6), Gemma3RMSNorm(n, eps=1e-6)
with torch.no_grad():
    for norm in (post, pre):
        norm.weight.copy_(0.1 * torch.randn(n))  # stored w; the gain is 1 + w
post, pre = post.bfloat16(), pre.bfloat16()

# As Gemma3DecoderLayer runs them: post_attention_layernorm, the add, then
# pre_feedforward_layernorm.
with torch.no_grad():
    h_layer = residual + post(y)
    mlp_input_layer = pre(h_layer)
mlp_input, h = norm_add_norm(y, residual, post.weight, pre.weight)
print(f"new residual stream, bit for bit: {torch.equal(h, h_layer)}")
#> new residual stream, bit for bit: True
print(f"MLP input, bit for bit:           {torch.equal(mlp_input, mlp_input_layer)}")
#> MLP input, bit for bit:           True

# Kernels that keep the first norm's output in float32 and round only the sum they
# store: the second norm reads that rounded sum, or the float32 sum before rounding.
y32 = y.float()
first = y32 * torch.rsqrt(y32.pow(2).mean(-1, keepdim=True) + 1e-6)
total = residual.float() + first * (1 + post.weight.float())
h_once = total.to(torch.bfloat16)
from_rounded = rms_norm_gemma(h_once, pre.weight)
normalized = total * torch.rsqrt(total.pow(2).mean(-1, keepdim=True) + 1e-6)
from_float32 = (normalized * (1 + pre.weight.float())).to(torch.bfloat16)
print(f"stream, rounded once: {(h_once != h).float().mean():.1%} differs")
#> stream, rounded once: 16.9% differs
for name, out in [("rounded", from_rounded), ("float32", from_float32)]:
    differs = (out != mlp_input).float().mean()
    print(f"MLP input from the {name} sum: {differs:.1%} differs")
    #> MLP input from the rounded sum: 16.6% differs
    #> MLP input from the float32 sum: 32.1% differs
