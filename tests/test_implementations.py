"""The Implementations page's code: the copyable RMSNorm module refuses bad input with a clear
message and gets the edge cases right; the variants agree with transformers' classes."""

import math

import pytest
import torch
from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
from transformers.models.llama.modeling_llama import LlamaRMSNorm
from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

from snippets.implementations.rms_norm_module import RMSNorm, rms_norm
from snippets.implementations.variants import (
    VARIANTS,
    rms_norm_gemma,
    rms_norm_llama,
    rms_norm_scratch,
)


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
        (lambda: RMSNorm(8, eps=0.0), ValueError, "finite and > 0, got 0.0"),
        (lambda: RMSNorm(8, eps=-1e-6), ValueError, "got -1e-06"),
        (lambda: RMSNorm(8, eps=math.inf), ValueError, "got inf"),
        (lambda: RMSNorm(8, eps=math.nan), ValueError, "got nan"),
        (lambda: RMSNorm(8, eps="1e-6"), TypeError, "eps must be a float, got str"),
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
    ],
)
def test_bad_input_gets_a_clear_error(make, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        make()


def test_a_weight_of_the_wrong_shape_is_refused_in_forward():
    norm = RMSNorm(8)
    norm.weight = torch.nn.Parameter(torch.ones(4))
    with pytest.raises(ValueError, match=r"weight must have shape \(8,\), got \(4,\)"):
        norm(torch.randn(2, 8))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_all_zero_rows_give_zeros(dtype):
    y = RMSNorm(8)(torch.zeros(3, 8, dtype=dtype))
    assert y.dtype == dtype and torch.equal(y, torch.zeros(3, 8, dtype=dtype))


def test_float16_with_large_values_is_upcast():
    x = torch.tensor([[300.0, -256.0, 1000.0, 5.0]], dtype=torch.float16)
    expected = rms_norm_scratch(x.double(), torch.ones(4, dtype=torch.float64))
    y = RMSNorm(4)(x)
    assert y.dtype == torch.float16
    assert torch.allclose(y.double(), expected, rtol=1e-3)


def test_tiny_rms_follows_the_definition():
    x = torch.full(
        (1, 8), 1e-5, dtype=torch.float64
    )  # mean square 1e-10, far below eps
    expected = x / math.sqrt(1e-10 + 1e-6)
    assert torch.allclose(RMSNorm(8, eps=1e-6)(x).detach(), expected)


def test_float64_is_not_downcast():
    x = torch.randn(2, 8, dtype=torch.float64)
    exact = rms_norm_scratch(x, torch.ones(8, dtype=torch.float64))
    assert torch.allclose(RMSNorm(8)(x).detach(), exact, rtol=1e-14, atol=0)


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


@pytest.mark.parametrize(
    "name", [n for n in VARIANTS if n not in ("paper code", "partial")]
)
def test_variants_agree_on_the_definition_in_float64(name):
    torch.manual_seed(0)
    x = torch.randn(4, 32, dtype=torch.float64)
    weight = torch.rand(32, dtype=torch.float64) + 0.5
    # gemma's weight w means a gain of 1 + w.
    w = weight - 1 if name == "gemma" else weight
    out = VARIANTS[name](x, w).double()
    exact = rms_norm_scratch(x, weight)
    assert torch.allclose(out, exact, rtol=1e-6, atol=1e-6)
