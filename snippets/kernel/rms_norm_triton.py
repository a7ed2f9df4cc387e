"""A fused RMSNorm in Triton: one pass over x forward, one pass over x and dy backward.

On a machine without a GPU, set TRITON_INTERPRET=1 before importing triton: the same kernels
then run, slowly, on CPU tensors.
"""

import math

import torch
import triton
import triton.language as tl

MAX_N = 65536  # a whole row is held by one program

@triton.jit
def rms_norm_forward_kernel(
    X,  # input rows, x's dtype
    Y,  # output rows, x's dtype
    W,  # the weight, shape (N,)
    RSTD,  # out: 1 / rms of each row, float32, shape (M,): the backward pass reuses it
    stride_x,  # elements from one row of X to the next (>= N: rows may be padded)
    stride_y,  # the same for Y
    N,  # row length
    eps,  # added to the mean square, inside the square root
    offset,  # 0.0 scales by w (LLaMA), 1.0 by 1 + w (Gemma)
    BLOCK_N: tl.constexpr,  # a power of two >= N
):
    row = tl.program_id(0).to(
        tl.int64
    )  # one program per row; int64: M * N can pass 2**31
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    tl.store(RSTD + row, rstd)
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32) + offset
    # float32 throughout, one rounding at the end, as the site's checked rms_norm.
    tl.store(
        Y + row * stride_y + cols, (x * rstd * w).to(Y.dtype.element_ty), mask=mask
    )

@triton.jit
def rms_norm_backward_kernel(
    DY,  # gradient of the output rows
    X,  # the input rows saved by the forward pass
    W,  # the weight, shape (N,)
    RSTD,  # 1 / rms of each row, from the forward pass
    DX,  # out: gradient of the input rows
    DW_PARTIAL,  # out: float32 (programs, N), this program's sum of dy * x_hat
    stride_dy,
    stride_x,
    stride_dx,
    M,  # number of rows
    N,
    offset,
    rows_per_program,  # each program walks a contiguous run of rows
    BLOCK_N: tl.constexpr,
):
    program = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32) + offset
    dw = tl.zeros((BLOCK_N,), dtype=tl.float32)
    first = program * rows_per_program
    for r in range(first, tl.minimum(first + rows_per_program, M)):
        row = tl.cast(r, tl.int64)
        x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(DY + row * stride_dy + cols, mask=mask, other=0.0).to(tl.float32)
        rstd = tl.load(RSTD + row)
        x_hat = x * rstd
        wdy = w * dy
        # dx = rstd * (w*dy - x_hat * mean(w*dy * x_hat)): the Gradients page's formula.
        dx = rstd * (wdy - x_hat * (tl.sum(wdy * x_hat, axis=0) / N))
        tl.store(DX + row * stride_dx + cols, dx.to(DX.dtype.element_ty), mask=mask)
        dw += dy * x_hat
    tl.store(DW_PARTIAL + program * N + cols, dw, mask=mask)

def _num_warps(block_n: int) -> int:
    # More warps for longer rows, so each thread holds at most a few dozen values.
    return 4 if block_n <= 2048 else 8 if block_n <= 8192 else 16

def _rows(x: torch.Tensor, n: int, name: str) -> torch.Tensor:
    """x as a 2-D (rows, n) view without copying; rows may be strided, elements may not."""
    if x.stride(-1) != 1:
        raise ValueError(
            f"{name} must have contiguous rows (last-dimension stride 1),"
            f" got strides {tuple(x.stride())}"
        )
    try:
        return x.view(-1, n) if x.dim() != 2 else x
    except RuntimeError:
        raise ValueError(
            f"{name} of shape {tuple(x.shape)} and strides {tuple(x.stride())} cannot be"
            " viewed as rows without a copy; pass x.contiguous()"
        ) from None

