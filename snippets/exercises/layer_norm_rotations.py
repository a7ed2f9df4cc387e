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
# A random rotation moves it.
rotation, _ = torch.linalg.qr(torch.randn(n, n, dtype=torch.float64))

for name, q in [
    ("permutation", permutation),
    ("reflection", reflection),
    ("random", rotation),
]:
    keeps_ones = torch.allclose(ones @ q, ones)
    print(f"{name}: keeps the ones {keeps_ones}, LayerNorm commutes {commutes(q)}")
    #> permutation: keeps the ones True, LayerNorm commutes True
    #> reflection: keeps the ones True, LayerNorm commutes True
    #> random: keeps the ones False, LayerNorm commutes False
