"""Time the residual add, RMSNorm and FP8 quantization fused in one kernel against the same
steps unfused; write one JSON file.

    python -m snippets.benchmark.fp8          # a CUDA GPU (FP8: 8.9 or newer): results/fp8/<gpu>.json
    python -m snippets.benchmark.fp8 --smoke  # tiny shapes, any device: build/benchmark/fp8-smoke.json

Every implementation computes, for inference (no backward), h = x + r (the residual stream),
y = RMSNorm(h) and q, the FP8 e4m3 values of y, with their float32 scales: one per row
("per-token") or one per 128 features of a row ("per-group"), each scale dynamic (the largest
|y| of its row or group mapped to 448). The two scalings are recorded as the entries' mode.

- "PyTorch add, norm, quantize": the FP8 page's reference (snippets/fp8/reference.py), one
  PyTorch operation after another;
- "torch.compile add, norm, quantize": the same function compiled whole;
- "Triton add+RMSNorm (this site), compiled quantize": the Kernel page's fused add and norm,
  writing y in x's dtype, then a quantizer compiled by torch.compile (one generated kernel);
- "Triton add+RMSNorm+FP8 (this site)": the FP8 page's one kernel.

Shapes: "rows", M = 16384 tokens at N = 2048 to 16384 (the kernel's longest row), and
"decode", M = 1, 16 and 256 at N = 4096, in bfloat16. Each figure is timed as run.py times a
pass (its timing core: a CUDA graph replayed, and eager calls from Python; rounds taken in
turns after a warm-up round, the median and range), with torch.compile compiled afresh for
each shape and scaling under run.py's guard (a graph break or a second compile is recorded
as a failure). GB/s counts the fewest bytes of the fused pass for every implementation: read x
and r, write h, q and the scales (fp8_bytes); the yardstick is run.py's copy kernel moving as
many bytes, timed the same way in the same rounds.
"""

from dataclasses import replace
from functools import partial

import torch

# run.py first: without a GPU it chooses Triton's interpreter before triton is imported.
from snippets.benchmark.run import (
    BACKEND,
    EPS,
    Implementation,
    ONE_COMPILE,
    PEAK_GBPS,
    SETUPS,
    TIMERS,
    copy_pass,
    environment,
    of_peak,
    one_pass,
    ready,
    spread,
    summary,
    timed,
)
from snippets.benchmark.own_results import own_results
from snippets.fp8.add_rms_norm_fp8 import add_rms_norm_fp8
from snippets.fp8.reference import add_rms_norm, quantize
from snippets.kernel.rms_norm_triton import add_rms_norm_triton

# The code the figures depend on: results measured on other code are stale (run.py's stale()).
CODE = [
    "snippets/benchmark/run.py",
    "snippets/benchmark/own_results.py",
    "snippets/benchmark/fp8.py",
    "snippets/fp8/add_rms_norm_fp8.py",
    "snippets/fp8/reference.py",
    "snippets/kernel/rms_norm_triton.py",
]
OWN = own_results("fp8", CODE)  # results/fp8/<gpu>.json
GROUP = 128  # features per scale, per group (DeepSeek-V3's 1 x 128 tiles)
SCALINGS = {"per-token": None, "per-group": GROUP}
FP8_SETUPS = {
    "gpu": replace(
        SETUPS["gpu"],
        kind=OWN.kinds["gpu"],
        groups={
            "rows": tuple((16384, n) for n in (2048, 4096, 8192, 16384)),
            "decode": ((1, 4096), (16, 4096), (256, 4096)),
        },
        dtypes=(torch.bfloat16,),
        host_calls=0,
    ),
    "smoke": replace(
        SETUPS["smoke"],
        kind=OWN.kinds["smoke"],
        groups={"rows": ((2, 256),), "decode": ((1, 256),)},
        dtypes=(torch.bfloat16,),
        host_calls=0,
    ),
}
# The implementations that compile: none in a smoke run without a GPU (run.py's reason).
COMPILING = [
    "torch.compile add, norm, quantize",
    "Triton add+RMSNorm (this site), compiled quantize",
]

# --8<-- [start:compared]
def reference(group):
    """The FP8 page's reference: h, then y in float32, then its FP8 values and scales."""

    def add_norm_quantize(x, weight, bias, residual):
        h, y = add_rms_norm(x, residual, weight, EPS)
        return (*quantize(y, group), h)

    return add_norm_quantize

def fused_then_quantize(group):
    """The Kernel page's fused add and norm (y in x's dtype), then a compiled quantizer.
    ready() resets torch.compile: the quantizer compiles afresh for each shape."""
    quantizer = torch.compile(
        lambda y: quantize(y.float(), group),
        fullgraph=True,
        dynamic=False,
        backend=BACKEND,
    )

    def add_norm_then_quantize(x, weight, bias, residual):
        y, h = add_rms_norm_triton(x, residual, weight, EPS)
        return (*quantizer(y), h)

    return add_norm_then_quantize

def one_kernel(group):
    def add_norm_fp8(x, weight, bias, residual):
        return add_rms_norm_fp8(x, residual, weight, EPS, group)

    return add_norm_fp8

