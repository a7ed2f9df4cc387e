"""Two ways to turn a float64 reference into bfloat16: rounded to the nearest value, as a GPU's
float32 -> bfloat16 conversion does, and truncated toward zero, as Triton's interpreter does.

bfloat16 is the top 16 bits of a float32, so both start from float32. But float64 -> float32
already rounds to nearest, and that first rounding can land on a bfloat16 value or halfway
between two from the wrong side. So the float32 step truncates toward zero instead, and
remembers whether it was exact; the second step then gives the right answer for either mode.
"""

import torch

def _float32_toward_zero(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """float64 -> float32 truncated toward zero, and whether each value was exact."""
    x = x.double()
    f = x.float()  # rounds to nearest: one step too far from zero where it rounded up
    too_far = f.double().abs() > x.abs()
    f = torch.where(too_far, torch.nextafter(f, torch.zeros_like(f)), f)
    return f, f.double() == x

def bfloat16_truncated(x: torch.Tensor) -> torch.Tensor:
    """Toward zero: keep a float32's top 16 bits (sign, exponent, 7 mantissa bits)."""
    f, _ = _float32_toward_zero(x)
    top = f.view(torch.int32) & -65536  # -65536 is 0xFFFF0000: zero the low 16 bits
    return top.view(torch.float32).to(torch.bfloat16)  # exact: already a bfloat16 value

def bfloat16_rounded(x: torch.Tensor) -> torch.Tensor:
    """To nearest, ties to even. float64 -> float32 -> bfloat16 with two roundings can
    differ from one rounding: a float32 exactly halfway between two bfloat16 values may
    stand for a float64 just above or below halfway. Rounding to odd in the first step
    (truncate, then set the lowest bit if anything was cut) keeps that information."""
    f, exact = _float32_toward_zero(x)
    odd = f.view(torch.int32) | (~exact).int()
    return odd.view(torch.float32).to(torch.bfloat16)  # PyTorch rounds to nearest even
