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
unfolded = (gain.to(bf16) * h) @ weight.to(bf16).T
folded_in_bf16 = h @ (weight.to(bf16) * gain.to(bf16)).T
folded_in_float32 = h @ (weight.float() * gain.float()).to(bf16).T  # rounded once
for name, y in [
    ("unfolded", unfolded),
    ("folded in bfloat16", folded_in_bf16),
    ("folded in float32", folded_in_float32),
]:
    print(f"{name:<19} relative error against float64: {relative_error(y):.1e}")
    #> unfolded            relative error against float64: 4.1e-03
    #> folded in bfloat16  relative error against float64: 4.1e-03
    #> folded in float32   relative error against float64: 3.3e-03
