import torch

n, eps = 4096, 1e-6
torch.manual_seed(0)
direction = torch.randn(n, dtype=torch.float64)
direction = direction / direction.pow(2).mean().sqrt()  # RMS exactly 1
weight = torch.rand(n, dtype=torch.float64) + 0.5  # any gain will do
grad_out = torch.randn(n, dtype=torch.float64)  # g, the gradient from above

# A small cosine shows nothing in 4096 dimensions: even g, which has nothing to do
# with x, is almost orthogonal to it.
cosine = torch.dot(direction, grad_out) / (direction.norm() * grad_out.norm())
print(f"|cos(x, g)| = {abs(cosine):.4f}, 1 / sqrt(n) = {n**-0.5:.4f}")
#> |cos(x, g)| = 0.0091, 1 / sqrt(n) = 0.0156

sizes = []
for rms in [1.0, 1e-2, 1e-3, 1e-4]:
    x = (rms * direction).requires_grad_()
    y = weight * x / torch.sqrt(x.pow(2).mean() + eps)
    (grad_x,) = torch.autograd.grad(y, x, grad_out)
    ms = x.detach().pow(2).mean()
    r = torch.sqrt(ms + eps)
    x_hat = x.detach() / r
    # The part of the gradient along x, as a fraction of the part of weight * g / r
    # along x (the gradient without the projection term).
    survives = torch.dot(x_hat, grad_x) / torch.dot(x_hat, weight * grad_out / r)
    theory = eps / (ms + eps)
    print(f"RMS {rms:g}: measured {survives:.4e}, eps / (ms + eps) = {theory:.4e}")
    #> RMS 1: measured 1.0000e-06, eps / (ms + eps) = 1.0000e-06
    #> RMS 0.01: measured 9.9010e-03, eps / (ms + eps) = 9.9010e-03
    #> RMS 0.001: measured 5.0000e-01, eps / (ms + eps) = 5.0000e-01
    #> RMS 0.0001: measured 9.9010e-01, eps / (ms + eps) = 9.9010e-01
    # The matrix only shrinks a vector, so |dx| is at most |weight * g| / r; for a g
    # unrelated to x it falls short of that by the little it removes along x.
    bound = (weight * grad_out).norm() / r
    size = grad_x.norm()
    short = 1 - size / bound  # a share of the bound
    sizes.append(f"RMS {rms:g}: |dx| {size:.4g}, bound {bound:.4g}, {short:.1e} short")
print("\n".join(sizes))
"""
RMS 1: |dx| 68.15, bound 68.15, 1.7e-05 short
RMS 0.01: |dx| 6781, bound 6781, 1.7e-05 short
RMS 0.001: |dx| 4.819e+04, bound 4.819e+04, 1.3e-05 short
RMS 0.0001: |dx| 6.781e+04, bound 6.781e+04, 3.4e-07 short
"""
