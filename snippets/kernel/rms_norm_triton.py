"""A fused RMSNorm in Triton: one pass over x forward, one pass over x and dy backward (for
rows held whole; the wide kernels read a row twice); and
the same kernels fused with the residual add before the norm, h = x + r, y = RMSNorm(h).

On a machine without a GPU, set TRITON_INTERPRET=1 before importing triton: the same kernels
then run, slowly, on CPU tensors.
"""

import functools
import numbers
from typing import NamedTuple

import torch
import triton
import triton.language as tl

DTYPES = (torch.float32, torch.float16, torch.bfloat16)

# --8<-- [start:forward]
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
    M,  # number of rows
    N,  # row length
    eps,  # added to the mean square, inside the square root
    offset,  # 0.0 scales by w (LLaMA, Gemma 3n, 4), 1.0 by 1 + w (Gemma 1 to 3)
    ADD_RESIDUAL: tl.constexpr,  # False: the lone norm, y = RMSNorm(x); the code is
    # compiled for each value, so the lone norm carries none of the residual's code
    BLOCK_M: tl.constexpr,  # rows per program: several short rows (QK-norm) fill a tile
    BLOCK_N: tl.constexpr,  # a power of two >= N: the whole row is held (in registers;
    # spilled to local memory at 65536, and at 32768 when compiled without alignment)
):
    # Program p normalizes rows p * BLOCK_M to p * BLOCK_M + BLOCK_M - 1, each row on its own:
    # a row's result does not depend on M or on the rows beside it. int64: M * N can pass 2**31.
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M  # the last program's tile may hang past row M - 1
    rows = rows.to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    col_mask = cols < N
    mask = row_mask[:, None] & col_mask[None, :]
    x_ptrs = X + rows[:, None] * stride_x + cols[None, :]
    x = tl.load(x_ptrs, mask=mask, other=0.0).to(tl.float32)
    if ADD_RESIDUAL:
        r_ptrs = R + rows[:, None] * stride_r + cols[None, :]
        r = tl.load(r_ptrs, mask=mask, other=0.0).to(tl.float32)
        # h is rounded to x's dtype, as PyTorch's x + r is, and the norm reads that h:
        # the residual stream and the norm's input are the same numbers as unfused.
        h = (x + r).to(H.dtype.element_ty)
        tl.store(H + rows[:, None] * N + cols[None, :], h, mask=mask)
        x = h.to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / N + eps)
    tl.store(RSTD + rows, rstd, mask=row_mask)
    w = tl.load(W + cols * stride_w, mask=col_mask, other=0.0).to(tl.float32) + offset
    # float32 throughout, one rounding at the end, as the site's checked rms_norm.
    y = x * rstd[:, None] * w[None, :]
    tl.store(Y + rows[:, None] * N + cols[None, :], y.to(Y.dtype.element_ty), mask=mask)

# --8<-- [end:forward]

# --8<-- [start:forward-wide]
@triton.jit
def rms_norm_forward_wide_kernel(
    X, R, H, Y, W, RSTD,  # as rms_norm_forward_kernel's
    stride_x, stride_r, stride_w, N, eps, offset,  # as rms_norm_forward_kernel's
    ADD_RESIDUAL: tl.constexpr,  # as rms_norm_forward_kernel's
    BLOCK_N: tl.constexpr,  # a chunk: the loops walk along the row BLOCK_N at a time
):  # fmt: skip
    # One program per row too long to hold in registers: one loop over the row sums the
    # squares, a second reads the row again (from the L2 cache, if it is still there) and
    # writes y. Chunk by chunk, so nothing spills to local memory, whatever N is.
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    squares = tl.zeros((BLOCK_N,), dtype=tl.float32)  # each lane's running sum
    for start in range(0, N, BLOCK_N):
        mask = start + cols < N
        x = tl.load(X + row * stride_x + start + cols, mask=mask, other=0.0)
        x = x.to(tl.float32)
        if ADD_RESIDUAL:  # h rounded and stored as in rms_norm_forward_kernel
            r = tl.load(R + row * stride_r + start + cols, mask=mask, other=0.0)
            h = (x + r.to(tl.float32)).to(H.dtype.element_ty)
            tl.store(H + row * N + start + cols, h, mask=mask)
            x = h.to(tl.float32)
        squares += x * x
    rstd = 1.0 / tl.sqrt(tl.sum(squares, axis=0) / N + eps)
    tl.store(RSTD + row, rstd)
    if ADD_RESIDUAL:
        tl.debug_barrier()  # the h this program stored, visible to all its threads
        X, stride_x = H, N  # the second loop reads the rounded h back
    for start in range(0, N, BLOCK_N):
        mask = start + cols < N
        x = tl.load(X + row * stride_x + start + cols, mask=mask, other=0.0)
        w = tl.load(W + (start + cols) * stride_w, mask=mask, other=0.0)
        y = x.to(tl.float32) * rstd * (w.to(tl.float32) + offset)
        tl.store(Y + row * N + start + cols, y.to(Y.dtype.element_ty), mask=mask)

