"""Time the Triton kernels at every launch setting worth trying; print the fastest per N.

    python -m snippets.benchmark.tune            # a CUDA GPU: bfloat16, M = 16384
    python -m snippets.benchmark.tune --smoke    # tiny sizes, Triton's interpreter on a CPU

The forward kernel is timed at each num_warps, the backward (with its dw reduction) at each
programs per SM, BLOCK_M and num_warps, as the kernel's launchers run them: a CUDA graph
replayed, the median of do_bench (L2 flushed), as run.py times a pass. A setting is left out
when a thread would hold more than MOST_VALUES values of a tile, which spills registers. Each
figure is a percentage of a copy of x timed the same way, with the fewest bytes each pass
must move (forward 2MNs, backward 3MNs). The table printed gives, for each N, the fastest
setting, its figure and the figure of the kernel's own setting today: the rows of
FORWARD_WARPS and BACKWARD_SETTINGS in snippets/kernel/rms_norm_triton.py. The JSON written
(build/benchmark/tune-<device>.json) holds every setting's figure, for planning; the
Benchmark page publishes only run.py's figures.
"""

import argparse
from dataclasses import replace
from functools import partial
from pathlib import Path
from unittest import mock

import torch

from snippets.benchmark.run import (
    SETUPS,
    SMOKE,
    copy_of,
    environment,
    file_name,
    time_pass,
    write_json,
)
from snippets.kernel.rms_norm_triton import (
    backward_launch,
    forward_launch,
    rms_norm_backward,
    rms_norm_forward,
    sm_count,
)

KERNEL = "snippets.kernel.rms_norm_triton"  # its launch settings are patched by name

# --8<-- [start:sweep]
WARPS = (1, 2, 4, 8, 16, 32)
PER_SM = (1, 2, 4, 8)
BLOCK_M = (1, 2, 4, 8)
BACKWARD_WARPS = (4, 8, 16, 32)
MOST_VALUES = 64  # of one tile-sized tensor per thread (the kernel's comment: spills)
EPS = 1e-6
SIZES = {"gpu": (1024, 2048, 4096, 8192, 16384, 32768, 65536), "smoke": (64,)}

def forward_settings(block_n: int) -> list[int]:
    return [w for w in WARPS if block_n <= MOST_VALUES * 32 * w]

def backward_settings(block_n: int) -> list[tuple[int, int, int]]:
    """(programs per SM, BLOCK_M, num_warps)."""
    return [
        (per_sm, block_m, warps)
        for per_sm in PER_SM
        for block_m in BLOCK_M
        for warps in BACKWARD_WARPS
        if block_m * block_n <= MOST_VALUES * 32 * warps
    ]

def percent_of_copy(run, copy_ms, tensors, setup) -> float:
    """run's speed as % of the copy's: it moves `tensors` x-sized tensors, the copy two."""
    return 100 * (tensors / 2) * copy_ms / time_pass(lambda: run, "graph", setup)

def sweep(n: int, rows: int, dtype, setup) -> dict:
    """Every setting's % of copy at one N: forward and backward."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.randn(rows, n, device=device, dtype=dtype)
    weight = torch.rand(n, device=device, dtype=dtype)
    dy = torch.randn_like(x)
    out = torch.empty_like(x)
    copy_ms = time_pass(partial(copy_of, x, out), "graph", setup)
    _, rstd, _ = rms_norm_forward(x, weight, EPS, 0.0)
    sms = sm_count(x.device)
    block_n, _ = forward_launch(n)
    found = {"n": n, "copy_ms": copy_ms, "forward": [], "backward": []}
    for warps in forward_settings(block_n):
        settings = (block_n, warps)
        with mock.patch(f"{KERNEL}.forward_launch", return_value=settings):
            run = partial(rms_norm_forward, x, weight, EPS, 0.0)
            percent = percent_of_copy(run, copy_ms, 2, setup)
        found["forward"].append({"num_warps": warps, "copy_percent": percent})
    for per_sm, block_m, warps in backward_settings(block_n):
        launch = (block_n, block_m, warps, per_sm * sms)
        with mock.patch(f"{KERNEL}.backward_launch", return_value=launch):
            run = partial(rms_norm_backward, dy, x, weight, rstd, 0.0)
            percent = percent_of_copy(run, copy_ms, 3, setup)
        found["backward"].append(
            {"per_sm": per_sm, "block_m": block_m, "num_warps": warps,
             "copy_percent": percent}
        )  # fmt: skip
    return found

# --8<-- [end:sweep]

def current(n: int, sms: int) -> tuple[int, tuple[int, int, int]]:
    """The kernel's own settings today: forward warps; backward (per SM, BLOCK_M, warps)."""
    _, warps = forward_launch(n)
    _, block_m, backward_warps, most = backward_launch(n, sms)
    return warps, (most // sms, block_m, backward_warps)

def summary(found: dict, sms: int) -> list[str]:
    """Per N: the fastest setting of each pass and the kernel's current one, in %."""
    warps, (per_sm, block_m, backward_warps) = current(found["n"], sms)
    forward = {f["num_warps"]: f["copy_percent"] for f in found["forward"]}
    backward = {
        (b["per_sm"], b["block_m"], b["num_warps"]): b["copy_percent"]
        for b in found["backward"]
    }
    best_warps = max(forward, key=forward.get)
    best = max(backward, key=backward.get)
    now = (per_sm, block_m, backward_warps)
    n, nan = found["n"], float("nan")
    return [
        f"N={n:<6} forward  best {best_warps:>2} warps {forward[best_warps]:6.1f}%;"
        + f" now {warps:>2} warps {forward.get(warps, nan):6.1f}%",
        f"{'':8} backward best {best} {backward[best]:6.1f}%;"
        + f" now {now} {backward.get(now, nan):6.1f}%",
    ]

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m snippets.benchmark.tune")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, any device")
    parser.add_argument("--sizes", nargs="+", type=int, help="these N only")
    parser.add_argument("--out", help="the JSON file to write")
    args = parser.parse_args(argv)
    kind = "smoke" if args.smoke else "gpu"
    if kind == "gpu" and not torch.cuda.is_available():
        parser.error("tuning needs a CUDA GPU; --smoke runs without one")
    setup = replace(SETUPS[kind], rep_ms=min(SETUPS[kind].rep_ms, 20))
    device = torch.device("cuda" if kind == "gpu" else "cpu")
    sms = sm_count(device)
    results = environment(kind, device, None)
    results |= {"rows": setup.rows, "dtype": "torch.bfloat16", "sizes": []}
    torch.manual_seed(0)
    for n in args.sizes or SIZES[kind]:
        found = sweep(n, setup.rows, torch.bfloat16, setup)
        results["sizes"].append(found)
        print("\n".join(summary(found, sms)), flush=True)
    name = f"tune-{file_name(results['device'])}.json"
    write_json(results, Path(args.out or SMOKE / name))
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
