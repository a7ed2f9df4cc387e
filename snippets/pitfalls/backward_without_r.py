import torch

def input_gradient(x, weight, grad_out, whole_bracket_over_r, eps=1e-6):
    r = torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    x_hat = x / r
    weighted = weight * grad_out
    shared = x_hat * (weighted * x_hat).mean(-1, keepdim=True)
    if whole_bracket_over_r:
        return (weighted - shared) / r
    return weighted / r - shared  # a published mistake: only the first term over r

torch.manual_seed(0)
weight = torch.rand(64, dtype=torch.float64) + 0.5
for rms in [0.1, 0.9, 1.0, 1.1, 10.0]:
    x = torch.randn(8, 64, dtype=torch.float64)
    x = x * rms / x.pow(2).mean(-1, keepdim=True).sqrt()  # each row's RMS exactly rms
    x.requires_grad_()
    grad_out = torch.randn(8, 64, dtype=torch.float64)
    y = weight * x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    (truth,) = torch.autograd.grad(y, x, grad_out)
    wrong = input_gradient(x.detach(), weight, grad_out, whole_bracket_over_r=False)
    right = input_gradient(x.detach(), weight, grad_out, whole_bracket_over_r=True)
    error = ((wrong - truth).norm() / truth.norm()).item()  # relative, as a whole
    close = torch.allclose(wrong, truth, rtol=1e-2, atol=1e-2)  # a test's usual check
    fixed = torch.allclose(right, truth, rtol=1e-12, atol=0)
    print(f"RMS {rms:>4}: without r {error:.1e}, allclose {close!s:<5}; fixed: {fixed}")
    #> RMS  0.1: without r 1.8e-01, allclose False; fixed: True
    #> RMS  0.9: without r 1.4e-02, allclose False; fixed: True
    #> RMS  1.0: without r 3.9e-08, allclose True ; fixed: True
    #> RMS  1.1: without r 1.4e-02, allclose False; fixed: True
    #> RMS 10.0: without r 9.1e-01, allclose False; fixed: True
