import torch

largest = torch.finfo(torch.float16).max
print(f"largest float16: {largest:.0f}, its square root: {largest**0.5:.2f}")
#> largest float16: 65504, its square root: 255.94

# The float16 values on both sides of that limit.
above = torch.tensor(256.0, dtype=torch.float16)
below = torch.nextafter(above, torch.tensor(0.0, dtype=torch.float16))
for value in [below, above]:
    # Without an upcast: the squares are float16 (PyTorch sums them in float32 for the mean).
    x = value.expand(4)
    y = x * torch.rsqrt(x.pow(2).mean() + 1e-6)
    print(value.item(), y.tolist())
    #> 255.875 [1.0, 1.0, 1.0, 1.0]
    #> 256.0 [0.0, 0.0, 0.0, 0.0]
