import torch

from snippets.kernel_in_practice.bfloat16 import bfloat16_rounded
from snippets.numerics.conventions import (
    EPS,
    add_norm_bfloat16,
    add_norm_float32,
    cast_once,
    eps_outside,
    gemma,
    gemma_offset_in_bfloat16,
    llama,
    ulps,
    zero_centered,
)

torch.manual_seed(0)
n = 4096
x = torch.randn(64, n).bfloat16()
small = (x.float() * 1e-3).bfloat16()  # rows of RMS 1e-3, where eps = 1e-6 counts
gain = (torch.rand(n) + 0.5).bfloat16()  # a gain that multiplies (LLaMA's weight)
w = (torch.randn(n) * 0.1).bfloat16()  # a stored w = gain - 1 (Gemma 1 to 3's weight)
residual = (torch.randn(64, n) * 8).bfloat16()  # a residual stream larger than x

def exact(h, gain, outside=False):
    """The convention's formula in float64, from the same bfloat16 inputs."""
    h = h.double()
    mean_square = h.pow(2).mean(-1, keepdim=True)
    rms = mean_square.sqrt() + EPS if outside else (mean_square + EPS).sqrt()
    return h / rms * gain.double()

total = x.double() + residual.double()
# Each convention: its output, and its own formula in float64.
runs = {
    "a": (llama(x, gain), exact(x, gain)),  # LLaMA: cast, then multiply
    "b": (cast_once(x, gain), exact(x, gain)),  # multiply in float32, cast once
    "c": (gemma(x, w), exact(x, 1 + w.double())),  # 1 + w in float32
    "d": (gemma_offset_in_bfloat16(x, w), exact(x, 1 + w.double())),  # 1 + w in bf16
    "e": (zero_centered(x, w), exact(x, 1 + w.double())),  # Transformer Engine's
    "f": (eps_outside(x, gain), exact(x, gain, outside=True)),
    "g1": (add_norm_float32(x, residual, gain), exact(total, gain)),  # x + r in float32
    "g2": (add_norm_bfloat16(x, residual, gain), exact(total, gain)),  # rounded first
}
# Correctly rounded: equal to the exact value rounded once to bfloat16 (to nearest).
print(f"{x.numel()} outputs each")
#> 262144 outputs each
table = [f"{'convention':<12}{'not correctly rounded':>22}{'within 1 ulp':>14}"]
for name, (out, reference) in runs.items():
    distance = ulps(out, bfloat16_rounded(reference))
    share, within = (distance > 0).float().mean(), distance.max() <= 1
    table.append(f"{f'({name})':<12}{share:>22.1%}{'yes' if within else 'no':>14}")
print("\n".join(table))
"""
convention   not correctly rounded  within 1 ulp
(a)                          26.0%           yes
(b)                           0.0%           yes
(c)                           0.0%           yes
(d)                          26.9%           yes
(e)                           0.0%           yes
(f)                           0.0%           yes
(g1)                          0.0%           yes
(g2)                         24.2%           yes
"""

def compare(label, a, b):
    """The share of outputs whose bits differ, and by how many ulps at most."""
    distance = ulps(a, b)
    return f"{label:<20}{(distance > 0).float().mean():>14.1%}{distance.max():>14}"

pairs = [("a", "b"), ("c", "d"), ("c", "e"), ("b", "f"), ("g1", "g2")]
lines = [f"{'pair':<20}{'differ':>14}{'max ulps':>14}"]
lines += [compare(f"({a}) vs ({b})", runs[a][0], runs[b][0]) for a, b in pairs]
lines.append(
    compare("(b) vs (f), RMS 1e-3", cast_once(small, gain), eps_outside(small, gain))
)
for line in lines:
    print(line)
    #> pair                        differ      max ulps
    #> (a) vs (b)                   26.0%             1
    #> (c) vs (d)                   26.9%             1
    #> (c) vs (e)                    0.0%             0
    #> (b) vs (f)                    0.0%             1
    #> (g1) vs (g2)                 24.2%             1
    #> (b) vs (f), RMS 1e-3        100.0%            77