# --8<-- [end:forward-wide]

# --8<-- [start:backward]
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
    offset,  # 0.0 or 1.0, as in the forward pass
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

# --8<-- [end:backward]

# --8<-- [start:backward-wide]
@triton.jit
def rms_norm_backward_wide_kernel(
    DY, DH, X, W, RSTD, DX, DW_PARTIAL,  # as rms_norm_backward_kernel's
    stride_dy, stride_dh, stride_x, stride_w, M, N, offset,  # as rms_norm_backward_kernel's
    ADD_DH: tl.constexpr,  # as rms_norm_backward_kernel's
    BLOCK_N: tl.constexpr,  # a chunk: the loops walk along the row BLOCK_N at a time
):  # fmt: skip
    # Program p takes the rows p, p + P, p + 2P, ... of the P programs launched, one at a
    # time. A row too long for registers takes two loops: the first sums w*dy * x_hat for the
    # row's mean, the second reads the row again (from the L2 cache, if it is still there),
    # writes dx and adds dy * x_hat into the program's dw partial, which is kept in memory.
    program = tl.program_id(0)
    programs = tl.num_programs(0)
    cols = tl.arange(0, BLOCK_N)
    row = program.to(tl.int64)  # int64: M * N can pass 2**31
    partial = DW_PARTIAL + row * N
    for _ in range(program, M, programs):
        rstd = tl.load(RSTD + row)
        sums = tl.zeros((BLOCK_N,), dtype=tl.float32)  # each lane's running sum
        for start in range(0, N, BLOCK_N):
            mask = start + cols < N
            x = tl.load(X + row * stride_x + start + cols, mask=mask, other=0.0)
            dy = tl.load(DY + row * stride_dy + start + cols, mask=mask, other=0.0)
            w = tl.load(W + (start + cols) * stride_w, mask=mask, other=0.0)
            wdy = (w.to(tl.float32) + offset) * dy.to(tl.float32)
            sums += wdy * (x.to(tl.float32) * rstd)
        mean = tl.sum(sums, axis=0) / N
        for start in range(0, N, BLOCK_N):
            mask = start + cols < N
            x = tl.load(X + row * stride_x + start + cols, mask=mask, other=0.0)
            dy = tl.load(DY + row * stride_dy + start + cols, mask=mask, other=0.0)
            w = tl.load(W + (start + cols) * stride_w, mask=mask, other=0.0)
            x_hat = x.to(tl.float32) * rstd
            dy = dy.to(tl.float32)
            wdy = (w.to(tl.float32) + offset) * dy
            dx = rstd * (wdy - x_hat * mean)  # as in rms_norm_backward_kernel
            if ADD_DH:
                dh = tl.load(DH + row * stride_dh + start + cols, mask=mask, other=0.0)
                dx += dh.to(tl.float32)
            tl.store(DX + row * N + start + cols, dx.to(DX.dtype.element_ty), mask=mask)
            # The program's first row finds no partial yet: it writes one. Load and store take
            # the same pointers but, compiled, not always the same thread (the layouts differ);
            # the row's tl.sum between them synchronizes the program's threads (no explicit
            # barrier, unlike the forward's).
            not_first = cols * 0 + row >= programs  # as a block, as a mask must be
            dw = tl.load(partial + start + cols, mask=mask & not_first, other=0.0)
            tl.store(partial + start + cols, dw + dy * x_hat, mask=mask)
        row += programs

# --8<-- [end:backward-wide]

# --8<-- [start:settings]
# Launch settings. A thread holds BLOCK_M * BLOCK_N / (32 * num_warps) values of each
# tile-sized tensor: at most 64 with these settings. The backward keeps several such tensors
# live (x, dy, intermediates; w and dw are a row's), and a program of 16 or 32 warps gets
# at most 128 or 64 registers per thread. So ptxas spills registers to local memory in some
# settings: compiled for sm_90 as the tests compile, as a launch on aligned tensors whose
# strides and N are multiples of 16 is (triton 3.9, bfloat16), the stack frame per thread is
# 192 bytes for the backward at 16384 (224 adding dh), 184 for the forward at 65536 (232
# with the residual add), 0 to 32 for the backward's short-row tiles (64 to 96 adding dh;
# with M a multiple of 16, as in the QK-norm shapes the benchmark timed, which Triton
# compiles apart, 0 to 32, or 0 to 144 adding dh), 16 for the wide backward (none adding
# dh), and none elsewhere: the forward at 32768 and below, the backward's rows of 1024 to
# 8192 and the wide forward. Unaligned, a launch
# compiles other code, which spills differently (mostly more). Spilled values are still right, at the cost of
# traffic; each spilling setting but the untimed 512 measured the fastest tried, for the
# norm alone (the fused add and norm reuse it, unswept).
# Longer rows than each table's last line go to the wide kernels, which loop over chunks.

