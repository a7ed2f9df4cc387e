import torch
import torch.nn.functional as F

def rms_norm(x: torch.Tensor, eps: float) -> torch.Tensor:
    return F.rms_norm(x, (x.shape[-1],), eps=eps)

def layer_norm(x: torch.Tensor, eps: float) -> torch.Tensor:
    return F.layer_norm(x, (x.shape[-1],), eps=eps)

torch.manual_seed(0)
x = torch.randn(4096, dtype=torch.float64)
eps = 1e-6

# Exact for every a != 0: RMSNorm_eps(a x) = sign(a) * RMSNorm_{eps / a^2}(x).
for a in [-3.0, 1e-3]:
    sign = 1.0 if a > 0 else -1.0
    exact = torch.allclose(rms_norm(a * x, eps), sign * rms_norm(x, eps / a**2))
    print(f"a = {a:g}: {exact}")
    #> a = -3: True
    #> a = 0.001: True

# So with a fixed eps, scaling x is invisible only while eps and eps / a^2 both stay
# small next to the mean square.
print(f"the row's RMS: {x.pow(2).mean().sqrt():.4f}")
#> the row's RMS: 0.9964
for a in [10.0, 1e-3]:
    ratio = rms_norm(a * x, eps).norm() / rms_norm(x, eps).norm()
    print(f"a = {a:g}: output size ratio {ratio:.4f}")
    #> a = 10: output size ratio 1.0000
    #> a = 0.001: output size ratio 0.7058
ratio = rms_norm(1e-2 * x, eps).norm() / rms_norm(1e-3 * x, eps).norm()
kept = rms_norm(1e-2 * x, eps).norm() / rms_norm(1e-2 * x, 0.0).norm()
print(f"x / 1000, a = 10: size ratio {ratio:.4f}, {kept:.4f} of its size without eps")
#> x / 1000, a = 10: size ratio 1.4097, 0.9950 of its size without eps

# Shifting x by a constant changes RMSNorm's output, but not LayerNorm's.
shift = 1.0
rms_change = (rms_norm(x + shift, eps) - rms_norm(x, eps)).abs().max()
ln_change = (layer_norm(x + shift, eps) - layer_norm(x, eps)).abs().max()
print(f"RMSNorm changes by up to {rms_change:.4f}")
#> RMSNorm changes by up to 1.7383
print(f"LayerNorm changes by less than 1e-12: {bool(ln_change < 1e-12)}")
#> LayerNorm changes by less than 1e-12: True
