"""Time the site's RMSNorms, LayerNorm and copies of equal bytes; write one JSON file.

    python -m snippets.benchmark.run            # a CUDA GPU: snippets/benchmark/results/<gpu>.json
    python -m snippets.benchmark.run --cpu      # this CPU: snippets/benchmark/results/cpu/<cpu>.json
    python -m snippets.benchmark.run --smoke    # tiny shapes, any device: build/benchmark/smoke.json

A GPU run times x of shape (M, N) in four groups of shapes: "rows", M = 16384 at N = 1024
to 16384, every implementation, the residual add with the norm too; "decode", M = 1, 16
and 256 at N = 4096 (generating a token at a time); "qk-norm", M = 262144 at N = 64, 128 and
256 (each head normalized over its head dimension); "wide", rows of 32768 to 262144 of 512
MiB in bfloat16. The groups but "rows" time F.rms_norm, the site's kernel, Liger-Kernel,
torch.compile and QuACK (those installed); one that fails at a shape (Liger-Kernel refuses
N > 65536) is recorded as failed there. A smoke run times tiny stand-ins of each group; a
CPU run (--cpu) one shape, 4096 x 2048, in float32.

A GPU run can also be done in parts, one call each (by dtype, group and N), and the parts
merged into one file; host_us is measured by a part that times bfloat16 in the group "rows":

    python -m snippets.benchmark.run --dtypes bfloat16 --groups rows --out build/benchmark/a.json
    python -m snippets.benchmark.run --dtypes float32 --sizes 1024 2048 --out ...
    python -m snippets.benchmark.run --merge build/benchmark/a.json build/benchmark/...

Three passes are timed: the forward without autograd; the backward alone, run again and again
from one forward whose graph is kept (retain_graph=True); and forward+backward, the pass
training runs. A backward returns its gradients (torch.autograd.grad) rather than adding them
into .grad: x and the residual share one gradient, which .backward() would copy into one of
the two leaves' .grad, a copy a training step, whose x and r are not leaves, never makes.

Every figure is timed twice. "graph": the pass is captured in a CUDA graph, afresh in each
round, and replayed, the median of triton.testing.do_bench, so it is the GPU's time alone.
"eager": the pass is launched from Python every time onto an idle GPU, timed by CUDA events
from before its launch to its end, host time included: the median of calls made for as long
as do_bench's. Both flush the L2 cache before every call. Each figure is measured in several
rounds, the implementations taking turns within a round, and recorded as the median and the
range of its rounds; a first round, whose times are dropped, warms everything up.

GB/s counts the fewest bytes B a pass must move (forward 2MNs, backward 3MNs, forward and
backward 5MNs). The yardstick of each figure is a copy that moves as many bytes: a Triton
kernel on the SMs (copy_kernel) reading B/2 bytes of a flat buffer of the pass's dtype and
writing them into another, timed the same way in the same rounds (its buffers allocated for
that copy alone); copy_percent is the pass's GB/s over that copy's. On a GPU listed in
PEAK_GBPS every figure is also a percentage of the GPU's peak bandwidth (peak_percent).

The residual add with the norm after it (h = x + r, y = RMSNorm(h); returns y and h) is timed
on a GPU as its own rows, unfused and fused, with the fused pass's fewest bytes (forward 4MNs,
backward 4MNs, forward and backward 8MNs); its backward takes the gradients of both y and h.

torch.compile is compiled afresh for every dtype, shape and pass (torch._dynamo.reset()
first), with fullgraph=True and a recompile limit of 1 that fails when hit: a graph break or a
second compile (which would otherwise run part of the pass uncompiled, or compile again and
after 8 compiles fall back to eager code with a logged warning)
is recorded as a failure, never as a figure. For the backward alone it compiles with
donated buffers off (torch._functorch.config.donated_buffer = False): a compiled backward
otherwise hands the forward's saved buffers over to itself and refuses retain_graph=True,
which a backward timed again from one forward needs.

host_us is the host's time per call on tiny tensors, the median of many calls each timed by
the host clock with the GPU otherwise idle: each implementation's passes, and "bare launch
(Triton)", the site's forward kernel and its backward kernel each launched alone on tensors
allocated beforehand.

On a CPU there is no CUDA graph and no do_bench: the host clock times the calls (the median of
the calls of each round), and in a smoke run the "graph" figures are a labelled stand-in, the
same pass called directly, and torch.compile is left out (a smoke run on a GPU keeps it, so
that compiled passes captured in CUDA graphs are tried before the real run).
"""

import argparse
import ast
import datetime
import hashlib
import json
import os
import platform
import re
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from importlib import metadata
from pathlib import Path

import torch
import torch.nn.functional as F

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported

import triton
import triton.language as tl

