import torch

x = torch.zeros(4, dtype=torch.float64, requires_grad=True)
weight = torch.ones(4, dtype=torch.float64)
eps = 1e-6

y = weight * x / torch.sqrt(x.pow(2).mean() + eps)
print(y.detach())
#> tensor([0., 0., 0., 0.], dtype=torch.float64)
y.sum().backward()
# At x = 0, r = sqrt(eps) and x_hat = 0, so dL/dx = weight * g / sqrt(eps).
print(x.grad)
#> tensor([1000., 1000., 1000., 1000.], dtype=torch.float64)
