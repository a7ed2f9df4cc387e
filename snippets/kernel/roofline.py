"""The fewest bytes a fused RMSNorm moves through GPU memory, and what the extras add."""

import triton

from snippets.kernel.rms_norm_triton import backward_launch

def forward_bytes(m, n, s):
    """Read x and write y once; read the weight and write one float32 rstd per row."""
    return 2 * m * n * s, n * s + 4 * m

def backward_bytes(m, n, s, programs):
    """Read x and dy and write dx once; read the weight and rstd; write and read back the
    float32 dw partials (one row per program) and their float32 sum; write dw."""
    return 3 * m * n * s, n * s + 4 * m + 2 * 4 * (programs + 1) * n + n * s

# bfloat16 (s = 2 bytes) on a GPU with 132 SMs (an H100 SXM): the backward's programs are
# those the kernel launches, from its table of launch settings.
m, s, sms = 16384, 2, 132
for n in [1024, 2048, 4096, 8192, 16384]:
    launch = backward_launch(n, sms)
    programs = min(launch.most, triton.cdiv(m, launch.block_m))
    fwd, fwd_extra = forward_bytes(m, n, s)
    bwd, bwd_extra = backward_bytes(m, n, s, programs)
    forward = f"forward {fwd / 2**20:4.0f} MiB +{100 * fwd_extra / fwd:.2f}%"
    backward = f"backward {bwd / 2**20:4.0f} MiB +{100 * bwd_extra / bwd:.2f}%"
    print(f"N {n:>5}: {forward}, {backward} ({programs} programs)")
    #> N  1024: forward   64 MiB +0.10%, backward   96 MiB +4.37% (528 programs)
    #> N  2048: forward  128 MiB +0.05%, backward  192 MiB +2.19% (264 programs)
    #> N  4096: forward  256 MiB +0.03%, backward  384 MiB +2.18% (264 programs)
    #> N  8192: forward  512 MiB +0.02%, backward  768 MiB +1.09% (132 programs)
    #> N 16384: forward 1024 MiB +0.01%, backward 1536 MiB +1.09% (132 programs)
