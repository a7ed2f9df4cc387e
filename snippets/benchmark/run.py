"""Time every RMSNorm the site shows, LayerNorm and a plain copy; write one JSON file.

    python -m snippets.benchmark.run          # a CUDA GPU: snippets/benchmark/results/
    python -m snippets.benchmark.run --smoke  # tiny sizes, any device: build/benchmark/

On a GPU each figure is the median of many runs after warm-up, timed with CUDA events
by triton.testing.do_bench, which flushes the L2 cache before every run. GB/s counts the
fewest bytes a pass must move (forward 2MNs, backward 3MNs, both 5MNs), and each figure
is also a percentage of a device-to-device copy of M x N elements timed in the same run.
Without a GPU the host clock times a few runs: a check that the pipeline works, not a
measurement to publish.
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import time
from functools import partial
from importlib import metadata
from pathlib import Path

import torch
import torch.nn.functional as F

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported

from snippets.implementations.variants import (
    rms_norm_llama,
    rms_norm_scratch,
    rms_norm_torch,
)
from snippets.kernel.rms_norm_triton import rms_norm_triton

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).resolve().parent / "results"  # GPU results, committed
SMOKE = ROOT / "build" / "benchmark"  # CPU runs: never next to GPU results
EPS = 1e-6
MODES = ["forward", "backward", "forward+backward"]
PACKAGES = ["torch", "triton", "liger-kernel", "quack-kernels"]
PASSES = {"forward": 2, "backward": 3, "forward+backward": 5}  # x M*N*s bytes at least

def layer_norm(x, weight, bias):
    return F.layer_norm(x, x.shape[-1:], weight, bias, EPS)

def implementations(smoke: bool) -> tuple[dict, dict]:
    """name -> fn(x, weight, bias), and name -> why it was left out."""
    found = {
        "eager naive": lambda x, w, b: rms_norm_scratch(x, w, EPS),
        "eager Hugging Face": lambda x, w, b: rms_norm_llama(x, w, EPS),
        "torch F.rms_norm": lambda x, w, b: rms_norm_torch(x, w, EPS),
        "Triton (this site)": lambda x, w, b: rms_norm_triton(x, w, EPS),
        "LayerNorm eager": layer_norm,
    }
    skipped = {}
    if smoke and not torch.cuda.is_available():
        reason = "not in a CPU smoke run: compiling for each shape takes minutes"
        skipped["torch.compile naive"] = skipped["LayerNorm compiled"] = reason
    else:
        naive = torch.compile(rms_norm_scratch)
        found["torch.compile naive"] = lambda x, w, b: naive(x, w, EPS)
        found["LayerNorm compiled"] = torch.compile(layer_norm)
    try:
        from liger_kernel.ops.rms_norm import LigerRMSNormFunction

        # offset 0, LLaMA casting, dy not overwritten (the benchmark reuses it).
        found["Liger-Kernel"] = lambda x, w, b: LigerRMSNormFunction.apply(
            x, w, EPS, 0.0, "llama", False
        )
    except ImportError as error:
        skipped["Liger-Kernel"] = f"not installed ({error})"
    try:
        from quack import rmsnorm as quack_rmsnorm

        found["QuACK"] = lambda x, w, b: quack_rmsnorm(x, w, eps=EPS)
    except ImportError as error:
        skipped["QuACK"] = f"not installed ({error})"
    return found, skipped

def median_ms(fn, grad_to_none=()) -> float:
    if torch.cuda.is_available():
        from triton.testing import do_bench

        return do_bench(
            fn,
            warmup=50,
            rep=300,
            grad_to_none=list(grad_to_none),
            return_mode="median",
        )
    times = []
    for _ in range(5):
        for tensor in grad_to_none:
            tensor.grad = None
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times[1:])  # the first run warms up

def time_one(fn, x, weight, bias, dy, mode) -> float:
    leaves = [t for t in (x, weight, bias) if t.requires_grad]
    if mode == "forward":
        with torch.no_grad():
            return median_ms(lambda: fn(x, weight, bias))
    if mode == "backward":
        y = fn(x, weight, bias)
        return median_ms(lambda: y.backward(dy, retain_graph=True), leaves)
    return median_ms(lambda: fn(x, weight, bias).backward(dy), leaves)

def environment(device: torch.device) -> dict:
    def version(package):
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return None

    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    info = {
        "device": (
            torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
        ),
        "cpu": platform.processor() or platform.machine(),
        "cuda": torch.version.cuda,
        "driver": None,
        "python": platform.python_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"
        ),
        "git_commit": commit or None,
        **{name: version(name) for name in PACKAGES},
    }
    if device.type == "cuda":
        smi = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            check=False,
        )
        info["driver"] = smi.stdout.strip() or None
    return info

def run(rows: int, sizes: list[int], dtypes: list[torch.dtype], smoke: bool) -> dict:
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    found, skipped = implementations(smoke)
    results = {**environment(device), "rows": rows, "eps": EPS, "skipped": skipped}
    results["copy"], results["runs"] = [], []
    for dtype in dtypes:
        for n in sizes:
            size = rows * n * dtype.itemsize
            x = torch.randn(rows, n, device=device, dtype=dtype)
            out = torch.empty_like(x)
            copy_ms = median_ms(partial(out.copy_, x))
            copy_gbps = 2 * size / copy_ms / 1e6
            results["copy"].append(
                {"dtype": str(dtype), "n": n, "ms": copy_ms, "gbps": copy_gbps}
            )
            for name, fn in found.items():
                weight = torch.rand(n, device=device, dtype=dtype, requires_grad=True)
                bias = torch.zeros(
                    n,
                    device=device,
                    dtype=dtype,
                    requires_grad=name.startswith("LayerNorm"),
                )
                xg = x.clone().requires_grad_()
                dy = torch.randn_like(x)
                for mode in MODES:
                    entry = {
                        "dtype": str(dtype),
                        "n": n,
                        "implementation": name,
                        "mode": mode,
                    }
                    try:
                        ms = time_one(fn, xg, weight, bias, dy, mode)
                    except Exception as error:  # noqa: BLE001 (recorded, not hidden)
                        results["runs"].append({**entry, "error": repr(error)})
                        print(f"{dtype} N={n} {mode} {name}: failed, {error!r}")
                        continue
                    gbps = PASSES[mode] * size / ms / 1e6
                    percent = 100 * gbps / copy_gbps
                    results["runs"].append(
                        {**entry, "ms": ms, "gbps": gbps, "copy_percent": percent}
                    )
                    print(
                        f"{dtype} N={n:<6} {mode:<17} {name:<20} {ms:9.4f} ms"
                        f" {gbps:8.1f} GB/s {percent:6.1f}% of copy"
                    )
    return results

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m snippets.benchmark.run")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, any device")
    parser.add_argument("--out", type=Path, help="the JSON file to write")
    args = parser.parse_args(argv)
    if args.smoke:
        rows, sizes, dtypes = 64, [100, 256], [torch.float32, torch.bfloat16]
    else:
        if not torch.cuda.is_available():
            parser.error("a full run needs a CUDA GPU; --smoke checks the pipeline")
        rows = 16384
        sizes = [1024, 2048, 4096, 8192, 16384]
        dtypes = [torch.bfloat16, torch.float16, torch.float32]
    results = run(rows, sizes, dtypes, args.smoke)
    name = results["device"].lower().replace(" ", "-")
    folder = SMOKE if args.smoke or not torch.cuda.is_available() else RESULTS
    out = args.out or folder / f"{name}.json"
    if not torch.cuda.is_available() and out.resolve().is_relative_to(RESULTS):
        parser.error(f"a run without a GPU does not write into {RESULTS}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {out}")
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
