import mlx.core as mx
from mlx import nn
import numpy as np
import torch
import torch.nn.functional as F
from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
from transformers.models.llama.modeling_llama import LlamaRMSNorm

from snippets.kernel_in_practice.bfloat16 import bfloat16_rounded

n = 512
norm = nn.RMSNorm(n)  # calls mx.fast.rms_norm(x, weight, eps)
print("eps:", norm.eps, "| weight all ones:", bool(mx.all(norm.weight == 1)))
#> eps: 1e-05 | weight all ones: True

# eps inside the root: a row of 1e-3 has a mean square of 1e-6, a tenth of eps.
row = norm(mx.full((1, n), 1e-3))[0, 0].item()
inside, outside = 1e-3 / (1e-6 + 1e-5) ** 0.5, 1e-3 / (1e-3 + 1e-5)
print(f"row of 1e-3 -> {row:.4f} (eps inside: {inside:.4f}, outside: {outside:.4f})")
#> row of 1e-3 -> 0.3015 (eps inside: 0.3015, outside: 0.9901)

# A PyTorch weight, and the same eps (MLX's default is not PyTorch's).
generator = torch.Generator().manual_seed(0)
x = 3 * torch.randn(64, n, generator=generator)
weight = torch.rand(n, generator=generator) + 0.5
norm.weight = mx.array(weight.numpy())
mlx_y = np.array(norm(mx.array(x.numpy())))
torch_y = F.rms_norm(x, (n,), weight, eps=1e-5).numpy()
ulps = np.abs(mlx_y - torch_y) / np.spacing(np.abs(torch_y))  # units in the last place
# The exact count can differ from one CPU to another, so the check is a tolerance.
within = bool(ulps.max() <= 16)
print("float32: within 16 units in the last place of F.rms_norm:", within)
#> float32: within 16 units in the last place of F.rms_norm: True

