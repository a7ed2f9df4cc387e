import torch

eps = 1e-6

def rms(x):  # the RMS through torch's norm, whose gradient at 0 is taken as 0
    return x.norm(dim=-1, keepdim=True) / x.shape[-1] ** 0.5

forms = {  # the two places of eps, as above, and eps outside a root written as a norm
    "inside": lambda x: x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps),
    "outside": lambda x: x / (x.pow(2).mean(-1, keepdim=True).sqrt() + eps),
    "outside, norm": lambda x: x / (rms(x) + eps),
}
# The gradient g arriving at the output (the gain is ones), and a row close to zero.
g = torch.tensor([0.1, -0.2, 0.3, -0.1], dtype=torch.float64)
near = torch.full((4,), 1e-9, dtype=torch.float64)
for name, norm in forms.items():
    zero = torch.zeros(4, dtype=torch.float64, requires_grad=True)
    norm(zero).backward(g)
    times = (zero.grad / g)[0]  # the same for every element
    # How much the norm stretches a small change: the Jacobian's largest singular value.
    jacobian = torch.autograd.functional.jacobian(norm, near)
    stretch = torch.linalg.matrix_norm(jacobian, ord=2)
    print(f"eps {name}: gradient at 0 = g * {times:.4g}, stretch {stretch:.4g}")
    #> eps inside: gradient at 0 = g * 1000, stretch 1000
    #> eps outside: gradient at 0 = g * nan, stretch 9.99e+05
    #> eps outside, norm: gradient at 0 = g * 1e+06, stretch 9.99e+05
