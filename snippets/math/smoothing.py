import torch
import torch.nn.functional as F

def fake_int8(t: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    """Round to 8-bit integers and back: one scale for the tensor, or one per slice on `dim`."""
    largest = t.abs().amax() if dim is None else t.abs().amax(dim, keepdim=True)
    scale = (largest / 127).clamp_min(torch.finfo(t.dtype).tiny)  # an all-zero slice: 0
    return (t / scale).round().clamp(-127, 127) * scale

def int8_error(h: torch.Tensor, w: torch.Tensor, exact: torch.Tensor) -> float:
    """Relative error of h @ w with h in int8 per tensor and w per output column."""
    approx = fake_int8(h) @ fake_int8(w, dim=0)
    return ((approx - exact).norm() / exact.norm()).item()

torch.manual_seed(0)
rows, n, eps = 64, 512, 1e-6
x = torch.randn(rows, n)
x[:, 7] *= 50  # one feature far larger than the rest, as in large models
gain = torch.rand(n) + 0.5
w = torch.randn(n, n) / n**0.5  # the next layer: h @ w
h = F.rms_norm(x, (n,), gain, eps=eps)
exact = h @ w
print(f"int8 as is:     relative error {int8_error(h, w, exact):.4f}")
#> int8 as is:     relative error 0.0562

# SmoothQuant: divide feature j by s_j and multiply row j of w by s_j, which leaves h @ w as
# it was; with the norm in front, the division is the gain's (gain / s), free at run time.
alpha = 0.5  # SmoothQuant's migration strength
# Calibrated on these rows; clamped, as SmoothQuant's code does, so that a feature that is
# zero on every row (a gain of 0) gives no division by zero.
scale = h.abs().amax(0) ** alpha / w.abs().amax(1).clamp(min=1e-5) ** (1 - alpha)
s = scale.clamp(min=1e-5)
smoothed = F.rms_norm(x, (n,), gain / s, eps=eps)
moved = s[:, None] * w  # row j of w times s_j
print(torch.allclose(smoothed @ moved, exact, atol=1e-4))
#> True
print(f"int8 smoothed:  relative error {int8_error(smoothed, moved, exact):.4f}")
#> int8 smoothed:  relative error 0.0182
