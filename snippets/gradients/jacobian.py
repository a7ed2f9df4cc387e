import torch
from torch.autograd.functional import jacobian

torch.manual_seed(0)
n, eps = 6, 1e-6
weight = torch.rand(n, dtype=torch.float64) + 0.5

def rms_norm(x):
    return weight * x / torch.sqrt(x.pow(2).mean() + eps)

def formula(x, eps_in_projection=True):
    # dy_i/dx_j = (weight_i / r) * (delta_ij - x_hat_i * x_hat_j / n)
    r = torch.sqrt(x.pow(2).mean() + eps)
    # The mistake to tell apart: x_hat without eps in the projection term.
    x_hat = x / r if eps_in_projection else x / x.pow(2).mean().sqrt()
    return torch.diag(weight / r) @ (torch.eye(n) - torch.outer(x_hat, x_hat) / n)

x = torch.randn(n, dtype=torch.float64)
# At an RMS near sqrt(eps) = 1e-3, eps changes the Jacobian in its first digits; near
# 1, in the sixth, so the comparison is made to 12 digits (float64 holds about 16).
for row in [x, 1e-3 * x]:
    jac = jacobian(rms_norm, row)
    right = torch.allclose(jac, formula(row), rtol=1e-12, atol=0)
    wrong = formula(row, eps_in_projection=False)
    off = ((wrong - jac).abs() / jac.abs()).max()  # the largest relative error
    rms = row.pow(2).mean().sqrt().item()
    print(f"RMS {rms:.1e}: formula {right}; eps left out of x_hat: off by {off:.1e}")
    #> RMS 5.7e-01: formula True; eps left out of x_hat: off by 3.1e-06
    #> RMS 5.7e-04: formula True; eps left out of x_hat: off by 3.1e+00
