import torch

x = torch.tensor([2.0, 0.5, -1.0, 1.5], dtype=torch.float64)
gain = torch.tensor([1.0, 2.0, 1.0, 0.5], dtype=torch.float64)
grad_out = torch.tensor([0.2, 0.1, -0.1, 0.3], dtype=torch.float64)
eps = 0.0  # negligible, as the exercise says

r = torch.sqrt(x.pow(2).mean() + eps)
x_hat = x / r
products = gain * grad_out * x_hat  # gamma_j g_j x_hat_j, whose mean is the shared term
print("x_hat:", ", ".join(f"{v:.5f}" for v in x_hat))
#> x_hat: 1.46059, 0.36515, -0.73030, 1.09545
print("gamma g x_hat:", ", ".join(f"{v:.5f}" for v in products))
#> gamma g x_hat: 0.29212, 0.07303, 0.07303, 0.16432
shared = products.mean()
print(f"r = {r:.5f}, x_hat_2 = {x_hat[1]:.5f}, shared term = {shared:.5f}")
#> r = 1.36931, x_hat_2 = 0.36515, shared term = 0.15062
print(f"dL/dx_2 = {(gain[1] * grad_out[1] - x_hat[1] * shared) / r:.5f}")
#> dL/dx_2 = 0.10589

# Autograd through the forward formula gives the same component.
leaf = x.clone().requires_grad_()
y = gain * leaf / torch.sqrt(leaf.pow(2).mean() + eps)
(grad_x,) = torch.autograd.grad(y, leaf, grad_out)
print(f"dL/dx_2 = {grad_x[1]:.5f}")
#> dL/dx_2 = 0.10589
