"""The site's Triton RMSNorm as PyTorch operators (torch.library), alone and fused with the
residual add before it, so that torch.compile traces a model calling it in one graph
(fullgraph=True, no graph break) and CUDA graphs capture it.

Around an autograd.Function torch.compile must trace its Python (the checks, the cached
launch tables, the launches) and breaks the graph where it cannot: here each pass is an
operator of its own, with the shapes of its outputs (a fake
implementation) for tracing and the backward operator registered as its gradient.

    from snippets.kernel_in_practice.custom_op import add_rms_norm, rms_norm

    y = rms_norm(x, weight, eps=1e-6)  # offset=1.0 for Gemma 1 to 3's 1 + weight
    y, h = add_rms_norm(x, residual, weight)  # h = x + residual, y = RMSNorm(h)
"""

import torch
from torch.library import wrap_triton
from triton.runtime.jit import JITFunction

from snippets.kernel.rms_norm_triton import (
    _check,
    _check_residual,
    _gradient_rows,
    _rows,
    backward_programs,
    launch_backward,
    launch_forward,
    rms_norm_forward_kernel,
)

# --8<-- [start:define]
# triton_op lets torch.compile see the kernels inside the operator: the traced graph holds
# their launches (wrap_triton), which Inductor can schedule with the code around them.
# Under Triton's interpreter (TRITON_INTERPRET=1, CPU tensors) @triton.jit gives an
# InterpretedFunction, which wrap_triton hands back as is: tracing the operator would run the
# interpreter on fake tensors, which hold no data ("Cannot access data pointer of Tensor").
# There the operators are opaque custom_ops: the same code and launches, called whole.
TRACEABLE = isinstance(rms_norm_forward_kernel, JITFunction)
define_op = torch.library.triton_op if TRACEABLE else torch.library.custom_op

Tensor = torch.Tensor
# --8<-- [end:define]

def _as_rows(x, n, name):
    # Traced with dynamic shapes (torch.compile after a new shape, opcheck), sizes are
    # symbolic: the launch settings are looked up by row length in a cached table and
    # BLOCK_N is a compile-time constant, so the row length is fixed (int() guards on it).
    # Every size but the last is fixed too (not only their product), by the fakes' numel()
    # below (math.prod would keep them symbolic: on the list for the next GPU run, as the
    # code is measured).
    rows = _rows(x, n, name)
    return rows.view(rows.shape[0], n)

def _forward(x, weight, eps, offset, residual=None):
    n = int(x.shape[-1])
    x_rows = _as_rows(x, n, "x")
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    rstd = torch.empty(x_rows.shape[0], dtype=torch.float32, device=x.device)
    h = None if residual is None else torch.empty_like(y)
    launch_forward(
        x_rows,
        weight,
        eps,
        offset,
        y.view(-1, n),
        rstd,
        r_rows=None if residual is None else _as_rows(residual, n, "residual"),
        h=None if h is None else h.view(-1, n),
        wrap=wrap_triton,
    )
    return y, rstd, h

def _backward(dy, x, weight, rstd, offset, dh=None):
    n = int(x.shape[-1])
    x_rows = _as_rows(x, n, "x")
    dx = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    # Each program sums dy * x_hat over its rows in float32; the partial sums are added
    # here. No rows: no programs to launch, and the sum over none is zero.
    programs = backward_programs(x_rows.shape[0], n, x.device)
    dw_partial = torch.empty(programs, n, dtype=torch.float32, device=x.device)
    if programs:
        # Autograd's gradients can have any layout: copied only if they must be.
        launch_backward(
            _gradient_rows(dy, n),
            x_rows,
            weight,
            rstd,
            offset,
            dx.view(-1, n),
            dw_partial,
            dh_rows=None if dh is None else _gradient_rows(dh, n),
            wrap=wrap_triton,
        )
    return dx, dw_partial.sum(0).to(weight.dtype)

# --8<-- [start:operators]
@define_op("rmsnorm_site::rms_norm_forward", mutates_args=())
def rms_norm_forward(
    x: Tensor, weight: Tensor, eps: float, offset: float
) -> tuple[Tensor, Tensor]:
    """y (x's dtype and shape, packed) and rstd (float32, one per row) for the backward."""
    y, rstd, _ = _forward(x, weight, eps, offset)
    return y, rstd

@define_op("rmsnorm_site::rms_norm_backward", mutates_args=())
def rms_norm_backward(
    dy: Tensor, x: Tensor, weight: Tensor, rstd: Tensor, offset: float
) -> tuple[Tensor, Tensor]:
    """dx (x's dtype) and dw (weight's dtype)."""
    return _backward(dy, x, weight, rstd, offset)

