"""The Kernel page's fused Triton RMSNorm (snippets/kernel/rms_norm_triton.py), alone and fused
with the residual add before it.

Without a GPU the kernels run under Triton's interpreter (TRITON_INTERPRET=1) on small shapes:
forward and backward against a float64 reference and torch.nn.functional.rms_norm, for rows
that are not a power of two long, every row of the backward's launch table (several tiles per
program, a last tile cut short), zero rows, all-zero rows, strided rows, both weight
conventions and the three dtypes; and the interpreter's bfloat16 stores, which truncate where a
GPU rounds; and Liger-Kernel's own correctness cases. The same kernels are also compiled for an
H100 (sm_90, with Triton's ptxas) at their launch settings, which the interpreter does not do.
If triton cannot be installed, these tests skip and say so, unless REQUIRE_TRITON is set (as CI
sets it).
"""

import ast
import copy
import inspect
import json
import os
import re
import subprocess
import sys
from functools import cache, partial

import numpy
import pytest
import torch
import torch.nn.functional as F
from site_layout import ROOT, leaf, triton_or_skip
from transformers import LlamaConfig, LlamaForCausalLM, Qwen3Config, Qwen3ForCausalLM
from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
from transformers.models.llama.modeling_llama import LlamaRMSNorm
from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

triton = triton_or_skip()  # conftest chose the interpreter if there is no GPU

from snippets.benchmark import run as benchmark
from snippets.gradients.backward import RMSNormFunction
from snippets.implementations.variants import (
    rms_norm_gemma,
    rms_norm_llama,
    rms_norm_rsqrt,
)
from snippets.kernel import rms_norm_triton as kernel
from snippets.kernel.add_bytes import PASSES, tensors_moved
from snippets.kernel.rms_norm_triton import add_rms_norm_triton, rms_norm_triton
from snippets.kernel_in_practice.bfloat16 import bfloat16_rounded, bfloat16_truncated
from snippets.kernel_in_practice.in_transformers import use_triton_norms

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
# Relative error (of the whole tensor) allowed against float64: a few units of rounding in
# each dtype. That the output is rounded once, not twice, is checked bit for bit below.
TOLERANCE = {torch.float32: 1e-6, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def reference(x, weight, dy, eps, offset):
    """y, dx, dw in float64 by autograd, from the same (rounded) inputs."""
    x = x.detach().double().requires_grad_()
    w = weight.detach().double().requires_grad_()
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * (offset + w)
    y.backward(dy.double())
    return y.detach(), x.grad, w.grad


def relative(a, b) -> float:
    return ((a.double() - b).norm() / b.norm().clamp_min(1e-30)).item()


def run(x, weight, dy, eps, offset):
    x, weight = leaf(x), leaf(weight)
    y = rms_norm_triton(x, weight, eps, offset)
    y.backward(dy)
    return y.detach(), x.grad, weight.grad


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("offset", [0.0, 1.0], ids=["llama-w", "gemma-1+w"])
@pytest.mark.parametrize("m, n", [(5, 2), (3, 5), (9, 100), (6, 1000), (2, 4096)])
def test_matches_float64_forward_and_backward(m, n, offset, dtype):
    generator = torch.Generator().manual_seed(m * n)
    x = (torch.randn(m, n, generator=generator) * 3).to(DEVICE, dtype)
    weight = torch.randn(n, generator=generator).to(DEVICE, dtype)
    dy = torch.randn(m, n, generator=generator).to(DEVICE, dtype)
    ours = run(x, weight, dy, 1e-6, offset)
    for name, got, want in zip(
        ["y", "dx", "dw"], ours, reference(x, weight, dy, 1e-6, offset)
    ):
        assert got.dtype == dtype
        assert relative(got, want) < TOLERANCE[dtype], name


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_matches_torch_rms_norm(dtype):
    # More rows than backward programs: each program sums dw over several rows.
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(4, 3, 37, generator=generator).to(DEVICE, dtype)
    weight = (torch.rand(37, generator=generator) + 0.5).to(DEVICE, dtype)
    dy = torch.randn(4, 3, 37, generator=generator).to(DEVICE, dtype)
    ours = run(x, weight, dy, 1e-5, 0.0)
    xt, wt = x.clone().requires_grad_(), weight.clone().requires_grad_()
    torch.nn.functional.rms_norm(xt.float(), (37,), wt.float(), 1e-5).backward(
        dy.float()
    )
    y_torch = torch.nn.functional.rms_norm(x.float(), (37,), weight.float(), 1e-5)
    for got, want in zip(ours, [y_torch, xt.grad, wt.grad]):
        assert relative(got, want.double()) < 2 * TOLERANCE[dtype]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(0, 48), (0, 5, 48), (3, 0, 48)], ids=str)
def test_zero_rows_give_empty_results_and_a_zero_weight_gradient(shape, dtype):
    x = torch.randn(shape, device=DEVICE).to(dtype)
    weight = torch.randn(48, device=DEVICE).to(dtype)
    y, dx, dw = run(x, weight, torch.randn(shape, device=DEVICE).to(dtype), 1e-6, 0.0)
    assert y.shape == dx.shape == shape and y.dtype == dx.dtype == dtype
    assert dw.dtype == dtype and torch.equal(dw, torch.zeros_like(weight))


def backward_rows():
    """One odd row length within each row of the backward's launch table."""
    smallest = 1
    for largest, *_ in kernel.BACKWARD_SETTINGS:
        n = largest * 3 // 4 + 1
        assert smallest <= n <= largest
        yield n
        smallest = largest + 1


@pytest.mark.parametrize("n", list(backward_rows()))
def test_every_launch_setting_with_several_tiles_per_program(n):
    """More rows than the programs take in one step, and a last tile cut short."""
    sms = kernel.sm_count(torch.device(DEVICE))
    launch = kernel.backward_launch(n, sms)
    assert launch.block_n == triton.next_power_of_2(n) and not launch.wide
    # Every program takes two tiles or more, and one row is left over.
    m = 2 * launch.most * launch.block_m + 1
    generator = torch.Generator().manual_seed(n)
    x = torch.randn(m, n, generator=generator).to(DEVICE)
    weight = torch.randn(n, generator=generator).to(DEVICE)
    dy = torch.randn(m, n, generator=generator).to(DEVICE)
    ours = run(x, weight, dy, 1e-6, 1.0)
    for name, got, want in zip(
        ["y", "dx", "dw"], ours, reference(x, weight, dy, 1e-6, 1.0)
    ):
        assert relative(got, want) < 1e-6, name


@pytest.mark.skipif(DEVICE == "cuda", reason="the interpreter's rounding, not a GPU's")
def test_the_interpreter_truncates_bfloat16_stores():
    """Under TRITON_INTERPRET=1, float32 -> bfloat16 in a kernel truncates toward zero; a GPU
    rounds to nearest. The Kernel page says so: if this fails, so does the page."""
    generator = torch.Generator().manual_seed(2)
    x = (torch.randn(16, 500, generator=generator) * 4).to(torch.bfloat16)
    weight = (torch.rand(500, generator=generator) + 0.5).to(torch.bfloat16)
    y = rms_norm_triton(x, weight)
    exact = reference(x, weight, torch.zeros_like(x), 1e-6, 0.0)[0]
    truncated = (y == bfloat16_truncated(exact)).double().mean().item()
    rounded = (y == bfloat16_rounded(exact)).double().mean().item()
    # Not every element: where the kernel's float32 lands exactly on a bfloat16 value that
    # the float64 value lies just below, truncating each gives two neighbours (one in 8000
    # on the page).
    assert truncated > 0.999 and rounded < 0.6, (truncated, rounded)


