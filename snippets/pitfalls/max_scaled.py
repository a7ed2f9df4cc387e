import torch
import torch.nn.functional as F

def mean_float16(t):
    """The mean over the last dim with every addition rounded to t's dtype: pairs, then
    pairs of pairs, as a device that adds in float16 adds. PyTorch's own mean of float16
    values adds them in float32 on a CPU."""
    n = t.shape[-1]
    t = F.pad(t, (0, (1 << (n - 1).bit_length()) - n))  # zeros to a power of two
    while t.shape[-1] > 1:
        t = t[..., ::2] + t[..., 1::2]
    return t / n

@torch.no_grad()  # for inference: the backward would overflow float16 here
def rms_norm_float16(x, weight, eps=1e-5):
    """RMSNorm with every operation in float16. Each row is divided by its largest
    magnitude m, so the squares lie in [0, 1] and sum to at most n; eps is divided by m^2,
    written (sqrt(eps) / m)^2: m^2 overflows float16 from m = 256, and eps (1e-5, 1e-6) is
    subnormal there while sqrt(eps) is a normal value. m is at least sqrt(eps) / 128, so that
    the term stays at most about 16384; below that eps sets the output anyway, and an
    all-zero row gives zeros."""
    root_eps = torch.tensor(eps**0.5, dtype=x.dtype)
    m = x.abs().amax(-1, keepdim=True).clamp_min(root_eps / 128)
    s = x / m  # for the statistic only: x / m itself may fall below the normal range
    scale = torch.rsqrt(mean_float16(s * s) + (root_eps / m) ** 2) / m
    return weight * (x * scale)

def eps_after_division(x, weight, eps=1e-5):
    # eps added to mean(s^2) unscaled: sqrt(mean(x^2) + eps m^2), an eps that grows with m.
    m = x.abs().amax(-1, keepdim=True)
    s = x / m
    return weight * s * torch.rsqrt(mean_float16(s * s) + eps)

def no_upcast(x, weight, eps=1e-5):
    return weight * x * torch.rsqrt(mean_float16(x * x) + eps)

def ulps(y, x, eps=1e-5):
    """The largest error of y in ulps: the gap between the float16 values around each
    exact (float64) output, 2^(e - 10) for an exponent e of at least -14 (subnormals).
    """
    exact = x.double() * torch.rsqrt(x.double().pow(2).mean(-1, keepdim=True) + eps)
    exponent = torch.floor(torch.log2(exact.abs())).clamp_min(-14)
    return ((y.double() - exact).abs() / torch.exp2(exponent - 10)).max()

# Rows of 4096 features: RMS about 1 with one outlier channel, and rows of small RMS.
generator = torch.Generator().manual_seed(0)
rows = {}
for outlier in (300.0, 30000.0):
    x = torch.randn(1, 4096, generator=generator)
    x[0, 7] = outlier
    rows[f"outlier {outlier:g}"] = x.half()
for rms in (1e-3, 1e-6):
    rows[f"RMS {rms:g}"] = (rms * torch.randn(1, 4096, generator=generator)).half()
weight = torch.ones(4096, dtype=torch.float16)
table = ["largest error, float16 ulps  float32  float16  eps after  no upcast"]
for name, x in rows.items():
    # float32: the statistic in float32, then one rounding to float16 (the upcast).
    float32 = F.rms_norm(x.float(), (4096,), eps=1e-5).half()
    norms = [rms_norm_float16, eps_after_division, no_upcast]
    errors = [ulps(float32, x)] + [ulps(norm(x, weight), x) for norm in norms]
    table.append(f"{name:<28}" + "".join(f"{e:>9.2g}" for e in errors))
print("\n".join(table))
"""
largest error, float16 ulps  float32  float16  eps after  no upcast
outlier 300                       0.5        2       41    2e+03
outlier 30000                     0.5      1.3       66    2e+03
RMS 0.001                         0.5      1.4  4.7e+03      1.3
RMS 1e-06                         0.5     0.63  6.3e+06        2
"""

# An all-zero row (a padded position): 0 / 0 without a floor on m.
zeros = torch.zeros(1, 4096, dtype=torch.float16)
print(rms_norm_float16(zeros, weight).abs().max().item())
#> 0.0
print(eps_after_division(zeros, weight).isnan().all().item())
#> True
