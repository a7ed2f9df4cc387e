import torch
import torch.nn.functional as F

def layer_norm(x: torch.Tensor) -> torch.Tensor:
    return F.layer_norm(x, (x.shape[-1],), eps=0.0)

def commutes(q: torch.Tensor) -> bool:
    """LayerNorm(x Q) = LayerNorm(x) Q, up to rounding."""
    return torch.allclose(layer_norm(x @ q), layer_norm(x) @ q, rtol=0, atol=1e-12)

torch.manual_seed(0)
n = 256
x = torch.randn(8, n, dtype=torch.float64)
ones = torch.ones(n, dtype=torch.float64)

# A permutation of the features keeps the all-ones direction where it is.
permutation = torch.eye(n, dtype=torch.float64)[torch.randperm(n)]
# So does a reflection across a plane that contains it: v orthogonal to the ones.
v = torch.randn(n, dtype=torch.float64)
v -= v.mean()
reflection = torch.eye(n, dtype=torch.float64) - 2 * torch.outer(v, v) / v.dot(v)
# Any orthogonal map of the subspace orthogonal to the ones, the ones kept: QR's first
# column is the ones' direction, the others a basis of that subspace, which `turn` maps.
columns = torch.cat([ones[:, None], torch.randn(n, n - 1, dtype=torch.float64)], 1)
basis, _ = torch.linalg.qr(columns)
along, rest = basis[:, :1], basis[:, 1:]
turn, _ = torch.linalg.qr(torch.randn(n - 1, n - 1, dtype=torch.float64))
rest_turned = along @ along.T + rest @ turn @ rest.T
# A random orthogonal matrix moves the ones.
random, _ = torch.linalg.qr(torch.randn(n, n, dtype=torch.float64))

lines = []
for name, q in [
    ("permutation", permutation),
    ("reflection", reflection),
    ("minus identity", -torch.eye(n, dtype=torch.float64)),
    ("the rest turned", rest_turned),
    ("random", random),
]:
    to_ones = torch.allclose(ones @ q, ones) or torch.allclose(ones @ q, -ones)
    lines.append(f"{name}: ones to +-ones {to_ones}, LayerNorm commutes {commutes(q)}")
print("\n".join(lines))
"""
permutation: ones to +-ones True, LayerNorm commutes True
reflection: ones to +-ones True, LayerNorm commutes True
minus identity: ones to +-ones True, LayerNorm commutes True
the rest turned: ones to +-ones True, LayerNorm commutes True
random: ones to +-ones False, LayerNorm commutes False
"""
