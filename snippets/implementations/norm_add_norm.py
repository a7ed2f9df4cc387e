"""Gemma 3's norm, add and norm between attention and the MLP in one function, against
transformers' own norms."""

import torch
from transformers.models.gemma3.modeling_gemma3 import Gemma3RMSNorm

def gemma_norm(x, weight, eps):
    """Gemma 3's norm: the gain 1 + w in float32, one rounding at the end."""
    x32 = x.float()
    normalized = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps)
    return (normalized * (1 + weight.float())).to(x.dtype)

def norm_add_norm(y, residual, post_weight, pre_weight, eps=1e-6):
    """From attention's output y: the new residual stream h = residual + Norm_post(y)
    and the MLP's input Norm_pre(h), rounded where transformers rounds them (the
    first norm's output, the sum, the second norm's output). Returns (MLP input, h)."""
    h = residual + gemma_norm(y, post_weight, eps)
    return gemma_norm(h, pre_weight, eps), h

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

# A kernel that keeps the first norm's output in float32 and rounds only the sum.
y32 = y.float()
first = y32 * torch.rsqrt(y32.pow(2).mean(-1, keepdim=True) + 1e-6)
first = first * (1 + post.weight.float())
h_once = (residual.float() + first).to(torch.bfloat16)
mlp_input_once = gemma_norm(h_once, pre.weight, 1e-6)
stream = (h_once != h).float().mean()
mlp = (mlp_input_once != mlp_input).float().mean()
print(f"rounding the sum only: {stream:.1%} of the stream, {mlp:.1%} of the MLP input")
#> rounding the sum only: 16.9% of the stream, 16.6% of the MLP input
