import torch

# The two FP8 formats: e4m3 (4 exponent bits, 3 mantissa bits) for activations and weights,
# e5m2 (5 and 2) where range matters more than precision, such as gradients.
for dtype in [torch.float8_e4m3fn, torch.float8_e5m2]:
    info = torch.finfo(dtype)
    name = str(dtype).removeprefix("torch.")
    print(
        f"{name}: largest {info.max:g}, smallest normal {info.tiny:g}, step {info.eps:g}"
    )
    #> float8_e4m3fn: largest 448, smallest normal 0.015625, step 0.125
    #> float8_e5m2: largest 57344, smallest normal 6.10352e-05, step 0.25

# e4m3 keeps 4 significant bits, about one decimal digit (31.13 becomes 32); 0.0013
# becomes a subnormal value.
# e4m3fn has no infinity: PyTorch 2.13's conversion saturates, so 500 becomes 448, where
# releases before pytorch/pytorch#178817 (April 2026) gave NaN above 464, the values
# that round up past 448 (2.13's conversion is fp8e4m3fn_from_fp32_value, in
# torch/headeronly/util/Float8_e4m3fn.h). The kernel clamps to ±448 itself, so as not
# to depend on the release.
values = torch.tensor([0.0013, 0.1, 3.3, 31.13, 447.0, 500.0])
print([round(v, 4) for v in values.to(torch.float8_e4m3fn).float().tolist()])
#> [0.002, 0.1016, 3.25, 32.0, 448.0, 448.0]

# The smallest subnormal is 2^-9; half of it (a tie, rounded to even) and less become 0.
small = torch.tensor([2**-9, 1.001 * 2**-10, 2**-10, 0.999 * 2**-10])
print(small.to(torch.float8_e4m3fn).float().tolist())
#> [0.001953125, 0.001953125, 0.0, 0.0]