from snippets.implementations.variants import (
    rms_norm_llama,
    rms_norm_scratch,
    rms_norm_torch,
)
from snippets.kernel.rms_norm_triton import (
    add_rms_norm_triton,
    backward_programs,
    launch_backward,
    launch_forward,
    rms_norm_triton,
)

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).resolve().parent / "results"  # GPU results, committed
CPU_RESULTS = RESULTS / "cpu"  # CPU results, committed, never read as GPU results
SMOKE = ROOT / "build" / "benchmark"  # smoke runs, tune.py: never among the results
# The code the figures depend on, by kind of run: results measured on other code are stale.
CODE = ["snippets/benchmark/run.py", "snippets/implementations/variants.py"]
MEASURED_CODE = {
    "gpu": [*CODE, "snippets/kernel/rms_norm_triton.py"],
    "smoke": [*CODE, "snippets/kernel/rms_norm_triton.py"],
    "cpu": CODE,  # no Triton kernel on a CPU
}
EPS = 1e-6
MODES = ["forward", "backward", "forward+backward"]
# x M*N*s bytes at least: the norm alone, and the residual add with the norm after it.
PASSES = {"forward": 2, "backward": 3, "forward+backward": 5}
ADD_PASSES = {"forward": 4, "backward": 4, "forward+backward": 8}
PACKAGES = ["torch", "triton", "liger-kernel", "quack-kernels"]
# The HBM bandwidth each GPU is sold with, GB/s, and where it is stated: every figure is also
# a percentage of it (null on a GPU not listed, and on a CPU).
PEAK_GBPS = {
    "NVIDIA H100 80GB HBM3": (
        3350,
        "NVIDIA H100 Tensor Core GPU datasheet, SXM5: 3.35 TB/s",
    ),
    "NVIDIA H200": (4800, "NVIDIA H200 datasheet: 4.8 TB/s"),
}
# The implementations the groups other than "rows" time (those found); "rows" times all.
FEW = (
    "torch F.rms_norm",
    "Triton (this site)",
    "Liger-Kernel",
    "torch.compile naive",
    "QuACK",
)
# host_us's extra row: the site's kernels launched alone (forward, backward) on tensors
# allocated beforehand, what any call of the norm costs the host at least.
BARE = "bare launch (Triton)"
# How each timing was taken, by device; the page names them in its own words.
TIMERS = {
    "cuda": {"graph": "cuda-graph-replay", "eager": "python-calls"},
    "cpu": {"graph": "cpu-stand-in-direct-calls", "eager": "python-calls"},
}
# torch.compile's backend (the tests use "eager", which generates no code: quicker).
BACKEND = "inductor"
# fullgraph=True turns a graph break into an error; this turns a second compile into one.
ONE_COMPILE = {"recompile_limit": 1, "fail_on_recompile_limit_hit": True}
# A compiled backward that keeps the forward's buffers, so that it can run again (backward
# alone); every other pass compiles as torch.compile does by default.
KEEP_BUFFERS = {"backward": {"donated_buffer": False}}

@dataclass(frozen=True)
class Setup:
    kind: str  # "gpu", "cpu" or "smoke"
    groups: dict[str, tuple[tuple[int, int], ...]]  # name -> its shapes (M, N) of x
    dtypes: tuple[torch.dtype, ...]
    timings: tuple[str, ...]
    rounds: int
    rep_ms: float  # time spent timing one figure in one round
    min_calls: int  # timed calls at least, on a CPU (on a GPU do_bench decides)
    host_calls: int  # calls timed for host_us; 0: no host_us
    host_shape: tuple[int, int] = (16, 1024)  # the tiny x of host_us

    @property
    def rows(self) -> int:
        """M of the group "rows" (tune.py's M)."""
        return self.groups["rows"][0][0]

SETUPS = {
    "gpu": Setup(
        "gpu",
        {
            # M = 16384 tokens (a batch), every implementation, the residual add too.
            "rows": tuple((16384, n) for n in (1024, 2048, 4096, 8192, 16384)),
            # Generating: a token at a time, for 1 to 256 sequences.
            "decode": ((1, 4096), (16, 4096), (256, 4096)),
            # QK-norm: every head of every token normalized over its head dimension.
            "qk-norm": ((262144, 64), (262144, 128), (262144, 256)),
            # Long rows (the backward, and the forward from 131072, loop over chunks); x of
            # 512 MiB in bfloat16 each.
            "wide": ((8192, 32768), (4096, 65536), (2048, 131072), (1024, 262144)),
        },
        (torch.bfloat16, torch.float16, torch.float32),
        ("graph", "eager"),
        rounds=3,
        rep_ms=25,
        min_calls=0,
        host_calls=1000,
    ),
    # x of 4096 rows of 2048: 8 sequences of 512 tokens, hidden size 2048.
    "cpu": Setup(
        "cpu",
        {"rows": ((8 * 512, 2048),)},
        (torch.float32,),
        ("eager",),
        rounds=5,
        rep_ms=300,
        min_calls=3,
        host_calls=0,
    ),
    # Tiny stand-ins of the GPU's groups: few rows, as Triton's interpreter runs one
    # program after another.
    "smoke": Setup(
        "smoke",
        {
            "rows": ((2, 100), (2, 256)),
            "decode": ((1, 64),),
            "qk-norm": ((8, 16),),
            "wide": ((2, 300),),
        },
        (torch.float32, torch.bfloat16),
        ("graph", "eager"),
        rounds=3,
        rep_ms=0,
        min_calls=1,
        host_calls=10,
        host_shape=(4, 100),
    ),
}

