import torch

from snippets.gradients.backward import rms_norm_backward

def backward_missing_r(x, weight, grad_out, eps=1e-6):
    # A published mistake: only the first term is divided by r.
    r = torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    x_hat = x / r
    weighted = weight * grad_out
    return weighted / r - x_hat * (weighted * x_hat).mean(-1, keepdim=True)

torch.manual_seed(0)
weight = torch.rand(64, dtype=torch.float64) + 0.5
for scale in [0.1, 1.0, 10.0]:
    x = (torch.randn(8, 64, dtype=torch.float64) * scale).requires_grad_()
    grad_out = torch.randn(8, 64, dtype=torch.float64)
    y = weight * x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    (truth,) = torch.autograd.grad(y, x, grad_out)
    errors = []
    for backward in [backward_missing_r, rms_norm_backward]:
        grad_x = backward(x.detach(), weight, grad_out)
        grad_x = grad_x[0] if isinstance(grad_x, tuple) else grad_x
        errors.append(((grad_x - truth).norm() / truth.norm()).item())
    wrong, fixed = errors
    print(
        f"input scale {scale:>4}: error {wrong:.1e} without r, below 1e-12 with: {fixed < 1e-12}"
    )
    #> input scale  0.1: error 1.8e-01 without r, below 1e-12 with: True
    #> input scale  1.0: error 7.4e-03 without r, below 1e-12 with: True
    #> input scale 10.0: error 7.0e-01 without r, below 1e-12 with: True