@pytest.mark.parametrize(
    "dtype",
    [torch.float16] + ([torch.bfloat16] if torch.cuda.is_available() else []),
    ids=str,
)
@pytest.mark.parametrize("offset", [0.0, 1.0], ids=["llama-w", "gemma-1+w"])
def test_the_output_is_rounded_once(dtype, offset):
    """y is the float32 result rounded once to x's dtype: nearly every element equals the
    float64 value rounded to it (a GPU's or the interpreter's float32 can land on the other
    side of a halfway point, one in 8000 here). Rounding x / r first, as LLaMA's norm does,
    gives about 73% (bfloat16 under the interpreter truncates: tested above)."""
    generator = torch.Generator().manual_seed(2)
    x = (torch.randn(16, 500, generator=generator) * 4).to(dtype).to(DEVICE)
    weight = (torch.rand(500, generator=generator) + 0.5).to(dtype).to(DEVICE)
    y = rms_norm_triton(x, weight, 1e-6, offset)
    exact = reference(x, weight, torch.zeros_like(x), 1e-6, offset)[0]
    if dtype == torch.bfloat16:
        rounded = bfloat16_rounded(exact)
    else:  # NumPy rounds float64 to float16 directly; PyTorch goes through float32
        rounded = torch.from_numpy(exact.cpu().numpy().astype(numpy.float16))
    assert rounded.dtype == dtype
    rounded = rounded.to(y.device)
    assert (y == rounded).double().mean().item() > 0.995


def test_bfloat16_references_round_once():
    """float64 -> bfloat16 through float32 rounds twice; the helpers must not."""
    halfway = 1 + 2**-8  # halfway between the bfloat16 values 1 and 1 + 2**-7
    x = torch.tensor(
        [halfway + 2**-30, halfway, -(1 + 2**-7 - 2**-30), 1e300, -1e-45],
        dtype=torch.float64,
    )
    assert x[0].to(torch.bfloat16) == 1  # PyTorch: to float32 (halfway), then to even
    assert bfloat16_rounded(x).double().tolist() == [
        1 + 2**-7,
        1.0,
        -(1 + 2**-7),
        float("inf"),
        -0.0,
    ]
    biggest = torch.finfo(torch.bfloat16).max
    assert bfloat16_truncated(x).double().tolist() == [1.0, 1.0, -1.0, biggest, -0.0]


@pytest.mark.parametrize("offset", [0.0, 1.0], ids=["llama-w", "gemma-1+w"])
def test_all_zero_rows_give_zeros_and_finite_gradients(offset):
    x = torch.zeros(5, 64, device=DEVICE)
    x[2] = torch.randn(64)
    weight = torch.randn(64, device=DEVICE)
    dy = torch.randn(5, 64, device=DEVICE)
    y, dx, dw = run(x, weight, dy, 1e-6, offset)
    assert torch.equal(y[0], torch.zeros(64, device=DEVICE))
    assert torch.isfinite(dx).all() and torch.isfinite(dw).all()
    # On a zero row the gradient is (offset + weight) * dy / sqrt(eps): 1000 times that.
    torch.testing.assert_close(
        dx[0], (offset + weight) * dy[0] * 1000, rtol=1e-5, atol=0
    )


def test_strided_rows_and_a_long_row():
    big = torch.randn(6, 80, device=DEVICE)
    rows = big[:, :70]  # each row starts 80 elements after the last: stride 80, not 70
    weight, dy = torch.randn(70, device=DEVICE), torch.randn(6, 70, device=DEVICE)
    assert leaf(rows).stride() == (80, 1)  # the kernels are handed the gaps
    strided = run(rows, weight, dy, 1e-6, 0.0)
    packed = run(rows.contiguous(), weight, dy, 1e-6, 0.0)
    for a, b in zip(strided, packed):
        torch.testing.assert_close(a, b)
    column = torch.randn(1, 6, device=DEVICE).t()  # rows of one element, strides (1, 6)
    one = torch.randn(1, device=DEVICE)
    for a, b in zip(
        run(column, one, dy[:, :1], 1e-6, 0.0),
        run(column.contiguous(), one, dy[:, :1], 1e-6, 0.0),
    ):
        torch.testing.assert_close(a, b)
    every_other = torch.randn(140, device=DEVICE)[::2]  # a weight with stride 2
    for a, b in zip(
        run(rows, every_other, dy, 1e-6, 0.0),
        run(rows, every_other.contiguous(), dy, 1e-6, 0.0),
    ):
        torch.testing.assert_close(a, b)
    # The longest rows each kernel holds whole in registers (longer go to the wide ones).
    for n in [kernel.BACKWARD_SETTINGS[-1][0], kernel.FORWARD_SETTINGS[-1][0]]:
        assert not kernel.forward_launch(n).wide, n
        x, w = torch.randn(2, n, device=DEVICE), torch.rand(n, device=DEVICE)
        dy = torch.randn(2, n, device=DEVICE)
        for got, want in zip(run(x, w, dy, 1e-6, 0.0), reference(x, w, dy, 1e-6, 0.0)):
            assert relative(got, want) < 1e-6, n


def test_wide_rows_loop_over_chunks():
    """Rows longer than the launch tables go to the wide kernels, which walk along a row a
    chunk at a time: a last chunk cut short, strided rows, more rows than programs (each
    program's dw partial then adds several rows), alone and fused with the add."""
    n = kernel.FORWARD_SETTINGS[-1][0] + 3  # past both tables, a last chunk of 3: 65539
    assert kernel.forward_launch(n).wide and kernel.backward_launch(n, 2).wide
    m = 2 * kernel.backward_launch(n, kernel.sm_count(torch.device(DEVICE))).most + 1
    big = torch.randn(m, n + 5, device=DEVICE)
    x, w = big[:, :n], torch.rand(n, device=DEVICE)
    dy = torch.randn(m, n, device=DEVICE)
    for got, want in zip(run(x, w, dy, 1e-6, 1.0), reference(x, w, dy, 1e-6, 1.0)):
        assert relative(got, want) < 1e-6
    r, dh = torch.randn(m, n, device=DEVICE), torch.randn(m, n, device=DEVICE)
    got = add_run(x, r, w, dy, dh, 1e-6, 0.0)
    for a, b in zip(got, add_reference(x, r, w, dy, dh, 1e-6, 0.0)):
        assert relative(a, b) < 1e-6