# Forward: (largest BLOCK_N, rows per program, num_warps). Picked on an H100 (bfloat16): from
# 1024 to 16384 by an earlier sweep of num_warps at M = 16384, whose timings are not
# published; the others by `python -m snippets.benchmark.tune` (rows of 64, 128 and 256 at
# M = 262144, 32768 and longer at 512 MiB; 512 is untimed): for the longest rows the
# whole row held in registers, spills and all, beat the wide kernel in that sweep at 65536
# (its timings, against torch's copy_, not the benchmark's equal-bytes copy, are not
# published; against that copy the published run gives this setting 71.3%; from 131072
# on only the wide kernel was tried).
FORWARD_SETTINGS = (
    (64, 32, 2),  # QK-norm's head_dim 64: tiles of 2048 values
    (128, 16, 2),
    (256, 8, 8),
    (512, 4, 8),  # not timed
    (1024, 1, 2),  # N = 1024
    (8192, 1, 8),  # N = 2048 to 8192
    (16384, 1, 16),  # N = 16384
    (65536, 1, 32),  # N = 32768 and 65536
)
FORWARD_WIDE = (4096, 16)  # (chunk, num_warps) of the wide forward

# Backward: (largest BLOCK_N, programs per SM, BLOCK_M, num_warps). From 1024 to 16384
# picked by an earlier sweep of programs x warps for the kernel with one row per step on an
# H100 (bfloat16, M = 16384) whose timings are not published; each program writes a float32
# dw partial, so at N <= 2048 BLOCK_M = 2 keeps the picked setting's rows in flight (8 and 4
# programs per SM of one row) with half the programs (BLOCK_M = 2 never swept against 1).
# The shorter rows and the wide kernel's setting by `python -m snippets.benchmark.tune`
# (512 untimed).
BACKWARD_SETTINGS = (
    (64, 2, 128, 4),  # QK-norm's head_dim 64: tiles of 8192 values
    (128, 2, 64, 4),
    (256, 2, 32, 4),
    (512, 2, 16, 4),  # not timed
    (1024, 4, 2, 4),  # N = 1024
    (2048, 2, 2, 8),  # N = 2048
    (4096, 2, 1, 8),  # N = 4096
    (16384, 1, 1, 16),  # N = 8192 and 16384
)
BACKWARD_WIDE = (4, 8192, 16)  # (programs per SM, chunk, num_warps), wide backward

class Launch(NamedTuple):
    """How a kernel is launched for rows of some length: BLOCK_N is the whole row's power
    of two, or a chunk when wide; most is the backward's most programs (forward: None).
    """

    block_n: int
    block_m: int
    num_warps: int
    wide: bool
    most: int | None = None

@functools.lru_cache
def forward_launch(n: int) -> Launch:
    """The forward's launch settings for rows of n elements."""
    block_n = triton.next_power_of_2(n)
    for largest, block_m, num_warps in FORWARD_SETTINGS:
        if block_n <= largest:
            return Launch(block_n, block_m, num_warps, wide=False)
    chunk, num_warps = FORWARD_WIDE
    return Launch(chunk, 1, num_warps, wide=True)

@functools.lru_cache
def backward_launch(n: int, sms: int) -> Launch:
    """The backward's launch settings for rows of n elements on sms SMs."""
    block_n = triton.next_power_of_2(n)
    for largest, per_sm, block_m, num_warps in BACKWARD_SETTINGS:
        if block_n <= largest:
            return Launch(block_n, block_m, num_warps, False, per_sm * sms)
    per_sm, chunk, num_warps = BACKWARD_WIDE
    return Launch(chunk, 1, num_warps, True, per_sm * sms)

@functools.lru_cache
def sm_count(device: torch.device) -> int:
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 2  # the interpreter has no SMs: two keep several tiles per program in tests

# --8<-- [end:settings]

# --8<-- [start:checks]
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
    if x.shape[-1] == 0:
        raise ValueError("N (x's last dimension) must be at least 1, got 0")
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

# --8<-- [end:checks]

