import torch

torch.manual_seed(0)
x = torch.randn(10_000, dtype=torch.float64) * 2.0 + 0.5

mean = x.mean()
variance = (x - mean).pow(2).mean()  # population variance: divide by n
mean_square = x.pow(2).mean()  # RMS^2

print(f"mean^2 + variance = {mean**2 + variance:.6f}")
#> mean^2 + variance = 4.269884
print(f"RMS^2             = {mean_square:.6f}")
#> RMS^2             = 4.269884
print(torch.allclose(mean**2 + variance, mean_square))
#> True
