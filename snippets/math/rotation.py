import torch
import torch.nn.functional as F

def rms_norm(
    x: torch.Tensor, eps: float, gain: torch.Tensor | None = None
) -> torch.Tensor:
    return F.rms_norm(x, (x.shape[-1],), gain, eps=eps)

def layer_norm(x: torch.Tensor, eps: float) -> torch.Tensor:
    return F.layer_norm(x, (x.shape[-1],), eps=eps)

torch.manual_seed(0)
n = 256
x = torch.randn(8, n, dtype=torch.float64)  # 8 rows
# A random orthogonal matrix (Q Q^T = I): the Q factor of a Gaussian matrix.
q, _ = torch.linalg.qr(torch.randn(n, n, dtype=torch.float64))

# A rotation keeps each row's length, so its mean square: RMSNorm commutes with Q,
# whatever eps is.
for eps in [1e-6, 1.0]:
    same = torch.allclose(rms_norm(x @ q, eps), rms_norm(x, eps) @ q)
    print(f"eps = {eps:g}: RMSNorm(x Q) = RMSNorm(x) Q: {same}")
    #> eps = 1e-06: RMSNorm(x Q) = RMSNorm(x) Q: True
    #> eps = 1: RMSNorm(x Q) = RMSNorm(x) Q: True

eps = 1e-6
# LayerNorm subtracts the mean, the part of x along the all-ones direction, which Q moves.
gap = (layer_norm(x @ q, eps) - layer_norm(x, eps) @ q).abs().max()
print(f"LayerNorm(x Q) - LayerNorm(x) Q: up to {gap:.4f}")
#> LayerNorm(x Q) - LayerNorm(x) Q: up to 0.3853

# A gain does not commute: it scales each feature before Q mixes them.
gain = torch.rand(n, dtype=torch.float64) + 0.5
gap = (rms_norm(x @ q, eps, gain) - rms_norm(x, eps, gain) @ q).abs().max()
print(f"with a gain: up to {gap:.4f}")
#> with a gain: up to 1.6459

# Fold the gain into the linear layer that reads the norm's output. nn.Linear keeps
# W^T, one row per output feature, so the gain scales its columns.
linear = torch.nn.Linear(n, 64, bias=False, dtype=torch.float64)
folded = linear.weight.detach() * gain
print(torch.allclose(linear(rms_norm(x, eps, gain)), rms_norm(x, eps) @ folded.T))
#> True

# Then the rows can be rotated and the layer given Q^T in front (its weight times Q):
# the same output.
rotated = folded @ q
print(torch.allclose(rms_norm(x @ q, eps) @ rotated.T, linear(rms_norm(x, eps, gain))))
#> True
