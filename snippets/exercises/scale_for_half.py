import torch
import torch.nn.functional as F

# With eps = 1e-6, by what factor a must a unit-RMS row be scaled for the output to shrink
# to half its size? Half size means a^2 / (a^2 + eps) = 1/4, so a = sqrt(eps / 3).
eps = 1e-6
a = (eps / 3) ** 0.5
print(f"a = {a:.3e}")
#> a = 5.774e-04

torch.manual_seed(0)
x = torch.randn(4096, dtype=torch.float64)
x = x / x.pow(2).mean().sqrt()
print(f"{(F.rms_norm(a * x, (4096,), eps=eps).norm() / x.norm()).item():.4f}")
#> 0.5000
