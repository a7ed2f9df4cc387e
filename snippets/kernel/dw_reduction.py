"""Summing dw over rows: this site's partials and Triton's tutorial's locked buffer."""

import torch
import triton

from snippets.kernel.rms_norm_triton import backward_launch

# dw's buffers, M = 16384 rows of bfloat16 (s = 2 bytes), 132 SMs. Here: a float32 row
# per program. Tutorial: GROUP_SIZE_M rows in x's dtype, an int32 lock and count each.
GROUP_SIZE_M = {1024: 256, 4096: 128, 16384: 64}  # python/tutorials/05-layer-norm.py
m, s, sms = 16384, 2, 132
table = ["    N   this site            tutorial"]
for n, group in GROUP_SIZE_M.items():
    launch = backward_launch(n, sms)
    programs = min(launch.most, triton.cdiv(m, launch.block_m))
    site = f"{programs:>3} rows {programs * n * 4 / 2**20:5.2f} MiB"
    tutorial = group * n * s + 2 * group * 4
    table.append(f"{n:>5}   {site}   {group:>3} rows {tutorial / 2**20:5.2f} MiB")
print("\n".join(table))
"""
    N   this site            tutorial
 1024   528 rows  2.06 MiB   256 rows  0.50 MiB
 4096   264 rows  4.12 MiB   128 rows  1.00 MiB
16384   132 rows  8.25 MiB    64 rows  2.00 MiB
"""

# The tutorial's program for row i adds its dy * x_hat (float32: it loads the weight as
# float32, so its .to(w.dtype) changes nothing) to buffer row i % GROUP_SIZE_M (float16)
# once it holds its lock, in float32, and stores the sum rounded to float16. Two orders
# of getting the lock, the rows' own and a random one, on a CPU:
torch.manual_seed(0)
m, n, group = 2048, 1024, GROUP_SIZE_M[1024]
contribution = 0.1 * torch.randn(m, n)  # dy * x_hat per row
dw = []
for order in [torch.arange(m), torch.randperm(m)]:
    buffer = torch.zeros(group, n, dtype=torch.float16)
    for row in order.tolist():
        total = buffer[row % group].float() + contribution[row]
        buffer[row % group] = total.half()  # one rounding at each addition
    dw.append(buffer.float().sum(0).half())  # summed in float32, stored in w's dtype
print(f"two lock orders: {(dw[0] != dw[1]).sum()} of {n} elements of dw differ")
#> two lock orders: 694 of 1024 elements of dw differ

# Each rounding to float16 also costs accuracy. At M = 16384 rows and 64 buffer rows (the
# tutorial's GROUP_SIZE_M at N = 16384; 256 columns of one draw here), dw's largest and
# mean error, in float16 steps at dw's largest entry, against the sum in float32 rounded
# once (the largest moves with the draw; the mean, over 256 columns, much less):
m, n, group = 16384, 256, GROUP_SIZE_M[16384]
contribution = 0.1 * torch.randn(m, n)
buffer = torch.zeros(group, n, dtype=torch.float16)
for row in range(m):
    buffer[row % group] = (buffer[row % group].float() + contribution[row]).half()
exact = contribution.double().sum(0)
step = 2.0 ** (torch.floor(torch.log2(exact.abs().max())) - 10)  # float16's 10 bits
for name, dw in [("tutorial", buffer.float().sum(0)), ("float32", contribution.sum(0))]:
    error = (dw.half().double() - exact).abs() / step
    print(f"{name:<8} error: largest {error.max():.2f}, mean {error.mean():.2f} steps")
    #> tutorial error: largest 2.92, mean 0.76 steps
    #> float32  error: largest 0.25, mean 0.06 steps