@dataclass(frozen=True)
class Implementation:
    fn: Callable  # fn(x, weight, bias), or fn(x, weight, bias, residual) -> (y, h)
    compiled: bool = False  # torch.compile'd afresh for every configuration
    residual: bool = False  # h = x + residual, y = norm(h): returns (y, h)

def layer_norm(x, weight, bias):
    return F.layer_norm(x, x.shape[-1:], weight, bias, EPS)

def rms_norm_naive(x, weight, bias):
    return rms_norm_scratch(x, weight, EPS)

def add_then_rms_norm(x, weight, bias, residual):
    h = x + residual
    return rms_norm_torch(h, weight, EPS), h

def add_then_triton(x, weight, bias, residual):
    h = x + residual
    return rms_norm_triton(h, weight, EPS), h

def add_rms_norm_fused(x, weight, bias, residual):
    return add_rms_norm_triton(x, residual, weight, EPS)

# The residual add and the norm, unfused and fused (GPU and smoke runs).
ADD_AND_NORM = {
    "eager add + F.rms_norm": Implementation(add_then_rms_norm, residual=True),
    "add + Triton RMSNorm (this site)": Implementation(add_then_triton, residual=True),
    "Triton add+RMSNorm (this site)": Implementation(add_rms_norm_fused, residual=True),
    "torch.compile add+norm": Implementation(
        add_then_rms_norm, compiled=True, residual=True
    ),
}

def implementations(kind: str) -> tuple[dict, dict]:
    """name -> Implementation, and name -> why it was left out."""
    found = {
        "eager naive": Implementation(rms_norm_naive),
        "eager Hugging Face": Implementation(lambda x, w, b: rms_norm_llama(x, w, EPS)),
        "torch F.rms_norm": Implementation(lambda x, w, b: rms_norm_torch(x, w, EPS)),
        "Triton (this site)": Implementation(
            lambda x, w, b: rms_norm_triton(x, w, EPS)
        ),
        "torch.compile naive": Implementation(rms_norm_naive, compiled=True),
        "LayerNorm eager": Implementation(layer_norm),
        "LayerNorm compiled": Implementation(layer_norm, compiled=True),
    }
    skipped = {}
    if kind != "cpu":
        found |= ADD_AND_NORM
    if kind == "smoke" and not torch.cuda.is_available():
        compiled = [name for name, impl in found.items() if impl.compiled]
        for name in compiled:
            del found[name]
            skipped[name] = "not in a smoke run: compiling for each shape takes minutes"
    if kind == "cpu":
        del found["Triton (this site)"]
        skipped["Triton (this site)"] = (
            "a GPU kernel (on a CPU only Triton's interpreter)"
        )
        skipped["Liger-Kernel"] = skipped["QuACK"] = "GPU kernels"
        return found, skipped
    try:
        from liger_kernel.ops.rms_norm import LigerRMSNormFunction

        # offset 0, LLaMA casting, dx written over dy: Liger's default, and its
        # LigerRMSNorm module's (a dy of other values costs the same time).
        found["Liger-Kernel"] = Implementation(
            lambda x, w, b: LigerRMSNormFunction.apply(x, w, EPS, 0.0, "llama", True)
        )
    except ImportError as error:
        skipped["Liger-Kernel"] = f"not installed ({error})"
    try:
        from liger_kernel.ops.fused_add_rms_norm import LigerFusedAddRMSNormFunction

        # X, R, W, eps, offset 0, LLaMA casting, dy not overwritten (its default: dx in a
        # tensor of its own, not zeroed first); returns (y, h).
        found["Liger-Kernel add+RMSNorm"] = Implementation(
            lambda x, w, b, r: LigerFusedAddRMSNormFunction.apply(
                x, r, w, EPS, 0.0, "llama", False
            ),
            residual=True,
        )
    except ImportError as error:
        skipped["Liger-Kernel add+RMSNorm"] = f"not installed ({error})"
    try:
        from quack import rmsnorm as quack_rmsnorm

        found["QuACK"] = Implementation(lambda x, w, b: quack_rmsnorm(x, w, eps=EPS))
    except ImportError as error:
        skipped["QuACK"] = f"not installed ({error})"
    return found, skipped

def in_group(found: dict, group: str) -> dict:
    """The implementations a group times: all in "rows", those of FEW in the others."""
    return {
        name: impl for name, impl in found.items() if group == "rows" or name in FEW
    }

def ready(found: dict) -> dict:
    """name -> the function to time; compiled ones compile afresh on their first call."""
    torch._dynamo.reset()  # nothing compiled for another shape, dtype or pass is reused
    return {
        name: (
            torch.compile(impl.fn, fullgraph=True, dynamic=False, backend=BACKEND)
            if impl.compiled
            else impl.fn
        )
        for name, impl in found.items()
    }

