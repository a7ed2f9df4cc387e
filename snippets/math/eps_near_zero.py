import torch

eps = 1e-6
forms = {  # the two places of eps, as above
    "inside": lambda x: x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps),
    "outside": lambda x: x / (x.pow(2).mean(-1, keepdim=True).sqrt() + eps),
}
# The gradient arriving at the output, and a row close to zero.
grad_y = torch.tensor([0.1, -0.2, 0.3, -0.1], dtype=torch.float64)
near = torch.full((4,), 1e-9, dtype=torch.float64)
for name, norm in forms.items():
    zero = torch.zeros(4, dtype=torch.float64, requires_grad=True)
    norm(zero).backward(grad_y)
    # How much the norm stretches a small change: the Jacobian's largest singular value.
    jacobian = torch.autograd.functional.jacobian(norm, near)
    stretch = torch.linalg.matrix_norm(jacobian, ord=2)
    print(f"eps {name}: gradient at 0 {zero.grad.tolist()}, stretch {stretch:.4g}")
    #> eps inside: gradient at 0 [100.0, -200.0, 300.0, -100.0], stretch 1000
    #> eps outside: gradient at 0 [nan, nan, nan, nan], stretch 9.99e+05