@define_op("rmsnorm_site::add_rms_norm_forward", mutates_args=())
def add_rms_norm_forward(
    x: Tensor, residual: Tensor, weight: Tensor, eps: float, offset: float
) -> tuple[Tensor, Tensor, Tensor]:
    """y = RMSNorm(h), h = x + residual (the residual stream) and rstd, all packed."""
    y, rstd, h = _forward(x, weight, eps, offset, residual)
    return y, h, rstd

@define_op("rmsnorm_site::add_rms_norm_backward", mutates_args=())
def add_rms_norm_backward(
    dy: Tensor, dh: Tensor, h: Tensor, weight: Tensor, rstd: Tensor, offset: float
) -> tuple[Tensor, Tensor]:
    """The gradient of h, which x and residual share (dh plus the norm's), and dw."""
    return _backward(dy, h, weight, rstd, offset, dh)

# Fake implementations: the outputs' shapes, dtypes and layouts without running a kernel.
# triton_op would trace its function for them, custom_op has none; one set serves both.
def _empty_rows(x):
    return x.new_empty(x.shape[:-1].numel(), dtype=torch.float32)

@rms_norm_forward.register_fake
def _(x, weight, eps, offset):
    return torch.empty_like(x, memory_format=torch.contiguous_format), _empty_rows(x)

@add_rms_norm_forward.register_fake
def _(x, residual, weight, eps, offset):
    y = torch.empty_like(x, memory_format=torch.contiguous_format)
    return y, torch.empty_like(y), _empty_rows(x)

@rms_norm_backward.register_fake
def _(dy, x, weight, rstd, offset):
    dx = torch.empty_like(x, memory_format=torch.contiguous_format)
    return dx, torch.empty_like(weight, memory_format=torch.contiguous_format)

@add_rms_norm_backward.register_fake
def _(dy, dh, h, weight, rstd, offset):
    dx = torch.empty_like(h, memory_format=torch.contiguous_format)
    return dx, torch.empty_like(weight, memory_format=torch.contiguous_format)

# Gradients: the forward operators save what the backward kernel reads (x, or h when fused
# with the add, one tensor instead of x and residual) and call the backward operators.
def _save_for_rms_norm(ctx, inputs, output):
    x, weight, _, offset = inputs
    ctx.save_for_backward(x, weight, output[1])
    ctx.offset = offset

def _rms_norm_gradients(ctx, dy, _drstd):
    x, weight, rstd = ctx.saved_tensors
    dx, dw = rms_norm_backward(dy, x, weight, rstd, ctx.offset)
    return dx, dw, None, None

def _save_for_add_rms_norm(ctx, inputs, output):
    _, _, weight, _, offset = inputs
    _, h, rstd = output
    ctx.save_for_backward(h, weight, rstd)
    ctx.offset = offset

def _add_rms_norm_gradients(ctx, dy, dh, _drstd):
    h, weight, rstd = ctx.saved_tensors
    dx, dw = add_rms_norm_backward(dy, dh, h, weight, rstd, ctx.offset)
    return dx, dx, dw, None, None  # h = x + residual: both get h's gradient

def _no_second_derivatives(ctx, *gradients):
    # Without this, differentiating the backward operators' outputs would still fail, with
    # PyTorch's generic "no autograd formula was registered": this error names the cause.
    raise RuntimeError(
        "rms_norm has no second derivatives: differentiating its gradients (a gradient "
        "penalty, a Hessian-vector product) needs a differentiable norm, such as "
        "torch.nn.functional.rms_norm"
    )

rms_norm_forward.register_autograd(
    _rms_norm_gradients, setup_context=_save_for_rms_norm
)
add_rms_norm_forward.register_autograd(
    _add_rms_norm_gradients, setup_context=_save_for_add_rms_norm
)
rms_norm_backward.register_autograd(_no_second_derivatives)
add_rms_norm_backward.register_autograd(_no_second_derivatives)

def rms_norm(x, weight, eps=1e-6, offset=0.0):
    """RMSNorm over the last dimension: x / sqrt(mean(x^2) + eps) * (offset + weight).

    The arguments and result of rms_norm_triton. They are checked here, before the
    operator, with the same clear errors; compiled, torch.compile runs the checks in
    Python (fullgraph=True: Dynamo raises its own error, whose __cause__, a Dynamo
    exception, carries the check's message).
    """
    _check(x, weight, eps, offset)
    _rows(x, x.shape[-1], "x")
    y, _ = rms_norm_forward(x, weight, float(eps), float(offset))
    return y

def add_rms_norm(x, residual, weight, eps=1e-6, offset=0.0):
    """h = x + residual, y = RMSNorm(h), fused; returns (y, h) as add_rms_norm_triton."""
    _check(x, weight, eps, offset)
    _check_residual(x, residual)
    _rows(x, x.shape[-1], "x")
    _rows(residual, x.shape[-1], "residual")
    y, h, _ = add_rms_norm_forward(x, residual, weight, float(eps), float(offset))
    return y, h

# --8<-- [end:operators]
