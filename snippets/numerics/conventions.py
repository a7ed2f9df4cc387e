"""RMSNorm's rounding conventions in production code, each on bfloat16 input and returning
bfloat16, and the distance in bfloat16 steps (ulps) that compares their outputs."""

import torch

from snippets.implementations.rms_norm_module import rms_norm
from snippets.implementations.variants import rms_norm_gemma, rms_norm_llama

EPS = 1e-6

def llama(x, weight):
    # (a) Hugging Face LLaMA: normalize in float32, round to bfloat16, then multiply by
    # the bfloat16 weight in bfloat16 (a second rounding).
    return rms_norm_llama(x, weight, EPS)

def cast_once(x, weight):
    # (b) F.rms_norm, Transformer Engine, the site's module: multiply by the weight in
    # float32 and round once.
    return rms_norm(x, x.shape[-1], weight, EPS)

def gemma(x, w):
    # (c) Gemma 1 to 3: the weight stores w = gain - 1; 1 + w is formed in float32.
    return rms_norm_gemma(x, w, EPS)

def gemma_offset_in_bfloat16(x, w):
    # (d) 1 + w formed in bfloat16 (steps of 2^-7 from 1 up, 2^-8 below 1), then as (b).
    return rms_norm(x, x.shape[-1], 1 + w, EPS)  # a Python 1 keeps w's dtype

def zero_centered(x, w):
    # (e) Transformer Engine's zero_centered_gamma, in its kernel's order: rs * x, the
    # gain w + 1 in float32, their product rounded once.
    h = x.float()
    rs = torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + EPS)
    return ((w.float() + 1) * (rs * h)).to(x.dtype)

def eps_outside(x, weight):
    # (f) eps added to the RMS outside the square root, otherwise as (b).
    h = x.float()
    h = h / (h.pow(2).mean(-1, keepdim=True).sqrt() + EPS)
    return (h * weight.float()).to(x.dtype)

def add_norm_float32(x, residual, weight):
    # (g1) Fused add and norm with the sum kept in float32: the mean square of x + r
    # before any rounding to bfloat16.
    h = x.float() + residual.float()
    return rms_norm(h, h.shape[-1], weight, EPS).to(x.dtype)

def add_norm_bfloat16(x, residual, weight):
    # (g2) The sum rounded to bfloat16 first (the residual stream is stored in bfloat16),
    # then normalized.
    return rms_norm(x + residual, x.shape[-1], weight, EPS)

# The integer type each float dtype's bits are read as.
BITS = {
    torch.bfloat16: torch.int16,
    torch.float16: torch.int16,
    torch.float32: torch.int32,
}

def ulps(a, b):
    """How many steps of their dtype lie between a and b, elementwise (0: equal)."""
    if a.dtype != b.dtype or a.dtype not in BITS or a.shape != b.shape:
        got = f"{a.dtype} {tuple(a.shape)} and {b.dtype} {tuple(b.shape)}"
        raise TypeError(
            "ulps needs two tensors of one shape and one dtype (bfloat16, float16 or"
            f" float32); got {got}"
        )

    def ordered(t):
        # A float's bits as an integer grow with the value for positive numbers; the
        # negative ones (sign bit set) are mapped below zero in the same order.
        bits = t.view(BITS[t.dtype]).long()
        return torch.where(bits < 0, torch.iinfo(BITS[t.dtype]).min - bits, bits)

    return (ordered(a) - ordered(b)).abs()
