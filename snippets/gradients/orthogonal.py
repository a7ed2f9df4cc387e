import torch

torch.manual_seed(0)
grad_out = torch.randn(4096, dtype=torch.float64)

for eps, scale in [(0.0, 1.0), (1e-6, 1.0), (1e-6, 1e-3)]:
    x = (torch.randn(4096, dtype=torch.float64) * scale).requires_grad_()
    y = x / torch.sqrt(x.pow(2).mean() + eps)
    (grad_x,) = torch.autograd.grad(y, x, grad_out)
    # Cosine of the angle between x and its gradient: 0 means orthogonal.
    cosine = torch.dot(x, grad_x) / (x.norm() * grad_x.norm())
    print(f"eps {eps:g}, RMS about {scale:g}: |cos(x, dL/dx)| = {abs(cosine):.4f}")
    #> eps 0, RMS about 1: |cos(x, dL/dx)| = 0.0000
    #> eps 1e-06, RMS about 1: |cos(x, dL/dx)| = 0.0000
    #> eps 1e-06, RMS about 0.001: |cos(x, dL/dx)| = 0.0063