# --8<-- [start:timing]
def one_pass(fn, mode, x, weight, bias, dy, residual=None, dh=None):
    """The pass to time: a forward without autograd, a backward alone (from one forward
    whose graph is kept), or a forward and its backward. With a residual, fn returns y and
    h, and the backward takes the gradients of both."""
    args = (x, weight, bias) if residual is None else (x, weight, bias, residual)
    if mode == "forward":

        def forward():
            with torch.no_grad():
                fn(*args)

        return forward
    # The gradients are returned, not added into .grad: no copy a training step skips.
    leaves = [t for t in args if t.requires_grad]
    gradients = dy if residual is None else (dy, dh)
    if mode == "backward":
        outputs = fn(*args)
        return lambda: torch.autograd.grad(
            outputs, leaves, gradients, retain_graph=True
        )
    return lambda: torch.autograd.grad(fn(*args), leaves, gradients)

def graphed(make):
    """The pass that make() returns, captured once in a CUDA graph: a replay is GPU time
    alone. make() runs on the capture stream: a backward op runs on the stream its forward
    op ran on, so a backward alone captures only if its forward ran there too."""
    if not torch.cuda.is_available():
        return make()  # the CPU stand-in: no CUDA graph, the pass called directly
    side = torch.cuda.Stream()  # warm up (and compile) outside the capture
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        run = make()
        for _ in range(3):
            run()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=side):
        run()
    # The replay reads the pass's tensors (a backward's saved ones too): keep them alive.
    return partial(replay, graph, run)

def replay(graph, run):
    """graph replayed; run, never called, is held so that its tensors outlive graph."""
    graph.replay()

def median_ms(run, setup) -> float:
    """One call's median time in ms: do_bench on a GPU (its warm-up calls untimed), the
    host clock on a CPU (the warm-up round compiles what must be compiled)."""
    if torch.cuda.is_available():
        from triton.testing import do_bench

        # It flushes the L2 cache before every call: no call reads what the last left.
        return do_bench(run, warmup=10, rep=setup.rep_ms, return_mode="median")
    times, end = [], time.perf_counter() + setup.rep_ms / 1e3
    while len(times) < setup.min_calls or time.perf_counter() < end:
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)

def launched_ms(run, setup) -> float:
    """One call's median time in ms on a GPU, launched from Python onto an idle GPU: from
    the host's launch of its first operation to the end of its last, host time included.
    do_bench would hide host time: it queues its L2 flush and then the call without waiting,
    so the host launches the call while the GPU still flushes 256 MiB."""
    flush = torch.empty(256 * 2**20, dtype=torch.int8, device="cuda")  # do_bench's size
    start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
    for _ in range(10):
        run()  # warm-up, untimed
    times, stop = [], time.perf_counter() + setup.rep_ms / 1e3
    while len(times) < 10 or time.perf_counter() < stop:
        flush.zero_()  # no call reads what the last left in the L2 cache
        torch.cuda.synchronize()  # the GPU idle: it waits for the host from here on
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)

def time_pass(make, timing, setup) -> float:
    """ms per call of the pass make() returns, its graph replayed or called from Python."""
    if timing == "graph":
        return median_ms(graphed(make), setup)
    return (launched_ms if torch.cuda.is_available() else median_ms)(make(), setup)

@triton.jit
def copy_kernel(
    SRC,  # the flat buffer read
    DST,  # the flat buffer written: as many elements, of the same dtype
    numel,  # elements to copy
    BLOCK: tl.constexpr,  # elements per program, a power of two
):
    # Program p copies elements p * BLOCK to p * BLOCK + BLOCK - 1; int64, so that offsets
    # stay right past 2**31 elements.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < numel  # the last program's block may hang past the end
    tl.store(DST + offsets, tl.load(SRC + offsets, mask=mask), mask=mask)

COPY_BLOCK_BYTES = 16384  # each program copies 16 KiB,
COPY_WARPS = 8  # with 256 threads: 64 bytes, four 16-byte loads and stores, per thread

def copy_of(x, out):
    """The copy every figure is compared with: x copied into out (contiguous, as many
    elements of x's dtype) by copy_kernel: loads and stores on the SMs, as a norm's."""
    # Known defect, to fix with the next GPU run (a change of code makes the GPU results
    # stale): on a CPU this is Triton's interpreter, so a CPU run's copies and percentages
    # of copy mean nothing (the page shows none) and the run takes twice as long.
    block = COPY_BLOCK_BYTES // x.element_size()
    grid = (triton.cdiv(x.numel(), block),)
    return partial(
        copy_kernel[grid], x, out, x.numel(), BLOCK=block, num_warps=COPY_WARPS
    )

