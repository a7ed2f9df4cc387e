"""The FP8 page's kernel (snippets/fp8/add_rms_norm_fp8.py): the residual add, RMSNorm and FP8
e4m3 quantization with a scale per row or per group, against the plain PyTorch reference
(snippets/fp8/reference.py), under Triton's interpreter here and as compiled on a GPU.

The interpreter stores bfloat16 rounded toward zero and converts to FP8 with defects a GPU
does not have (a test below pins them): a carry into an odd exponent is lost (31.13 becomes
16, not 32), ties round up, not to even, and small values round toward zero or to 0. So
under the interpreter the kernel's FP8 output is compared with the interpreter's conversion
of the reference's values, which checks everything but the conversion itself; on a GPU,
with PyTorch's conversion.
"""

import os
import re
import subprocess
import sys

import pytest
import torch
from site_layout import ROOT, triton_or_skip

triton = triton_or_skip()  # conftest chose the interpreter if there is no GPU
import triton.language as tl

from snippets.fp8.add_rms_norm_fp8 import E4M3, add_rms_norm_fp8
from snippets.fp8.reference import (
    E4M3_MAX,
    MIN_SCALE,
    add_rms_norm,
    quantize,
)
from snippets.kernel_in_practice.bfloat16 import bfloat16_truncated

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
INTERPRETED = DEVICE == "cpu"
if not INTERPRETED and torch.cuda.get_device_capability() < (8, 9):
    pytest.skip(
        "FP8 e4m3 needs compute capability 8.9 or newer", allow_module_level=True
    )


@triton.jit
def _to_fp8_kernel(X, Y, N, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + cols, mask=cols < N)
    tl.store(Y + cols, x.to(Y.dtype.element_ty), mask=cols < N)


def triton_fp8(values: torch.Tensor) -> torch.Tensor:
    """float32 -> e4m3 as a Triton store converts it here (the interpreter, or a GPU)."""
    flat = values.float().contiguous().reshape(-1)
    out = torch.empty(flat.shape, dtype=E4M3, device=flat.device)
    _to_fp8_kernel[(triton.cdiv(flat.numel(), 1024),)](
        flat, out, flat.numel(), BLOCK=1024
    )
    return out.reshape(values.shape)


def expected(x, r, w, eps, group):
    """(q, scales, h) the kernel should give: the reference's, with the stores converted as
    this machine's Triton converts them (the interpreter truncates bfloat16, see above)."""
    h, y = add_rms_norm(x, r, w, eps)
    q, scales = quantize(y, group)
    if INTERPRETED:
        if x.dtype == torch.bfloat16:
            h = bfloat16_truncated(x.double() + r.double())
            _, y = add_rms_norm(h, torch.zeros_like(h), w, eps)
            q, scales = quantize(y, group)
        size = group or y.shape[-1]
        groups = y.reshape(*y.shape[:-1], -1, size)
        per_group = scales.reshape(*groups.shape[:-1], 1)
        q = triton_fp8((groups / per_group).clamp(-E4M3_MAX, E4M3_MAX)).reshape(y.shape)
    return q, scales, h


def rows(m, n, dtype, seed=0, outlier=None):
    generator = torch.Generator().manual_seed(seed)
    x, r = (torch.randn(m, n, generator=generator) for _ in range(2))
    w = 1 + 0.1 * torch.randn(n, generator=generator)
    if outlier is not None:
        x[0, 3] = outlier  # one huge channel in the first row
    return (t.to(dtype).to(DEVICE) for t in (x, r, w))


