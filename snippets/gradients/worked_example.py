import torch

x = torch.tensor([2.0, 0.5, -1.0, 1.5], dtype=torch.float64)
weight = torch.ones(4, dtype=torch.float64)
grad_out = torch.tensor([0.1, -0.2, 0.3, -0.1], dtype=torch.float64)
eps = 1e-6

r = torch.sqrt(x.pow(2).mean() + eps)
x_hat = x / r
print("x_hat:             ", ", ".join(f"{v:.4f}" for v in x_hat))
#> x_hat:              1.4606, 0.3651, -0.7303, 1.0954
products = weight * grad_out * x_hat
print("weight * g * x_hat:", ", ".join(f"{v:.5f}" for v in products))
#> weight * g * x_hat: 0.14606, -0.07303, -0.21909, -0.10954
shared = products.mean()  # (1/n) sum_j weight_j g_j x_hat_j
print(f"r = {r:.4f}, shared term = {shared:.4f}")
#> r = 1.3693, shared term = -0.0639
# The two gradients, as derived above.
grad_x = (weight * grad_out - x_hat * shared) / r
grad_weight = grad_out * x_hat
print("dL/dx:             ", ", ".join(f"{v:.4f}" for v in grad_x))
#> dL/dx:              0.1412, -0.1290, 0.1850, -0.0219
print("dL/dweight:        ", ", ".join(f"{v:.4f}" for v in grad_weight))
#> dL/dweight:         0.1461, -0.0730, -0.2191, -0.1095

# Autograd agrees, on both gradients.
x.requires_grad_()
weight.requires_grad_()
y = weight * x / torch.sqrt(x.pow(2).mean() + eps)
y.backward(grad_out)
print(torch.allclose(x.grad, grad_x), torch.allclose(weight.grad, grad_weight))
#> True True