# Wider rows, a million elements at each width: the differences grow with the row's
# length, past 16 units in the last place; against each row's largest output they stay
# small.
table = ["features | within 16 units | within 1e-5 of each row's largest output"]
for features in [512, 2048, 4096, 8192, 16384]:
    wide = 3 * torch.randn(2**20 // features, features, generator=generator)
    wide_weight = torch.rand(features, generator=generator) + 0.5
    wide_mlx, wide_weight_mlx = mx.array(wide.numpy()), mx.array(wide_weight.numpy())
    mlx_wide = mx.fast.rms_norm(wide_mlx, wide_weight_mlx, 1e-5)
    torch_wide = F.rms_norm(wide, (features,), wide_weight, eps=1e-5).numpy()
    gap = np.abs(np.array(mlx_wide) - torch_wide)
    in_ulps = bool((gap / np.spacing(np.abs(torch_wide))).max() <= 16)
    in_row = bool((gap / np.abs(torch_wide).max(-1, keepdims=True)).max() <= 1e-5)
    table.append(f"{features:>8} | {in_ulps!s:<15} | {in_row}")
print("\n".join(table))
"""
features | within 16 units | within 1e-5 of each row's largest output
     512 | True            | True
    2048 | False           | True
    4096 | False           | True
    8192 | False           | True
   16384 | False           | True
"""

# bfloat16 input: with the float32 weight the output is float32.
x16 = x.to(torch.bfloat16)
x16_mlx = mx.array(x16.float().numpy()).astype(mx.bfloat16)
print("bfloat16 in, float32 weight ->", norm(x16_mlx).dtype)
#> bfloat16 in, float32 weight -> mlx.core.float32

# With a bfloat16 weight: compared with one rounding, and with LLaMA's cast order
# (the normalized x rounded to bfloat16, then multiplied by the weight and rounded again).
weight16 = weight.to(torch.bfloat16)
norm.weight = mx.array(weight.numpy()).astype(mx.bfloat16)
y16 = norm(x16_mlx)
mlx16 = torch.tensor(np.array(y16.astype(mx.float32))).to(torch.bfloat16)
exact = bfloat16_rounded(F.rms_norm(x16.double(), (n,), weight16.double(), eps=1e-5))
x_hat = x16.float() * torch.rsqrt(x16.float().pow(2).mean(-1, keepdim=True) + 1e-5)
llama_order = weight16 * x_hat.to(torch.bfloat16)
print("bfloat16 weight ->", y16.dtype)
#> bfloat16 weight -> mlx.core.bfloat16
for name, y in [
    ("the exact value rounded once", exact),
    ("LLaMA's cast order", llama_order),
]:
    print(f"equals {name}: {(mlx16 == y).float().mean():.1%}")
    #> equals the exact value rounded once: 74.1%
    #> equals LLaMA's cast order: 100.0%

# LlamaRMSNorm with a float32 weight rounds x̂ to bfloat16 and returns float32; MLX with
# that weight does not round x̂. Without a weight MLX keeps x's dtype: multiply after it.
llama = LlamaRMSNorm(n, eps=1e-5)
llama.weight.data.copy_(weight)
llama_f32 = llama(x16)
w32 = mx.array(weight.numpy())
ways = {
    "nn.RMSNorm, float32 weight": mx.fast.rms_norm(x16_mlx, w32, 1e-5),
    "no weight, then multiply": w32 * mx.fast.rms_norm(x16_mlx, None, 1e-5),
}
for name, y in ways.items():
    same = (torch.tensor(np.array(y)) == llama_f32).float().mean()
    print(f"{name}: equals LlamaRMSNorm's float32 output in {same:.1%}")
    #> nn.RMSNorm, float32 weight: equals LlamaRMSNorm's float32 output in 0.0%
    #> no weight, then multiply: equals LlamaRMSNorm's float32 output in 100.0%

# Gemma's gain, 1 + w with w bfloat16, formed in bfloat16 as mlx-lm's Gemma norm forms
# it (1.0 + a bfloat16 weight stays bfloat16), against transformers' GemmaRMSNorm. Formed
# in float32, the output float32 and cast once, it is the last recipe below.
w = (0.1 * torch.randn(n, generator=generator)).to(torch.bfloat16)
gemma = GemmaRMSNorm(n, eps=1e-6).to(torch.bfloat16)
with torch.no_grad():
    gemma.weight.copy_(w)
    expected = gemma(x16)
w_mlx = mx.array(w.float().numpy())
y = mx.fast.rms_norm(x16_mlx, 1.0 + w_mlx.astype(mx.bfloat16), 1e-6).astype(mx.bfloat16)
y = torch.tensor(np.array(y.astype(mx.float32))).to(torch.bfloat16)
differ = (y != expected).float().mean()
print(f"1 + w in bfloat16: differs from GemmaRMSNorm in {differ:.1%}")
#> 1 + w in bfloat16: differs from GemmaRMSNorm in 34.9%

# Each recipe over 2048 more rows against transformers' norm: MLX computes the statistic
# its own way, so a rare element rounds otherwise (how many can change with the CPU).
many = (3 * torch.randn(2048, n, generator=generator)).to(torch.bfloat16)
many_mlx = mx.array(many.float().numpy()).astype(mx.bfloat16)
llama16 = LlamaRMSNorm(n, eps=1e-5).to(torch.bfloat16)
with torch.no_grad():
    llama16.weight.copy_(weight16)
    recipes = {
        "LLaMA, bfloat16 weight": (
            mx.fast.rms_norm(many_mlx, w32.astype(mx.bfloat16), 1e-5),
            llama16(many),
        ),
        "LLaMA, no weight, then multiply": (
            w32 * mx.fast.rms_norm(many_mlx, None, 1e-5),
            llama(many),
        ),
        "Gemma, 1 + w in float32, cast": (
            mx.fast.rms_norm(many_mlx, 1.0 + w_mlx, 1e-6).astype(mx.bfloat16),
            gemma(many),
        ),
    }
for name, (y, expected) in recipes.items():
    same = torch.tensor(np.array(y.astype(mx.float32))).to(expected.dtype) == expected
    share, every = same.float().mean(), bool(same.all())
    print(f"{name:<31} equal in {share:.1%}, in every element: {every}")
    #> LLaMA, bfloat16 weight          equal in 100.0%, in every element: False
    #> LLaMA, no weight, then multiply equal in 100.0%, in every element: False
    #> Gemma, 1 + w in float32, cast   equal in 100.0%, in every element: False
