"""RMSNorm's backward pass, written out, and an autograd.Function that uses it."""

import torch

def rms_norm_backward(x, weight, grad_out, eps=1e-6):
    """Gradients of y = weight * x / r, r = sqrt(mean(x^2) + eps), over the last dim.

    dL/dx = (1/r) * (weight * g - x_hat * mean(weight * g * x_hat))
    dL/dweight = sum over rows of g * x_hat
    """
    r = torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    x_hat = x / r
    weighted = weight * grad_out
    # The one projection term: the part of weight * g along x_hat, times m / (m + eps) for a
    # mean square m (all of it only at eps = 0).
    shared = (weighted * x_hat).mean(-1, keepdim=True)
    grad_x = (weighted - x_hat * shared) / r
    grad_weight = (grad_out * x_hat).reshape(-1, x.shape[-1]).sum(0)
    return grad_x, grad_weight

class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        ctx.save_for_backward(x, weight)
        ctx.eps = eps
        return weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)

    @staticmethod
    def backward(ctx, grad_out):
        x, weight = ctx.saved_tensors
        grad_x, grad_weight = rms_norm_backward(x, weight, grad_out, ctx.eps)
        return grad_x, grad_weight, None  # no gradient for eps
