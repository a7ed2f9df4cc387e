"""A fused RMSNorm in Triton: one pass over x forward, one pass over x and dy backward.

On a machine without a GPU, set TRITON_INTERPRET=1 before importing triton: the same kernels
then run, slowly, on CPU tensors.
"""

import functools
import math

import torch
import triton
import triton.language as tl

MAX_N = 65536  # a whole row is held by one program
DTYPES = (torch.float32, torch.float16, torch.bfloat16)

@triton.jit
def rms_norm_forward_kernel(
    X,  # input rows, x's dtype
    Y,  # out: output rows, x's dtype, packed (row i starts at i * N)
    W,  # the weight, shape (N,)
    RSTD,  # out: 1 / rms of each row, float32, shape (M,): the backward pass reuses it
    stride_x,  # elements from one row of X to the next (>= N: rows may be padded)
    stride_w,  # elements from one weight entry to the next (1 unless a strided view)
    N,  # row length
    eps,  # added to the mean square, inside the square root
    offset,  # 0.0 scales by w (LLaMA), 1.0 by 1 + w (Gemma)
    BLOCK_N: tl.constexpr,  # a power of two >= N
):
    # One program per row; int64: M * N can pass 2**31.
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    tl.store(RSTD + row, rstd)
    w = tl.load(W + cols * stride_w, mask=mask, other=0.0).to(tl.float32) + offset
    # float32 throughout, one rounding at the end, as the site's checked rms_norm.
    tl.store(Y + row * N + cols, (x * rstd * w).to(Y.dtype.element_ty), mask=mask)

@triton.jit
def rms_norm_backward_kernel(
    DY,  # gradient of the output rows
    X,  # the input rows saved by the forward pass
    W,  # the weight, shape (N,)
    RSTD,  # 1 / rms of each row, from the forward pass
    DX,  # out: gradient of the input rows, packed (row i starts at i * N)
    DW_PARTIAL,  # out: float32 (programs, N), row p is program p's sum of dy * x_hat
    stride_dy,  # elements from one row of DY to the next
    stride_x,  # the same for X
    stride_w,  # elements from one weight entry to the next
    M,  # number of rows
    N,  # row length
    offset,  # 0.0 (LLaMA) or 1.0 (Gemma), as in the forward pass
    BLOCK_M: tl.constexpr,  # rows per loop step: a BLOCK_M x BLOCK_N tile at a time
    BLOCK_N: tl.constexpr,  # a power of two >= N
):
    # Program p takes the tiles p, p + P, p + 2P, ... of the P programs launched.
    program = tl.program_id(0)
    step = tl.num_programs(0) * BLOCK_M
    cols = tl.arange(0, BLOCK_N)
    col_mask = cols < N
    w = tl.load(W + cols * stride_w, mask=col_mask, other=0.0).to(tl.float32) + offset
    dw = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for first in range(program * BLOCK_M, M, step):
        rows = first + tl.arange(0, BLOCK_M)
        row_mask = rows < M  # the last tile may hang past row M - 1
        rows = rows.to(tl.int64)
        mask = row_mask[:, None] & col_mask[None, :]
        x_ptrs = X + rows[:, None] * stride_x + cols[None, :]
        dy_ptrs = DY + rows[:, None] * stride_dy + cols[None, :]
        x = tl.load(x_ptrs, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptrs, mask=mask, other=0.0).to(tl.float32)
        # Rows past M get rstd 0, so x_hat 0: they add nothing to dw.
        rstd = tl.load(RSTD + rows, mask=row_mask, other=0.0)[:, None]
        x_hat = x * rstd
        wdy = w[None, :] * dy
        # dx = rstd * (w*dy - x_hat * mean(w*dy * x_hat)): the Gradients page's formula.
        mean = tl.sum(wdy * x_hat, axis=1)[:, None] / N
        dx = rstd * (wdy - x_hat * mean)
        tl.store(
            DX + rows[:, None] * N + cols[None, :],
            dx.to(DX.dtype.element_ty),
            mask=mask,
        )
        dw += tl.sum(dy * x_hat, axis=0)  # the tile's rows summed in registers
    tl.store(DW_PARTIAL + program * N + cols, dw, mask=col_mask)

# Launch settings. A thread holds BLOCK_M * BLOCK_N / (32 * num_warps) values of each
# tile-sized tensor: at most 32 with these settings up to BLOCK_N 32768, 64 at 65536.
# The backward keeps several such tensors live (x, dy, w, dw, intermediates), and a
# program of 16 or 32 warps gets at most 128 or 64 registers per thread. So ptxas spills
# registers to local memory from BLOCK_N 16384 in the backward and at 65536 in the
# forward (sm_90, triton 3.9, spill stores per thread: backward 592 bytes at 16384, 884
# at 32768, 3018 at 65536; forward 182 at 65536). Still correct, at the cost of traffic.

# Forward: (largest BLOCK_N, num_warps), from a sweep of this kernel's num_warps on an H100
# (bfloat16, M = 16384; for planning, not published) and, for the longest rows, from ptxas.
FORWARD_WARPS = (
    (1024, 2),  # N = 1024: 1, 2 and 4 warps alike, 8 and more slower
    (8192, 8),  # N = 2048 to 8192: 8 warps best or level with the best
    (16384, 16),  # N = 16384: 8, 16 and 32 warps alike
    (MAX_N, 32),  # not timed: at 65536 32 warps spill 182 bytes, 16 warps 658
)

