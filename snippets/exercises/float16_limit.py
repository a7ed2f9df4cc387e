import torch

# A float16 square overflows once it rounds past the largest float16, 65504: from halfway
# between it and the next power of two, 2**16, upward.
largest = torch.finfo(torch.float16).max
limit = (largest + 2**16) / 2
squares = torch.tensor([limit - 1, limit]).to(torch.float16)
print(f"largest float16: {largest:.0f}")
#> largest float16: 65504
print(f"{limit - 1:.0f} and {limit:.0f} in float16: {squares.tolist()}")
#> 65519 and 65520 in float16: [65504.0, inf]
print(f"so |x| must stay below sqrt({limit:.0f}) = {limit**0.5:.2f}")
#> so |x| must stay below sqrt(65520) = 255.97

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