# Many rows: more than a tile of the forward (64: 32 rows) and than the backward's programs
# (40000: at most 8 here, each then adding several rows). Every dtype on the short rows. The
# batch less one row is a multiple of 16, which Triton compiles apart from the others.
@pytest.mark.parametrize(
    "n, many, dtype",
    [(64, 65, dtype) for dtype in DTYPES]
    + [(1000, 65, dtype) for dtype in DTYPES]
    + [(40000, 17, torch.bfloat16)],
    ids=[f"{rows}-{str(d)[6:]}" for rows in ["tiles", "rows"] for d in DTYPES]
    + ["wide-bfloat16"],
)
def test_a_rows_result_does_not_depend_on_the_batch(n, many, dtype, triton_launches):
    """Batch invariance: a row's output, rstd and dx are the same bits whether it is
    normalized alone, with a few rows or with many, and the kernels are launched with the
    same settings (they follow N, never M; the interpreter's bits do not show them)."""
    generator = torch.Generator().manual_seed(n)
    x = torch.randn(many, n, generator=generator).to(DEVICE, dtype)
    w = torch.randn(n, generator=generator).to(DEVICE, dtype)
    dy = torch.randn(many, n, generator=generator).to(DEVICE, dtype)
    y, rstd, _ = kernel.rms_norm_forward(x, w, 1e-6, 0.0)
    dx, _ = kernel.rms_norm_backward(dy, x, w, rstd, 0.0)
    settings = [launch[:4] for launch in triton_launches]  # without the programs
    for m in [1, 3, many - 1]:
        triton_launches.clear()
        y_m, rstd_m, _ = kernel.rms_norm_forward(x[-m:], w, 1e-6, 0.0)
        dx_m, _ = kernel.rms_norm_backward(dy[-m:], x[-m:], w, rstd_m, 0.0)
        assert torch.equal(y_m, y[-m:]) and torch.equal(rstd_m, rstd[-m:]), m
        assert torch.equal(dx_m, dx[-m:]), m
        assert [launch[:4] for launch in triton_launches] == settings, m


@pytest.mark.parametrize("n", [4096, 40000], ids=["rows", "wide"])
def test_the_backward_gives_the_same_bits_on_every_run(n):
    """dw is summed without atomics (each program writes its own partial, then one sum over
    them), so the order in which a GPU runs the programs cannot change it: every backward
    of the same input gives the same dx and dw bits. On a GPU, 16384 rows: every SM runs some.
    Triton's interpreter runs the programs one after another, in one order, so there a
    repeat would match with atomics too: on a CPU, the kernels' source is read for them."""
    if DEVICE != "cuda":
        source = (ROOT / "snippets" / "kernel" / "rms_norm_triton.py").read_text()
        assert "tl.atomic_" not in source
        return
    m = 16384
    generator = torch.Generator().manual_seed(n)
    x = torch.randn(m, n, generator=generator).to(DEVICE, torch.bfloat16)
    w = torch.randn(n, generator=generator).to(DEVICE, torch.bfloat16)
    dy = torch.randn(m, n, generator=generator).to(DEVICE, torch.bfloat16)
    _, rstd, _ = kernel.rms_norm_forward(x, w, 1e-6, 0.0)
    first = kernel.rms_norm_backward(dy, x, w, rstd, 0.0)
    for _ in range(5):
        again = kernel.rms_norm_backward(dy, x, w, rstd, 0.0)
        assert torch.equal(again[0], first[0]) and torch.equal(again[1], first[1])


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda x, w: rms_norm_triton(x.int(), w), TypeError, "float32, float16 or"),
        (lambda x, w: rms_norm_triton([1.0], w), TypeError, "must be tensors"),
        (lambda x, w: rms_norm_triton(x, w[:-1]), ValueError, "weight must have shape"),
        (lambda x, w: rms_norm_triton(x, w, eps=0.0), ValueError, "eps must be"),
        (lambda x, w: rms_norm_triton(x, w, eps=float("nan")), ValueError, "eps must"),
        (lambda x, w: rms_norm_triton(x, w, eps=1e-50), ValueError, "normal float32"),
        (lambda x, w: rms_norm_triton(x, w, eps=1e39), ValueError, "normal float32"),
        (lambda x, w: rms_norm_triton(x, w, offset=0.5), ValueError, "offset must be"),
        (lambda x, w: rms_norm_triton(x.t(), w[:4]), ValueError, "contiguous rows"),
        (
            lambda x, w: rms_norm_triton(x.view(2, 2, 8).transpose(0, 1), w),
            ValueError,
            "cannot be viewed as rows",
        ),
        (  # QK-norm's queries cut from a fused QKV output: two row strides
            lambda x, w: rms_norm_triton(x.repeat(1, 3)[:, :8].view(4, 2, 4), w[:4]),
            ValueError,
            r"pass x\.contiguous\(\)",
        ),
        (
            lambda x, w: rms_norm_triton(torch.zeros(1, 0), torch.ones(0)),
            ValueError,
            "must be at least 1, got 0",
        ),
    ],
)
def test_bad_input_gets_a_clear_error(call, error, words):
    x, w = torch.randn(4, 8, device=DEVICE), torch.ones(8, device=DEVICE)
    with pytest.raises(error, match=words):
        call(x, w)


def add_reference(x, residual, weight, dy, dh, eps, offset):
    """y, h, dx, dr, dw of h = x + r, y = RMSNorm(h), in float64 by autograd. h is rounded
    to x's dtype, as PyTorch's x + r is, before the norm reads it (its gradient passes)."""
    x, r, w = (t.detach().double().requires_grad_() for t in (x, residual, weight))
    exact = x + r
    h = exact + (exact.detach().to(residual.dtype).double() - exact.detach())
    y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps) * (offset + w)
    torch.autograd.backward([y, h], [dy.double(), dh.double()])
    return y.detach(), h.detach(), x.grad, r.grad, w.grad


def add_run(x, residual, weight, dy, dh, eps, offset):
    x, residual, weight = (leaf(t) for t in (x, residual, weight))
    y, h = add_rms_norm_triton(x, residual, weight, eps, offset)
    torch.autograd.backward([y, h], [dy, dh])
    return y.detach(), h.detach(), x.grad, residual.grad, weight.grad


def add_inputs(shape, dtype, seed):
    """x, r, weight, dy, dh: r a residual stream larger than the sublayer's output x."""
    generator = torch.Generator().manual_seed(seed)
    x, r, dy, dh = (torch.randn(shape, generator=generator) for _ in range(4))
    weight = torch.rand(shape[-1], generator=generator) + 0.5
    return [t.to(DEVICE, dtype) for t in (x, 4 * r, weight, dy, dh)]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("offset", [0.0, 1.0], ids=["llama-w", "gemma-1+w"])
@pytest.mark.parametrize("m, n", [(4, 1), (9, 100), (6, 1000), (2, 4096), (2, 65536)])
def test_add_and_norm_match_float64(m, n, offset, dtype):
    inputs = add_inputs((m, n), dtype, seed=m + n)
    ours = add_run(*inputs, 1e-6, offset)
    want = add_reference(*inputs, 1e-6, offset)
    for name, got, expected in zip(["y", "h", "dx", "dr", "dw"], ours, want):
        assert got.dtype == dtype and got.shape == expected.shape, name
        assert relative(got, expected) < TOLERANCE[dtype], name


def test_add_and_norm_equal_the_add_then_the_norm_in_float32():
    """In float32 the fused op does the unfused one's arithmetic: the same bits."""
    x, r, weight, dy, dh = add_inputs((3, 5, 300), torch.float32, seed=3)
    fused = add_run(x, r, weight, dy, dh, 1e-5, 1.0)
    x, r, weight = (t.clone().requires_grad_() for t in (x, r, weight))
    h = x + r
    y = rms_norm_triton(h, weight, 1e-5, 1.0)
    torch.autograd.backward([y, h], [dy, dh])
    for got, want in zip(fused, [y, h, x.grad, r.grad, weight.grad]):
        assert torch.equal(got, want)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_the_norm_reads_the_h_it_returns(dtype):
    """In half precision h is rounded before the norm reads it, as unfused: y is the norm
    of the returned h, bit for bit (the unrounded sum would differ in the last bits)."""
    x, r, weight, *_ = add_inputs((8, 512), dtype, seed=7)
    y, h = add_rms_norm_triton(x, r, weight)
    assert torch.equal(y, rms_norm_triton(h, weight))