def copy_pass(moved, dtype, device):
    """A copy that moves `moved` bytes, as a pass does: it reads half and writes half. Its
    buffers are allocated here, for this copy alone, and freed with it."""
    source = torch.empty(moved // 2 // dtype.itemsize, dtype=dtype, device=device)
    return copy_of(source, torch.empty_like(source))

def pass_bytes(impl, mode, x) -> int:
    """The fewest bytes the pass must move: what GB/s counts, and what its copy moves."""
    size = x.numel() * x.element_size()
    return (ADD_PASSES if impl.residual else PASSES)[mode] * size

def measure(setup, found, x) -> tuple[dict, dict]:
    """ms per round for each (implementation, pass, timing), and for each (bytes, timing)
    of the copies that move as many bytes as those passes."""
    copies = {}  # (bytes, timing) -> [ms per round], or the error it raised (str)
    samples = {}  # (name, mode, timing) -> [ms per round], or the error it raised (str)
    for mode in MODES:
        with torch._functorch.config.patch(**KEEP_BUFFERS.get(mode, {})):
            measure_pass(setup, found, x, mode, samples, copies)
    return samples, copies

def measure_pass(setup, found, x, mode, samples, copies):
    """One pass's rounds, added to samples and copies. A copy of the bytes of two passes
    (the add's forward and backward) gathers the rounds of both."""
    fns = ready(found)  # compiled afresh for this dtype, shape and pass
    args = {name: inputs(found[name], name, x) for name in fns}
    moved = sorted({pass_bytes(impl, mode, x) for impl in found.values()})
    # A round: the copies, then each implementation. Round 0 warms up (compiles,
    # allocates, wakes the clocks): its times are dropped.
    for round_ in range(setup.rounds + 1):
        for timing in setup.timings:
            for size in moved:
                make = partial(copy_pass, size, x.dtype, x.device)
                timed(copies, (size, timing), make, timing, setup, round_)
            for name, fn in fns.items():
                make = partial(one_pass, fn, mode, *args[name])
                timed(samples, (name, mode, timing), make, timing, setup, round_)

def timed(samples, key, make, timing, setup, round_):
    """The pass make() returns timed once, its ms added to samples[key] (not in round 0),
    or the error it raised recorded there instead; nothing after a failed round."""
    if isinstance(samples.get(key), str):
        return  # it failed in an earlier round
    try:
        ms = time_pass(make, timing, setup)
        if round_:
            samples.setdefault(key, []).append(ms)
    except Exception as error:  # noqa: BLE001 (recorded, not hidden)
        samples[key] = repr(error)  # not the error: its frames hold memory

# --8<-- [end:timing]

def inputs(impl, name, x) -> tuple:
    """x (a leaf of its own), weight, bias (a leaf for LayerNorm only) and dy; and for the
    residual add, the residual (a leaf) and h's gradient dh."""
    n, device, dtype = x.shape[-1], x.device, x.dtype
    weight = torch.rand(n, device=device, dtype=dtype, requires_grad=True)
    bias = torch.zeros(n, device=device, dtype=dtype)
    bias.requires_grad_(name.startswith("LayerNorm"))
    args = (x.clone().requires_grad_(), weight, bias, torch.randn_like(x))
    if impl.residual:
        args += (torch.randn_like(x).requires_grad_(), torch.randn_like(x))
    return args

def spread(values) -> tuple[float, float, float]:
    return statistics.median(values), min(values), max(values)

def of_peak(gbps, peak) -> float | None:
    """GB/s as a percentage of the GPU's peak bandwidth; None without one."""
    return 100 * gbps / peak if peak else None

def entries(samples, copies, found, x, group, peak) -> tuple[list, list]:
    """The JSON entries of one dtype and shape: medians, ranges, and failures. A pass's
    copy_percent is of the copy of its bytes and timing."""
    m, n = x.shape
    where = {"dtype": str(x.dtype), "group": group, "m": m, "n": n}
    copy_entries, copy_gbps = [], {}
    for (moved, timing), times in copies.items():
        entry = {**where, "bytes": moved, "timing": timing}
        if isinstance(times, str):
            copy_entries.append({**entry, "error": times})
            continue
        ms, fastest, slowest = spread(times)
        copy_gbps[moved, timing] = moved / ms / 1e6
        copy_entries.append(
            {**entry, "ms": ms, "ms_min": fastest, "ms_max": slowest,
             "gbps": copy_gbps[moved, timing],
             "peak_percent": of_peak(copy_gbps[moved, timing], peak)}
        )  # fmt: skip
    runs = []
    for (name, mode, timing), times in samples.items():
        entry = {**where, "implementation": name, "mode": mode, "timing": timing}
        if isinstance(times, str):
            runs.append({**entry, "error": times})
            continue
        ms, fastest, slowest = spread(times)
        moved = pass_bytes(found[name], mode, x)
        entry["bytes"] = moved  # the fewest the pass must move: what GB/s counts
        gbps = [moved / t / 1e6 for t in (ms, slowest, fastest)]
        copy = copy_gbps.get((moved, timing))  # None if the copy failed
        percent = [100 * g / copy if copy else None for g in gbps]
        runs.append(
            {**entry, "ms": ms, "ms_min": fastest, "ms_max": slowest,
             "ms_rounds": times, "gbps": gbps[0], "gbps_min": gbps[1],
             "gbps_max": gbps[2], "copy_percent": percent[0],
             "copy_percent_min": percent[1], "copy_percent_max": percent[2],
             "peak_percent": of_peak(gbps[0], peak)}
        )  # fmt: skip
    return copy_entries, runs

def host_costs(found, device, calls, shape) -> dict:
    """Host time per call in µs on tiny tensors: the median of `calls` timed calls."""
    x = torch.randn(*shape, device=device, dtype=torch.bfloat16)
    costs = {name: {} for name in found}
    for mode in MODES:
        with torch._functorch.config.patch(**KEEP_BUFFERS.get(mode, {})):
            for name, fn in ready(found).items():
                if "error" not in costs[name]:  # not after a failed pass
                    try:
                        args = inputs(found[name], name, x)
                        costs[name][mode] = host_us(one_pass(fn, mode, *args), calls)
                    except Exception as error:  # noqa: BLE001 (recorded, not hidden)
                        costs[name] = {"error": repr(error)}
    return costs

def bare_launch_costs(device, calls, shape) -> dict:
    """Host time per launch in µs of the site's forward kernel alone and of its backward
    kernel alone, on tensors of host_us's shape allocated beforehand: the launches that
    any call of the norm makes, with nothing else."""
    m, n = shape
    x = torch.randn(m, n, device=device, dtype=torch.bfloat16)
    weight = torch.rand(n, device=device, dtype=x.dtype)
    y, dy, dx = torch.empty_like(x), torch.randn_like(x), torch.empty_like(x)
    rstd = torch.empty(m, device=device, dtype=torch.float32)
    try:
        dw_partial = torch.empty(
            backward_programs(m, n, device), n, device=device, dtype=torch.float32
        )
        forward = partial(launch_forward, x, weight, EPS, 0.0, y, rstd)
        backward = partial(launch_backward, dy, x, weight, rstd, 0.0, dx, dw_partial)
        # The forward first: its warm-up calls write the rstd the backward reads.
        return {
            "forward": host_us(forward, calls),
            "backward": host_us(backward, calls),
        }
    except Exception as error:  # noqa: BLE001 (recorded, not hidden)
        return {"error": repr(error)}

def host_us(run, calls) -> float:
    """The median host time of `calls` calls of run, in µs, the GPU idle before them."""
    for _ in range(3):
        run()  # compiles and warms up
    synchronize()  # the GPU idle: nothing queued before the calls
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    synchronize()
    return statistics.median(times) * 1e6

def synchronize():
    if torch.cuda.is_available():
        torch.cuda.synchronize()

def cpu_info() -> dict:
    """The CPU's model, physical cores and logical CPUs (from /proc/cpuinfo on Linux)."""
    cpuinfo = Path("/proc/cpuinfo")
    text = cpuinfo.read_text() if cpuinfo.exists() else ""
    blocks = [
        dict(line.split(":", 1) for line in block.splitlines() if ":" in line)
        for block in text.split("\n\n")
    ]
    blocks = [{k.strip(): v.strip() for k, v in b.items()} for b in blocks if b]
    cores = {(b.get("physical id"), b.get("core id")) for b in blocks}
    model = blocks[0].get("model name") if blocks else None
    return {
        "cpu": model or platform.processor() or platform.machine(),
        "cpu_cores": len(cores) or os.cpu_count(),
        "cpu_threads": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
    }

def git(*args) -> bytes:
    """git's output, or b"" where git or the history is missing."""
    try:
        result = subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, check=False
        )
    except FileNotFoundError:
        return b""
    return result.stdout if result.returncode == 0 else b""

