"""The Implementations page's code: the copyable RMSNorm module refuses bad input with a clear
message, gets the edge cases right, and builds and computes like torch.nn.RMSNorm on PyTorch's
own test inputs; the variants agree with transformers' classes; the audit of transformers'
norm classes tells each behaviour it reports from the others, and the classes Pitfalls names
beside LlamaRMSNorm round as it does."""

import importlib
import math
import re
import sys
import warnings
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch.testing._internal import common_utils
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.common_modules import module_db
from torch.testing._internal.opinfo import core as opinfo_core
from transformers import (
    Gemma3TextConfig,
    Gemma3TextModel,
    LlamaConfig,
    LlamaModel,
    Olmo2Config,
    Olmo2Model,
    Qwen3Config,
    Qwen3Model,
)
from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
from transformers.models.llama.modeling_llama import LlamaRMSNorm
from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

from snippets.implementations.rms_norm_module import RMSNorm, rms_norm
from snippets.implementations.transformers_norms import behaviour
from snippets.implementations.variants import (
    VARIANTS,
    rms_norm_gemma,
    rms_norm_llama,
    rms_norm_partial,
)


def definition(x, weight, eps=1e-6):
    """RMSNorm as the Math page defines it, in float64: written here, not taken from the
    code under test, so that a mistake there cannot move the reference too."""
    x, weight = x.double(), weight.double()
    return weight * x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def test_matches_torch_for_one_and_several_trailing_dims():
    torch.manual_seed(0)
    for shape in [(16,), (4, 8)]:
        x = torch.randn(3, *shape, dtype=torch.float64)
        ours, theirs = RMSNorm(shape, eps=1e-6), torch.nn.RMSNorm(shape, eps=1e-6)
        with torch.no_grad():
            ours.weight.uniform_(0.5, 1.5)
            theirs.weight.copy_(ours.weight)
            assert torch.allclose(ours(x), theirs(x.to(theirs.weight.dtype)).double())


