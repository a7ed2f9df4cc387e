"""The residual add, RMSNorm and FP8 e4m3 quantization in one Triton kernel, for inference:
h = x + r, y = RMSNorm(h), q = FP8(y / scale) with a dynamic scale per row or per group.

On a machine without a GPU, set TRITON_INTERPRET=1 before importing triton: the kernel then
runs on CPU tensors (the interpreter converts to FP8 with defects a GPU lacks: some small
values round toward zero or to 0, a carry into the next exponent can be lost, ties round
up rather than to even, NaN becomes 384; tests/test_fp8.py lists them).
"""

import contextlib
import os

import torch
import triton
import triton.language as tl

DTYPES = (torch.float32, torch.float16, torch.bfloat16)
E4M3 = torch.float8_e4m3fn
# The whole row is held in registers, as the Kernel page's short rows are.
LONGEST_ROW = 16384

def num_warps(block: int) -> int:
    """Warps for a row of `block` lanes: about 32 values a thread, from 1 to 16 warps."""
    return max(1, min(16, block // 1024))

# --8<-- [start:kernel]
E4M3_MAX = tl.constexpr(448.0)  # the largest e4m3 value: larger ones saturate to it
MIN_SCALE = tl.constexpr(1.0 / (448.0 * 512.0))  # an all-zero row's scale (q = 0)

@triton.jit
def add_rms_norm_fp8_kernel(
    X,  # input rows, x's dtype
    R,  # the residual rows added to X, x's dtype
    H,  # out: h = x + r, x's dtype, packed: the residual stream the next block reads
    Q,  # out: FP8 e4m3 rows, packed: what the next matmul reads
    S,  # out: float32 scales, n_groups per row, packed: q * scale stands for y
    W,  # the norm's weight, shape (N,)
    stride_x,  # elements from one row of X to the next
    stride_r,  # the same for R
    N,  # row length
    n_groups,  # scales per row: 1 per token, N // GROUP per group
    eps,  # added to the mean square, inside the square root
    GROUP: tl.constexpr,  # features per scale: BLOCK_N for one scale per row
    BLOCK_N: tl.constexpr,  # a power of two >= N: the whole row is held in registers
):
    row = tl.program_id(0).to(
        tl.int64
    )  # one program per row; int64: M * N can pass 2**31
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(R + row * stride_r + cols, mask=mask, other=0.0).to(tl.float32)
    # h is rounded to x's dtype, as PyTorch's x + r is, and the norm reads that h.
    h = (x + r).to(H.dtype.element_ty)
    tl.store(H + row * N + cols, h, mask=mask)
    h = h.to(tl.float32)
    # Divisions and the square root correctly rounded (div_rn, sqrt_rn): Triton's "/" and
    # tl.sqrt are approximate on an NVIDIA GPU, and one ulp can move an FP8 value.
    mean_square = tl.div_rn(tl.sum(h * h, axis=0), N * 1.0)
    rstd = tl.div_rn(1.0, tl.sqrt_rn(mean_square + eps))
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    y = h * rstd * w  # float32, never rounded to x's dtype: one rounding, to FP8
    # The scale needs the largest |y| of its group, so the whole row is normalized first:
    # held in registers, y is not read again. Lanes past N hold 0 and change no maximum.
    groups = tl.reshape(y, (BLOCK_N // GROUP, GROUP))
    scale = tl.maximum(tl.div_rn(tl.max(tl.abs(groups), axis=1), E4M3_MAX), MIN_SCALE)
    # tl.max skips NaN. The sum of a group times 0 is 0, or NaN if it holds one (from a
    # NaN or infinite input): its scale and values come out NaN, as PyTorch's amax gives.
    scale += tl.sum(groups * 0.0, axis=1)
    g = tl.arange(0, BLOCK_N // GROUP)
    tl.store(S + row * n_groups + g, scale, mask=g < n_groups)
    q = tl.reshape(tl.div_rn(groups, scale[:, None]), (BLOCK_N,))
    # saturate, e4m3fn having no infinity, and keep NaN
    q = tl.clamp(q, -E4M3_MAX, E4M3_MAX, propagate_nan=tl.PropagateNan.ALL)
    tl.store(Q + row * N + cols, q.to(Q.dtype.element_ty), mask=mask)

# --8<-- [end:kernel]

# --8<-- [start:function]
def add_rms_norm_fp8(x, residual, weight, eps=1e-6, group=None):
    """(q, scales, h): the FP8 e4m3 output of RMSNorm(x + residual) with one float32 scale
    per row (group=None, scales of shape x.shape[:-1]) or per `group` features (shape
    x.shape[:-1] + (N // group,)), and h = x + residual in x's dtype."""
    n = _check(x, residual, weight, eps, group)
    block = triton.next_power_of_2(n)
    x_rows, r_rows = x.reshape(-1, n), residual.reshape(-1, n)
    m = x_rows.shape[0]
    n_groups = n // group if group else 1
    h = torch.empty((m, n), dtype=x.dtype, device=x.device)
    q = torch.empty((m, n), dtype=E4M3, device=x.device)
    scales = torch.empty((m, n_groups), dtype=torch.float32, device=x.device)
    if m > 0:
        on_device = (
            torch.cuda.device(x.device) if x.is_cuda else contextlib.nullcontext()
        )
        with on_device:  # Triton launches on the current GPU: make it x's
            add_rms_norm_fp8_kernel[(m,)](
                x_rows, r_rows, h, q, scales, weight,
                x_rows.stride(0), r_rows.stride(0), n, n_groups, float(eps),
                GROUP=group or block, BLOCK_N=block,
                # Each multiply and add rounded on its own, as PyTorch's ops round them:
                # the h and y of the reference.
                num_warps=num_warps(block), enable_fp_fusion=False,
            )  # fmt: skip
    shape = x.shape[:-1] + ((n_groups,) if group else ())
    return q.reshape(x.shape), scales.reshape(shape), h.reshape(x.shape)

# --8<-- [end:function]

def _check(x, residual, weight, eps, group) -> int:
    """The row length, after a clear error for any input the kernel cannot take."""
    for name, t in [("x", x), ("residual", residual), ("weight", weight)]:
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if x.dtype not in DTYPES:
        raise TypeError(f"x must be float32, float16 or bfloat16, got {x.dtype}")
    if residual.shape != x.shape or residual.dtype != x.dtype:
        raise ValueError(
            f"residual must have x's shape {tuple(x.shape)} and dtype {x.dtype},"
            f" got {tuple(residual.shape)} and {residual.dtype}"
        )
    if x.dim() == 0 or x.shape[-1] == 0:
        raise ValueError(
            f"x must have rows of at least one feature, got {tuple(x.shape)}"
        )
    n = x.shape[-1]
    if n > LONGEST_ROW:
        raise ValueError(f"rows of at most {LONGEST_ROW} features, got {n}")
    if weight.shape != (n,):
        raise ValueError(f"weight must have shape ({n},), got {tuple(weight.shape)}")
    if weight.dtype not in DTYPES:
        raise TypeError(
            f"weight must be float32, float16 or bfloat16, got {weight.dtype}"
        )
    if isinstance(eps, bool) or not (isinstance(eps, (int, float)) and eps >= 0):
        raise ValueError(f"eps must be a number >= 0, got {eps!r}")
    if group is not None:
        if not (isinstance(group, int) and group >= 16 and group & (group - 1) == 0):
            raise ValueError(f"group must be a power of two >= 16, got {group!r}")
        if n % group:
            raise ValueError(f"group {group} does not divide the row length {n}")
    if len({x.device, residual.device, weight.device}) > 1:
        raise ValueError("x, residual and weight must be on one device")
    if x.device.type == "cuda" and torch.cuda.get_device_capability(x.device) < (8, 9):
        raise ValueError(
            "FP8 e4m3 needs a GPU of compute capability 8.9 or newer (Ada, Hopper)"
        )
    if x.device.type == "cpu" and os.environ.get("TRITON_INTERPRET") != "1":
        raise ValueError(
            "CPU tensors need Triton's interpreter: set TRITON_INTERPRET=1"
        )
    if x.stride(-1) != 1 or residual.stride(-1) != 1 or weight.stride(-1) != 1:
        raise ValueError("rows must be contiguous in their last dimension")
    return n