def nvidia_driver() -> str | None:
    smi = subprocess.run(
        ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
        capture_output=True,
        text=True,
        check=False,
    )
    return smi.stdout.strip() or None

def environment(kind: str, device: torch.device, commit: str | None) -> dict:
    def version(package):
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return None

    info = cpu_info()
    gpu = device.type == "cuda"
    return {
        "kind": kind,
        "device": torch.cuda.get_device_name(device) if gpu else info["cpu"],
        "driver": nvidia_driver() if gpu else None,
        "cuda": torch.version.cuda,
        **{name: version(name) for name in PACKAGES},
        "python": platform.python_version(),
        **info,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"
        ),
        "git_commit": commit or git("rev-parse", "HEAD").decode().strip() or None,
        # The bytes measured, so that a test can tell whether they were git_commit's.
        "code_sha256": {
            path: hashlib.sha256((ROOT / path).read_bytes()).hexdigest()
            for path in MEASURED_CODE[kind]
        },
    }

def run(setup: Setup, found: dict, skipped: dict, commit=None) -> dict:
    """Every figure of one setup, as the JSON object the page is generated from."""
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    results = environment(setup.kind, device, commit)
    results |= {"eps": EPS, "rounds": setup.rounds}
    # What the whole run covers, a part or not: the page reports what is missing from it.
    whole = SETUPS[setup.kind]
    results["grid"] = {
        "dtypes": [str(d) for d in whole.dtypes],
        "groups": {
            group: [list(s) for s in shapes] for group, shapes in whole.groups.items()
        },
    }
    results["timings"] = {t: TIMERS[device.type][t] for t in setup.timings}
    # The device's name: no CPU's is in PEAK_GBPS.
    peak, source = PEAK_GBPS.get(results["device"], (None, None))
    results |= {"peak_gbps": peak, "peak_source": source}
    # The residual add with the norm: figures comparable with each other, not with the norm's.
    add_and_norm = [name for name, impl in found.items() if impl.residual]
    results |= {
        "skipped": skipped,
        "add_and_norm": add_and_norm,
        "copy": [],
        "runs": [],
    }
    torch.manual_seed(0)
    with torch._dynamo.config.patch(**ONE_COMPILE):
        for dtype in setup.dtypes:
            for group, shapes in setup.groups.items():
                group_found = in_group(found, group)
                for m, n in shapes:
                    x = torch.randn(m, n, device=device, dtype=dtype)
                    samples, copies = measure(setup, group_found, x)
                    copy, runs = entries(samples, copies, group_found, x, group, peak)
                    results["copy"] += copy
                    results["runs"] += runs
                    for entry in runs:
                        print(summary(entry), flush=True)
                    del x, samples, copies
                    if device.type == "cuda":  # one shape's cached blocks: no use next
                        torch.cuda.empty_cache()
        if setup.host_calls:
            results["host_calls"] = setup.host_calls
            results["host_shape"] = list(setup.host_shape)
            results["host_us"] = host_costs(
                found, device, setup.host_calls, setup.host_shape
            )
            results["host_us"][BARE] = bare_launch_costs(
                device, setup.host_calls, setup.host_shape
            )
    return results

