import torch

# One token's hidden state, n = 4096: ordinary channels of RMS 1, and channel 0 set to a
# large magnitude M. RMSNorm divides every channel by the RMS, which M dominates.
torch.manual_seed(0)
n = 4096
others = torch.randn(n, dtype=torch.float64)
others = others / others.pow(2).mean().sqrt()

def with_channel(m, dtype=torch.float64):
    x = others.clone()
    x[0] = m
    return x.to(dtype)

def rms_norm(x, upcast):
    """Without the upcast it squares and scales in x's dtype (PyTorch's mean adds in
    float32 and rounds the result to it); with it, every step runs in float32."""
    h = x.float() if upcast else x
    y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)
    return y.to(x.dtype)

table = ["M      other channels scaled by   1/sqrt(1 + M^2/n)"]
for m in [10, 100, 1000]:
    x = with_channel(m)
    y = rms_norm(x, upcast=False)
    # Their RMS after over their RMS before (0.9995, not quite the row's 1).
    factor = (y[1:].pow(2).mean().sqrt() / x[1:].pow(2).mean().sqrt()).item()
    table.append(f"{m:<5}  {factor:>24.4f}   {(1 + m**2 / n) ** -0.5:.4f}")
print("\n".join(table))
"""
M      other channels scaled by   1/sqrt(1 + M^2/n)
10                       0.9886   0.9880
100                      0.5392   0.5391
1000                     0.0639   0.0639
"""

# Half precision: the RMS of the error on the other channels, relative to their RMS,
# against the same half-precision input normalized in float64; last, the error of that
# float64 output rounded to the half dtype, which no computation can avoid.
table = ["M     dtype     relative error without upcast   with upcast   rounding alone"]
for m in [100, 1000]:
    for dtype in [torch.float16, torch.bfloat16]:
        x = with_channel(m, dtype)
        reference = rms_norm(x.double(), upcast=False)[1:]
        scale = reference.pow(2).mean().sqrt()
        errors = []
        for upcast in [False, True]:
            y = rms_norm(x, upcast)[1:].double()
            errors.append(((y - reference).pow(2).mean().sqrt() / scale).item())
        rounded = reference.to(dtype).double()
        errors.append(((rounded - reference).pow(2).mean().sqrt() / scale).item())
        name = str(dtype).removeprefix("torch.")
        figures = f"{errors[0]:>29.2e}  {errors[1]:>12.2e}  {errors[2]:>14.2e}"
        table.append(f"{m:<4}  {name:<8}  {figures}")
print("\n".join(table))
"""
M     dtype     relative error without upcast   with upcast   rounding alone
100   float16                        2.72e-04      2.10e-04        2.10e-04
100   bfloat16                       1.72e-03      1.71e-03        1.71e-03
1000  float16                        1.00e+00      2.11e-04        2.11e-04
1000  bfloat16                       2.10e-03      1.50e-03        1.50e-03
"""
square, overflow = (torch.tensor([255.875, 256.0], dtype=torch.float16) ** 2).tolist()
print(f"float16: 255.875^2 = {square}, 256^2 = {overflow}")
#> float16: 255.875^2 = 65472.0, 256^2 = inf
largest = rms_norm(with_channel(1000, torch.float16), upcast=False).abs().max().item()
print(f"float16, M = 1000, no upcast: largest |y| = {largest}")
#> float16, M = 1000, no upcast: largest |y| = 0.0

# A gain multiplies channel j of every token by the same gain[j]. Token A carries
# M = 1000, token B does not: no gain changes the ratio between their other channels.
a, b = rms_norm(with_channel(1000), False)[1:], rms_norm(with_channel(0), False)[1:]
for gain in [1.0, 1 / a.pow(2).mean().sqrt().item()]:
    rms_a, rms_b = (gain * a).pow(2).mean().sqrt(), (gain * b).pow(2).mean().sqrt()
    ratio = rms_a / rms_b
    print(
        f"gain {gain:6.3f}: other channels' RMS, A {rms_a:.3f}, B {rms_b:.3f}, A/B {ratio:.4f}"
    )
    #> gain  1.000: other channels' RMS, A 0.064, B 1.000, A/B 0.0638
    #> gain 15.665: other channels' RMS, A 1.000, B 15.667, A/B 0.0638
