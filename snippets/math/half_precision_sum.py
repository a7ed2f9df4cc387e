import math

import torch

from snippets.math.summation import running_sum, tree_sum

def rounded_once(value, dtype):
    """A Python float rounded to dtype's significant bits in one step, half to even
    (torch's .to(dtype) from float64 goes through float32: two roundings)."""
    bits = 1 - int(math.log2(torch.finfo(dtype).eps))  # eps = 2**(1 - bits)
    # value = mantissa * 2**exponent, with 0.5 <= |mantissa| < 1
    mantissa, exponent = math.frexp(value)
    return math.ldexp(round(mantissa * 2**bits), exponent - bits)

torch.manual_seed(0)
x = torch.randn(4096)

table = ["dtype     running sum (error)   tree sum (error)    exact, rounded once"]
for dtype in [torch.float16, torch.bfloat16, torch.float32]:
    # Squared in the row's dtype, as a kernel without an upcast does.
    squares = x.to(dtype) ** 2
    # The exact sum of these same (rounded) squares: what is left is the adding's error.
    exact = squares.double().sum().item()
    totals = [running_sum(squares).item(), tree_sum(squares).item()]
    totals.append(rounded_once(exact, dtype))
    cells = [f"{total:8.1f} ({total / exact - 1:+.1e})" for total in totals]
    table.append(f"{str(dtype)[6:]:<9}" + "   ".join(cells))
print("\n".join(table))
"""
dtype     running sum (error)   tree sum (error)    exact, rounded once
float16    3736.0 (-7.6e-02)     4042.0 (+1.4e-04)     4042.0 (+1.4e-04)
bfloat16   1960.0 (-5.2e-01)     4048.0 (+1.5e-03)     4048.0 (+1.5e-03)
float32    4041.4 (+2.0e-07)     4041.4 (-4.6e-08)     4041.4 (+1.4e-08)
"""

# Once the total is large, the distance between neighbouring numbers outgrows a square.
for dtype, total in [(torch.float16, 2048), (torch.bfloat16, 256)]:
    gap = total * torch.finfo(dtype).eps
    print(f"{str(dtype)[6:]} numbers from {total} on are {gap:.0f} apart")
    #> float16 numbers from 2048 on are 2 apart
    #> bfloat16 numbers from 256 on are 2 apart
print(f"squares below 1: {(x**2 < 1).float().mean():.1%}")
#> squares below 1: 68.7%

# PyTorch's reductions add half-precision values in float32 and round once at the end.
# In float16, each 1 added to 2048 rounds away (2049 is a tie, rounded half to even); in float32
# the total reaches 2050, which float16 holds.
values = torch.tensor([2048.0, 1.0, 1.0, 0.0], dtype=torch.float16)
totals = {
    "torch.sum": values.sum(),
    "running": running_sum(values),
    "tree": tree_sum(values),
}
for name, total in totals.items():
    print(f"[2048, 1, 1, 0] in float16, {name}: {total.item()}")
    #> [2048, 1, 1, 0] in float16, torch.sum: 2050.0
    #> [2048, 1, 1, 0] in float16, running: 2048.0
    #> [2048, 1, 1, 0] in float16, tree: 2048.0
