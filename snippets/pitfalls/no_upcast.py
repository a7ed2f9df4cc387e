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

# The usual eps survive, but below float16's smallest normal value, as subnormal numbers
# with fewer bits: code that adds eps in float16 adds a slightly different eps.
for eps in (1e-5, 1e-6):
    stored = torch.tensor(eps, dtype=torch.float16).item()
    print(f"{eps:g} in float16: {stored:.4g} ({stored / eps - 1:+.1%})")
    #> 1e-05 in float16: 1.001e-05 (+0.1%)
    #> 1e-06 in float16: 1.013e-06 (+1.3%)

# Code that sums the squares, then divides by n, overflows sooner in float16: the sum,
# stored in float16, passes 65504 once the row's RMS passes sqrt(65504 / n).
# torch.mean divides before it stores.
n = 4096
print(f"sum of squares overflows past an RMS of {(65504 / n) ** 0.5:.1f} at n = {n}")
#> sum of squares overflows past an RMS of 4.0 at n = 4096
row = torch.full((1, n), 4.5, dtype=torch.float16)  # RMS 4.5
print(row.pow(2).sum(-1) / n, row.pow(2).mean(-1))
#> tensor([inf], dtype=torch.float16) tensor([20.2500], dtype=torch.float16)

# Small values lose bits the other way: a square under float16's smallest normal value is
# subnormal, with fewer bits, and one under half its smallest subnormal value rounds to 0.
tiny = torch.finfo(torch.float16).tiny
print(f"squares subnormal under |x| = {tiny ** 0.5:.2g}, 0 under {2 ** -12.5:.2g}")
#> squares subnormal under |x| = 0.0078, 0 under 0.00017
torch.manual_seed(0)
for rms in (1e-3, 3e-4):
    small = (rms * torch.randn(1, n)).to(torch.float16)
    mean_square = small.pow(2).mean().item() / small.float().pow(2).mean().item()
    print(f"RMS {rms:g}: the float16 mean square off by {mean_square - 1:+.1%}")
    #> RMS 0.001: the float16 mean square off by +2.7%
    #> RMS 0.0003: the float16 mean square off by +29.8%
