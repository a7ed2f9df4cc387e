"""Where the host time of a forward+backward call goes: a probe for planning the kernel's
host path on a GPU (the Benchmark pages publish only run.py's figures).

    python -m scripts.host_probe            # a CUDA GPU: 1000 calls of each way
    python -m scripts.host_probe --smoke    # any machine, a few calls: the probe runs

On x of run.py's host_us shape (16 x 1024, bfloat16), each line gives the median host time of a
forward+backward call in µs twice: timed as run.py times host_us (calls back to back), and with
the GPU idle before each call, as run.py's eager timing makes its calls (on an H100 and an H200
the site's kernel took longer back to back than some whole eager calls). The ways:
- F.rms_norm: one ATen op each way, its backward in C++;
- the formula written out: autograd records several ops, its backward still all C++;
- F.rms_norm's two ATen ops inside a Python autograd.Function: the same work with a Python
  backward, which a CUDA backward runs on autograd's worker thread for the device;
- the site's Triton kernel (a Python autograd.Function too);
and each again with autograd's device threads off (set_multithreading_enabled(False)), which
runs the backward on the calling thread. If the Python backward costs far more than
F.rms_norm's, and less with the threads off, the handoff to that thread is where the time goes.
"""

import argparse
import statistics
import time

import torch
import torch.nn.functional as F

from snippets.benchmark.run import EPS, SETUPS, host_us, synchronize
from snippets.kernel.rms_norm_triton import rms_norm_triton

HOST_SHAPE = SETUPS["gpu"].host_shape  # run.py's: 16 x 1024


class PythonBackward(torch.autograd.Function):
    """F.rms_norm's ATen ops, with autograd's bookkeeping in Python."""

    @staticmethod
    def forward(ctx, x, weight):
        y, rstd = torch.ops.aten._fused_rms_norm(x, [x.shape[-1]], weight, EPS)
        ctx.save_for_backward(x, weight, rstd)
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, rstd = ctx.saved_tensors
        return torch.ops.aten._fused_rms_norm_backward(
            dy, x, [x.shape[-1]], rstd, weight, [True, True]
        )


def written_out(x, weight):
    rms = torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + EPS)
    return (x.float() * rms).to(x.dtype) * weight


WAYS = {
    "F.rms_norm": lambda x, w: F.rms_norm(x, (x.shape[-1],), w, EPS),
    "formula written out": written_out,
    "ATen ops, Python backward": PythonBackward.apply,
    "Triton (this site)": lambda x, w: rms_norm_triton(x, w, EPS),
}


def alone_us(run, calls) -> float:
    """The median host time of `calls` calls of run in µs, each made onto an idle GPU."""
    for _ in range(3):
        run()  # warms up
    times = []
    for _ in range(calls):
        synchronize()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    synchronize()
    return statistics.median(times) * 1e6


def forward_backward(way, x, weight, dy):
    """One call of a forward and its backward, the gradients returned (as run.py's)."""
    return lambda: torch.autograd.grad(way(x, weight), [x, weight], dy)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.host_probe")
    parser.add_argument("--smoke", action="store_true", help="a few calls, any device")
    args = parser.parse_args(argv)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu" and not args.smoke:
        parser.error("the probe needs a CUDA GPU; --smoke runs it anywhere")
    calls, (m, n) = (5, (2, 64)) if args.smoke else (1000, HOST_SHAPE)
    x = torch.randn(m, n, device=device, dtype=torch.bfloat16, requires_grad=True)
    weight = torch.rand(n, device=device, dtype=x.dtype, requires_grad=True)
    dy = torch.randn_like(x)
    print(
        f"{torch.__version__} on {device}: forward+backward host µs per call, {m} x {n}"
    )
    for threads in (True, False):
        torch.autograd.set_multithreading_enabled(threads)
        for name, way in WAYS.items():
            try:
                run = forward_backward(way, x, weight, dy)
                us, alone = host_us(run, calls), alone_us(run, calls)
                print(
                    f"  {name:<26} device threads {'on ' if threads else 'off'}"
                    f" {us:8.1f} back to back, {alone:8.1f} alone"
                )
            except Exception as error:  # noqa: BLE001 (printed: an op this device lacks)
                print(f"  {name:<26} failed: {str(error).splitlines()[0][:90]}")
    torch.autograd.set_multithreading_enabled(True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
