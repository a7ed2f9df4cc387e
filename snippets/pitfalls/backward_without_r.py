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
for rms in [0.1, 0.9, 1.0, 1.1, 10.0]:
    x = torch.randn(8, 64, dtype=torch.float64)
    x = x * rms / x.pow(2).mean(-1, keepdim=True).sqrt()  # each row's RMS exactly rms
    x.requires_grad_()
    grad_out = torch.randn(8, 64, dtype=torch.float64)
    y = weight * x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    (truth,) = torch.autograd.grad(y, x, grad_out)
    wrong = backward_missing_r(x.detach(), weight, grad_out)
    fixed, _ = rms_norm_backward(x.detach(), weight, grad_out)  # and the gain's
    close = torch.allclose(wrong, truth, rtol=1e-2, atol=1e-2)  # a test's usual check
    error = ((wrong - truth).norm() / truth.norm()).item()  # relative, as a whole
    exact = ((fixed - truth).norm() / truth.norm()).item() < 1e-12
    verdicts = f"allclose {close!s:<5}; with r below 1e-12: {exact}"
    print(f"RMS {rms:>4}: without r {error:.1e}, {verdicts}")
    #> RMS  0.1: without r 1.8e-01, allclose False; with r below 1e-12: True
    #> RMS  0.9: without r 1.4e-02, allclose False; with r below 1e-12: True
    #> RMS  1.0: without r 3.9e-08, allclose True ; with r below 1e-12: True
    #> RMS  1.1: without r 1.4e-02, allclose False; with r below 1e-12: True
    #> RMS 10.0: without r 9.1e-01, allclose False; with r below 1e-12: True
