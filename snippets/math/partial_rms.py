import torch

def partial_rms_norm(x: torch.Tensor, p: float, eps: float = 1e-8) -> torch.Tensor:
    """pRMSNorm: the RMS estimated from the first k = int(n p) features of each row, as
    the authors' PyTorch code takes them (eps added to the RMS, outside the root, and 1e-8
    by default, as there: an all-zero row gives zeros, not 0 / 0)."""
    k = int(x.shape[-1] * p)
    if k < 1:
        raise ValueError(f"p = {p} keeps no feature of rows of {x.shape[-1]}")
    rms = x[..., :k].pow(2).mean(-1, keepdim=True).sqrt()
    return x / (rms + eps)

def output_rms(y: torch.Tensor) -> torch.Tensor:
    """Each row's RMS after the norm: 1 when the estimate is exact (gain 1, eps
    negligible)."""
    return y.pow(2).mean(-1).sqrt()

n, p = 4096, 0.0625
print(f"k = {int(n * p)} of {n} features (p = {p:.2%})")
#> k = 256 of 4096 features (p = 6.25%)
torch.manual_seed(0)
x = torch.randn(1000, n, dtype=torch.float64)  # features drawn independently

# Scaling a row still leaves the output as it was: the estimate scales with the row.
same = torch.allclose(partial_rms_norm(3 * x, p), partial_rms_norm(x, p))
print("scaled by 3, output unchanged:", same)
#> scaled by 3, output unchanged: True

# On independent features the estimate is close: the output's RMS is near 1.
size = output_rms(partial_rms_norm(x, p))
print(f"independent features: output RMS {size.min():.2f} to {size.max():.2f}")
#> independent features: output RMS 0.88 to 1.15

# One massive channel (value 100, as language models' activations have) outside the
# first 256 features goes unseen by the estimate; inside them, it dominates it.
lines = []
for channel in (1000, 10):
    massive = x.clone()
    massive[:, channel] = 100.0
    partial = output_rms(partial_rms_norm(massive, p))
    full = output_rms(torch.nn.functional.rms_norm(massive, (n,)))
    lines.append(
        f"massive channel {channel:>4}: output RMS {partial.min():.2f} to"
        f" {partial.max():.2f} (RMSNorm: {full.min():.2f} to {full.max():.2f})"
    )
print("\n".join(lines))
"""
massive channel 1000: output RMS 1.63 to 2.14 (RMSNorm: 1.00 to 1.00)
massive channel   10: output RMS 0.29 to 0.30 (RMSNorm: 1.00 to 1.00)
"""
