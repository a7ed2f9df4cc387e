import torch
from torch.autograd.functional import jacobian

torch.manual_seed(0)
n, eps = 6, 1e-6
x = torch.randn(n, dtype=torch.float64)
weight = torch.rand(n, dtype=torch.float64) + 0.5

def rms_norm(x):
    return weight * x / torch.sqrt(x.pow(2).mean() + eps)

r = torch.sqrt(x.pow(2).mean() + eps)
x_hat = x / r
# dy_i/dx_j = (weight_i / r) * (delta_ij - x_hat_i * x_hat_j / n)
formula = torch.diag(weight / r) @ (torch.eye(n) - torch.outer(x_hat, x_hat) / n)
print(torch.allclose(jacobian(rms_norm, x), formula))
#> True
