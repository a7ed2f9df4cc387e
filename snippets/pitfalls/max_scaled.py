import torch

def rms_norm_max_scaled(x, weight, eps=1e-5):
    """RMSNorm for a device without float32: the row divided by its largest magnitude m
    (at least 1: smaller values cannot overflow), so no square passes 1, and eps by m^2.
    """
    m = x.abs().amax(-1, keepdim=True).clamp_min(1.0)
    s = x / m  # then sqrt(mean(s^2) + eps / m^2) * m = sqrt(mean(x^2) + eps)
    return weight * s * torch.rsqrt(s.pow(2).mean(-1, keepdim=True) + eps / (m * m))

def eps_after_division(x, weight, eps=1e-5):
    # eps added to mean(s^2) unscaled: sqrt(mean(x^2) + eps m^2), an eps that grows with m.
    m = x.abs().amax(-1, keepdim=True)
    s = x / m
    return weight * s * torch.rsqrt(s.pow(2).mean(-1, keepdim=True) + eps)

def rms_norm_half(x, weight, eps=1e-5):  # no upcast, no division
    return weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)

def float64_reference(x, eps=1e-5):
    x = x.double()
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)

# 4096 features of RMS about 1 and one outlier channel at 300, as activations have.
x = torch.randn(1, 4096, generator=torch.Generator().manual_seed(0))
x[0, 7] = 300.0
x = x.half()
reference = float64_reference(x)
print("relative error      float16  float32")
#> relative error      float16  float32
for norm in (rms_norm_half, rms_norm_max_scaled, eps_after_division):
    errors = []
    for dtype in (torch.float16, torch.float32):
        y = norm(x.to(dtype), torch.ones(4096, dtype=dtype)).double()
        errors.append(f"{((y - reference).norm() / reference.norm()).item():.1e}")
    print(f"{norm.__name__:<20}{errors[0]:>7}  {errors[1]:>7}")
    #> rms_norm_half       1.0e+00  1.1e-08
    #> rms_norm_max_scaled 2.9e-04  7.1e-08
    #> eps_after_division  1.9e-02  1.9e-02

# eps_after_division's error in both dtypes is the formula's: sqrt(mean(x^2) + eps m^2).
mean_square, m = x.double().pow(2).mean(), x.double().abs().max()
predicted = 1 - (mean_square / (mean_square + 1e-5 * m**2)).sqrt()
print(f"1 - sqrt(mean(x^2) / (mean(x^2) + eps m^2)) = {predicted:.1e}")
#> 1 - sqrt(mean(x^2) / (mean(x^2) + eps m^2)) = 1.9e-02

# An all-zero row (a padded position): 0 / 0 without the clamp on m.
zeros, weight = torch.zeros(1, 4096, dtype=torch.float16), torch.ones(4096).half()
print(rms_norm_max_scaled(zeros, weight).abs().max().item())
#> 0.0
print(eps_after_division(zeros, weight).isnan().all().item())
#> True
