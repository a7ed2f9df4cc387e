import math

import torch

# tanh(u) / u falls from 1 as |u| grows: find where it reaches 0.95, by bisection.
low, high = 0.0, 2.0
for _ in range(60):
    middle = (low + high) / 2
    low, high = (middle, high) if math.tanh(middle) / middle > 0.95 else (low, middle)
u = low
print(f"tanh(u) / u = 0.95 at u = {u:.5f}")
#> tanh(u) / u = 0.95 at u = 0.39946

def within(bound):
    """The fraction of a standard normal's values with |x| <= bound."""
    return math.erf(bound / math.sqrt(2))

alpha = 0.5  # DyT's default initial alpha
print(
    f"alpha {alpha}: within 5% for |x| <= {u / alpha:.4f}, {within(u / alpha):.1%} of N(0, 1)"
)
#> alpha 0.5: within 5% for |x| <= 0.7989, 57.6% of N(0, 1)

# The alpha that keeps 99% of a standard normal's values within 5%.
z = 2.0
for _ in range(60):
    z = z - (within(z) - 0.99) / (math.sqrt(2 / math.pi) * math.exp(-z * z / 2))
print(f"99% of N(0, 1) lies in |x| <= {z:.4f}, so alpha <= {u / z:.4f}")
#> 99% of N(0, 1) lies in |x| <= 2.5758, so alpha <= 0.1551

# Check on a row of RMS 1: DyT with gamma = 1 / alpha against RMSNorm with gamma = 1.
torch.manual_seed(0)
x = torch.randn(100_000, dtype=torch.float64)
x = x / x.pow(2).mean().sqrt()
rms_norm = torch.nn.functional.rms_norm(x, (x.numel(),), eps=0.0)
for a in [alpha, u / z]:
    dyt = torch.tanh(a * x) / a
    close = ((dyt - rms_norm).abs() <= 0.05 * rms_norm.abs()).double().mean()
    print(f"alpha {a:.4f}: {close:.1%} of the row within 5% of RMSNorm's output")
    #> alpha 0.5000: 57.6% of the row within 5% of RMSNorm's output
    #> alpha 0.1551: 99.0% of the row within 5% of RMSNorm's output
