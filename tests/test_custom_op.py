"""The Triton RMSNorm as PyTorch operators (snippets/kernel_in_practice/custom_op.py): the same numbers
as rms_norm_triton and add_rms_norm_triton, forward and backward; torch.library.opcheck;
torch.compile(fullgraph=True) of a small model without a graph break; the same errors for
bad input. Without a GPU the kernels run under Triton's interpreter and the operators are
opaque custom_ops (the module says why); on a GPU they are triton_ops, and one more test
captures them in a CUDA graph and compiles them with Inductor. If triton cannot be
installed, these tests skip and say so, unless REQUIRE_TRITON is set (as CI sets it).
"""

import pytest
import torch
from site_layout import leaf, triton_or_skip

triton_or_skip()  # conftest chose the interpreter if there is no GPU

from snippets.kernel.rms_norm_triton import add_rms_norm_triton, rms_norm_triton
from snippets.kernel_in_practice import custom_op
from snippets.kernel_in_practice.custom_op import add_rms_norm, rms_norm

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
OFFSETS = pytest.mark.parametrize("offset", [0.0, 1.0], ids=["llama-w", "gemma-1+w"])


def inputs(shape, dtype, seed=0):
    """x, residual, weight, dy, dh; x's rows strided (a slice of wider rows)."""
    torch.manual_seed(seed)
    *lead, n = shape
    x = torch.randn(*lead, n + 8, device=DEVICE).to(dtype)[..., :n]
    r, dy, dh = (torch.randn(shape, device=DEVICE).to(dtype) for _ in range(3))
    weight = (1 + 0.1 * torch.randn(n, device=DEVICE)).to(dtype)
    return x, r, weight, dy, dh


def forward_and_backward(norm, x, r, weight, dy, dh, fused):
    x, r, weight = (leaf(t) for t in (x, r, weight))
    if fused:
        y, h = norm(x, r, weight)
        torch.autograd.backward((y, h), (dy, dh))
        return y, h, x.grad, r.grad, weight.grad
    y = norm(x, weight)
    y.backward(dy)
    return y, x.grad, weight.grad