def _check(x, weight, eps, offset):
    if not isinstance(x, torch.Tensor) or not isinstance(weight, torch.Tensor):
        raise TypeError(
            f"x and weight must be tensors, got {type(x).__name__} and"
            f" {type(weight).__name__}"
        )
    dtypes = (torch.float32, torch.float16, torch.bfloat16)
    if x.dtype not in dtypes or weight.dtype not in dtypes:
        raise TypeError(
            f"x and weight must be float32, float16 or bfloat16, got {x.dtype} and"
            f" {weight.dtype}"
        )
    if x.dim() == 0 or weight.dim() != 1 or weight.shape[0] != x.shape[-1]:
        raise ValueError(
            f"weight must have shape (N,) for x of shape (..., N), got {tuple(weight.shape)}"
            f" for x of shape {tuple(x.shape)}"
        )
    if not 0 < x.shape[-1] <= MAX_N:
        raise ValueError(f"N must be between 1 and {MAX_N}, got {x.shape[-1]}")
    if x.device != weight.device:
        raise ValueError(f"x is on {x.device} but weight on {weight.device}")
    if (
        isinstance(eps, bool)
        or not isinstance(eps, (int, float))
        or not (math.isfinite(eps) and eps > 0)
    ):
        raise ValueError(f"eps must be a finite number > 0, got {eps!r}")
    if offset not in (0.0, 1.0):
        raise ValueError(f"offset must be 0.0 (w) or 1.0 (1 + w), got {offset!r}")

def rms_norm_forward(x, weight, eps, offset):
    """y (x's dtype, x's shape) and rstd (float32, one per row)."""
    n = x.shape[-1]
    rows = _rows(x, n, "x")
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    rstd = torch.empty(rows.shape[0], dtype=torch.float32, device=x.device)
    block_n = triton.next_power_of_2(n)
    rms_norm_forward_kernel[(rows.shape[0],)](
        rows, y, weight.contiguous(), rstd, rows.stride(0), n, n, eps, offset,
        BLOCK_N=block_n, num_warps=_num_warps(block_n),
    )  # fmt: skip
    return y, rstd

def _programs(device: torch.device, m: int) -> int:
    # Enough programs to fill the GPU twice over; each keeps one (N,) partial of dw.
    if device.type == "cuda":
        return min(
            m, 2 * torch.cuda.get_device_properties(device).multi_processor_count
        )
    return min(m, 4)  # the interpreter: still several rows per program

def rms_norm_backward(dy, x, weight, rstd, offset):
    """dx (x's dtype) and dw (weight's dtype), dw summed over rows in float32."""
    n = x.shape[-1]
    rows = _rows(x, n, "x")
    dy = dy.reshape(
        -1, n
    )  # autograd's dy can have any layout: copied only if it must be
    dy = dy if dy.stride(-1) == 1 else dy.contiguous()
    m = rows.shape[0]
    dx = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    programs = _programs(x.device, m)
    dw_partial = torch.empty(programs, n, dtype=torch.float32, device=x.device)
    block_n = triton.next_power_of_2(n)
    rms_norm_backward_kernel[(programs,)](
        dy, rows, weight.contiguous(), rstd, dx, dw_partial, dy.stride(0), rows.stride(0), n,
        m, n, offset, triton.cdiv(m, programs),
        BLOCK_N=block_n, num_warps=_num_warps(block_n),
    )  # fmt: skip
    return dx, dw_partial.sum(0).to(weight.dtype)

class TritonRMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps, offset):
        y, rstd = rms_norm_forward(x, weight, eps, offset)
        ctx.save_for_backward(x, weight, rstd)
        ctx.offset = offset
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, rstd = ctx.saved_tensors
        dx, dw = rms_norm_backward(dy, x, weight, rstd, ctx.offset)
        return dx, dw, None, None

def rms_norm_triton(x, weight, eps=1e-6, offset=0.0):
    """RMSNorm over the last dimension: x / sqrt(mean(x^2) + eps) * (offset + weight).

    offset=0.0 is LLaMA's convention (weight starts at ones), offset=1.0 Gemma's (weight
    starts at zeros). x: float32, float16 or bfloat16, (..., N) with N <= 65536 and a
    last-dimension stride of 1 (rows may be strided). Returns x's dtype and shape.
    """
    _check(x, weight, eps, offset)
    return TritonRMSNormFunction.apply(x, weight, float(eps), float(offset))
