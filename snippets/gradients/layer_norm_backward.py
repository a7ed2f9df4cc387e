import torch

from snippets.gradients.backward import rms_norm_backward

def layer_norm_backward(x, weight, grad_out, eps=1e-6):
    """dL/dx for y = weight * (x - mean) / sqrt(var + eps) over the last dim."""
    mean = x.mean(-1, keepdim=True)
    sigma = torch.sqrt((x - mean).pow(2).mean(-1, keepdim=True) + eps)
    x_hat = (x - mean) / sigma
    weighted = weight * grad_out
    # Two projection terms: the mean of weight * g, and its part along x_hat, times
    # var / (var + eps).
    along_ones = weighted.mean(-1, keepdim=True)
    along_x_hat = (weighted * x_hat).mean(-1, keepdim=True)
    return (weighted - along_ones - x_hat * along_x_hat) / sigma

x = torch.tensor([2.0, 0.5, -1.0, 1.5], dtype=torch.float64, requires_grad=True)
weight = torch.tensor([0.5, 1.5, 2.0, 0.7], dtype=torch.float64)
grad_out = torch.tensor([0.1, -0.2, 0.3, -0.1], dtype=torch.float64)

ours = layer_norm_backward(x.detach(), weight, grad_out)
torch.nn.functional.layer_norm(x, (4,), weight, eps=1e-6).backward(grad_out)
print("dL/dx:", ", ".join(f"{v:.4f}" for v in ours))
#> dL/dx: 0.1831, -0.3631, 0.1818, -0.0019
print(torch.allclose(ours, x.grad))
#> True

# The extra term removes the mean of weight * g, so LayerNorm's dL/dx sums to 0 (up to
# rounding); RMSNorm's, on the same x, weight and g, need not.
rms, _ = rms_norm_backward(x.detach(), weight, grad_out, 1e-6)
zero = torch.isclose(ours.sum(), torch.zeros((), dtype=torch.float64), atol=1e-12)
print(f"sum of dL/dx: LayerNorm's is 0: {zero.item()}; RMSNorm's is {rms.sum():.4f}")
#> sum of dL/dx: LayerNorm's is 0: True; RMSNorm's is 0.4250
