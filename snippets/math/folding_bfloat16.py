import torch
import torch.nn.functional as F

torch.manual_seed(0)
n, eps = 256, 1e-6
x = torch.randn(64, n, dtype=torch.float64)  # 64 rows
gain = torch.rand(n, dtype=torch.float64) + 0.5
weight = torch.randn(64, n, dtype=torch.float64) / n**0.5  # nn.Linear's W^T
exact = F.rms_norm(x, (n,), gain, eps=eps) @ weight.T  # float64 throughout

def relative_error(y: torch.Tensor) -> float:
    return ((y.double() - exact).norm() / exact.norm()).item()

bf16 = torch.bfloat16
# The norm in float32, rounded to bfloat16 before the gain multiplies (LLaMA's order).
h = F.rms_norm(x.to(bf16).float(), (n,), eps=eps).to(bf16)
checkpoint_weight, checkpoint_gain = weight.to(bf16), gain.to(bf16)
unfolded = (checkpoint_gain * h) @ checkpoint_weight.T
folded_after = h @ (checkpoint_weight * checkpoint_gain).T
# From float32 master weights, before either is rounded: one rounding, not three.
folded_before = h @ (weight.float() * gain.float()).to(bf16).T
for name, y in [
    ("unfolded", unfolded),
    ("folded after rounding", folded_after),
    ("folded before rounding", folded_before),
]:
    print(f"{name:<22} relative error against float64: {relative_error(y):.1e}")
    #> unfolded               relative error against float64: 4.1e-03
    #> folded after rounding  relative error against float64: 4.1e-03
    #> folded before rounding relative error against float64: 3.3e-03

# Two bfloat16 numbers' product has at most 16 significant bits, exact in float32: a
# bfloat16 checkpoint multiplied in float32 rounds to the same weight.
in_float32 = (checkpoint_weight.float() * checkpoint_gain.float()).to(bf16)
same = torch.equal(in_float32, checkpoint_weight * checkpoint_gain)
print("same folded weight:", same)
#> same folded weight: True
