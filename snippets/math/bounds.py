import torch
import torch.nn.functional as F

def rms_norm(x: torch.Tensor, eps: float) -> torch.Tensor:
    return F.rms_norm(x, (x.shape[-1],), eps=eps)

def stretches(x: torch.Tensor, eps: float) -> torch.Tensor:
    """The singular values of the Jacobian at x, largest first."""
    jacobian = torch.autograd.functional.jacobian(lambda v: rms_norm(v, eps), x)
    return torch.linalg.svdvals(jacobian)

eps = 1e-6
n = 4096

# Every entry of the output is at most sqrt(n) in size; a row with one nonzero entry
# comes closest.
one_hot = torch.zeros(n, dtype=torch.float64)
one_hot[0] = 5.0
torch.manual_seed(0)
normal = torch.randn(n, dtype=torch.float64)
print(f"sqrt(n) = {n**0.5:g}")
#> sqrt(n) = 64
print(f"largest entry, one-hot row: {rms_norm(one_hot, eps).abs().max():.4f}")
#> largest entry, one-hot row: 63.9948
print(f"largest entry, normal row:  {rms_norm(normal, eps).abs().max():.4f}")
#> largest entry, normal row:  3.5564

# With eps = 0 the output is the row's direction scaled to length sqrt(n): sqrt(n) x/||x||.
direction = F.normalize(normal, dim=0)
print(torch.allclose(F.rms_norm(normal, (n,), eps=0.0), n**0.5 * direction))
#> True

# The Jacobian's singular values: 1/r in the n - 1 directions orthogonal to x, and
# eps / ((m + eps) r) along x, where m is the mean square and r = sqrt(m + eps).
x = 0.01 * torch.randn(8, dtype=torch.float64)
m = x.pow(2).mean()
r = (m + eps).sqrt()
singular = stretches(x, eps)
print(
    torch.allclose(singular[:-1], 1 / r),
    torch.allclose(singular[-1], eps / ((m + eps) * r)),
)
#> True True

# So the norm stretches a small change of its input by 1/r at most, 1/sqrt(eps) near x = 0.
largest = stretches(torch.zeros(8, dtype=torch.float64), eps).max()
print(f"largest stretch at x = 0: {largest:.1f} = 1/sqrt(eps)")
#> largest stretch at x = 0: 1000.0 = 1/sqrt(eps)