def test_add_and_norm_strided_rows_zero_rows_and_no_grad():
    big = add_inputs((6, 90), torch.float32, seed=4)
    x, r = big[0][:, :70], big[1][:, 10:80]  # rows 90 elements apart
    weight, dy, dh = big[2][:70], big[3][:, :70], big[4][:, :70]
    strided = add_run(x, r, weight, dy, dh, 1e-6, 0.0)
    packed = add_run(x.contiguous(), r.contiguous(), weight, dy, dh, 1e-6, 0.0)
    for a, b in zip(strided, packed):
        torch.testing.assert_close(a, b)
    with torch.no_grad():
        y, h = add_rms_norm_triton(x, r, weight)
    torch.testing.assert_close((y, h), (packed[0], packed[1]))
    for shape in [(0, 48), (3, 0, 48)]:
        empty = add_inputs(shape, torch.bfloat16, seed=5)
        y, h, dx, dr, dw = add_run(*empty, 1e-6, 0.0)
        assert y.shape == h.shape == dx.shape == dr.shape == shape
        assert torch.equal(dw, torch.zeros_like(empty[2]))


def test_x_and_r_get_separate_gradients():
    """Both get h's gradient, one tensor in the backward: accumulating into one of them
    must leave the other alone."""
    x, r, weight, dy, dh = add_inputs((4, 64), torch.float32, seed=6)
    x, r = x.requires_grad_(), r.requires_grad_()
    for _ in range(2):
        y, h = add_rms_norm_triton(x, r, weight)
        torch.autograd.backward([y, h], [dy, dh])
    assert x.grad.data_ptr() != r.grad.data_ptr()
    torch.testing.assert_close(x.grad, r.grad)


@pytest.mark.parametrize("fused", [False, True], ids=["norm", "add and norm"])
def test_gradients_that_arrive_expanded_or_transposed(fused):
    """autograd passes dy as it comes: y.sum() gives ones expanded (strides 0), and a
    transposed tensor has rows that are not contiguous; the result must not depend on it."""
    torch.manual_seed(8)
    x = torch.randn(6, 48, device=DEVICE)
    r, weight = torch.randn_like(x), torch.rand(48, device=DEVICE) + 0.5
    transposed = torch.randn(48, 6, device=DEVICE).t()
    for dy in [torch.ones(1, 1, device=DEVICE).expand(6, 48), transposed]:
        grads = []
        for norm in ["kernel", "torch"]:
            leaf = x.clone().requires_grad_()
            h = leaf + r if fused else leaf
            if norm == "torch":
                y = torch.nn.functional.rms_norm(h, (48,), weight, 1e-6)
            elif fused:
                y = add_rms_norm_triton(leaf, r, weight)[0]
            else:
                y = rms_norm_triton(leaf, weight)
            (dx,) = torch.autograd.grad(y, leaf, dy)
            grads.append(dx)
        torch.testing.assert_close(*grads)


@pytest.mark.parametrize("fused", [False, True], ids=["norm", "add and norm"])
def test_second_derivatives_are_refused_not_silently_wrong(fused):
    """The kernels' gradients have no autograd history: with create_graph=True both ops
    raise, where a gradient treated as a constant would give a wrong second derivative."""
    x, r, weight, dy, _ = add_inputs((4, 64), torch.float32, seed=7)
    x = x.requires_grad_()
    out = add_rms_norm_triton(x, r, weight)[0] if fused else rms_norm_triton(x, weight)
    with pytest.raises(RuntimeError, match="no second derivatives.*create_graph=True"):
        torch.autograd.grad(out, x, dy, create_graph=True)
    (dx,) = torch.autograd.grad(out, x, dy)  # the first derivative is unaffected
    assert not dx.requires_grad


def test_the_differentiable_norms_the_error_names_agree_on_second_derivatives():
    """F.rms_norm, and the Gradients page's autograd.Function, can be differentiated twice,
    and agree: a gradient penalty's gradient is the same through both."""
    torch.manual_seed(0)
    x = torch.randn(4, 16, dtype=torch.float64, requires_grad=True)
    weight, upstream = torch.rand(16, dtype=torch.float64) + 0.5, torch.randn_like(x)
    penalties = []
    for norm in [
        lambda x: F.rms_norm(x, (16,), weight, 1e-6),
        lambda x: RMSNormFunction.apply(x, weight, 1e-6),
    ]:
        (dx,) = torch.autograd.grad(norm(x), x, upstream, create_graph=True)
        penalties.append(torch.autograd.grad(dx.pow(2).sum(), x)[0])
    torch.testing.assert_close(*penalties, rtol=1e-10, atol=0)


@pytest.mark.parametrize(
    "residual, error, words",
    [
        ([1.0], TypeError, "residual must be a tensor"),
        (torch.zeros(4, 7), ValueError, r"residual must match x: shape \(4, 8\)"),
        (torch.zeros(4, 8, dtype=torch.float16), ValueError, "float32 on"),
        (torch.zeros(8, 4).t(), ValueError, "residual must have contiguous rows"),
    ],
)
def test_add_and_norm_bad_residual_gets_a_clear_error(residual, error, words):
    x, w = torch.randn(4, 8, device=DEVICE), torch.ones(8, device=DEVICE)
    if isinstance(residual, torch.Tensor):
        residual = residual.to(DEVICE)
    with pytest.raises(error, match=words):
        add_rms_norm_triton(x, residual, w)


# Liger-Kernel's own correctness tests of its RMSNorm and fused add+RMSNorm
# (test/transformers/test_rms_norm.py and test_fused_add_rms_norm.py, commit ead96b6), run on
# this site's kernels: their shapes, dtypes, tolerances (atol, rtol), seed, weights of ones
# and three references, the LLaMA and Gemma norms of transformers and one computed in the
# input's dtype (the variants here that match them). Their other parameters are options of
# Liger's kernel these kernels do not have: in_place (dx written over dy), casting_mode
# (these always compute in float32 and round once) and elementwise_affine=False (a weight is
# always passed); their DTensor tests need several processes and devices.
LIGER_SHAPES = [(2, 128, 512), (5, 123, 123)]
LIGER_TOLERANCES = {torch.float32: (1e-4, 1e-6), torch.bfloat16: (2e-1, 2e-2)}
LIGER_REFERENCES = {
    "llama": (rms_norm_llama, 0.0),
    "gemma": (rms_norm_gemma, 1.0),
    "no upcast": (rms_norm_rsqrt, 0.0),
}


def forward_and_backward(norm, weight, x, r, dy, dh, fused):
    """What Liger's tests compare: outputs, then the gradients of the inputs and weight."""
    x, r, weight = (t.clone().requires_grad_() for t in (x, r, weight))
    if not fused:
        y = norm(x, weight)
        y.backward(dy)
        return {"y": y, "dx": x.grad, "dw": weight.grad}
    y, h = norm(x, r, weight)
    torch.autograd.backward((y, h), (dy, dh))
    return {"y": y, "h": h, "dx": x.grad, "dr": r.grad, "dw": weight.grad}


