"""A fused RMSNorm in Triton: one pass over x forward, one pass over x and dy backward; and
the same kernels fused with the residual add before the norm, h = x + r, y = RMSNorm(h).

On a machine without a GPU, set TRITON_INTERPRET=1 before importing triton: the same kernels
then run, slowly, on CPU tensors.
"""

import functools
import numbers

import torch
import triton
import triton.language as tl

MAX_N = 65536  # a whole row is held by one program
DTYPES = (torch.float32, torch.float16, torch.bfloat16)

@triton.jit
def rms_norm_forward_kernel(
    X,  # input rows, x's dtype
    R,  # the residual rows added to X (read only if ADD_RESIDUAL)
    H,  # out: x + r, x's dtype, packed (written only if ADD_RESIDUAL)
    Y,  # out: output rows, x's dtype, packed (row i starts at i * N)
    W,  # the weight, shape (N,)
    RSTD,  # out: 1 / rms of each row, float32, shape (M,): the backward pass reuses it
    stride_x,  # elements from one row of X to the next (rows may be padded or repeated)
    stride_r,  # the same for R
    stride_w,  # elements from one weight entry to the next (1 unless a strided view)
    N,  # row length
    eps,  # added to the mean square, inside the square root
    offset,  # 0.0 scales by w (LLaMA), 1.0 by 1 + w (Gemma)
    ADD_RESIDUAL: tl.constexpr,  # False: the lone norm, y = RMSNorm(x); the code is
    # compiled for each value, so the lone norm carries none of the residual's code
    BLOCK_N: tl.constexpr,  # a power of two >= N
):
    # One program per row; int64: M * N can pass 2**31.
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    if ADD_RESIDUAL:
        r = tl.load(R + row * stride_r + cols, mask=mask, other=0.0).to(tl.float32)
        # h is rounded to x's dtype, as PyTorch's x + r is, and the norm reads that h:
        # the residual stream and the norm's input are the same numbers as unfused.
        h = (x + r).to(H.dtype.element_ty)
        tl.store(H + row * N + cols, h, mask=mask)
        x = h.to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    tl.store(RSTD + row, rstd)
    w = tl.load(W + cols * stride_w, mask=mask, other=0.0).to(tl.float32) + offset
    # float32 throughout, one rounding at the end, as the site's checked rms_norm.
    tl.store(Y + row * N + cols, (x * rstd * w).to(Y.dtype.element_ty), mask=mask)

