"""RMSNorm's backward pass, written out, and an autograd.Function that uses it."""

import numbers

import torch

def rms_norm_backward(x, weight, grad_out, eps=1e-6):
    """Gradients of y = weight * x / r, r = sqrt(mean(x^2) + eps), over the last dim.

    dL/dx = (1/r) * (weight * g - x_hat * mean(weight * g * x_hat))
    dL/dweight = sum over rows of g * x_hat
    """
    if weight.shape != x.shape[-1:]:
        got = f"{tuple(weight.shape)} for x of shape {tuple(x.shape)}"
        raise ValueError(f"weight must have shape (n,), x's last dim; got {got}")
    if grad_out.shape != x.shape:
        got = f"{tuple(grad_out.shape)} for x of shape {tuple(x.shape)}"
        raise ValueError(f"grad_out must have x's shape; got {got}")
    # Float32 at least, as in the forward; each gradient is rounded once, at the end.
    compute = torch.promote_types(x.dtype, torch.float32)
    x_dtype, weight_dtype = x.dtype, weight.dtype
    x, weight, grad_out = x.to(compute), weight.to(compute), grad_out.to(compute)
    r = torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    x_hat = x / r
    weighted = weight * grad_out
    # The one projection term: the part of weight * g along x_hat, times m / (m + eps) for a
    # mean square m (all of it only at eps = 0).
    shared = (weighted * x_hat).mean(-1, keepdim=True)
    grad_x = (weighted - x_hat * shared) / r
    grad_weight = (grad_out * x_hat).reshape(-1, x.shape[-1]).sum(0)
    return grad_x.to(x_dtype), grad_weight.to(weight_dtype)

class RMSNormFunction(torch.autograd.Function):
    generate_vmap_rule = True  # torch.func.vmap batches it by running it on the batch

    @staticmethod
    def forward(x, weight, eps):
        for name, value in (("x", x), ("weight", weight)):
            if not isinstance(value, torch.Tensor):
                got = type(value).__name__
                raise TypeError(f"{name} must be a tensor; got {got}")
        if weight.shape != x.shape[-1:]:
            got = f"{tuple(weight.shape)} for x of shape {tuple(x.shape)}"
            raise ValueError(f"weight must have shape (n,), x's last dim; got {got}")
        if not (x.is_floating_point() and weight.is_floating_point()):
            got = f"{x.dtype} and {weight.dtype}"
            raise TypeError(f"x and weight must be floating point; got {got}")
        # An all-zero row gives 0 * rsqrt(eps): with eps = 0, 0 * inf = NaN. Added in
        # float32 (at least), eps must be a normal float32 number: 1e-50 rounds to 0.
        float32 = torch.finfo(torch.float32)
        real = isinstance(eps, numbers.Real) and not isinstance(eps, bool)
        if not (real and float32.tiny <= eps <= float32.max):
            raise ValueError(f"eps must be a normal float32 number > 0; got {eps!r}")
        # Float32 at least: float16 squares overflow for |x| >= 256 and zero the row.
        h = x.to(torch.promote_types(x.dtype, torch.float32))
        y = weight.to(h.dtype) * h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
        return y.to(x.dtype)

    @staticmethod
    def setup_context(ctx, inputs, output):  # apart from forward, as torch.func needs
        x, weight, eps = inputs
        ctx.save_for_backward(x, weight)
        ctx.eps = eps

    @staticmethod
    def backward(ctx, grad_out):
        x, weight = ctx.saved_tensors
        grad_x, grad_weight = rms_norm_backward(x, weight, grad_out, ctx.eps)
        return grad_x, grad_weight, None  # no gradient for eps