def assert_close_to(expected_q, q, scales, expected_scales):
    """Scales within 2.5e-7 relative, 2 to 4 float32 ulps (the kernel sums the squares in
    another order), and the FP8 values equal but for a value that such an ulp moved across
    a rounding boundary."""
    torch.testing.assert_close(scales, expected_scales, rtol=2.5e-7, atol=0)
    same = q.float() == expected_q.float()
    assert same.float().mean() > 0.999, f"{(~same).sum()} of {same.numel()} FP8 values"
    step = expected_q.float().abs() / 8 + 2**-9  # e4m3: 3 mantissa bits
    assert ((q.float() - expected_q.float()).abs() <= step).all()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize(
    "n, group", [(256, None), (256, 128), (640, None), (640, 128), (1000, None)]
)
def test_the_kernel_gives_the_reference_values(dtype, group, n):
    x, r, w = rows(5, n, dtype, seed=n)
    q, scales, h = add_rms_norm_fp8(x, r, w, 1e-6, group)
    expected_q, expected_scales, expected_h = expected(x, r, w, 1e-6, group)
    assert q.dtype == E4M3 and scales.dtype == torch.float32 and h.dtype == dtype
    assert scales.shape == ((5, n // group) if group else (5,))
    assert torch.equal(h, expected_h)
    assert_close_to(expected_q, q, scales, expected_scales)


def test_gemmas_gain_is_passed_as_one_plus_w_added_in_float32():
    """The FP8 page: for Gemma's 1 + w, pass `1 + w.float()` (a float32 weight with 16-bit
    rows): the kernel quantizes the reference's output with that weight, and the reference's
    float32 output is transformers' GemmaRMSNorm before its cast, to float32 rounding."""
    from transformers.models.gemma.modeling_gemma import GemmaRMSNorm

    x, r, _ = rows(4, 256, torch.bfloat16, seed=3)
    gemma = GemmaRMSNorm(256, eps=1e-6)
    with torch.no_grad():
        gemma.weight.copy_((0.1 * torch.randn(256)).to(torch.bfloat16).float())
        # Gemma's own factor, in float32: rounded to bfloat16, it would differ.
        gain = 1 + gemma.weight.float()
        q, scales, _ = add_rms_norm_fp8(x, r, gain.to(DEVICE), 1e-6)
        expected_q, expected_scales, _ = expected(x, r, gain.to(DEVICE), 1e-6, None)
        assert_close_to(expected_q, q, scales, expected_scales)
        h, y = add_rms_norm(x.cpu(), r.cpu(), gain, 1e-6)
        theirs = gemma(h.float())  # float32 in, so its cast rounds nothing
    torch.testing.assert_close(y, theirs, rtol=2.5e-7, atol=0)


@pytest.mark.parametrize("group", [None, 128])
def test_the_largest_value_of_each_scale_maps_to_448(group):
    x, r, w = rows(4, 512, torch.float32, outlier=1e4)
    q, _, _ = add_rms_norm_fp8(x, r, w, 1e-6, group)
    largest = q.float().reshape(4, -1, group or 512).abs().amax(-1)
    assert (largest == E4M3_MAX).all()  # each row's (each group's) largest maps to 448


def test_the_kernel_clamps_to_448_before_it_converts():
    """fp8.md: 'the kernel clamps to 448 before it converts'. Its own scale maps each
    group's largest value to 448, so no input reaches past it: the clamp is read from the
    source, the line before the store that converts."""
    source = (ROOT / "snippets" / "fp8" / "add_rms_norm_fp8.py").read_text()
    clamp = "q = tl.clamp(q, -E4M3_MAX, E4M3_MAX, propagate_nan=tl.PropagateNan.ALL)"
    store = "tl.store(Q + row * N + cols, q.to(Q.dtype.element_ty), mask=mask)"
    lines = [line.strip() for line in source.splitlines()]
    assert lines[lines.index(clamp) + 1] == store


@pytest.mark.parametrize("group", [None, 128])
def test_one_huge_channel_costs_a_row_or_a_group(group):
    # With one scale for the row, every other value falls below e4m3's smallest normal
    # value (2**-6): a few bits or 0. With a scale per group of 128, the other three groups
    # keep normal values (their scales sit at the floor, their largest values near 20).
    x, r, w = rows(1, 512, torch.float32, outlier=1e6)
    q, scales, _ = add_rms_norm_fp8(x, r, w, 1e-6, group)
    others = q[0, 128:].float().abs()  # the groups without the channel
    normal = (others >= 2**-6).float().mean()
    assert normal == 0 if group is None else normal > 0.9
    if group:
        assert (scales[0, 1:] == torch.tensor(MIN_SCALE, dtype=torch.float32)).all()


@pytest.mark.parametrize("group", [None, 128])
def test_strided_and_batched_rows(group):
    # x and r as views with row strides of their own, in a 3-D batch.
    x_wide, r_wide, w = rows(6, 1024, torch.float32, seed=3)
    x = x_wide[:, :512].reshape(2, 3, 512)
    r = r_wide[:, 256:768].reshape(2, 3, 512)
    q, scales, h = add_rms_norm_fp8(x, r, w[:512], 1e-6, group)
    expected_q, expected_scales, expected_h = expected(x, r, w[:512], 1e-6, group)
    assert q.shape == (2, 3, 512) and scales.shape == ((2, 3, 4) if group else (2, 3))
    assert torch.equal(h, expected_h)
    assert_close_to(expected_q, q, scales, expected_scales)


def test_a_group_of_the_whole_row_is_one_scale_per_row():
    x, r, w = rows(3, 256, torch.float32)
    q, scales, _ = add_rms_norm_fp8(x, r, w, group=256)
    q_row, scales_row, _ = add_rms_norm_fp8(x, r, w)
    assert torch.equal(q.float(), q_row.float()) and torch.equal(
        scales[:, 0], scales_row
    )


# The interpreter's numpy says so of inf * 0 and of a group of NaN only.
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:All-NaN slice encountered:RuntimeWarning")
@pytest.mark.parametrize("group", [None, 128])
def test_a_nan_makes_its_row_nan_and_an_infinity_its_group_as_the_reference(group):
    x, r, w = rows(3, 256, torch.float32)
    x[0, 5], x[1, 7] = float("nan"), float("inf")
    q, scales, _ = add_rms_norm_fp8(x, r, w, 1e-6, group)
    expected_q, expected_scales, _ = expected(x, r, w, 1e-6, group)
    # The NaN reaches the row's mean square: every scale of its row. The infinity makes the
    # reciprocal RMS 0: inf * 0 in its own group, zeros (and the smallest scale) elsewhere.
    nan_scales = [[True, True], [True, False]] if group else [True, True]
    assert scales[:2].isnan().tolist() == nan_scales
    if group:
        assert (q[1, group:].float() == 0).all() and scales[1, 1] == MIN_SCALE
    assert torch.equal(scales.isnan(), expected_scales.isnan())
    torch.testing.assert_close(
        scales, expected_scales, rtol=2.5e-7, atol=0, equal_nan=True
    )
    # NaN values (the interpreter converts NaN to ±384, its own conversion of the
    # reference too; a NaN's sign is not defined), and the finite row as usual.
    nan_rows = (t[:2].float().abs().nan_to_num(-1.0) for t in (q, expected_q))
    assert torch.equal(*nan_rows)
    assert_close_to(expected_q[2:], q[2:], scales[2:], expected_scales[2:])


# The interpreter's numpy says so of the square that passes float32's range.
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.parametrize("group", [None, 128])
@pytest.mark.parametrize("column", [9, slice(None)], ids=["one value", "every value"])
def test_a_sum_of_squares_that_overflows_zeroes_its_row_as_the_reference(group, column):
    # Finite values, but the row's sum of squares passes float32's largest value, from one
    # square (1e40) or from 256 squares of about 4e36 each: the row's mean square is
    # infinite, its reciprocal RMS 0, every value 0 with the smallest scale.
    x, r, w = rows(3, 256, torch.float32)
    x[1, column] = 1e20 if column == 9 else 2e18
    assert (x[1] + r[1]).pow(2).isfinite().all() == (column != 9)
    q, scales, _ = add_rms_norm_fp8(x, r, w, 1e-6, group)
    expected_q, expected_scales, _ = expected(x, r, w, 1e-6, group)
    assert (q[1].float() == 0).all() and (scales[1] == MIN_SCALE).all()
    assert torch.equal(q[1].float(), expected_q[1].float())
    assert torch.equal(scales[1], expected_scales[1])


def test_an_all_zero_row_gives_zeros_and_the_smallest_scale():
    x, r, w = rows(3, 256, torch.float32)
    x[1], r[1] = 0.0, 0.0
    for group in (None, 128):
        q, scales, h = add_rms_norm_fp8(x, r, w, 1e-6, group)
        assert (q[1].float() == 0).all() and (h[1] == 0).all()
        assert (scales[1] == torch.tensor(MIN_SCALE, dtype=torch.float32)).all()
        assert torch.isfinite(scales).all()


def test_no_rows_give_empty_outputs():
    x = torch.empty(0, 256, device=DEVICE)
    q, scales, h = add_rms_norm_fp8(x, x, torch.ones(256, device=DEVICE), group=128)
    assert q.shape == (0, 256) and scales.shape == (0, 2) and h.shape == (0, 256)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"x": torch.ones(2, 256, dtype=torch.int32)}, "x must be float32, float16"),
        ({"residual": torch.ones(2, 128)}, "residual must have x's shape"),
        ({"weight": torch.ones(128)}, r"weight must have shape \(256,\)"),
        ({"group": 96}, "group must be a power of two"),
        ({"group": 512}, "group 512 does not divide the row length 256"),
        ({"eps": -1.0}, "eps must be a number >= 0"),
        ({"eps": True}, "eps must be a number >= 0"),
        ({"weight": torch.ones(256, dtype=torch.int32)}, "weight must be float32"),
        ({"x": [[1.0] * 256]}, "x must be a torch.Tensor"),
        (
            {"x": torch.ones(2, 32768), "residual": torch.ones(2, 32768)},
            "at most 16384",
        ),
    ],
)
def test_bad_input_gets_a_clear_error(change, message):
    arguments = {
        "x": torch.ones(2, 256),
        "residual": torch.ones(2, 256),
        "weight": torch.ones(256),
        "eps": 1e-6,
        "group": None,
        **change,
    }
    x = arguments["x"]
    if "weight" not in change and isinstance(x, torch.Tensor) and x.shape[-1] != 256:
        arguments["weight"] = torch.ones(arguments["x"].shape[-1])
    with pytest.raises((TypeError, ValueError), match=message):
        add_rms_norm_fp8(**arguments)


