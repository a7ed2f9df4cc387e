import torch

from snippets.implementations.variants import rms_norm_llama

def rms_norm_half(x, weight, eps=1e-6):
    # No upcast: x.pow(2) is computed, and overflows, in float16.
    return weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)

weight = torch.ones(4, dtype=torch.float16)
x = torch.tensor([[300.0, -20.0, 5.0, 1.0]], dtype=torch.float16)
print(x.pow(2))  # 300^2 = 90000 > 65504, float16's largest value
#> tensor([[ inf, 400.,  25.,   1.]], dtype=torch.float16)
print(rms_norm_half(x, weight))
#> tensor([[0., -0., 0., 0.]], dtype=torch.float16)
print(rms_norm_llama(x, weight))
#> tensor([[ 1.9951, -0.1331,  0.0333,  0.0067]], dtype=torch.float16)

# eps = 1e-8 rounds to 0 in float16, so an all-zero row gives 0 * rsqrt(0) = 0 * inf = NaN.
zeros = torch.zeros(1, 4, dtype=torch.float16)
print(torch.tensor(1e-8, dtype=torch.float16).item())
#> 0.0
print(rms_norm_half(zeros, weight, eps=1e-8))
#> tensor([[nan, nan, nan, nan]], dtype=torch.float16)
print(rms_norm_llama(zeros, weight, eps=1e-8))
#> tensor([[0., 0., 0., 0.]], dtype=torch.float16)

# The usual eps survive as subnormal numbers, with fewer bits, so they shift a little:
for eps in (1e-5, 1e-6):
    stored = torch.tensor(eps, dtype=torch.float16).item()
    print(f"{eps:g} in float16: {stored:.4g} ({stored / eps - 1:+.1%})")
    #> 1e-05 in float16: 1.001e-05 (+0.1%)
    #> 1e-06 in float16: 1.013e-06 (+1.3%)

# Summing the squares, then dividing by n, overflows sooner: a float16 sum passes 65504
# once the row's RMS passes sqrt(65504 / n). torch.mean divides before it stores.
n = 4096
print(f"sum of squares overflows past an RMS of {(65504 / n) ** 0.5:.1f} at n = {n}")
#> sum of squares overflows past an RMS of 4.0 at n = 4096
row = torch.full((1, n), 4.5, dtype=torch.float16)  # RMS 4.5
print(row.pow(2).sum(-1) / n, row.pow(2).mean(-1))
#> tensor([inf], dtype=torch.float16) tensor([20.2500], dtype=torch.float16)

# Small values lose bits too: at a small RMS the mean square itself is subnormal.
tiny = torch.finfo(torch.float16).tiny
print(f"subnormal under {tiny:.2g}: a mean square is, at an RMS under {tiny**0.5:.2g}")
#> subnormal under 6.1e-05: a mean square is, at an RMS under 0.0078
torch.manual_seed(0)
for rms in (1e-3, 3e-4):
    small = (rms * torch.randn(1, n)).to(torch.float16)
    exact = small.float().pow(2).mean().item()
    squares = small.pow(2).float().mean().item() / exact - 1  # float16 squares
    stored = small.pow(2).mean().item() / exact - 1  # and a float16 mean
    off = f"squares {squares:+.2%}, stored {stored:+.1%}"
    print(f"RMS {rms:g}: mean square {exact:.2g}; {off}")
    #> RMS 0.001: mean square 9.9e-07; squares -0.05%, stored +2.7%
    #> RMS 0.0003: mean square 9.2e-08; squares -1.82%, stored +29.8%