def add_then_norm(x, r, weight, norm):
    """A reference for the fused op: the residual add in the input's dtype, then `norm`."""
    h = x + r
    return norm(h, weight), h


def liger_inputs(shape, dtype):
    """x, r, dy, dh drawn as Liger's tests draw them (seed 42), and its weight of ones."""
    torch.manual_seed(42)
    x, r, dy, dh = (torch.randn(shape).to(DEVICE, dtype) for _ in range(4))
    return torch.ones(shape[-1], device=DEVICE, dtype=dtype), x, r, dy, dh


@cache
def liger_case_on_our_kernels(shape, dtype, fused, offset):
    """Run once per offset: the llama and no-upcast references compare with the same run."""
    kernel_op = add_rms_norm_triton if fused else rms_norm_triton
    norm = partial(kernel_op, eps=1e-6, offset=offset)
    return forward_and_backward(norm, *liger_inputs(shape, dtype), fused)


# One worker runs them all, so each run of the kernels serves two references.
@pytest.mark.xdist_group("liger")
@pytest.mark.parametrize("fused", [False, True], ids=["norm", "add+norm"])
@pytest.mark.parametrize("reference", list(LIGER_REFERENCES))
@pytest.mark.parametrize("dtype", list(LIGER_TOLERANCES), ids=str)
@pytest.mark.parametrize("shape", LIGER_SHAPES, ids=str)
def test_liger_kernels_correctness_cases(shape, dtype, reference, fused):
    reference_norm, offset = LIGER_REFERENCES[reference]
    norm = partial(add_then_norm, norm=reference_norm) if fused else reference_norm
    theirs = forward_and_backward(norm, *liger_inputs(shape, dtype), fused)
    ours = liger_case_on_our_kernels(shape, dtype, fused, offset)
    # Liger's check: |theirs - ours| <= atol + rtol * |ours| everywhere; here dtypes too.
    atol, rtol = LIGER_TOLERANCES[dtype]
    torch.testing.assert_close(theirs, ours, atol=atol, rtol=rtol)


ROW_SIZED = {"X", "R", "H", "Y", "DY", "DH", "DX"}  # the kernels' M x N tensors


def row_sized_accesses(kernel_name: str, flag: str, on: bool) -> list[tuple[str, str]]:
    """(load or store, tensor) for each M x N tensor the kernel reads or writes, read from
    its source with its constexpr `flag` on or off."""
    source = (ROOT / "snippets" / "kernel" / "rms_norm_triton.py").read_text()
    kernel_def = next(
        node
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef) and node.name == kernel_name
    )
    named = {  # pointers built before use, such as x_ptrs = X + rows * stride_x + cols
        node.targets[0].id: node.value
        for node in ast.walk(kernel_def)
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    }

    def base(pointer):
        pointer = named.get(getattr(pointer, "id", None), pointer)
        while isinstance(pointer, ast.BinOp):
            pointer = pointer.left
        return pointer.id

    renamed = {}  # a pointer argument pointed at another tensor, e.g. X, s = H, N

    def visit(statements):
        for statement in statements:
            if (
                isinstance(statement, ast.If)
                and getattr(statement.test, "id", "") == flag
            ):
                yield from visit(statement.body if on else statement.orelse)
            elif isinstance(statement, (ast.For, ast.If)):  # loops: the same accesses
                yield from visit(statement.body + statement.orelse)
            else:
                rename(statement)
                yield from calls(statement)

    def rename(statement):
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Tuple):
            for target, value in zip(statement.targets[0].elts, statement.value.elts):
                if getattr(value, "id", None) in ROW_SIZED:
                    renamed[target.id] = value.id

    def calls(statement):
        for node in ast.walk(statement):
            access = getattr(getattr(node, "func", None), "attr", None)
            if access in ("load", "store") and base(node.args[0]) in ROW_SIZED:
                yield access, renamed.get(base(node.args[0]), base(node.args[0]))

    return list(visit(kernel_def.body))


def test_the_kernels_move_the_bytes_the_page_counts():
    """The Kernel page counts M x N tensors moved (add_bytes.py): fused forward reads x and
    r and writes h and y; fused backward reads h, dy and dh and writes one gradient. The
    lone norm moves 2 and 3 (roofline.py). Counted here in the kernels' loads and stores,
    and the benchmark's GB/s counts the same (run.PASSES, run.ADD_PASSES)."""
    forward, backward = "rms_norm_forward_kernel", "rms_norm_backward_kernel"
    lone_forward = row_sized_accesses(forward, "ADD_RESIDUAL", on=False)
    fused_forward = row_sized_accesses(forward, "ADD_RESIDUAL", on=True)
    lone_backward = row_sized_accesses(backward, "ADD_DH", on=False)
    fused_backward = row_sized_accesses(backward, "ADD_DH", on=True)
    assert sorted(lone_forward) == [("load", "X"), ("store", "Y")]
    assert sorted(fused_forward) == [
        ("load", "R"),
        ("load", "X"),
        ("store", "H"),
        ("store", "Y"),
    ]
    assert sorted(lone_backward) == [("load", "DY"), ("load", "X"), ("store", "DX")]
    assert sorted(fused_backward) == [  # x is h here
        ("load", "DH"),
        ("load", "DY"),
        ("load", "X"),
        ("store", "DX"),
    ]
    # The wide kernels read a row twice: the fewest bytes are those of the kernels above.
    wide_forward = row_sized_accesses(
        "rms_norm_forward_wide_kernel", "ADD_RESIDUAL", False
    )
    wide_backward = row_sized_accesses("rms_norm_backward_wide_kernel", "ADD_DH", False)
    assert sorted(wide_forward) == [("load", "X"), ("load", "X"), ("store", "Y")]
    assert sorted(set(wide_backward)) == sorted(set(lone_backward))
    assert len(wide_backward) == 5
    # Fused, the wide forward reads its rounded h back, not x; the wide backward reads
    # dh once, beside its lone accesses.
    fused_wide_forward = row_sized_accesses(
        "rms_norm_forward_wide_kernel", "ADD_RESIDUAL", True
    )
    assert fused_wide_forward == [
        ("load", "X"),
        ("load", "R"),
        ("store", "H"),
        ("load", "H"),
        ("store", "Y"),
    ]
    fused_wide_backward = row_sized_accesses(
        "rms_norm_backward_wide_kernel", "ADD_DH", True
    )
    assert sorted(fused_wide_backward) == sorted(wide_backward + [("load", "DH")])
    assert len(fused_forward) == tensors_moved(PASSES["forward"]["fused"])
    assert len(fused_backward) == tensors_moved(PASSES["backward"]["fused"])
    for counted, lone, fused in [
        ("forward", lone_forward, fused_forward),
        ("backward", lone_backward, fused_backward),
        (
            "forward+backward",
            lone_forward + lone_backward,
            fused_forward + fused_backward,
        ),
    ]:
        assert benchmark.PASSES[counted] == len(lone), counted
        assert benchmark.ADD_PASSES[counted] == len(fused), counted


