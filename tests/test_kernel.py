"""The Kernel page's fused Triton RMSNorm (snippets/kernel/rms_norm_triton.py).

Without a GPU the kernels run under Triton's interpreter (TRITON_INTERPRET=1) on small shapes:
forward and backward against a float64 reference and torch.nn.functional.rms_norm, for rows
that are not a power of two long, several rows per backward program, all-zero rows, strided
rows, both weight conventions and the three dtypes. The same kernels are also compiled for an
H100 (sm_90, with Triton's ptxas), which the interpreter does not do. If triton cannot be
installed, these tests skip and say so, unless REQUIRE_TRITON is set (as CI sets it).
"""

import os
import subprocess
import sys

import pytest
import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = (
        "1"  # read when the kernels are decorated, at import
    )

try:
    import triton  # noqa: F401 (only whether it imports)
except ImportError as error:  # pragma: no cover - depends on the platform
    if os.environ.get("REQUIRE_TRITON"):
        raise
    pytest.skip(f"triton cannot be imported here ({error})", allow_module_level=True)

from conftest import ROOT
from snippets.kernel import rms_norm_triton as kernel
from snippets.kernel.rms_norm_triton import rms_norm_triton

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
# Relative error allowed against float64: one rounding of the output in each dtype.
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
    x = x.detach().clone().requires_grad_()
    weight = weight.detach().clone().requires_grad_()
    y = rms_norm_triton(x, weight, eps, offset)
    y.backward(dy)
    return y.detach(), x.grad, weight.grad


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("offset", [0.0, 1.0], ids=["llama-w", "gemma-1+w"])
@pytest.mark.parametrize("m, n", [(1, 2), (3, 5), (9, 100), (6, 1000), (2, 4096)])
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
    strided = run(rows, weight, dy, 1e-6, 0.0)
    packed = run(rows.contiguous(), weight, dy, 1e-6, 0.0)
    for a, b in zip(strided, packed):
        torch.testing.assert_close(a, b)
    every_other = torch.randn(140, device=DEVICE)[::2]  # a weight with stride 2
    for a, b in zip(
        run(rows, every_other, dy, 1e-6, 0.0),
        run(rows, every_other.contiguous(), dy, 1e-6, 0.0),
    ):
        torch.testing.assert_close(a, b)
    n = kernel.MAX_N
    x, w = torch.randn(2, n, device=DEVICE), torch.rand(n, device=DEVICE)
    dy = torch.randn(2, n, device=DEVICE)
    for got, want in zip(run(x, w, dy, 1e-6, 1.0), reference(x, w, dy, 1e-6, 1.0)):
        assert relative(got, want) < 1e-6


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda x, w: rms_norm_triton(x.int(), w), TypeError, "float32, float16 or"),
        (lambda x, w: rms_norm_triton([1.0], w), TypeError, "must be tensors"),
        (lambda x, w: rms_norm_triton(x, w[:-1]), ValueError, "weight must have shape"),
        (lambda x, w: rms_norm_triton(x, w, eps=0.0), ValueError, "eps must be"),
        (lambda x, w: rms_norm_triton(x, w, eps=float("nan")), ValueError, "eps must"),
        (lambda x, w: rms_norm_triton(x, w, offset=0.5), ValueError, "offset must be"),
        (lambda x, w: rms_norm_triton(x.t(), w[:4]), ValueError, "contiguous rows"),
        (
            lambda x, w: rms_norm_triton(x.view(2, 2, 8).transpose(0, 1), w),
            ValueError,
            "cannot be viewed as rows",
        ),
        (
            lambda x, w: rms_norm_triton(
                torch.zeros(1, kernel.MAX_N + 1), torch.ones(kernel.MAX_N + 1)
            ),
            ValueError,
            "N must be between 1 and 65536",
        ),
    ],
)
def test_bad_input_gets_a_clear_error(call, error, words):
    x, w = torch.randn(4, 8, device=DEVICE), torch.ones(8, device=DEVICE)
    with pytest.raises(error, match=words):
        call(x, w)


COMPILE_FOR_H100 = """
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from snippets.kernel import rms_norm_triton as kernel

pointers = {"X": "*bf16", "W": "*bf16", "RSTD": "*fp32"}
forward = {**pointers, "Y": "*bf16", "stride_x": "i32", "stride_y": "i32", "N": "i32",
           "eps": "fp32", "offset": "fp32", "BLOCK_N": "constexpr"}
backward = {**pointers, "DY": "*bf16", "DX": "*bf16", "DW_PARTIAL": "*fp32",
            "stride_dy": "i32", "stride_x": "i32", "stride_dx": "i32", "M": "i32",
            "N": "i32", "offset": "fp32", "rows_per_program": "i32", "BLOCK_N": "constexpr"}
for fn, types in [(kernel.rms_norm_forward_kernel, forward),
                  (kernel.rms_norm_backward_kernel, backward)]:
    signature = {name: types[name] for name in fn.arg_names}
    for block_n in (1024, kernel.MAX_N):
        source = ASTSource(fn=fn, signature=signature, constexprs={"BLOCK_N": block_n})
        options = {"num_warps": kernel._num_warps(block_n)}
        compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32), options=options)
        print(fn.__name__, block_n, len(compiled.asm["cubin"]), "bytes of sm_90 code")
"""


def test_kernels_compile_for_an_h100():
    """The interpreter runs the kernels as Python. Compile them to machine code for sm_90
    (an H100) with Triton's own ptxas, for bfloat16 and the shortest and longest rows: in a
    fresh process, since the interpreter replaces parts of triton.language while it runs."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["TRITON_DEFAULT_FP_FUSION"] = "1"
    result = subprocess.run(
        [sys.executable, "-c", COMPILE_FOR_H100],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("bytes of sm_90 code") == 4, result.stdout