def implementations(kind: str, group) -> tuple[dict, dict]:
    """name -> Implementation for one scaling, and name -> why it was left out."""
    found = {
        "PyTorch add, norm, quantize": Implementation(reference(group)),
        COMPILING[0]: Implementation(reference(group), compiled=True),
        COMPILING[1]: Implementation(fused_then_quantize(group)),
        "Triton add+RMSNorm+FP8 (this site)": Implementation(one_kernel(group)),
    }
    skipped = {}
    if kind == "smoke" and not torch.cuda.is_available():
        for name in COMPILING:
            del found[name]
            skipped[name] = "not in a smoke run: compiling for each shape takes minutes"
    return found, skipped

def fp8_bytes(x, group) -> int:
    """The fewest bytes of the fused pass: read x and r, write h (x's dtype), q (1 byte an
    element) and the float32 scales."""
    m, n = x.shape
    scales = m * (n // group if group else 1)
    return 3 * x.numel() * x.element_size() + x.numel() + 4 * scales

# --8<-- [end:compared]

def measure(setup, kind, x) -> tuple[dict, dict, dict]:
    """ms per round for each (implementation, scaling, timing) and for each (bytes, timing)
    of the copies moving as many bytes; and what was left out."""
    samples, copies, skipped = {}, {}, {}
    weight = torch.rand(x.shape[1], device=x.device, dtype=x.dtype)
    residual = torch.randn_like(x)
    for scaling, group in SCALINGS.items():
        found, skipped = implementations(kind, group)
        fns = ready(found)  # compiled afresh for this shape and scaling
        moved = fp8_bytes(x, group)
        for round_ in range(setup.rounds + 1):  # round 0 warms up, its times dropped
            for timing in setup.timings:
                make = partial(copy_pass, moved, x.dtype, x.device)
                timed(copies, (moved, timing), make, timing, setup, round_)
                for name, fn in fns.items():
                    make = partial(
                        one_pass, fn, "forward", x, weight, None, None, residual
                    )
                    key = (name, scaling, timing)
                    timed(samples, key, make, timing, setup, round_)
    return samples, copies, skipped

def entries(samples, copies, x, group_name, peak) -> tuple[list, list]:
    """The JSON entries of one shape, in run.py's format (the scaling as the mode)."""
    m, n = x.shape
    where = {"dtype": str(x.dtype), "group": group_name, "m": m, "n": n}
    copy_entries, copy_gbps = [], {}
    for (moved, timing), times in copies.items():
        entry = {**where, "bytes": moved, "timing": timing}
        if isinstance(times, str):
            copy_entries.append({**entry, "error": times})
            continue
        ms, fastest, slowest = spread(times)
        copy_gbps[moved, timing] = gbps = moved / ms / 1e6
        copy_entries.append(
            {**entry, "ms": ms, "ms_min": fastest, "ms_max": slowest, "gbps": gbps,
             "peak_percent": of_peak(gbps, peak)}
        )  # fmt: skip
    runs = []
    for (name, scaling, timing), times in samples.items():
        entry = {**where, "implementation": name, "mode": scaling, "timing": timing}
        if isinstance(times, str):
            runs.append({**entry, "error": times})
            continue
        ms, fastest, slowest = spread(times)
        moved = fp8_bytes(x, SCALINGS[scaling])
        gbps = [moved / t / 1e6 for t in (ms, slowest, fastest)]
        copy = copy_gbps.get((moved, timing))  # None if the copy failed
        percent = [100 * g / copy if copy else None for g in gbps]
        runs.append(
            {**entry, "bytes": moved, "ms": ms, "ms_min": fastest, "ms_max": slowest,
             "ms_rounds": times, "gbps": gbps[0], "gbps_min": gbps[1],
             "gbps_max": gbps[2], "copy_percent": percent[0],
             "copy_percent_min": percent[1], "copy_percent_max": percent[2],
             "peak_percent": of_peak(gbps[0], peak)}
        )  # fmt: skip
    return copy_entries, runs

def measure_all(kind: str, commit=None) -> dict:
    """Every figure of a run ("gpu" or "smoke"), as the JSON object the page is generated
    from."""
    setup = FP8_SETUPS[kind]
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    results = environment(setup.kind, device, commit)
    results |= {"eps": EPS, "rounds": setup.rounds, "group_size": GROUP}
    results["grid"] = {
        "dtypes": [str(d) for d in setup.dtypes],
        "groups": {g: [list(s) for s in shapes] for g, shapes in setup.groups.items()},
    }
    results["timings"] = {t: TIMERS[device.type][t] for t in setup.timings}
    peak, source = PEAK_GBPS.get(results["device"], (None, None))
    results |= {"peak_gbps": peak, "peak_source": source, "copy": [], "runs": []}
    torch.manual_seed(0)
    with torch._dynamo.config.patch(**ONE_COMPILE):
        for dtype in setup.dtypes:
            for group_name, shapes in setup.groups.items():
                for m, n in shapes:
                    x = torch.randn(m, n, device=device, dtype=dtype)
                    samples, copies, skipped = measure(setup, kind, x)
                    copy, runs = entries(samples, copies, x, group_name, peak)
                    results["copy"] += copy
                    results["runs"] += runs
                    for entry in runs:
                        print(summary(entry), flush=True)
                    del x, samples, copies
                    if device.type == "cuda":
                        torch.cuda.empty_cache()
    results["skipped"] = skipped
    return results

def main(argv=None) -> int:
    return OWN.main(measure_all, argv, needs=fp8_capable)

def fp8_capable() -> str | None:
    if torch.cuda.get_device_capability() < (8, 9):
        return "FP8 e4m3 needs a GPU of compute capability 8.9 or newer"
    return None

if __name__ == "__main__":
    raise SystemExit(main())
