import math

import torch

from snippets.math.summation import running_sum, tree_sum

# Unit roundoff: the largest relative error of one rounding to float32.
u = torch.finfo(torch.float32).eps / 2
torch.manual_seed(0)

# Worst cases: (n - 1) u for a running total, log2(n) u for a tree (to first order).
names = ["running", "tree", "sqrt(n) u", "(n - 1) u", "log2(n) u"]
table = [f"{'n':<6}" + "".join(f"{name:>11}" for name in names)]
for n in [1024, 4096, 16384, 65536]:
    squares = torch.randn(n) ** 2
    exact = squares.double().sum().item()
    sums = [add_up(squares).item() for add_up in [running_sum, tree_sum]]
    running, tree = [abs(total / exact - 1) for total in sums]
    row = [running, tree, n**0.5 * u, (n - 1) * u, math.log2(n) * u]
    table.append(f"{n:<6}" + "".join(f"{value:11.1e}" for value in row))
print("\n".join(table))
"""
n         running       tree  sqrt(n) u  (n - 1) u  log2(n) u
1024      1.2e-07    1.0e-08    1.9e-06    6.1e-05    6.0e-07
4096      7.5e-07    1.0e-08    3.8e-06    2.4e-04    7.2e-07
16384     6.2e-07    3.3e-08    7.6e-06    9.8e-04    8.3e-07
65536     8.5e-06    4.4e-08    1.5e-05    3.9e-03    9.5e-07
"""

# The output scales by the mean square to the power -1/2: it inherits half the error.
running, tree = [abs((total / exact) ** -0.5 - 1) for total in sums]
print(f"output error at n = 65536: running {running:.1e}, tree {tree:.1e}")
#> output error at n = 65536: running 4.3e-06, tree 2.2e-08
for dtype in [torch.float16, torch.float32]:
    print(f"rounding to {str(dtype)[6:]}: up to {torch.finfo(dtype).eps / 2:.1e}")
    #> rounding to float16: up to 4.9e-04
    #> rounding to float32: up to 6.0e-08