# Backward: (largest BLOCK_N, programs per SM, BLOCK_M, num_warps), from a sweep of the
# kernel with one row per step on an H100 (bfloat16, M = 16384; programs x warps, for
# planning, not published) and, for the longest rows, from ptxas. Each program writes a
# float32 dw partial, so at N <= 2048 BLOCK_M = 2 keeps the best setting's rows in flight
# with half the programs. A tiled backward beat one row per step at N = 1024 to 4096, but
# its settings were not recorded: BLOCK_M = 2 is to be confirmed on a GPU.
BACKWARD_SETTINGS = (
    (1024, 4, 2, 4),  # N = 1024: best at 8 per SM x 4 warps, far ahead of 2 per SM
    (2048, 2, 2, 8),  # N = 2048: best at 4 per SM x 8 warps
    (4096, 2, 1, 8),  # N = 4096: best at 2 per SM x 8 warps
    (16384, 1, 1, 16),  # N = 8192 and 16384: best at 1 per SM x 16 warps
    (MAX_N, 1, 1, 32),  # not timed: at 65536 32 warps spill 3018 bytes, 16 warps 12356
)

def _row(table, block_n):
    return next(row[1:] for row in table if block_n <= row[0])

@functools.lru_cache
def forward_launch(n: int) -> tuple[int, int]:
    """(BLOCK_N, num_warps) for rows of n elements."""
    block_n = triton.next_power_of_2(n)
    return block_n, *_row(FORWARD_WARPS, block_n)

@functools.lru_cache
def backward_launch(n: int, sms: int) -> tuple[int, int, int, int]:
    """(BLOCK_N, BLOCK_M, num_warps, most programs) for rows of n elements on sms SMs."""
    block_n = triton.next_power_of_2(n)
    per_sm, block_m, num_warps = _row(BACKWARD_SETTINGS, block_n)
    return block_n, block_m, num_warps, per_sm * sms

@functools.lru_cache
def _sm_count(device: torch.device) -> int:
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 2  # the interpreter has no SMs: two keep several tiles per program in tests

def _rows(x: torch.Tensor, n: int, name: str) -> torch.Tensor:
    """x as a 2-D (rows, n) view without copying; rows may be strided, elements may not."""
    if x.stride(-1) != 1:
        raise ValueError(
            f"{name} must have contiguous rows (last-dimension stride 1),"
            f" got strides {tuple(x.stride())}"
        )
    if x.dim() == 2:
        return x
    try:
        return x.view(-1, n)
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
    if x.dtype not in DTYPES or weight.dtype not in DTYPES:
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
    # bool is an int; NaN fails every comparison.
    if (
        isinstance(eps, bool)
        or not isinstance(eps, (int, float))
        or not 0 < eps < math.inf
    ):
        raise ValueError(f"eps must be a finite number > 0, got {eps!r}")
    if offset not in (0.0, 1.0):
        raise ValueError(f"offset must be 0.0 (w) or 1.0 (1 + w), got {offset!r}")

def rms_norm_forward(x, weight, eps, offset):
    """y (x's dtype and shape, packed) and rstd (float32, one per row)."""
    n = x.shape[-1]
    rows = _rows(x, n, "x")
    m = rows.shape[0]
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    rstd = torch.empty(m, dtype=torch.float32, device=x.device)
    if m:  # a grid of zero programs is not launched
        block_n, num_warps = forward_launch(n)
        rms_norm_forward_kernel[(m,)](
            rows, y, weight, rstd, rows.stride(0), weight.stride(0), n, eps, offset,
            BLOCK_N=block_n, num_warps=num_warps,
        )  # fmt: skip
    return y, rstd

def rms_norm_backward(dy, x, weight, rstd, offset):
    """dx (x's dtype) and dw (weight's dtype), dw summed over rows in float32."""
    n = x.shape[-1]
    rows = _rows(x, n, "x")
    m = rows.shape[0]
    dx = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if m == 0:  # no rows: nothing to launch, and the sum over no rows is zero
        return dx, torch.zeros_like(weight)
    # Autograd's dy can have any layout: copied only if it must be.
    dy = dy.reshape(-1, n)
    if dy.stride(-1) != 1:
        dy = dy.contiguous()
    block_n, block_m, num_warps, most = backward_launch(n, _sm_count(x.device))
    programs = min(most, triton.cdiv(m, block_m))  # each gets one tile or more
    dw_partial = torch.empty(programs, n, dtype=torch.float32, device=x.device)
    rms_norm_backward_kernel[(programs,)](
        dy, rows, weight, rstd, dx, dw_partial, dy.stride(0), rows.stride(0),
        weight.stride(0), m, n, offset,
        BLOCK_M=block_m, BLOCK_N=block_n, num_warps=num_warps,
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
    eps, offset = float(eps), float(offset)
    if torch.is_grad_enabled() and (x.requires_grad or weight.requires_grad):
        return TritonRMSNormFunction.apply(x, weight, eps, offset)
    y, _ = rms_norm_forward(x, weight, eps, offset)  # no graph to record: no Function
    return y
