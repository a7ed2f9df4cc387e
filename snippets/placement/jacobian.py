import torch
from torch import nn
from torch.autograd.functional import jacobian

torch.manual_seed(0)
n = 8
norm = nn.RMSNorm(n, eps=1e-6, dtype=torch.float64)
f = nn.Sequential(nn.Linear(n, 4 * n), nn.ReLU(), nn.Linear(4 * n, n)).double()
x = torch.randn(n, dtype=torch.float64)
eye = torch.eye(n, dtype=torch.float64)

def pre_norm(x):
    return x + f(norm(x))

def post_norm(x):
    return norm(x + f(x))

# Pre-norm: d/dx [x + F(Norm(x))] = I + J_F(Norm(x)) J_Norm(x), a matrix.
expected = eye + jacobian(f, norm(x)) @ jacobian(norm, x)
print(torch.allclose(jacobian(pre_norm, x), expected))
#> True
# Post-norm: d/dx Norm(x + F(x)) = J_Norm(x + F(x)) (I + J_F(x)); no identity term.
expected = jacobian(norm, x + f(x)) @ (eye + jacobian(f, x))
print(torch.allclose(jacobian(post_norm, x), expected))
#> True

# The identity does not cap the block's Jacobian: scale F's output up and it grows.
for scale in [1.0, 10.0, 100.0]:
    block = jacobian(lambda x, scale=scale: x + scale * f(norm(x)), x)
    largest = torch.linalg.matrix_norm(block, ord=2)
    print(f"F times {scale:>5}: largest singular value of the Jacobian {largest:.3g}")
    #> F times   1.0: largest singular value of the Jacobian 1.14
    #> F times  10.0: largest singular value of the Jacobian 3.23
    #> F times 100.0: largest singular value of the Jacobian 34