def summary(entry) -> str:
    shape = f"{entry['m']}x{entry['n']}"
    where = f"{entry['dtype']} {entry['group']:<7} {shape:<12} {entry['mode']:<17}"
    where += f" {entry['timing']:<6} {entry['implementation']:<32}"
    if "error" in entry:
        return f"{where} failed: {entry['error']}"
    line = f"{where} {entry['ms']:9.4f} ms {entry['gbps']:8.1f} GB/s"
    if entry["copy_percent"] is not None:
        line += (
            f" {entry['copy_percent']:6.1f}% of copy"
            f" ({entry['copy_percent_min']:.1f}-{entry['copy_percent_max']:.1f})"
        )
    if entry["peak_percent"] is not None:
        line += f" {entry['peak_percent']:5.1f}% of peak"
    return line

# What every part of a merged GPU run must share.
SAME_IN_PARTS = ["kind", "device", "driver", "cuda", *PACKAGES, "git_commit"]
SAME_IN_PARTS += ["code_sha256", "eps", "rounds", "timings", "skipped"]
SAME_IN_PARTS += ["add_and_norm", "peak_gbps", "peak_source"]
# Eager figures include host time: the same host and Python too.
SAME_IN_PARTS += ["python", "cpu", "cpu_cores", "cpu_threads", "torch_threads", "grid"]

def part_setup(setup: Setup, dtypes=None, sizes=None, groups=None) -> Setup:
    """The setup of one part of a run: these dtypes (names), groups and N only. host_us,
    timed on bfloat16 tensors, is measured by the parts that time bfloat16 in the group
    "rows" (merge keeps the first)."""
    if dtypes:
        setup = replace(setup, dtypes=tuple(getattr(torch, name) for name in dtypes))
    kept = {
        group: tuple(shape for shape in shapes if not sizes or shape[1] in sizes)
        for group, shapes in setup.groups.items()
        if not groups or group in groups
    }
    setup = replace(setup, groups={group: s for group, s in kept.items() if s})
    if torch.bfloat16 not in setup.dtypes or "rows" not in setup.groups:
        setup = replace(setup, host_calls=0)
    return setup

def merge(parts: list[dict]) -> dict:
    """One results file from GPU runs of different dtypes or N (the date: the first's,
    host_us: the first that measured it)."""
    first = parts[0]
    for part in parts[1:]:
        differ = [key for key in SAME_IN_PARTS if part.get(key) != first.get(key)]
        if differ:
            raise ValueError(f"parts measured differently: {', '.join(differ)} differ")
    if first["kind"] != "gpu":
        raise ValueError(f"only GPU runs are merged, not {first['kind']!r} runs")
    merged = {key: value for key, value in first.items() if not key.startswith("host")}
    timed_host = [part for part in parts if "host_us" in part]
    if not timed_host:
        raise ValueError("no part measured host_us (a part that times bfloat16 does)")
    for key in ["host_calls", "host_shape", "host_us"]:
        merged[key] = timed_host[0][key]
    measured = set()
    for part in parts:
        here = {
            (c["dtype"], c["group"], c["m"], c["n"], c["timing"]) for c in part["copy"]
        }
        if measured & here:
            dtype, group, m, n, timing = min(measured & here)
            raise ValueError(
                f"two parts measured {dtype}, {group} M = {m}, N = {n}, {timing} timing"
            )
        measured |= here
    merged["copy"] = [c for part in parts for c in part["copy"]]
    merged["runs"] = [r for part in parts for r in part["runs"]]
    return merged