COMPILE_FOR_H100 = """
import os, re, subprocess, tempfile
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from snippets.kernel import rms_norm_triton as kernel

pointers = {"X": "*bf16", "W": "*bf16", "RSTD": "*fp32"}
forward = {**pointers, "R": "*bf16", "H": "*bf16", "Y": "*bf16", "stride_x": "i32",
           "stride_r": "i32", "stride_w": "constexpr", "M": "i32", "N": "i32",
           "eps": "fp32", "offset": "fp32", "ADD_RESIDUAL": "constexpr",
           "BLOCK_M": "constexpr", "BLOCK_N": "constexpr"}
backward = {**pointers, "DY": "*bf16", "DH": "*bf16", "DX": "*bf16", "DW_PARTIAL": "*fp32",
            "stride_dy": "i32", "stride_dh": "i32", "stride_x": "i32",
            "stride_w": "constexpr", "M": "i32", "N": "i32", "offset": "fp32",
            "ADD_DH": "constexpr", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr"}
cuobjdump = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/cuobjdump")

def stack_bytes(cubin):
    # A stack frame in a kernel without calls holds registers spilled to local memory.
    with tempfile.NamedTemporaryFile(suffix=".cubin") as file:
        file.write(cubin)
        file.flush()
        usage = subprocess.run([cuobjdump, "-res-usage", file.name], check=True,
                               capture_output=True, text=True).stdout
    return int(re.search(r"STACK:(\\d+)", usage)[1])

def build(fn, types, constexprs, num_warps, aligned=True, m_divisible=False):
    signature = {name: types[name] for name in fn.arg_names}
    # As a launch compiles them on aligned tensors whose strides and N are multiples of 16
    # (every model width is): Triton marks those arguments tt.divisibility 16. M is left
    # free, a count of rows that is not a multiple of 16, unless m_divisible: Triton marks
    # M too when it is one (as in the QK-norm shapes the benchmark timed) and compiles that
    # apart.
    # Unaligned tensors get no such marks.
    divisible = {
        (i,): [["tt.divisibility", 16]]
        for i, name in enumerate(fn.arg_names)
        if aligned and (types[name].startswith("*") or types[name] == "i32")
        and (name != "M" or m_divisible)
    }
    source = ASTSource(fn=fn, signature=signature, constexprs={"stride_w": 1, **constexprs},
                       attrs=divisible)
    target = GPUTarget("cuda", 90, 32)
    options = {"num_warps": num_warps, "enable_fp_fusion": False}  # as the launches
    compiled = triton.compile(source, target=target, options=options)
    fused = len(re.findall(r"\\bfma\\.", compiled.asm["ptx"]))  # multiply-adds
    name = fn.__name__ if aligned else "unaligned_" + fn.__name__
    name = "m16_" + name if m_divisible else name
    print(name, constexprs, "warps", num_warps, "stack", stack_bytes(compiled.asm["cubin"]),
          "fma", fused)

# The shortest row and the longest of each row of the launch tables: every warp count, the
# most values per thread for each, and every BLOCK_M; the lone norm and the fused add. And
# 8192 in the backward, the longest row that must not spill, with the settings of 16384's;
# 32768 in the forward, whose spills the comment gives; and the wide kernels, at the rows one
# past each table.
widest = {"forward": kernel.FORWARD_SETTINGS[-1][0], "backward": kernel.BACKWARD_SETTINGS[-1][0]}
for fused in [False, True]:
    rows = [1, 32768] + [largest for largest, *_ in kernel.FORWARD_SETTINGS]
    for n in rows + [widest["forward"] + 1]:
        launch = kernel.forward_launch(n)
        if launch.wide:
            fn, constexprs = kernel.rms_norm_forward_wide_kernel, {}
        else:
            fn, constexprs = kernel.rms_norm_forward_kernel, {"BLOCK_M": launch.block_m}
        constexprs |= {"ADD_RESIDUAL": fused, "BLOCK_N": launch.block_n}
        build(fn, forward, constexprs, launch.num_warps)
    rows = [1, 8192] + [largest for largest, *_ in kernel.BACKWARD_SETTINGS]
    for n in rows + [widest["backward"] + 1]:
        launch = kernel.backward_launch(n, 132)  # an H100's SMs
        if launch.wide:
            fn, constexprs = kernel.rms_norm_backward_wide_kernel, {}
        else:
            fn, constexprs = kernel.rms_norm_backward_kernel, {"BLOCK_M": launch.block_m}
        constexprs |= {"ADD_DH": fused, "BLOCK_N": launch.block_n}
        build(fn, backward, constexprs, launch.num_warps)
# The norm alone's backward on unaligned tensors, whose spills the Kernel page gives too:
# its short-row tiles and 16384.
for n in [largest for largest, *_ in kernel.BACKWARD_SETTINGS if largest < 1024] + [16384]:
    launch = kernel.backward_launch(n, 132)
    constexprs = {"BLOCK_M": launch.block_m, "ADD_DH": False, "BLOCK_N": launch.block_n}
    build(kernel.rms_norm_backward_kernel, backward, constexprs, launch.num_warps, False)
# The backward's short-row tiles again with M a multiple of 16, where they spill otherwise.
for fused in [False, True]:
    for n in [largest for largest, *_ in kernel.BACKWARD_SETTINGS if largest < 1024]:
        launch = kernel.backward_launch(n, 132)
        constexprs = {"BLOCK_M": launch.block_m, "ADD_DH": fused, "BLOCK_N": launch.block_n}
        build(kernel.rms_norm_backward_kernel, backward, constexprs, launch.num_warps,
              m_divisible=True)
# And the lone forward at 32768, which spills, the kernel's comment says, only unaligned.
launch = kernel.forward_launch(32768)
constexprs = {"BLOCK_M": launch.block_m, "ADD_RESIDUAL": False, "BLOCK_N": launch.block_n}
build(kernel.rms_norm_forward_kernel, forward, constexprs, launch.num_warps, False)
"""


def test_every_launch_turns_fp_fusion_off():
    """The compile test below compiles with enable_fp_fusion=False because the launches
    pass it: each kernel[grid](...) call in the file does."""
    tree = ast.parse((ROOT / "snippets" / "kernel" / "rms_norm_triton.py").read_text())
    launches = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript)
    ]
    assert len(launches) == 2  # the forward kernel's and the backward kernel's
    for launch in launches:
        options = {keyword.arg: keyword.value for keyword in launch.keywords}
        fusion = options.get("enable_fp_fusion")
        assert isinstance(fusion, ast.Constant) and fusion.value is False