@pytest.mark.parametrize("fused", [False, True], ids=["norm", "add and norm"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("shape", [(2, 3, 40), (0, 16)], ids=str)
@OFFSETS
def test_the_ops_give_the_autograd_functions_numbers(shape, dtype, offset, fused):
    ours = add_rms_norm if fused else rms_norm
    theirs = add_rms_norm_triton if fused else rms_norm_triton
    args = (*inputs(shape, dtype), fused)
    expected = forward_and_backward(lambda *a: theirs(*a, 1e-5, offset), *args)
    got = forward_and_backward(lambda *a: ours(*a, 1e-5, offset), *args)
    for a, b in zip(got, expected, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)


def op_samples(dtype=torch.float32):
    x, r, weight, dy, dh = inputs((3, 24), dtype, seed=1)
    x = x.requires_grad_()
    weight = weight.requires_grad_()
    rstd = torch.rand(3, device=DEVICE) + 0.5
    h = (x + r).detach()
    return {
        "rms_norm_forward": (x, weight, 1e-6, 1.0),
        "add_rms_norm_forward": (x, r.requires_grad_(), weight, 1e-6, 0.0),
        "rms_norm_backward": (dy, x.detach(), weight.detach(), rstd, 0.0),
        "add_rms_norm_backward": (dy, dh, h, weight.detach(), rstd, 1.0),
    }


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("name", list(op_samples()))
def test_opcheck_passes(name, dtype):
    # Schema, autograd registration, fake implementation against the real outputs (in
    # bfloat16 too: dw comes back in the weight's dtype), and AOTAutograd with dynamic
    # shapes: all run on CPU under the interpreter.
    op = getattr(custom_op, name)
    torch.library.opcheck(op, op_samples(dtype)[name])


class TinyModel(torch.nn.Module):
    """A Linear, the norm, the residual add fused with a second norm, a Linear."""

    def __init__(self, n=16):
        super().__init__()
        self.up = torch.nn.Linear(n, n)
        self.norm = torch.nn.Parameter(1 + 0.1 * torch.randn(n))
        self.add_norm = torch.nn.Parameter(0.1 * torch.randn(n))
        self.down = torch.nn.Linear(n, n)

    def forward(self, x):
        h = self.up(x)
        y = rms_norm(h, self.norm)
        y, h = add_rms_norm(y, h, self.add_norm, 1e-5, offset=1.0)
        return self.down(y) + h


def outputs_and_gradients(model, x):
    model.zero_grad()
    out = model(x)
    out.pow(2).sum().backward()
    return [out.detach()] + [p.grad.clone() for p in model.parameters()]


def test_compiled_model_has_no_graph_break_and_the_eager_numbers():
    torch.manual_seed(0)
    model = TinyModel().to(DEVICE)
    x = torch.randn(2, 5, 16, device=DEVICE)
    assert torch._dynamo.explain(model)(x).graph_break_count == 0
    torch._dynamo.reset()
    # fullgraph=True raises at the first graph break.
    compiled = torch.compile(model, fullgraph=True, backend="aot_eager")
    expected = outputs_and_gradients(model, x)
    got = outputs_and_gradients(compiled, x)
    for a, b in zip(got, expected, strict=True):
        assert torch.equal(a, b)


BAD_INPUTS = [
    pytest.param(lambda x, w: ([1.0], w, 1e-6, 0.0), id="not a tensor"),
    pytest.param(lambda x, w: (x.double(), w, 1e-6, 0.0), id="float64"),
    pytest.param(lambda x, w: (x.int(), w, 1e-6, 0.0), id="int"),
    pytest.param(lambda x, w: (x, w[:7], 1e-6, 0.0), id="short weight"),
    pytest.param(lambda x, w: (x, w[None], 1e-6, 0.0), id="2-D weight"),
    pytest.param(lambda x, w: (x, w, 0.0, 0.0), id="eps 0"),
    pytest.param(lambda x, w: (x, w, float("nan"), 0.0), id="eps nan"),
    pytest.param(lambda x, w: (x, w, True, 0.0), id="eps bool"),
    pytest.param(lambda x, w: (x, w, 1e-6, 0.5), id="offset 0.5"),
    pytest.param(lambda x, w: (x.t(), w[:4], 1e-6, 0.0), id="strided elements"),
    pytest.param(lambda x, w: (x[:, :0], w[:0], 1e-6, 0.0), id="N 0"),
]


def error_of(call):
    with pytest.raises((TypeError, ValueError)) as raised:
        call()
    return type(raised.value), str(raised.value)


@pytest.mark.parametrize("bad", BAD_INPUTS)
def test_bad_input_gets_rms_norm_tritons_error(bad):
    x, w = torch.randn(4, 8, device=DEVICE), torch.ones(8, device=DEVICE)
    args = bad(x, w)
    assert error_of(lambda: rms_norm(*args)) == error_of(lambda: rms_norm_triton(*args))
    x, w, eps, offset = args
    residual = torch.zeros_like(x) if isinstance(x, torch.Tensor) else x
    expected = error_of(lambda: add_rms_norm_triton(x, residual, w, eps, offset))
    assert error_of(lambda: add_rms_norm(x, residual, w, eps, offset)) == expected


@pytest.mark.parametrize(
    "residual",
    [[1.0], torch.zeros(4, 7), torch.zeros(4, 8).half(), torch.zeros(8, 4).t()],
    ids=["not a tensor", "shape", "dtype", "strided elements"],
)
def test_bad_residual_gets_add_rms_norm_tritons_error(residual):
    x, w = torch.randn(4, 8, device=DEVICE), torch.ones(8, device=DEVICE)
    if isinstance(residual, torch.Tensor):
        residual = residual.to(DEVICE)
    expected = error_of(lambda: add_rms_norm_triton(x, residual, w))
    assert error_of(lambda: add_rms_norm(x, residual, w)) == expected


def test_bad_input_gets_the_clear_error_when_compiled_too():
    x, w = torch.randn(4, 8, device=DEVICE), torch.ones(8, device=DEVICE)
    words = "eps must be a normal float32 number"
    torch._dynamo.reset()
    with pytest.raises(ValueError, match=words):
        torch.compile(lambda x, w: rms_norm(x, w, 0.0), backend="aot_eager")(x, w)
    # With fullgraph=True Dynamo stops at the raise: its cause, an exception of Dynamo's,
    # carries the check's error.
    compiled = torch.compile(
        lambda x, r, w: add_rms_norm(x, r, w, 0.0), fullgraph=True, backend="aot_eager"
    )
    with pytest.raises(Exception) as raised:  # Dynamo's own type, by version
        compiled(x, x, w)
    # PyTorch 2.13 keeps the message; 2.11 (the GPU machine's) names only its class.
    cause = str(raised.value.__cause__)
    assert words in cause or "ExceptionVariable(<class 'ValueError'>)" in cause


@pytest.mark.parametrize("fused", [False, True], ids=["norm", "add and norm"])
def test_second_derivatives_are_refused_not_silently_wrong(fused):
    x, r, weight, dy, _ = inputs((4, 16), torch.float32, seed=3)
    x = x.detach().requires_grad_()
    y = add_rms_norm(x, r, weight)[0] if fused else rms_norm(x, weight)
    (dx,) = torch.autograd.grad(y, x, dy, create_graph=True)
    with pytest.raises(RuntimeError, match="rms_norm has no second derivatives"):
        dx.pow(2).sum().backward()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_on_a_gpu_cuda_graphs_capture_the_ops_and_inductor_compiles_them():
    assert custom_op.TRACEABLE  # triton_ops: torch.compile sees the kernels
    torch.manual_seed(0)
    model = TinyModel(256).cuda()
    x = torch.randn(8, 64, 256, device="cuda")
    expected = outputs_and_gradients(model, x)

    # A CUDA graph of the forward and backward passes, replayed on new input.
    static_x = torch.randn_like(x)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up: Triton compiles outside the capture
        for _ in range(2):
            outputs_and_gradients(model, static_x)
    torch.cuda.current_stream().wait_stream(side)
    # No gradients before the capture: backward allocates them in the graph's memory pool
    # and each replay writes them anew (PyTorch's whole-network capture example).
    model.zero_grad(set_to_none=True)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = model(static_x)
        static_out.pow(2).sum().backward()
    static_x.copy_(x)
    graph.replay()
    torch.cuda.synchronize()
    got = [static_out] + [p.grad for p in model.parameters()]
    for a, b in zip(got, expected, strict=True):
        assert torch.equal(a, b)

    # Inductor, whole graph. It may compile the kernels with its own options (Triton's
    # fused multiply-add on), and fuses the Linear's bias and the adds: close, not equal.
    # Element by element one of a weight gradient's 65536 values differed by 1.5e-4 (3e-4
    # relative; seen on an H100), just over assert_close's 1e-4, so each tensor is compared
    # as a whole.
    torch._dynamo.reset()
    compiled = torch.compile(model, fullgraph=True, backend="inductor")
    got = outputs_and_gradients(compiled, x)
    for a, b in zip(got, expected, strict=True):
        assert ((a - b).norm() / b.norm()).item() < 1e-5


def test_each_new_shape_of_the_rows_compiles_again_as_the_page_says():
    # The fake implementation takes the rows as numel()'s plain integer, which fixes every
    # size but the last: a new number of rows compiles again, and so does a new batch and
    # sequence length with the same product. The Kernel in practice page says so. (The
    # second shape compiles again anyway, marked dynamic; from the third on they would
    # not.) When math.prod replaces numel() (with the next GPU run), this test becomes one
    # that they compile twice.
    compiles = []

    def counting(graph, inputs):
        compiles.append(graph)
        return graph.forward

    torch._dynamo.reset()
    norm = torch.compile(lambda x, w: rms_norm(x, w), backend=counting, fullgraph=True)
    w = torch.ones(8, device=DEVICE)
    for m in (3, 5, 7):
        norm(torch.randn(m, 8, device=DEVICE), w)
    assert len(compiles) == 3
    torch._dynamo.reset()
    compiles.clear()
    w = torch.ones(64, device=DEVICE)
    # 32 rows each, the page's shapes.
    for batch, tokens in ((2, 16), (4, 8), (8, 4)):
        norm(torch.randn(batch, tokens, 64, device=DEVICE), w)
    assert len(compiles) == 3