def checked(kind: str, out: Path) -> Path:
    """out, unless it is among the results and not a GPU run's or a CPU run's place."""
    out = out.resolve()
    place = {"gpu": RESULTS, "cpu": CPU_RESULTS}.get(kind)
    if out.is_relative_to(RESULTS) and out.parent != place:
        raise ValueError(f"a {kind} run does not write into {out.parent}")
    return out

def default_out(kind: str, device: str) -> Path:
    if kind == "smoke":
        return SMOKE / "smoke.json"
    return {"gpu": RESULTS, "cpu": CPU_RESULTS}[kind] / f"{file_name(device)}.json"

def file_name(device: str) -> str:
    """A device's name as a file name: "NVIDIA H100 80GB HBM3" -> nvidia-h100-80gb-hbm3."""
    return re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-")

def write_json(results: dict, out: Path):
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {out}")

def same_code(old: str, new: str) -> bool:
    """Whether two versions of a Python file hold the same code, comments and docstrings
    aside (their syntax trees without docstrings are equal)."""
    return _code(old) == _code(new)

def _code(source: str) -> str:
    tree = ast.parse(source)
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    for node in ast.walk(tree):
        if isinstance(node, kinds) and _docstring(node.body):
            node.body = node.body[1:]
    return ast.dump(tree)

def _docstring(body: list) -> bool:
    first = body[0] if body else None
    value = first.value if isinstance(first, ast.Expr) else None
    return isinstance(value, ast.Constant) and isinstance(value.value, str)

def stale(results: dict) -> list[str]:
    """Why results do not describe the current code: [] when they do.

    The bytes measured must be git_commit's (code_sha256), and git_commit's code must be
    the current code, comments and docstrings aside.
    """
    commit = results.get("git_commit")
    if not commit:
        return ["no git_commit recorded"]
    reasons = []
    for path in MEASURED_CODE[results["kind"]]:
        then = git("show", f"{commit}:{path}")
        if not then:
            reasons.append(f"{path} is not in commit {commit} (or git is missing)")
            continue
        if results.get("code_sha256", {}).get(path) != hashlib.sha256(then).hexdigest():
            reasons.append(f"{path}: the code measured was not commit {commit}'s")
        if not same_code(then.decode(), (ROOT / path).read_text(encoding="utf-8")):
            reasons.append(f"{path} has changed since commit {commit}")
    return reasons

def dirty() -> list[str]:
    """The measured files whose working copy differs from HEAD's."""
    changed = git("diff", "--name-only", "HEAD", "--", *MEASURED_CODE["gpu"])
    return changed.decode().split()

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m snippets.benchmark.run")
    kinds = parser.add_mutually_exclusive_group()
    kinds.add_argument("--smoke", action="store_true", help="tiny sizes, any device")
    kinds.add_argument("--cpu", action="store_true", help="this machine's CPU")
    kinds.add_argument("--merge", nargs="+", type=Path, help="GPU parts to merge")
    parser.add_argument("--dtypes", nargs="+", help="a part of a GPU run: these only")
    parser.add_argument("--sizes", nargs="+", type=int, help="a part: these N only")
    parser.add_argument(
        "--groups", nargs="+", choices=list(SETUPS["gpu"].groups), help="a part: these"
    )
    parser.add_argument("--commit", help="git_commit, where the tree has no .git")
    parser.add_argument("--out", type=Path, help="the JSON file to write")
    args = parser.parse_args(argv)
    kind = "smoke" if args.smoke else "cpu" if args.cpu else "gpu"
    try:
        out = args.out and checked(kind, args.out)
    except ValueError as error:
        parser.error(str(error))
    if (
        (args.dtypes or args.sizes or args.groups)
        and kind != "smoke"
        and (out is None or out.is_relative_to(RESULTS))
    ):
        parser.error(
            "a part of a run (--dtypes, --sizes, --groups) is written outside the"
            " results with --out, then merged with --merge"
        )
    if args.merge:
        results = merge([json.loads(path.read_text()) for path in args.merge])
    else:
        if kind == "gpu" and not torch.cuda.is_available():
            parser.error("a GPU run needs a CUDA GPU; --cpu or --smoke run without one")
        if kind != "smoke" and (
            dirty() or not (args.commit or git("rev-parse", "HEAD"))
        ):
            parser.error("results must come from committed code: commit it first")
        setup = part_setup(SETUPS[kind], args.dtypes, args.sizes, args.groups)
        if not setup.groups:
            parser.error("no shape of this run has these groups and N")
        if kind == "smoke":
            torch.set_num_threads(1)  # tiny tensors: no waiting for a busy second core
        found, skipped = implementations(kind)
        results = run(setup, found, skipped, args.commit)
    write_json(results, out or default_out(kind, results["device"]))
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
