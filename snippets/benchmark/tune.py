"""Time the Triton kernels at every launch setting worth trying; print the fastest per N.

    python -m snippets.benchmark.tune            # a CUDA GPU: bfloat16
    python -m snippets.benchmark.tune --smoke    # tiny sizes, Triton's interpreter on a CPU

Rows of N elements, M of them: 262144 rows for N <= 256 (QK-norm's head_dim rows), else
16384 rows or as many as make a 512 MiB tensor. The forward kernel is timed at each rows per
program and num_warps, the backward (with its dw reduction) at each programs per SM, BLOCK_M
and num_warps; from N = 16384 on also the wide kernels, which loop over a row in chunks, at
each chunk, num_warps (and programs per SM). Each is launched as the kernel's launchers run
it: a CUDA graph replayed, the median of do_bench (L2 flushed), as run.py times a pass. A
setting is left out when a thread would hold more than MOST_VALUES values of a tile, which
spills registers. Each figure is a percentage of a copy of x timed the same way (torch's
copy_, not run.py's equal-bytes copy kernel: the figures rank settings and are not
comparable with the published ones), with the
fewest bytes each pass must move (forward 2MNs, backward 3MNs). The table printed gives, for
each N, the fastest setting, its figure and the figure of the kernel's own setting today
(FORWARD_SETTINGS, FORWARD_WIDE, BACKWARD_SETTINGS and BACKWARD_WIDE in
snippets/kernel/rms_norm_triton.py). The JSON written (build/benchmark/tune-<device>.json)
holds every setting's figure, for planning; the Benchmark page publishes only run.py's.
"""

import argparse
from dataclasses import replace
from functools import partial
from pathlib import Path
from unittest import mock

import torch

from snippets.benchmark.run import (  # sets TRITON_INTERPRET=1 without a GPU
    SETUPS,
    SMOKE,
    environment,
    file_name,
    time_pass,
    write_json,
)
import triton

from snippets.kernel.rms_norm_triton import (
    Launch,
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
TILES = (2048, 4096, 8192)  # values in a tile of several short rows (N <= 512)
CHUNKS = (2048, 4096, 8192)  # the wide kernels' chunks
WIDE_FROM = 16384  # the wide kernels are tried from this BLOCK_N on
WIDE_WARPS = (4, 8, 16)
WIDE_PER_SM = (1, 2, 4)
MOST_VALUES = 64  # of one tile-sized tensor per thread (the kernel's comment: spills)
EPS = 1e-6
SIZES = {
    "gpu": (64, 128, 256, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144),
    "smoke": (64,),
}

def rows(kind: str, n: int) -> int:
    if kind == "smoke":
        return 2  # Triton's interpreter runs one row after another
    return 262144 if n <= 256 else min(16384, 2**28 // n)

def fits(values: int, warps: int) -> bool:
    return values <= MOST_VALUES * 32 * warps

def block_ms(block_n: int, choices: tuple[int, ...]) -> tuple[int, ...]:
    """Rows per tile: tiles of TILES values for short rows, else the choices."""
    return tuple(tile // block_n for tile in TILES) if block_n <= 512 else choices

def forward_settings(n: int) -> list[Launch]:
    block_n = triton.next_power_of_2(n)
    found = [
        Launch(block_n, block_m, warps, wide=False)
        for block_m in block_ms(block_n, (1,))
        for warps in WARPS
        if fits(block_m * block_n, warps)
    ]
    if block_n >= WIDE_FROM:
        found += [
            Launch(chunk, 1, warps, wide=True)
            for chunk in CHUNKS
            for warps in WIDE_WARPS
            if fits(chunk, warps)
        ]
    return found

def backward_settings(n: int, sms: int) -> list[Launch]:
    block_n = triton.next_power_of_2(n)
    found = [
        Launch(block_n, block_m, warps, False, per_sm * sms)
        for per_sm in PER_SM
        for block_m in block_ms(block_n, BLOCK_M)
        for warps in BACKWARD_WARPS
        if fits(block_m * block_n, warps)
    ]
    if block_n >= WIDE_FROM:
        found += [
            Launch(chunk, 1, warps, True, per_sm * sms)
            for per_sm in WIDE_PER_SM
            for chunk in CHUNKS
            for warps in WIDE_WARPS
            if fits(chunk, warps)
        ]
    return found

def percent_of_copy(run, copy_ms, tensors, setup) -> float:
    """run's speed as % of the copy's: it moves `tensors` x-sized tensors, the copy two."""
    return 100 * (tensors / 2) * copy_ms / time_pass(lambda: run, "graph", setup)

def sweep(n: int, m: int, dtype, setup) -> dict:
    """Every setting's % of copy at one N: forward and backward."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.randn(m, n, device=device, dtype=dtype)
    weight = torch.rand(n, device=device, dtype=dtype)
    dy = torch.randn_like(x)
    out = torch.empty_like(x)
    copy_ms = time_pass(lambda: partial(out.copy_, x), "graph", setup)
    _, rstd, _ = rms_norm_forward(x, weight, EPS, 0.0)
    sms = sm_count(x.device)
    found = {"n": n, "m": m, "copy_ms": copy_ms, "forward": [], "backward": []}
    for launch in forward_settings(n):
        with mock.patch(f"{KERNEL}.forward_launch", return_value=launch):
            run = partial(rms_norm_forward, x, weight, EPS, 0.0)
            percent = percent_of_copy(run, copy_ms, 2, setup)
        found["forward"].append({**launch._asdict(), "copy_percent": percent})
    for launch in backward_settings(n, sms):
        with mock.patch(f"{KERNEL}.backward_launch", return_value=launch):
            run = partial(rms_norm_backward, dy, x, weight, rstd, 0.0)
            percent = percent_of_copy(run, copy_ms, 3, setup)
        found["backward"].append({**launch._asdict(), "copy_percent": percent})
    return found

# --8<-- [end:sweep]

def current(n: int, sms: int) -> tuple[Launch, Launch]:
    """The kernel's own settings today: forward and backward."""
    return forward_launch(n), backward_launch(n, sms)

def _name(launch: Launch) -> str:
    kind = (
        f"wide chunk {launch.block_n}" if launch.wide else f"BLOCK_M {launch.block_m}"
    )
    programs = "" if launch.most is None else f", {launch.most} programs"
    return f"{kind}, {launch.num_warps} warps{programs}"

def summary(found: dict, sms: int) -> list[str]:
    """Per N: the fastest setting of each pass and the kernel's current one, in %."""
    lines, nan = [], float("nan")
    for mode, now in zip(["forward", "backward"], current(found["n"], sms)):
        figures = {Launch(**{k: v for k, v in f.items() if k != "copy_percent"}):
                   f["copy_percent"] for f in found[mode]}  # fmt: skip
        best = max(figures, key=figures.get)
        where = f"N={found['n']:<6} " if mode == "forward" else " " * 9
        lines.append(
            f"{where}{mode:<8} best {_name(best)} {figures[best]:6.1f}%;"
            f" now {_name(now)} {figures.get(now, nan):6.1f}%"
        )
    return lines

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
    results |= {"dtype": "torch.bfloat16", "sizes": []}
    torch.manual_seed(0)
    for n in args.sizes or SIZES[kind]:
        found = sweep(n, rows(kind, n), torch.bfloat16, setup)
        results["sizes"].append(found)
        print("\n".join(summary(found, sms)), flush=True)
    name = f"tune-{file_name(results['device'])}.json"
    write_json(results, Path(args.out or SMOKE / name))
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
