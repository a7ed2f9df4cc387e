import numpy as np
import torch

from snippets.implementations.rms_norm_module import RMSNorm
from snippets.kernel.rms_norm_triton import rms_norm_triton

# On a CPU, run with TRITON_INTERPRET=1: Triton's interpreter then runs the kernel.
device = "cuda" if torch.cuda.is_available() else "cpu"
EPS = 1e-6

def tree_sum(values):
    """Pairs, then pairs of pairs, along the last dimension (kept, of size 1)."""
    while values.shape[-1] > 1:
        values = values[..., 0::2] + values[..., 1::2]
    return values

def threads_per_row(rows):
    # As vLLM's fused_add_rms_norm launches its blocks: 1024 threads for fewer than 256
    # rows, 256 from 256 rows on, to keep more rows in flight.
    return 1024 if rows < 256 else 256

def sum_of_squares_by_batch(x):
    """Thread t adds elements t, t + T, t + 2T, ... of the row in turn, then the T
    threads' totals are added in pairs; T follows the number of rows."""
    rows, n = x.shape
    threads = threads_per_row(rows)
    squares = x.float().pow(2).view(rows, n // threads, threads)
    totals = torch.zeros(rows, threads)
    for step in squares.unbind(1):
        totals = totals + step  # each thread's running total, in float32
    return tree_sum(totals)

def rms_norm_by_batch(x, weight):
    rms = torch.rsqrt(sum_of_squares_by_batch(x) / x.shape[-1] + EPS)
    return (x.float() * rms * weight.float()).to(x.dtype)

def changed(norm, x, batches=(7, 256, 4097), first=7):
    """For each batch of m rows (the first rows and m - first more): how many of the
    first rows come out with other bits than when each is normalized alone."""
    alone = torch.cat([norm(x[i : i + 1]) for i in range(first)])
    return [(norm(x[:m])[:first] != alone).any(-1).sum().item() for m in batches]

# float32 rows, where a last-bit difference of the sum can show in the output. NumPy draws
# them: torch.randn's values can follow the CPU's vector width.
rng = np.random.default_rng(2)
x = torch.from_numpy(rng.standard_normal((4097, 4096), dtype=np.float32))
module = RMSNorm(4096, eps=EPS)
weight = module.weight.detach()
with torch.no_grad():
    print("rows of 7 whose output changes in a batch of 7, 256, 4097 rows:")
    #> rows of 7 whose output changes in a batch of 7, 256, 4097 rows:
    print(f"site's module, N = 4096: {changed(module, x)}")
    #> site's module, N = 4096: [0, 0, 0]
    by_batch = changed(lambda rows: rms_norm_by_batch(rows, weight), x)
    print(f"split by batch, N = 4096: {by_batch}")
    #> split by batch, N = 4096: [0, 1, 1]
    threads = [threads_per_row(m) for m in (1, 7, 256, 4097)]
    print(f"  its threads per row for 1, 7, 256, 4097 rows: {threads}")
    #>   its threads per row for 1, 7, 256, 4097 rows: [1024, 1024, 256, 256]
    sums = changed(sum_of_squares_by_batch, x)
    print(f"  rows of 7 whose sum of squares changes: {sums}")
    #>   rows of 7 whose sum of squares changes: [0, 2, 2]
    # bfloat16 rows, as a served model's: all 4097 rows in batches of 255 (1024 threads
    # per row) against one batch (256 threads per row).
    b = x.bfloat16()
    alone = torch.cat([rms_norm_by_batch(c, weight) for c in b.split(255)])
    differ = alone != rms_norm_by_batch(b, weight)
    small = torch.cat([sum_of_squares_by_batch(c) for c in b.split(255)])
    sums = (small != sum_of_squares_by_batch(b)).float().mean()
    count, share = differ.sum().item(), differ.float().mean()
    print(f"split by batch, bfloat16: sums differ in {sums:.1%} of rows,")
    #> split by batch, bfloat16: sums differ in 33.6% of rows,
    print(f"  outputs in {count} of {differ.numel()} ({share:.1e})")
    #>   outputs in 28 of 16781312 (1.7e-06)
    # The interpreter runs each program in Python: short rows (QK-norm's head_dim 64).
    # It sums each row with NumPy whatever the tile: it cannot show a batch's split.
    q = torch.from_numpy(rng.standard_normal((4097, 64), dtype=np.float32)).to(device)
    w = torch.full((64,), 1.5, device=device)
    kernel = changed(lambda rows: rms_norm_triton(rows, w, EPS), q)
    print(f"site's Triton kernel, N = 64: {kernel}")
    #> site's Triton kernel, N = 64: [0, 0, 0]
    # A long row alone is summed by all of PyTorch's CPU threads, each taking a share;
    # in a batch, each thread sums whole rows: another order of additions.
    wide = torch.from_numpy(rng.standard_normal((64, 262144), dtype=np.float32))
    wide_module = RMSNorm(262144, eps=EPS)
    mean_square = lambda rows: rows.pow(2).mean(-1)  # the module's statistic, per row
    print("site's module, N = 262144, 64 rows alone and in one batch, rows changed:")
    #> site's module, N = 262144, 64 rows alone and in one batch, rows changed:
    threads, sums = torch.get_num_threads(), {}  # the thread count is restored below
    for count in (1, 2):
        torch.set_num_threads(count)
        alone = torch.cat([mean_square(row[None]) for row in wide])
        sums[count] = alone, mean_square(wide)
        differ = (alone != sums[count][1]).sum().item()
        [outputs] = changed(wide_module, wide, [64], first=64)
        print(f"  CPU threads {count}: mean squares {differ}, outputs {outputs}")
        #>   CPU threads 1: mean squares 0, outputs 0
        #>   CPU threads 2: mean squares 23, outputs 7
    torch.set_num_threads(threads)
    # Which sums moved: the rows alone, split between the threads, not the batch's.
    moved = [(sums[1][i] != sums[2][i]).sum().item() for i in (0, 1)]
    print(f"  1 to 2 threads, sums changed: alone {moved[0]}, in a batch {moved[1]}")
    #>   1 to 2 threads, sums changed: alone 23, in a batch 0