@pytest.mark.skipif(not INTERPRETED, reason="CPU tensors")
def test_cpu_tensors_without_the_interpreter_get_a_clear_error(monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET")
    x = torch.ones(2, 256)
    with pytest.raises(ValueError, match="set TRITON_INTERPRET=1"):
        add_rms_norm_fp8(x, x, torch.ones(256))


@pytest.mark.skipif(not INTERPRETED, reason="the interpreter's conversion only")
def test_the_interpreter_converts_to_fp8_with_defects():
    """What the page says the interpreter cannot check: if a Triton release fixes its FP8
    conversion, this fails, and the tests and the page can compare with PyTorch directly.
    A carry into an odd exponent lost (31.13, 7.87), into an even one kept (15.9); a tie
    rounded up (1.0625); a small value rounded toward zero (0.005) or to 0 (0.0013); NaN
    converted to 384."""
    values = torch.tensor([31.13, 7.87, 15.9, 1.0625, 3.3, 0.005, 0.0013])
    interpreted = [16.0, 4.0, 16.0, 1.125, 3.25, 2**-8, 0.0]
    assert triton_fp8(values).float().tolist() == interpreted
    pytorch = [32.0, 8.0, 16.0, 1.0, 3.25, 3 * 2**-9, 2**-9]
    assert values.to(E4M3).float().tolist() == pytorch
    nan = torch.tensor([float("nan")])  # NaN becomes 384
    assert triton_fp8(nan).item() == 384 and nan.to(E4M3).float().isnan().all()


COMPILE_FOR_H100 = """
import re
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from snippets.fp8.add_rms_norm_fp8 import add_rms_norm_fp8_kernel as kernel, num_warps

types = {"X": "*bf16", "R": "*bf16", "H": "*bf16", "Q": "*fp8e4nv", "S": "*fp32",
         "W": "*bf16", "stride_x": "i32", "stride_r": "i32", "N": "i32", "n_groups": "i32",
         "eps": "fp32", "GROUP": "constexpr", "BLOCK_N": "constexpr"}
for block, group in [(4096, 4096), (4096, 128), (16384, 128)]:
    source = ASTSource(fn=kernel, signature={k: types[k] for k in kernel.arg_names},
                       constexprs={"GROUP": group, "BLOCK_N": block})
    options = {"num_warps": num_warps(block), "enable_fp_fusion": False}  # as launched
    ptx = triton.compile(source, target=GPUTarget("cuda", 90, 32), options=options).asm["ptx"]
    approximate = len(re.findall(r"(?:div|sqrt)[.](?:full|approx)", ptx))
    print(block, group, "satfinite", ptx.count("cvt.rn.satfinite.e4m3x2.f32"),
          "fma", len(re.findall(r"\\bfma[.]", ptx)), "approximate", approximate)
"""


def test_the_kernel_compiles_for_an_h100_converting_with_saturation():
    """Compiled for sm_90 (an H100) with Triton's ptxas, in a fresh process without the
    interpreter: FP8 stores are PTX's round-to-nearest, saturating e4m3 conversion (so the
    clamp and the conversion agree with PyTorch's), no multiply-add is fused, and every
    division and square root is correctly rounded."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    result = subprocess.run(
        [sys.executable, "-c", COMPILE_FOR_H100],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    compiled = re.findall(
        r"(\d+) (\d+) satfinite (\d+) fma (\d+) approximate (\d+)", result.stdout
    )
    assert len(compiled) == 3, result.stdout
    # Round-to-nearest, saturating FP8 stores; no fused multiply-add; no approximate
    # division or square root (a GPU's "/" and tl.sqrt are): the reference's rounding.
    assert all(
        int(cvt) > 0 and int(fma) == 0 and int(approx) == 0
        for *_, cvt, fma, approx in compiled
    ), result.stdout