@pytest.mark.parametrize(
    "make, error, message",
    [
        (
            lambda: RMSNorm(8)(torch.randn(2, 7)),
            ValueError,
            "end in the dimensions (8,)",
        ),
        (
            lambda: RMSNorm((4, 8))(torch.randn(4, 9)),
            ValueError,
            "got a tensor of shape",
        ),
        (lambda: RMSNorm(8, eps=0.0), ValueError, "normal float32 number > 0"),
        (lambda: RMSNorm(8, eps=1e-50), ValueError, "got 1e-50"),
        (lambda: RMSNorm(8, eps=1e39), ValueError, r"got 1e\+39"),
        (lambda: RMSNorm(8, eps=-1e-6), ValueError, "got -1e-06"),
        (lambda: RMSNorm(8, eps=math.inf), ValueError, "got inf"),
        (lambda: RMSNorm(8, eps=math.nan), ValueError, "got nan"),
        (
            lambda: RMSNorm(8, eps="1e-6"),
            TypeError,
            "eps must be a real number, got str",
        ),
        (
            lambda: RMSNorm(8, eps=None),
            TypeError,
            "eps must be a real number, got None",
        ),
        (
            lambda: RMSNorm(8, elementwise_affine="no"),
            TypeError,
            "elementwise_affine must be True or False, got 'no'",
        ),
        (
            lambda: RMSNorm(8, dtype=torch.int64),
            TypeError,
            (
                "dtype must be None or one of torch.float16, torch.bfloat16, torch.float32,"
                " torch.float64, got torch.int64"
            ),
        ),
        (lambda: RMSNorm(0), ValueError, "normalized_shape must be"),
        (
            lambda: RMSNorm(8)(torch.ones(2, 8, dtype=torch.int64)),
            TypeError,
            "torch.int64",
        ),
        (
            lambda: RMSNorm(8)(torch.ones(2, 8, dtype=torch.bool)),
            TypeError,
            "torch.bool",
        ),
        (lambda: RMSNorm(8)([1.0] * 8), TypeError, "torch.Tensor, got list"),
        (
            lambda: rms_norm(torch.randn(2, 8), 8, torch.ones(7)),
            ValueError,
            "(8,), got (7,)",
        ),
        (
            lambda: rms_norm(torch.randn(2, 8), 8, [1.0] * 8),
            TypeError,
            "weight must be a torch.Tensor or None, got list",
        ),
        (
            lambda: rms_norm(torch.randn(2, 8), 8, torch.ones(8, dtype=torch.bool)),
            TypeError,
            (
                "weight must be a float16, bfloat16, float32 or float64 tensor, got dtype"
                " torch.bool"
            ),
        ),
        (
            lambda: rms_norm(torch.ones(2, 8).to(torch.float8_e4m3fn), 8),
            TypeError,
            (
                "x must be a float16, bfloat16, float32 or float64 tensor, got dtype"
                " torch.float8_e4m3fn"
            ),
        ),
        (lambda: RMSNorm(True), ValueError, "normalized_shape must be"),
        (lambda: RMSNorm(()), ValueError, "normalized_shape must be"),
        (
            lambda: RMSNorm(8, eps=True),
            TypeError,
            "eps must be a real number, got bool",
        ),
        # The last dimension matches, the one before it does not: never a silent mean.
        (
            lambda: RMSNorm((4, 8), elementwise_affine=False)(torch.randn(2, 3, 8)),
            ValueError,
            "x must end in the dimensions (4, 8), got a tensor of shape (2, 3, 8)",
        ),
        # Stricter than torch's, as the page says: these torch takes.
        (
            lambda: RMSNorm(8, elementwise_affine=1),
            TypeError,
            "elementwise_affine must be True or False, got 1",
        ),
        (
            lambda: RMSNorm(8, eps=torch.tensor(1e-6)),
            TypeError,
            "eps must be a real number, got Tensor",
        ),
        (
            lambda: RMSNorm(8)(torch.ones(2, 8, dtype=torch.complex64)),
            TypeError,
            "torch.complex64",
        ),
    ],
)
def test_bad_input_gets_a_clear_error(make, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        make()


def test_torch_takes_complex_input_but_squares_it_as_complex_numbers():
    """As the page says: x * x, not |x|^2, so the output's RMS is not 1."""
    x = torch.randn(
        64, 16, dtype=torch.complex128, generator=torch.Generator().manual_seed(0)
    )
    y = torch.nn.functional.rms_norm(x, (16,))
    assert torch.allclose(y, x * torch.rsqrt((x * x).mean(-1, keepdim=True)))
    assert not torch.allclose(
        y.abs().pow(2).mean(-1), torch.ones(64, dtype=torch.float64)
    )


def test_numpy_sizes_and_eps_are_taken_as_torch_takes_them():
    norm = RMSNorm(np.int64(8), eps=np.float32(1e-5))
    assert norm.normalized_shape == (8,) and type(norm.normalized_shape[0]) is int
    assert norm.eps == pytest.approx(1e-5) and type(norm.eps) is float
    torch.nn.RMSNorm(np.int64(8), eps=np.float32(1e-5))  # torch takes them too


def test_reset_parameters_fills_in_a_model_built_on_the_meta_device():
    norm = RMSNorm((4, 8), device="meta").to_empty(device="cpu")
    norm.reset_parameters()
    assert torch.equal(norm.weight, torch.ones(4, 8))
    RMSNorm(8, elementwise_affine=False).reset_parameters()  # no weight: nothing to do


def test_a_weight_of_the_wrong_shape_is_refused_in_forward():
    norm = RMSNorm(8)
    norm.weight = torch.nn.Parameter(torch.ones(4))
    with pytest.raises(ValueError, match=r"weight must have shape \(8,\), got \(4,\)"):
        norm(torch.randn(2, 8))


@pytest.mark.parametrize(
    "x, weight", [((1, 8), (8,)), ((4, 8), (7,))], ids=["x's rows", "weight's size"]
)
def test_the_in_place_fused_add_refuses_bad_shapes_before_writing(x, weight):
    from snippets.implementations.fused_add_in_place import fused_add_rms_norm_

    x, residual = torch.randn(x), torch.randn(4, 8)
    before = residual.clone()
    with pytest.raises(ValueError, match=r"got x \(\d, 8\), residual \(4, 8\), weight"):
        fused_add_rms_norm_(x, residual, torch.ones(weight))
    assert torch.equal(residual, before)


def test_the_in_place_fused_add_refuses_a_residual_of_another_dtype_before_writing():
    from snippets.implementations.fused_add_in_place import fused_add_rms_norm_

    x, residual = torch.randn(4, 8).bfloat16(), torch.randn(4, 8)
    before = residual.clone()
    with pytest.raises(TypeError, match="got torch.bfloat16, torch.float32 and"):
        fused_add_rms_norm_(x, residual, torch.ones(8, dtype=torch.bfloat16))
    assert torch.equal(residual, before)


@pytest.mark.parametrize(
    "change, error, message",
    [
        ({"dtype": torch.int64}, TypeError, "a floating-point dtype; got torch.int64"),
        ({"same": True}, ValueError, "x and residual in separate memory"),
        ({"overlapping": True}, ValueError, "x and residual in separate memory"),
        ({"eps": 0.0}, ValueError, r"eps to be a normal float32 number > 0; got 0\.0"),
        ({"eps": 1e-50}, ValueError, r"number > 0; got 1e-50"),  # 0 in float32
        ({"eps": True}, ValueError, r"number > 0; got True"),
    ],
    ids=[
        "integers",
        "one tensor twice",
        "overlapping",
        "eps 0",
        "eps 1e-50",
        "eps True",
    ],
)
def test_the_in_place_fused_add_refuses_what_it_would_get_wrong_before_writing(
    change, error, message
):
    from snippets.implementations.fused_add_in_place import fused_add_rms_norm_

    dtype = change.get("dtype", torch.float32)
    memory = torch.arange(48).reshape(4, 12).to(dtype)
    residual = memory[:, :8]
    if change.get("same"):
        x = residual
    elif change.get("overlapping"):  # columns 4 to 7 in both
        x = memory[:, 4:]
    else:
        x = torch.zeros(4, 8, dtype=dtype)
    before = residual.clone()
    with pytest.raises(error, match=message):
        fused_add_rms_norm_(
            x, residual, torch.ones(8, dtype=dtype), change.get("eps", 1e-6)
        )
    assert torch.equal(residual, before)


def test_the_in_place_fused_add_takes_zero_rows_and_views_side_by_side():
    """No rows: nothing to write (empty tensors share the address 0). Two halves of one
    buffer: separate memory, each written as for separate tensors."""
    from snippets.implementations.fused_add_in_place import fused_add_rms_norm_
    from snippets.implementations.variants import rms_norm_llama

    fused_add_rms_norm_(torch.zeros(0, 8), torch.zeros(0, 8), torch.ones(8))
    torch.manual_seed(0)
    memory, weight = torch.randn(4, 16), torch.rand(8)
    x, residual = memory[:, :8], memory[:, 8:]
    h = x + residual
    fused_add_rms_norm_(x, residual, weight)
    assert torch.equal(residual, h) and torch.equal(x, rms_norm_llama(h, weight, 1e-6))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_all_zero_rows_give_zeros(dtype):
    y = RMSNorm(8)(torch.zeros(3, 8, dtype=dtype))
    assert y.dtype == dtype and torch.equal(y, torch.zeros(3, 8, dtype=dtype))


def test_float16_with_large_values_is_upcast():
    x = torch.tensor([[300.0, -256.0, 1000.0, 5.0]], dtype=torch.float16)
    expected = definition(x.double(), torch.ones(4, dtype=torch.float64))
    y = RMSNorm(4)(x)
    assert y.dtype == torch.float16
    assert torch.allclose(y.double(), expected, rtol=1e-3)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_a_non_finite_value_stays_in_its_row_as_in_torch(dtype):
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([[inf, 1, 2, 3], [nan, 1, 2, 3], [-inf, 1, 1, 1], [1, 1, 1, 1]])
    y = RMSNorm(4)(x.to(dtype)).detach()
    theirs = torch.nn.functional.rms_norm(x.to(dtype), (4,), eps=1e-6)
    assert torch.equal(y.isnan(), theirs.isnan())
    assert torch.equal(y.nan_to_num(), theirs.nan_to_num())
    assert y[0, 0].isnan() and torch.equal(y[0, 1:], torch.zeros(3, dtype=dtype))
    assert y[1].isnan().all() and torch.allclose(y[3].float(), torch.ones(4))


def test_tiny_rms_follows_the_definition():
    x = torch.full((1, 8), 1e-5, dtype=torch.float64)  # mean square 1e-10, below eps
    expected = x / math.sqrt(1e-10 + 1e-6)
    assert torch.allclose(RMSNorm(8, eps=1e-6)(x).detach(), expected)


def test_float64_is_not_downcast():
    x = torch.randn(2, 8, dtype=torch.float64)
    exact = definition(x, torch.ones(8, dtype=torch.float64))
    assert torch.allclose(RMSNorm(8)(x).detach(), exact, rtol=1e-14, atol=0)


@pytest.mark.parametrize(
    ("x_dtype", "weight_dtype"),
    [(torch.float32, torch.float64), (torch.bfloat16, torch.float32)],
)
def test_the_weight_multiplies_in_the_wider_dtype_as_in_torch(x_dtype, weight_dtype):
    # A float64 weight on float32 input is not rounded to float32 before it multiplies.
    torch.manual_seed(0)
    x = torch.randn(64, 256).to(x_dtype)
    weight = (torch.rand(256, dtype=torch.float64) + 0.5).to(weight_dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's: no fused path for the two dtypes
        theirs = F.rms_norm(x, (256,), weight, 1e-6)
    assert torch.equal(rms_norm(x, 256, weight, 1e-6), theirs)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize(
    "theirs, ours",
    [
        (LlamaRMSNorm, rms_norm_llama),
        (Qwen3RMSNorm, rms_norm_llama),
        (GemmaRMSNorm, rms_norm_gemma),
    ],
    ids=["llama", "qwen3", "gemma"],
)
def test_variants_match_transformers_bit_for_bit(theirs, ours, dtype):
    torch.manual_seed(0)
    module = theirs(64, eps=1e-6)
    with torch.no_grad():
        module.weight.normal_(std=0.1)
        x = (torch.randn(5, 64) * 3).to(dtype)
        assert torch.equal(module(x), ours(x, module.weight))


def test_partial_takes_its_statistic_from_the_first_features_only():
    """pRMSNorm with the paper's p = 6.25%: the mean square of the first 4 of 64 features."""
    torch.manual_seed(0)
    x = torch.randn(3, 64, dtype=torch.float64)
    weight = torch.ones(64, dtype=torch.float64)
    expected = x / torch.sqrt(x[:, :4].pow(2).mean(-1, keepdim=True) + 1e-6)
    assert torch.allclose(rms_norm_partial(x, weight), expected, rtol=1e-14, atol=0)
    changed = x.clone()
    changed[:, 4:] *= 10  # the features past the first 4 leave the statistic alone
    assert torch.allclose(rms_norm_partial(changed, weight)[:, :4], expected[:, :4])


@pytest.mark.parametrize(
    "name", [n for n in VARIANTS if n not in ("paper code", "partial")]
)
def test_variants_agree_on_the_definition_in_float64(name):
    torch.manual_seed(0)
    x = torch.randn(4, 32, dtype=torch.float64) * 1e-3  # RMS 1e-3: eps 1e-6 shows
    weight = torch.rand(32, dtype=torch.float64) + 0.5
    # gemma's weight w means a gain of 1 + w.
    w = weight - 1 if name == "gemma" else weight
    out = VARIANTS[name](x, w).double()
    exact = definition(x, weight)
    assert torch.allclose(out, exact, rtol=1e-6, atol=1e-6)


# PyTorch's own test inputs for its RMSNorm: the ModuleInfo of nn.RMSNorm (constructor
# arguments and inputs) and the OpInfo samples of nn.functional.rms_norm.
MODULE_INFO = next(info for info in module_db if info.module_cls is torch.nn.RMSNorm)
OP_INFO = next(info for info in op_db if info.name == "nn.functional.rms_norm")


def seeded(make, *args, **kwargs):
    """`make`'s samples, drawn with a fixed seed; torch's generator is left as it was.
    Torch looks up the stack for the unittest test drawing them (extract_test_fn, with
    inspect.stack: 0.2 s a time under pytest's collection); here there is none to find.
    The OpInfo module imported it by name, so it is replaced there too."""
    with (
        torch.random.fork_rng(),
        mock.patch.object(common_utils, "extract_test_fn", lambda: None),
        mock.patch.object(opinfo_core, "extract_test_fn", lambda: None),
    ):
        torch.manual_seed(0)
        return list(make(*args, **kwargs))


MODULE_CASES = [
    pytest.param(dtype, case, id=f"{str(dtype)[6:]}-{case.desc}")
    for dtype in [torch.float32, torch.float64, torch.float16]
    for case in seeded(
        MODULE_INFO.module_inputs_func,
        MODULE_INFO,
        device="cpu",
        dtype=dtype,
        requires_grad=False,
        training=True,
    )
]


def parameters(module):
    return {n: (p.shape, p.dtype, p.device) for n, p in module.named_parameters()}


@pytest.mark.parametrize("dtype, case", MODULE_CASES)
def test_torch_module_inputs_build_and_run_like_torch_nn_rmsnorm(dtype, case):
    args, kwargs = case.constructor_input.args, case.constructor_input.kwargs
    ours = RMSNorm(*args, **kwargs, device="cpu", dtype=dtype)
    theirs = torch.nn.RMSNorm(*args, **kwargs, device="cpu", dtype=dtype)
    assert parameters(ours) == parameters(theirs)
    assert all(p.dtype == dtype and p.device.type == "cpu" for p in ours.parameters())
    if ours.weight is not None:  # a weight other than ones, the same in both
        with torch.no_grad():
            ours.weight.uniform_(0.5, 1.5)
            theirs.weight.copy_(ours.weight)
    x = case.forward_input.args[0]
    torch.testing.assert_close(ours(x), theirs(x), rtol=0, atol=0)  # bit for bit


def test_device_and_dtype_place_the_weight():
    weight = RMSNorm((2, 3), device="meta", dtype=torch.bfloat16).weight
    assert weight.is_meta and weight.dtype == torch.bfloat16 and weight.shape == (2, 3)


def op_case(dtype, sample):
    eps = sample.kwargs.get("eps")
    name = f"{str(dtype)[6:]}-{tuple(sample.input.shape)}-eps={eps}"
    if eps is not None and eps < 0:
        reason = f"eps = {eps}: the module refuses a negative eps on purpose"
        return pytest.param(
            dtype, sample, id=name, marks=pytest.mark.skip(reason=reason)
        )
    return pytest.param(dtype, sample, id=name)


OP_CASES = [
    op_case(dtype, sample)
    for dtype in [torch.float32, torch.float64, torch.float16, torch.bfloat16]
    for sample in seeded(OP_INFO.sample_inputs, "cpu", dtype)
]
NEGATIVE_EPS_CASES = [pytest.param(*c.values, id=c.id) for c in OP_CASES if c.marks]


@pytest.mark.parametrize("dtype, sample", OP_CASES)
def test_torch_rms_norm_samples_give_torch_output(dtype, sample):
    shape, *weight = sample.args
    eps = sample.kwargs.get("eps")
    if eps is None:  # torch's default: the epsilon of the type it computes in
        eps = torch.finfo(torch.promote_types(dtype, torch.float32)).eps
    ours = RMSNorm(shape, eps=eps, elementwise_affine=bool(weight), dtype=dtype)
    if weight:
        with torch.no_grad():
            ours.weight.copy_(weight[0])
    expected = F.rms_norm(sample.input, *sample.args, **sample.kwargs)
    torch.testing.assert_close(ours(sample.input), expected, rtol=0, atol=0)


@pytest.mark.parametrize("dtype, sample", NEGATIVE_EPS_CASES)
def test_the_negative_eps_of_torch_samples_is_refused(dtype, sample):
    eps = sample.kwargs["eps"]
    with pytest.raises(
        ValueError, match=re.escape(f"normal float32 number > 0, got {eps}")
    ):
        RMSNorm(sample.args[0], eps=eps, dtype=dtype)


def test_a_negative_eps_gives_nan_and_inf_in_torch():
    x = torch.tensor([[0.5, 0.5], [1.0, 0.0]])  # mean squares 0.25 and 0.5
    y = F.rms_norm(x, (2,), eps=-0.5)  # rsqrt(-0.25) and rsqrt(0)
    assert y[0].isnan().all() and y[1, 0].isinf()


class EpsOutside(torch.nn.Module):
    """The RMSNorm authors' form: eps added to the RMS, in float32, one rounding."""

    def __init__(self, hidden_size, eps=1e-8):
        super().__init__()
        self.weight, self.eps = torch.nn.Parameter(torch.ones(hidden_size)), eps

    def forward(self, x):
        h = x.float()
        rms = h.pow(2).mean(-1, keepdim=True).sqrt()
        return (self.weight.float() * h / (rms + self.eps)).to(x.dtype)


class NoUpcast(torch.nn.Module):
    """LLaMA's norm without its float32 upcast."""

    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight, self.eps = torch.nn.Parameter(torch.ones(hidden_size)), eps

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


class FixedEps(torch.nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(hidden_size))

    def forward(self, x):
        return F.rms_norm(x, self.weight.shape, self.weight, 1e-6)


class NeedsConfig(torch.nn.Module):
    def __init__(self, config):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(config.hidden_size))


@pytest.mark.parametrize(
    "cls, expected",
    [
        (LlamaRMSNorm, "w     inside  1e-06    LLaMA: x-hat rounded, then the gain"),
        (
            GemmaRMSNorm,
            "1 + w inside  1e-06    Gemma: the gain in float32, one rounding",
        ),
        (EpsOutside, "w     outside 1e-08    Gemma: the gain in float32, one rounding"),
        (NoUpcast, "w     inside  1e-06    other"),
        (NeedsConfig, "not measured: NeedsConfig(64) raises AttributeError"),
        (FixedEps, "not measured: no default eps"),
        (torch.nn.Identity, "not measured: no learned weight of one gain per feature"),
    ],
)
def test_the_audit_tells_each_behaviour_apart(cls, expected):
    assert behaviour(cls) == expected


def test_two_rms_norms_named_otherwise_fit_none_of_the_audits_rows():
    """Implementations: of the RMS norms the audit leaves out (their names do not end in
    RMSNorm), GradiumPhononTTSTimestepNorm computes in its input's dtype, with no float32
    upcast, and ZayaQKNorm divides by the L2 norm clamped from below, with no eps under a
    root."""
    from transformers import ZayaConfig
    from transformers.models.gradium_phonon_tts.modeling_gradium_phonon_tts import (
        GradiumPhononTTSTimestepNorm,
    )
    from transformers.models.zaya.modeling_zaya import ZayaQKNorm

    large = torch.full((1, 4), 300.0, dtype=torch.float16)  # squares overflow float16
    assert torch.equal(GradiumPhononTTSTimestepNorm(4)(large), torch.zeros(1, 4).half())
    assert torch.equal(LlamaRMSNorm(4)(large), torch.ones(1, 4).half())
    norm = ZayaQKNorm(ZayaConfig(head_dim=4, num_key_value_heads=1))
    tiny = torch.full((1, 1, 1, 4), 1e-9)  # L2 norm 2e-9, below float32's eps
    queries, _ = norm(tiny, tiny)
    assert torch.equal(queries, tiny * (math.sqrt(4) / torch.finfo(torch.float32).eps))


@pytest.mark.parametrize(
    "module, name",
    [
        ("qwen2", "Qwen2RMSNorm"),
        ("qwen3", "Qwen3RMSNorm"),
        ("mistral", "MistralRMSNorm"),
        ("deepseek_v3", "DeepseekV3RMSNorm"),
    ],
)
def test_the_classes_pitfalls_names_beside_llamas_round_as_it_does(module, name):
    """Pitfalls' cast-order fix: these classes give LlamaRMSNorm's bits."""
    from transformers.models.llama.modeling_llama import LlamaRMSNorm

    modeling = importlib.import_module(
        f"transformers.models.{module}.modeling_{module}"
    )
    llama = behaviour(LlamaRMSNorm)
    assert llama.endswith("LLaMA: x-hat rounded, then the gain")
    assert behaviour(getattr(modeling, name)) == llama


def autocast_lists() -> dict[str, set[str]]:
    """The operations on each of autocast's lists (AT_FORALL_FP32...; not the list of
    deprecated backends), read from the header the installed PyTorch ships: its CUDA
    autocast registers them (aten/src/ATen/autocast_mode.cpp)."""
    header = Path(torch.__file__).parent / "include" / "ATen" / "autocast_mode.h"
    macros = re.findall(
        r"^#define (AT_FORALL_(?!DEPRECATED)\w+)\(_\)\s*\\\n(.*?)(?=\n\n|\n#)",
        header.read_text(encoding="utf-8"),
        re.MULTILINE | re.DOTALL,
    )
    return {
        name: set(re.findall(r"_\((?:ADD_NS\()?(\w+)", body)) for name, body in macros
    }


def test_autocast_runs_rms_norm_in_float32_on_a_gpu_and_leaves_it_on_a_cpu():
    # "Under autocast" on the Implementations page: what this site cannot run on a GPU.
    lists = autocast_lists()
    assert {"rms_norm", "layer_norm"} <= lists["AT_FORALL_FP32"]
    registered = torch._C._dispatch_has_kernel_for_dispatch_key
    assert registered("aten::rms_norm", "AutocastCUDA")
    assert not registered("aten::rms_norm", "AutocastCPU")
    # Of what the LLaMA and Gemma forms run, only pow and rsqrt are on a list (float32, which
    # they already get): they return the same types on a GPU as on a CPU. Nor are the
    # embedding and the residual add: the residual stream stays float32 there too.
    on_lists = set().union(*lists.values())
    assert {"matmul", "linear", "pow", "rsqrt"} <= on_lists
    assert {"pow", "rsqrt"} <= lists["AT_FORALL_FP32"]
    assert on_lists.isdisjoint({"mul", "add", "mean", "to", "_to_copy", "embedding"})
    for op in ["mul.Tensor", "add.Tensor", "mean.dim", "_to_copy", "embedding"]:
        assert not registered(f"aten::{op}", "AutocastCUDA"), op
    # So a form without casts of its own (Pitfalls' rms_norm_half) squares in float32 on
    # a GPU only, and only as x.pow(2): x * x stays in the input's dtype.
    for op in ["pow.Tensor_Scalar", "rsqrt"]:
        assert registered(f"aten::{op}", "AutocastCUDA"), op
        assert not registered(f"aten::{op}", "AutocastCPU"), op
    assert not registered("aten::mul.Tensor", "AutocastCPU")
    # Attention casts its queries and keys, on either device.
    assert "scaled_dot_product_attention" in lists["AT_FORALL_LOWER_PRECISION_FP"]
    for key in ["AutocastCPU", "AutocastCUDA"]:
        assert registered("aten::scaled_dot_product_attention", key)


TINY = {
    "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4,
    "num_key_value_heads": 4, "head_dim": 16, "intermediate_size": 128,
    "vocab_size": 128, "eos_token_id": 0,
}  # fmt: skip


@pytest.mark.parametrize(
    "model_class, config_class, after_a_projection, rotated_to",
    [
        (LlamaModel, LlamaConfig, set(), torch.float32),
        (Qwen3Model, Qwen3Config, {"q_norm", "k_norm"}, torch.float32),
        (
            Gemma3TextModel,
            Gemma3TextConfig,
            {
                "q_norm",
                "k_norm",
                "post_attention_layernorm",
                "post_feedforward_layernorm",
            },
            torch.float32,
        ),
        (
            Olmo2Model,
            Olmo2Config,
            {
                "q_norm",
                "k_norm",
                "post_attention_layernorm",
                "post_feedforward_layernorm",
            },
            torch.bfloat16,  # its rotary embedding casts back to its input's dtype
        ),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_under_autocast_only_the_norms_after_a_projection_see_bfloat16(
    model_class, config_class, after_a_projection, rotated_to, monkeypatch
):
    # "Under autocast": transformers' own models, float32 parameters, on a CPU.
    torch.manual_seed(0)
    model = model_class(config_class(**TINY))
    received, rotated, cos_sin = {}, set(), set()

    def record(module, args, output, name):
        received.setdefault(name.split(".")[-1], set()).add(args[0].dtype)

    for name, module in model.named_modules():
        if type(module).__name__.endswith("RMSNorm"):
            module.register_forward_hook(
                lambda m, a, o, name=name: record(m, a, o, name)
            )
    # The rotary embedding, between a QK-norm and the attention: what it hands on.
    modeling = sys.modules[model_class.__module__]
    rotary = modeling.apply_rotary_pos_emb

    def rotate(query, key, cos, sin, *args, **kwargs):
        cos_sin.update({cos.dtype, sin.dtype})
        query, key = rotary(query, key, cos, sin, *args, **kwargs)
        rotated.update({query.dtype, key.dtype})
        return query, key

    monkeypatch.setattr(modeling, "apply_rotary_pos_emb", rotate)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        model(input_ids=torch.arange(5)[None])
    bfloat16 = {name for name, dtypes in received.items() if dtypes == {torch.bfloat16}}
    assert bfloat16 == after_a_projection
    others = {name: dtypes for name, dtypes in received.items() if name not in bfloat16}
    assert others and all(dtypes == {torch.float32} for dtypes in others.values())
    # Its cos and sin are float32; what it hands the attention, where autocast casts.
    assert cos_sin == {torch.float32}
    assert rotated == {rotated_to}


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_torch_says_a_float32_weight_with_half_input_takes_the_unfused_path(dtype):
    # Implementations' parity table: its torch row warns, the page says, as it runs. Once
    # a process, so here every time: another test may have run the same call before.
    x = torch.randn(2, 8, dtype=dtype)
    warned_always = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    try:
        with pytest.warns(UserWarning, match="Cannot dispatch to fused implementation"):
            F.rms_norm(x, (8,), torch.rand(8))
    finally:
        torch.set_warn_always(warned_always)