@triton.jit
def rms_norm_backward_kernel(
    DY,  # gradient of the output rows
    DH,  # gradient of h from the residual stream (read only if ADD_DH)
    X,  # the norm's input rows saved by the forward pass (h when fused with the add)
    W,  # the weight, shape (N,)
    RSTD,  # 1 / rms of each row, from the forward pass
    DX,  # out: gradient of the input rows, packed (row i starts at i * N); fused with
    # the add, the gradient of h, which x and r share
    DW_PARTIAL,  # out: float32 (programs, N), row p is program p's sum of dy * x_hat
    stride_dy,  # elements from one row of DY to the next
    stride_dh,  # the same for DH
    stride_x,  # the same for X
    stride_w,  # elements from one weight entry to the next
    M,  # number of rows
    N,  # row length
    offset,  # 0.0 (LLaMA) or 1.0 (Gemma), as in the forward pass
    ADD_DH: tl.constexpr,  # True when fused with the residual add: DX = dh + the norm's dx
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
        if ADD_DH:  # h feeds the norm and the residual stream: its gradient is the sum
            dh_ptrs = DH + rows[:, None] * stride_dh + cols[None, :]
            dx += tl.load(dh_ptrs, mask=mask, other=0.0).to(tl.float32)
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
# registers to local memory from BLOCK_N 16384 in the backward and from 32768 in the
# forward (sm_90, triton 3.9, spill stores per thread, bfloat16: backward 192 bytes at
# 16384, 740 at 32768, 2418 at 65536; forward none at 32768 and 228 at 65536, when M, N,
# the strides and the pointers' alignment are multiples of 16, which Triton specializes a
# launch for; without that, as the tests compile, 548, 800 and 2910, and 4 and 242; with
# the residual add, the forward 92 and 1158). Still correct, at the cost of traffic.

# Forward: (largest BLOCK_N, num_warps), picked from a sweep of this kernel's num_warps on
# an H100 (bfloat16, M = 16384) whose timings are not published, and, for the longest rows,
# from ptxas. `python -m snippets.benchmark.tune` times every setting on a GPU.
FORWARD_WARPS = (
    (1024, 2),  # N = 1024
    (8192, 8),  # N = 2048 to 8192
    (16384, 16),  # N = 16384
    (MAX_N, 32),  # not timed: spills 228 bytes, 16 warps 232 (242, 1714)
)

# Backward: (largest BLOCK_N, programs per SM, BLOCK_M, num_warps), picked from a sweep of
# programs x warps for the kernel with one row per step on an H100 (bfloat16, M = 16384)
# whose timings are not published, and, for the longest rows, from ptxas. Each program
# writes a float32 dw partial, so at N <= 2048 BLOCK_M = 2 keeps the picked setting's rows
# in flight (8 and 4 programs per SM of one row) with half the programs; BLOCK_M = 2 is
# untimed. `python -m snippets.benchmark.tune` times every setting of both tables.
BACKWARD_SETTINGS = (
    (1024, 4, 2, 4),  # N = 1024
    (2048, 2, 2, 8),  # N = 2048
    (4096, 2, 1, 8),  # N = 4096
    (16384, 1, 1, 16),  # N = 8192 and 16384
    (MAX_N, 1, 1, 32),  # not timed: spills 2418 bytes, 16 warps 9764 (2910, 12050)
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
def sm_count(device: torch.device) -> int:
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 2  # the interpreter has no SMs: two keep several tiles per program in tests

def _rows(x: torch.Tensor, n: int, name: str) -> torch.Tensor:
    """x as a 2-D (rows, n) view without copying; rows may be strided, elements may not."""
    # A row of one element is contiguous whatever its stride.
    if x.stride(-1) != 1 and n > 1:
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
    # bool is an int; NaN fails every comparison. The kernels take eps as a float32: a
    # smaller eps is subnormal or 0, and the GPU's fast square root flushes subnormals to
    # 0, so a zero row would give 0 * inf. A larger eps is inf.
    float32 = torch.finfo(torch.float32)
    if (
        isinstance(eps, bool)
        or not isinstance(eps, numbers.Real)  # Python and NumPy numbers, as torch takes
        or not float32.tiny <= eps <= float32.max
    ):
        raise ValueError(
            f"eps must be a normal float32 number > 0 ({float32.tiny:.8g} to "
            f"{float32.max:.7g}), got {eps!r}"
        )
    if offset not in (0.0, 1.0):
        raise ValueError(f"offset must be 0.0 (w) or 1.0 (1 + w), got {offset!r}")

def _check_residual(x, residual):
    if not isinstance(residual, torch.Tensor):
        raise TypeError(f"residual must be a tensor, got {type(residual).__name__}")
    expected = (x.shape, x.dtype, x.device)
    if (residual.shape, residual.dtype, residual.device) != expected:
        raise ValueError(
            f"residual must match x: shape {tuple(x.shape)}, {x.dtype} on {x.device};"
            f" got shape {tuple(residual.shape)}, {residual.dtype} on {residual.device}"
        )

def rms_norm_forward(x, weight, eps, offset, residual=None):
    """y (x's dtype and shape, packed), rstd (float32, one per row), and h = x + residual
    (packed; None without a residual), whose norm y is."""
    n = x.shape[-1]
    rows = _rows(x, n, "x")
    m = rows.shape[0]
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    rstd = torch.empty(m, dtype=torch.float32, device=x.device)
    fused = residual is not None
    # Without a residual, R and H are never read or written: any tensor will do.
    r_rows = _rows(residual, n, "residual") if fused else rows
    h = torch.empty_like(y) if fused else None
    if m:  # a grid of zero programs is not launched
        block_n, num_warps = forward_launch(n)
        rms_norm_forward_kernel[(m,)](
            rows, r_rows, h if fused else y, y, weight, rstd, rows.stride(0),
            r_rows.stride(0), weight.stride(0), n, eps, offset,
            ADD_RESIDUAL=fused, BLOCK_N=block_n, num_warps=num_warps,
            enable_fp_fusion=False,  # see rms_norm_backward
        )  # fmt: skip
    return y, rstd, h

def rms_norm_backward(dy, x, weight, rstd, offset, dh=None):
    """dx (x's dtype) and dw (weight's dtype), dw summed over rows in float32. With dh,
    the gradient of h = x + r from the residual stream (x is then h), dx is the gradient
    of h, which x and r share: dh plus the norm's."""
    n = x.shape[-1]
    rows = _rows(x, n, "x")
    m = rows.shape[0]
    dx = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if m == 0:  # no rows: nothing to launch, and the sum over no rows is zero
        return dx, torch.zeros_like(weight)
    # Autograd's gradients can have any layout: copied only if they must be.
    dy = _gradient_rows(dy, n)
    dh_rows = dy if dh is None else _gradient_rows(dh, n)  # not read without dh
    block_n, block_m, num_warps, most = backward_launch(n, sm_count(x.device))
    programs = min(most, triton.cdiv(m, block_m))  # each gets one tile or more
    dw_partial = torch.empty(programs, n, dtype=torch.float32, device=x.device)
    rms_norm_backward_kernel[(programs,)](
        dy, dh_rows, rows, weight, rstd, dx, dw_partial, dy.stride(0), dh_rows.stride(0),
        rows.stride(0), weight.stride(0), m, n, offset,
        ADD_DH=dh is not None, BLOCK_M=block_m, BLOCK_N=block_n, num_warps=num_warps,
        # Each multiplication and addition rounded on its own, as in PyTorch's eager ops:
        # with ADD_DH, dx + dh is then the unfused add's sum, bit for bit, not one fused
        # multiply-add (Triton's default through 3.9).
        enable_fp_fusion=False,
    )  # fmt: skip
    return dx, dw_partial.sum(0).to(weight.dtype)

def _gradient_rows(gradient, n):
    rows = gradient.reshape(-1, n)
    return rows if rows.stride(-1) == 1 else rows.contiguous()

def _refuse_second_derivatives():
    # Autograd cannot see into the kernels, so the gradients they return have no history: with
    # create_graph=True (grad mode on during backward), a penalty built on them and added to a
    # loss would be differentiated as a constant, silently.
    if torch.is_grad_enabled():
        raise RuntimeError(
            "rms_norm_triton has no second derivatives: backward with create_graph=True "
            "(a gradient penalty, a Hessian-vector product) needs a differentiable norm, "
            "such as torch.nn.functional.rms_norm"
        )

class TritonRMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps, offset):
        y, rstd, _ = rms_norm_forward(x, weight, eps, offset)
        ctx.save_for_backward(x, weight, rstd)
        ctx.offset = offset
        return y

    @staticmethod
    def backward(ctx, dy):
        _refuse_second_derivatives()
        x, weight, rstd = ctx.saved_tensors
        dx, dw = rms_norm_backward(dy, x, weight, rstd, ctx.offset)
        return dx, dw, None, None

class TritonAddRMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, residual, weight, eps, offset):
        y, rstd, h = rms_norm_forward(x, weight, eps, offset, residual)
        ctx.save_for_backward(h, weight, rstd)  # h, not x and r: one tensor kept
        ctx.offset = offset
        return y, h

    @staticmethod
    def backward(ctx, dy, dh):
        _refuse_second_derivatives()
        h, weight, rstd = ctx.saved_tensors
        dx, dw = rms_norm_backward(dy, h, weight, rstd, ctx.offset, dh)
        return dx, dx, dw, None, None  # h = x + r: x and r get h's gradient

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
    y, _, _ = rms_norm_forward(x, weight, eps, offset)  # no graph to record
    return y

def add_rms_norm_triton(x, residual, weight, eps=1e-6, offset=0.0):
    """The residual add and the norm after it, fused: h = x + residual, y = RMSNorm(h).

    Returns (y, h): y feeds the next sublayer, h is the residual stream. Arguments as
    rms_norm_triton's, and residual of x's shape, dtype and device.
    """
    _check(x, weight, eps, offset)
    _check_residual(x, residual)
    eps, offset = float(eps), float(offset)
    needs_grad = x.requires_grad or residual.requires_grad or weight.requires_grad
    if torch.is_grad_enabled() and needs_grad:
        return TritonAddRMSNormFunction.apply(x, residual, weight, eps, offset)
    y, _, h = rms_norm_forward(x, weight, eps, offset, residual)
    return y, h