def test_kernels_compile_for_an_h100_without_spills_where_the_tables_say():
    """The interpreter runs the kernels as Python. Compile them to machine code for sm_90
    (an H100) with Triton's own ptxas, for bfloat16 at their launch settings, as a launch
    on aligned tensors whose strides and N are multiples of 16 compiles them: in a fresh
    process, since the interpreter replaces parts of triton.language while it runs. No
    registers spill for rows of 1024 to 8192 and in the wide forward, the launch tables'
    comment gives the stack frames of those that do (the Kernel page the backward's on
    unaligned tensors too), and no multiplication and addition
    are fused into one instruction (enable_fp_fusion)."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    result = subprocess.run(
        [sys.executable, "-c", COMPILE_FOR_H100],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    compiled = re.findall(
        r"(\w+) (\{.*'BLOCK_N': (\d+)\}) warps \d+ stack (\d+) fma (\d+)", result.stdout
    )
    short = [n for n, *_ in kernel.BACKWARD_SETTINGS if n < 1024]
    expected = 2 * (6 + len(kernel.FORWARD_SETTINGS) + len(kernel.BACKWARD_SETTINGS))
    expected += len(short) + 2  # unaligned
    expected += 2 * len(short)  # M a multiple of 16
    assert len(compiled) == expected, result.stdout
    # No fused multiply-add: the launches turn fusion off (the fused op's float32 bits).
    assert all(int(fma) == 0 for *_, fma in compiled), result.stdout
    # No spills where the launch tables' comment says there are none: the forward at 32768
    # and below (its short-row tiles included), rows of 1024 to 8192 one or two to a tile,
    # and the wide forward.
    for name, constexprs, block_n, stack, _ in compiled:
        one_row = "'BLOCK_M': 1," in constexprs or "'BLOCK_M': 2," in constexprs
        whole = "wide" not in name and one_row and 1024 <= int(block_n) <= 8192
        forward = name == "rms_norm_forward_kernel" and int(block_n) <= 32768
        if whole or forward or name == "rms_norm_forward_wide_kernel":
            assert int(stack) == 0, (name, constexprs)
    # The stack frames the comment gives (and the Kernel page, which shows it) are these.
    stack = {
        (
            name.replace("rms_norm_", "").removesuffix("_kernel"),
            int(block_n),
            "True" in constexprs,
        ): int(size)
        for name, constexprs, block_n, size, _ in compiled
    }
    # The short-row tiles: the backward table's rows below 1024, several rows a tile.
    backward = [stack["backward", n, False] for n in short]
    adding_dh = [stack["backward", n, True] for n in short]
    m16 = [stack["m16_backward", n, False] for n in short]
    m16_adding_dh = [stack["m16_backward", n, True] for n in short]
    wide = kernel.BACKWARD_WIDE[1]  # the wide backward's chunk
    assert stack["forward", 32768, False] == stack["forward", 32768, True] == 0
    assert (
        stack["unaligned_forward", 32768, False] > 0
    )  # "and at 32768 ... without alignment"
    given = (
        f"{stack['backward', 16384, False]} bytes for the backward at 16384 "
        f"({stack['backward', 16384, True]} adding dh), "
        f"{stack['forward', 65536, False]} for the forward at 65536 "
        f"({stack['forward', 65536, True]} with the residual add), "
        f"{min(backward)} to {max(backward)} for the backward's short-row tiles "
        f"({min(adding_dh)} to {max(adding_dh)} adding dh; with M a multiple of 16, as in "
        "the QK-norm shapes the benchmark timed, which Triton compiles apart, "
        f"{min(m16)} to {max(m16)}, or {min(m16_adding_dh)} to {max(m16_adding_dh)} "
        "adding dh), "
        f"{stack['backward_wide', wide, False]} for the wide backward (none adding dh)"
    )
    assert stack["backward_wide", wide, True] == 0
    source = (ROOT / "snippets" / "kernel" / "rms_norm_triton.py").read_text()
    # The figures are one Triton's (the version the comment names): another spills otherwise.
    (named,) = re.findall(
        r"\(triton (\d+\.\d+), bfloat16\)", source.replace("\n# ", " ")
    )
    if not triton.__version__.startswith(f"{named}."):
        pytest.skip(
            f"the comment gives triton {named}'s stack frames: {triton.__version__}"
        )
    # The Kernel page's tiles that spill: of rows of 512 with M free, of 128 and 512 with M
    # a multiple of 16; adding dh, all four, and all but the rows of 256's.
    spilling = {
        key: [n for n, size in zip(short, sizes, strict=True) if size > 0]
        for key, sizes in [
            ("free", backward),
            ("m16", m16),
            ("free dh", adding_dh),
            ("m16 dh", m16_adding_dh),
        ]
    }
    assert spilling == {
        "free": [512],
        "m16": [128, 512],
        "free dh": [64, 128, 256, 512],
        "m16 dh": [64, 128, 512],
    }, spilling
    assert given in source.replace("\n# ", " "), "the comment's stack frames are stale"
    # The Kernel page's Launch settings give the aligned ones too, in both languages.
    b = [stack["backward", 16384, adding_dh] for adding_dh in (False, True)]
    f = [stack["forward", 65536, adding] for adding in (False, True)]
    given = {
        "en": f"is {b[0]} bytes in the backward at 16384 ({b[1]} with the residual's "
        f"gradient), {f[0]} in the forward at 65536 ({f[1]} with the residual add), "
        f"{min(backward)} to {max(backward)} in the backward's tiles of short rows",
        "ko": f"행 길이 16384의 역전파에서 {b[0]}바이트(잔차의 그래디언트를 더하면 {b[1]}바이트), "
        f"행 길이 65536의 순전파에서 {f[0]}바이트(잔차 덧셈과 퓨즈하면 {f[1]}바이트), "
        f"역전파의 짧은 행 타일에서 {min(backward)}에서 {max(backward)}바이트",
    }
    for language, words in given.items():
        page = (ROOT / "docs" / language / "kernel.md").read_text()
        assert words in " ".join(page.split()), f"{language}: stale aligned spills"
    assert f"the {b[0]}-byte stack frame" in (ROOT / "docs/en/kernel.md").read_text()
    # And the Kernel page's on unaligned tensors, in both languages.
    at_16384 = stack["unaligned_backward", 16384, False]
    most = max(stack["unaligned_backward", n, False] for n in short)
    given = {
        "en": f"on unaligned tensors, {at_16384} bytes in the backward at 16384 and up to "
        f"{most} in its tiles of short rows",
        "ko": f"16384의 역전파에서 {at_16384}바이트, 잔차 덧셈 없이 정규화만 하는 커널의 "
        f"역전파 짧은 행 타일에서 최대 {most}바이트",
    }
    for language, words in given.items():
        page = (ROOT / "docs" / language / "kernel.md").read_text()
        assert words in " ".join(page.split()), f"{language}: stale unaligned spills"


@pytest.mark.parametrize(
    "norm_class, epsilon, offset",
    [(LlamaRMSNorm, "variance_epsilon", 0.0), (GemmaRMSNorm, "eps", 1.0)],
    ids=["llama", "gemma"],
)
def test_the_kernel_takes_the_place_of_transformers_norms(norm_class, epsilon, offset):
    # The Kernel page's "In a transformers model": each class's weight and eps, its offset.
    torch.manual_seed(0)
    norm = norm_class(64, eps=1e-5).to(DEVICE)
    with torch.no_grad():
        norm.weight.uniform_(-0.5, 0.5).add_(1.0 - offset)
    x = torch.randn(3, 5, 64, device=DEVICE, requires_grad=True)
    ours = rms_norm_triton(x, norm.weight, eps=getattr(norm, epsilon), offset=offset)
    theirs = norm(x)
    torch.testing.assert_close(ours, theirs)
    dy = torch.randn_like(theirs)
    grads = [torch.autograd.grad(y, (x, norm.weight), dy) for y in (ours, theirs)]
    for a, b in zip(*grads, strict=True):
        torch.testing.assert_close(a, b)


@pytest.mark.parametrize(
    "config_class, model_class, norm_class, norms_per_layer",
    [
        (LlamaConfig, LlamaForCausalLM, LlamaRMSNorm, 2),
        (Qwen3Config, Qwen3ForCausalLM, Qwen3RMSNorm, 4),  # with QK-norm's two
    ],
    ids=["llama", "qwen3"],
)
def test_a_transformers_model_runs_with_the_kernel_in_place_of_its_norms(
    config_class, model_class, norm_class, norms_per_layer
):
    # Kernel in practice's "In a transformers model": a tiny model, float32; Qwen3's norm
    # class, a copy of LlamaRMSNorm under its own name, passed to use_triton_norms.
    torch.manual_seed(0)
    config = config_class(
        hidden_size=64, intermediate_size=128, num_hidden_layers=2, head_dim=16,
        num_attention_heads=4, num_key_value_heads=2, vocab_size=128, rms_norm_eps=1e-5,
    )  # fmt: skip
    reference = model_class(config).to(DEVICE)
    with torch.no_grad():  # gains away from their initial ones, so that they matter
        for module in reference.modules():
            if isinstance(module, norm_class):
                module.weight.uniform_(0.5, 1.5)
    model = copy.deepcopy(reference)
    replaced = use_triton_norms(model, norm_class)
    assert replaced == norms_per_layer * config.num_hidden_layers + 1
    assert not any(isinstance(module, norm_class) for module in model.modules())
    assert list(model.state_dict()) == list(reference.state_dict())
    tokens = torch.randint(config.vocab_size, (2, 16), device=DEVICE)
    ours, theirs = (each(tokens, labels=tokens) for each in (model, reference))
    torch.testing.assert_close(ours.logits, theirs.logits)
    torch.testing.assert_close(ours.loss, theirs.loss)
    ours.loss.backward()
    theirs.loss.backward()
    gradients = dict(model.named_parameters())
    for name, parameter in reference.named_parameters():
        torch.testing.assert_close(gradients[name].grad, parameter.grad, msg=name)


# What the GPU machine lacks of the site's tools (the device's package list): its run of
# these tests must not need them. Nor its pytest plugins, which differ from these.
NOT_ON_THE_GPU_MACHINE = [
    "bs4", "jupytext", "liger_kernel", "material", "mkdocs", "nbclient", "nbformat",
    "playwright", "pytest_examples",
]  # fmt: skip


@pytest.mark.skipif(torch.cuda.is_available(), reason="there, its own run is the check")
def test_what_runs_on_the_gpu_machine_needs_nothing_it_lacks():
    # The tests scripts/gpu-benchmark runs there, the checker, the three benchmarks, the
    # sweep and the host probe (CONTRIBUTING.md, "Kernel, benchmark and GPU runs"),
    # imported and collected with those packages made unimportable.
    tests = re.findall(
        r"tests/test_\w+\.py", (ROOT / "scripts/gpu-benchmark").read_text()
    )
    assert "tests/test_kernel.py" in tests, "scripts/gpu-benchmark runs no kernel tests"
    blocked = ", ".join(repr(name) for name in NOT_ON_THE_GPU_MACHINE)
    collect = (
        f"import sys; sys.modules.update(dict.fromkeys([{blocked}]));"
        " import snippets.check.__main__, snippets.benchmark.run, snippets.benchmark.tune;"
        " import snippets.benchmark.fp8, snippets.benchmark.model, scripts.host_probe;"
        " import pytest; sys.exit(pytest.main(['--collect-only', '-q', '-o', 'addopts=',"
        f" '-p', 'no:cacheprovider', *{tests!r}]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", collect],
        cwd=ROOT,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_the_checker_passes_the_kernel_on_a_gpu_rounding_as_f_rms_norm():
    """check.md: on a GPU the lone kernel passes every check, rounding measures
    F.rms_norm's convention (float32 throughout, one rounding), and --strict would fail it
    for the two refusals of strides. Here, not in test_check.py: scripts/gpu-benchmark
    runs this file."""
    from snippets.check.checks import check

    report = check(rms_norm_triton, device="cuda")
    assert report.passed, report.table()
    assert report.conventions["rounding"] == "float32", report.table()
    strides = next(v for v in report.verdicts if v.check == "strides")
    assert len(strides.refused) == 2
    assert [refusal.split(":")[0] for refusal in report.refusals] == ["strides"] * 2


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_on_a_gpu_autocast_runs_rms_norm_as_the_installed_pytorch_lists_it():
    # The Implementations page's "Under autocast": from PyTorch 2.12 on, CUDA autocast runs
    # rms_norm in float32; the GPU machine's PyTorch 2.11 has no rule for it, and F.rms_norm
    # then returns x's dtype (seen there). The LLaMA and Gemma forms cast for themselves.
    listed = torch._C._dispatch_has_kernel_for_dispatch_key(
        "aten::rms_norm", "AutocastCUDA"
    )
    assert listed == (torch_version() >= (2, 12))
    torch.manual_seed(0)
    x = torch.randn(64, 256, device="cuda").to(torch.bfloat16)
    offset = 0.1 * torch.randn(256, device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        y = F.rms_norm(x, (256,), 1 + offset, 1e-6)
        llama, gemma = rms_norm_llama(x, 1 + offset), rms_norm_gemma(x, offset)
    expected = torch.float32 if listed else torch.bfloat16
    assert (y.dtype, llama.dtype, gemma.dtype) == (
        expected, torch.float32, torch.bfloat16,
    )  # fmt: skip
    if listed:
        torch.testing.assert_close(y, F.rms_norm(x.float(), (256,), 1 + offset, 1e-6))


def torch_version() -> tuple[int, int]:
    major, minor = torch.__version__.split(".")[:2]
    return int(major), int(minor)


def test_pytorch_213_runs_a_vendored_quack_kernel_for_same_dtype_rows_on_sm90_and_sm100(
    monkeypatch,
):
    # The Kernel page: PyTorch 2.13 (the pinned version) routes _fused_rms_norm and its
    # backward to a vendored QuACK kernel on compute capability 9 and 10, given two optional
    # packages, for rows whose weight has their dtype; the benchmark ran PyTorch 2.11.
    if torch_version() != (2, 13):
        pytest.skip("the page describes PyTorch 2.13's dispatch")
    from torch._native import cutedsl_utils
    from torch._native.ops.norm import rmsnorm_impl

    assert "major in (9, 10)" in inspect.getsource(rmsnorm_impl._is_supported)
    runtime = inspect.getsource(cutedsl_utils._check_runtime_available)
    assert '("nvidia_cutlass_dsl", "cutlass")' in runtime
    assert '("apache_tvm_ffi", "tvm_ffi")' in runtime
    monkeypatch.setattr(rmsnorm_impl, "_is_supported", lambda x: True)  # a GPU's answer
    for condition in ["_fused_rms_norm_cond", "_fused_rms_norm_backward_cond"]:
        source = inspect.getsource(getattr(rmsnorm_impl, condition))
        assert "weight.dtype != input.dtype" in source, condition
    x = torch.randn(4, 1024, dtype=torch.bfloat16)
    for weight, taken in [
        (torch.ones(1024, dtype=torch.bfloat16), True),
        (torch.ones(1024), False),
    ]:
        assert rmsnorm_impl._fused_rms_norm_cond(x, [1024], weight, 1e-6) == taken
    odd = torch.randn(4, 1023, dtype=torch.bfloat16)  # a length its vector loads refuse
    assert not rmsnorm_impl._fused_rms_norm_cond(odd, [1023], None, 1e-6)
    results = sorted(
        (ROOT / "snippets" / "benchmark" / "results").rglob("nvidia-*.json")
    )
    versions = {json.loads(path.read_text())["torch"] for path in results}
    assert results and versions == {"2.11.0"}, versions
