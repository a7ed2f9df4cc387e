"""The fewest bytes a fused RMSNorm moves through GPU memory, and what the extras add."""

import triton

from snippets.kernel.rms_norm_triton import backward_launch

def forward_bytes(m, n, s):
    """Read x and write y once; read the weight and write one float32 rstd per row."""
    return 2 * m * n * s, n * s + 4 * m

def backward_bytes(m, n, s, programs):
    """Read x and dy and write dx once; read the weight and rstd; write and read back the
    float32 dw partials (one row per program), then their float32 sum, read back to write
    dw in the weight's dtype (for a float32 weight the sum is dw: fewer bytes)."""
    return 3 * m * n * s, n * s + 4 * m + 2 * 4 * (programs + 1) * n + n * s

# M x N in bfloat16 (s = 2 bytes) on a GPU with 132 SMs (an H100 SXM); the backward's
# programs (in parentheses) are those the kernel launches, from its launch settings.
s, sms = 2, 132
shapes = [(16384, n) for n in [1024, 2048, 4096, 8192, 16384]]
shapes += [(m, 4096) for m in [1, 16, 256]]
for m, n in shapes:
    launch = backward_launch(n, sms)
    programs = min(launch.most, triton.cdiv(m, launch.block_m))
    fwd, fwd_extra = forward_bytes(m, n, s)
    bwd, bwd_extra = backward_bytes(m, n, s, programs)
    forward = f"forward {fwd / 2**20:7.2f} MiB +{100 * fwd_extra / fwd:.2f}%"
    backward = f"backward {bwd / 2**20:7.2f} MiB +{100 * bwd_extra / bwd:.2f}%"
    print(f"{m:>5} x {n:>5}: {forward}, {backward} ({programs})")
    #> 16384 x  1024: forward   64.00 MiB +0.10%, backward   96.00 MiB +4.37% (528)
    #> 16384 x  2048: forward  128.00 MiB +0.05%, backward  192.00 MiB +2.19% (264)
    #> 16384 x  4096: forward  256.00 MiB +0.03%, backward  384.00 MiB +2.18% (264)
    #> 16384 x  8192: forward  512.00 MiB +0.02%, backward  768.00 MiB +1.09% (132)
    #> 16384 x 16384: forward 1024.00 MiB +0.01%, backward 1536.00 MiB +1.09% (132)
    #>     1 x  4096: forward    0.02 MiB +50.02%, backward    0.02 MiB +333.35% (1)
    #>    16 x  4096: forward    0.25 MiB +3.15%, backward    0.38 MiB +145.85% (16)
    #>   256 x  4096: forward    4.00 MiB +0.22%, backward    6.00 MiB +134.13% (256)