# --8<-- [start:calls]
def rms_norm_forward(x, weight, eps, offset, residual=None):
    """y (x's dtype and shape, packed), rstd (float32, one per row), and h = x + residual
    (packed; None without a residual), whose norm y is."""
    n = x.shape[-1]
    rows = _rows(x, n, "x")
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    rstd = torch.empty(rows.shape[0], dtype=torch.float32, device=x.device)
    if residual is None:
        launch_forward(rows, weight, eps, offset, y, rstd)
        return y, rstd, None
    h = torch.empty_like(y)
    launch_forward(
        rows, weight, eps, offset, y, rstd, _rows(residual, n, "residual"), h
    )
    return y, rstd, h

def launch_forward(
    x_rows, weight, eps, offset, y, rstd, r_rows=None, h=None, wrap=None
):
    """Launch the forward kernel on (M, N) rows into y, rstd (and h = x + r, with r_rows):
    nothing but the launch. wrap, if given, wraps the kernel first (a custom op passes
    torch.library.wrap_triton)."""
    m, n = x_rows.shape
    if m == 0:  # a grid of zero programs is not launched
        return
    fused = r_rows is not None
    if not fused:  # R and H are never read or written: any tensor will do
        r_rows, h = x_rows, y
    launch = forward_launch(n)
    args = [x_rows, r_rows, h, y, weight, rstd, x_rows.stride(0), r_rows.stride(0)]
    args.append(weight.stride(0))
    if launch.wide:  # a program per row
        kernel, grid, tile = rms_norm_forward_wide_kernel, (m,), {}
    else:  # a program per BLOCK_M rows
        kernel, grid = rms_norm_forward_kernel, (triton.cdiv(m, launch.block_m),)
        args.append(m)
        tile = {"BLOCK_M": launch.block_m}
    (wrap or _direct)(kernel)[grid](
        *args,
        n,
        eps,
        offset,
        ADD_RESIDUAL=fused,
        **tile,
        BLOCK_N=launch.block_n,
        num_warps=launch.num_warps,
        enable_fp_fusion=False,  # see launch_backward
    )

def _direct(kernel):
    return kernel

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
    dh_rows = None if dh is None else _gradient_rows(dh, n)
    programs = backward_programs(m, n, x.device)
    dw_partial = torch.empty(programs, n, dtype=torch.float32, device=x.device)
    launch_backward(dy, rows, weight, rstd, offset, dx, dw_partial, dh_rows)
    return dx, dw_partial.sum(0).to(weight.dtype)

def backward_programs(m: int, n: int, device: torch.device) -> int:
    """The backward's programs for m rows of n: as many as its settings allow, and no more
    than there are tiles of rows, so that each gets one tile or more."""
    launch = backward_launch(n, sm_count(device))
    return min(launch.most, triton.cdiv(m, launch.block_m))

def launch_backward(dy_rows, x_rows, weight, rstd, offset, dx, dw_partial, dh_rows=None,
                    wrap=None):  # fmt: skip
    """Launch the backward kernel on (M, N) rows (M > 0) into dx and the float32 dw
    partials, of shape (backward_programs(M, N, device), N): nothing but the launch."""
    m, n = x_rows.shape
    launch = backward_launch(n, sm_count(x_rows.device))
    fused = dh_rows is not None
    if not fused:  # DH is never read: any tensor will do
        dh_rows = dy_rows
    if launch.wide:
        kernel, tile = rms_norm_backward_wide_kernel, {}
    else:
        kernel, tile = rms_norm_backward_kernel, {"BLOCK_M": launch.block_m}
    (wrap or _direct)(kernel)[(dw_partial.shape[0],)](
        dy_rows, dh_rows, x_rows, weight, rstd, dx, dw_partial, dy_rows.stride(0),
        dh_rows.stride(0), x_rows.stride(0), weight.stride(0), m, n, offset,
        ADD_DH=fused, **tile, BLOCK_N=launch.block_n, num_warps=launch.num_warps,
        # Each multiplication and addition rounded on its own, as in PyTorch's eager ops:
        # with ADD_DH, dx + dh is then the unfused add's sum, bit for bit in float32 (in
        # half precision the unfused add reads dx rounded), not one fused multiply-add
        # (Triton fuses by default; so it does in 3.9).
        enable_fp_fusion=False,
    )  # fmt: skip

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

# --8<-- [end:calls]

# --8<-- [start:autograd]
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

    offset=0.0 where the weight is the gain, started at ones (LLaMA, Gemma 3n, Gemma 4),
    offset=1.0 Gemma 1 to 3's (weight started at zeros). x: float32, float16 or bfloat16, (..., N) with N >= 1 and a
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

# --8<-- [end:autograd]
