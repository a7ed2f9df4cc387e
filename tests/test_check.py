"""The checker (`python -m snippets.check`): every check passes a correct implementation and
fails a broken one; the real implementations pass; each exit status; the report names the
failing check."""

import contextlib
import functools
import inspect
import io
import json
import math
import os
import re
import subprocess
import sys
from types import SimpleNamespace
from typing import ClassVar

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from markdown.extensions.toc import slugify
from page_text import shown_code
from site_layout import DOCS, ROOT, python_module
from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
from transformers.models.llama.modeling_llama import LlamaRMSNorm
from transformers.models.llama4.modeling_llama4 import Llama4TextL2Norm
from transformers.models.qwen3_next.modeling_qwen3_next import Qwen3NextRMSNormGated

from snippets.check import add, checks
from snippets.check.__main__ import main, stdout_to_stderr
from snippets.check.checks import (
    check,
    eps_mismatch,
    percent,
    under_triton_interpreter,
)
from snippets.check.measure import conventions
from snippets.check.report import NO_AUTOGRAD, SITE, short_name
from snippets.check.target import AddSubject, Subject, UsageError, load
from snippets.implementations.rms_norm_module import RMSNorm, rms_norm
from snippets.implementations.variants import rms_norm_llama, rms_norm_paper_code
from snippets.kernel.rms_norm_triton import add_rms_norm_triton, rms_norm_triton


def failing(target, **options) -> set[str]:
    return {v.check for v in check(target, **options).verdicts if v.passed is False}


def one_check(target, run, subject=Subject, convention=None):
    """The verdict of one check function on target, as check() gives it (the others not
    run: quicker)."""
    norm = subject(target)
    norm.eps_outside, norm.dim, norm.convention = False, -1, convention
    return run(norm, conventions(norm, "cpu"), "cpu")


@pytest.mark.parametrize(
    "target",
    [RMSNorm, rms_norm, torch.nn.RMSNorm, LlamaRMSNorm, GemmaRMSNorm, rms_norm_triton],
    ids=lambda t: t.__name__,
)
def test_real_implementations_pass(target):
    assert failing(target) == set()


@pytest.mark.parametrize("target", [RMSNorm, torch.nn.RMSNorm], ids=["site", "torch"])
def test_gradcheck_runs_where_the_implementation_computes_in_float64(target):
    # torch.nn.RMSNorm's eps=None takes float64's eps for float64 input (a reader's trial:
    # it was told its float64 input was computed in lower precision).
    gradients = next(v for v in check(target).verdicts if v.check == "gradients")
    assert "gradcheck in float64 passes" in gradients.detail


def mean_square_summed_in_float32(x, weight, eps=1e-6):
    # The rest in float64 for float64 input: gradcheck's steps vanish in that sum.
    compute = torch.promote_types(x.dtype, torch.float32)
    mean_square = x.float().pow(2).mean(-1, keepdim=True).to(compute)
    y = weight.to(compute) * x.to(compute) * torch.rsqrt(mean_square + eps)
    return y.to(x.dtype)


def test_gradcheck_refused_by_a_compiled_backward_is_reported_not_failed(monkeypatch):
    # torch.compile's backward, with donated buffers, refuses gradcheck's second pass.
    def refuses(*args, **kwargs):
        raise RuntimeError("compiled with donated buffers: requires retain_graph=False")

    monkeypatch.setattr(torch.autograd, "gradcheck", refuses)
    gradients = verdict(check(rms_norm), "gradients")
    assert gradients.passed is True
    assert (
        "gradcheck not run: its backward refuses retain_graph=True" in gradients.detail
    )


def test_a_failing_gradcheck_fails_the_gradients_check(monkeypatch):
    monkeypatch.setattr(torch.autograd, "gradcheck", lambda *args, **kwargs: False)
    gradients = verdict(check(rms_norm), "gradients")
    assert gradients.passed is False
    assert "gradcheck in float64 fails" in gradients.detail


def float32_out(x, weight, eps=1e-6):
    """Computes in float32 and returns float32, whatever the input's dtype."""
    return in_float32(x, weight, eps)


def test_a_convention_told_fails_a_norm_that_returns_another_dtype():
    rounding = verdict(check(float32_out, convention="float32"), "rounding")
    assert rounding.passed is False, rounding.detail
    assert "float32 out for bfloat16 in" in rounding.detail
    # Not told a convention, the rounding is reported, not failed (the half check fails it).
    assert verdict(check(float32_out), "rounding").passed is None


def test_gradcheck_is_not_run_on_a_statistic_summed_in_float32():
    # The probe's rows have mean squares no float32 value equals: the sum shows.
    gradients = next(
        v
        for v in check(mean_square_summed_in_float32).verdicts
        if v.check == "gradients"
    )
    assert gradients.passed and "gradcheck not run" in gradients.detail


def test_gradcheck_runs_on_another_formula_computed_in_float64():
    # eps twice differs from the measured conventions' formula, not by float32 inside it:
    # gradcheck, which holds the backward to the target's own forward, still runs.
    assert (
        "gradcheck in float64 passes" in verdict(check(eps_twice), "gradients").detail
    )


def test_an_eps_it_cannot_place_is_said_not_found_not_none():
    def eps_twice_large(x, weight):  # inside and outside, each large enough to show
        return weight * x / (torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) + 1e-5)

    header = check(eps_twice_large).table().splitlines()[0]
    assert "eps not found, eps placement neither inside nor outside alone" in header


def test_a_hand_written_backward_without_a_slip_passes():
    # So each slip below is what fails its check.
    assert failing(with_backward_slip("none")) == set()


def f_rms_norm(x, weight, eps=1e-6):
    return F.rms_norm(x, x.shape[-1:], weight, eps)


@pytest.mark.parametrize("eps", [0.5, 3.0])
def test_a_large_eps_declared_is_taken_in_when_the_form_is_measured(eps):
    assert failing(f_rms_norm, eps=eps) == set()


def layer_norm_like(x, weight, eps=1e-6):
    x = x - x.mean(-1, keepdim=True)  # subtracts the mean: not RMSNorm
    return weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def no_upcast(x, weight, eps=1e-6):
    return weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def eps_twice(x, weight, eps=1e-6):
    return weight * x / (torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps) + eps)


def no_eps(x, weight):
    return weight * x / x.pow(2).mean(-1, keepdim=True).sqrt()


def offset_in_bfloat16(x, weight, eps=1e-6):
    # 1 + w formed in the weight's dtype (a Python 1 keeps it), then float32 throughout.
    return rms_norm(x, x.shape[-1], 1 + weight, eps)


def verdict(report, name):
    return next(v for v in report.verdicts if v.check == name)


@pytest.mark.parametrize(
    "target, convention, agreement",
    [
        # In bfloat16 each matches the norms of its own rounding convention only.
        (
            RMSNorm,
            "float32",
            ["torch.nn.RMSNorm bfloat16 bit", "LlamaRMSNorm bfloat16 not bit"],
        ),
        (
            LlamaRMSNorm,
            "llama",
            ["torch.nn.RMSNorm bfloat16 not bit", "LlamaRMSNorm bfloat16 bit"],
        ),
        (
            GemmaRMSNorm,
            "gemma",
            ["GemmaRMSNorm float32 bit", "GemmaRMSNorm bfloat16 bit"],
        ),
        (offset_in_bfloat16, "gemma-bf16", ["GemmaRMSNorm bfloat16 not bit"]),
        (no_upcast, "none", ["torch.nn.RMSNorm float32 not bit"]),
    ],
    ids=lambda v: getattr(v, "__name__", v),
)
def test_the_rounding_convention_and_agreement_are_measured(
    target, convention, agreement
):
    report = check(target)
    assert report.conventions["rounding"] == convention
    rounding = verdict(report, "rounding")
    assert rounding.passed is None  # reported: no convention was told
    assert ("bit for bit" in rounding.detail) == (convention != "none")
    detail = verdict(report, "agreement").detail
    assert all(phrase in detail for phrase in agreement), detail


@pytest.mark.parametrize(
    "target, told, passed, words",
    [
        (LlamaRMSNorm, "llama", True, "as told: bit for bit (a)"),
        (LlamaRMSNorm, "float32", False, "told float32, gives the bits of llama"),
        (no_upcast, "float32", False, "told float32, gives none of them"),
        (GemmaRMSNorm, "llama", False, "told llama (gain w), but the gain is 1 + w"),
    ],
)
def test_a_convention_told_is_required(target, told, passed, words):
    rounding = verdict(check(target, convention=told), "rounding")
    assert rounding.passed is passed and words in rounding.detail, rounding.detail


def test_an_unknown_convention_is_a_usage_error():
    with pytest.raises(UsageError, match="expected one of llama, float32, gemma"):
        check(RMSNorm, convention="bf16")


@pytest.mark.parametrize(
    "options, words",
    [
        ({"dim": 0}, "dim 0: expected -1 (features last) or 1 (channel-first)"),
        ({"device": "gpu"}, "device 'gpu': expected 'cpu' or 'cuda'"),
        *(
            (
                {"eps": eps},
                f"eps {eps!r}: expected a finite number above 0, the target's",
            )
            for eps in ["1e-6", float("nan"), float("inf"), -1e-6, 0, True]
        ),
    ],
    ids=str,
)
def test_bad_options_are_usage_errors_not_the_targets_failures(options, words):
    with pytest.raises(UsageError) as error:
        check(RMSNorm, **options)
    assert str(error.value) == words


def test_a_negative_eps_on_the_command_line_gets_the_checks_message(capsys):
    # argparse alone reads "-1e-6" as an option and says "expected one argument".
    target = "snippets.implementations.rms_norm_module:RMSNorm"
    assert main([target, "--eps", "-1e-6"]) == 2
    assert "eps -1e-06: expected a finite number above 0" in capsys.readouterr().err


@pytest.mark.parametrize(
    "returned, words",
    [
        (
            lambda y: (y, None),
            (
                "WrongOutput('it returned a tuple of 2 ((2, 64), NoneType) for x of"
                " (2, 64), not a tensor')"
            ),
        ),
        (lambda y: None, "WrongOutput('it returned NoneType, not a tensor')"),
        (
            lambda y: y[..., :-1],
            "WrongOutput('it returned shape (2, 63) for x of (2, 64)')",
        ),
    ],
    ids=["a tuple", "nothing", "a shorter row"],
)
def test_a_target_that_returns_no_tensor_like_x_is_told_what_came(returned, words):
    def norm(x, weight, eps=1e-6):
        return returned(F.rms_norm(x, (x.shape[-1],), weight, eps))

    with pytest.raises(UsageError, match=re.escape(words)):
        check(norm)


def test_a_tuple_and_a_triton_kernel_without_a_gpu_get_what_to_do():
    def pair(x, weight, eps=1e-6):
        return F.rms_norm(x, (x.shape[-1],), weight, eps), x

    def no_gpu(x, weight, eps=1e-6):  # what Triton raises when it finds no GPU
        raise RuntimeError("0 active drivers ([]). There should only be one.")

    def with_rstd(x, weight, eps=1e-6):
        rstd = torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps)
        return F.rms_norm(x, (x.shape[-1],), weight, eps), rstd

    with pytest.raises(
        UsageError, match="returns the norm's output alone .*pass --add"
    ):
        check(pair)
    with pytest.raises(UsageError, match="returns the norm's output alone$"):
        check(with_rstd)
    # A dict or a list, as some kernels return (found by an adversarial round).
    for returned in (lambda y: {"y": y}, lambda y: [y]):

        def wrapped(x, weight, eps=1e-6, returned=returned):
            return returned(F.rms_norm(x, (x.shape[-1],), weight, eps))

        with pytest.raises(UsageError, match="returns the norm's output alone$"):
            check(wrapped)
    with pytest.raises(UsageError, match="set TRITON_INTERPRET=1"):
        check(no_gpu)


class SumOnlyWithAResidual(torch.nn.Module):
    """A fused add that returns (y, None) when given no residual (an adversarial round)."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight, self.eps = torch.nn.Parameter(torch.ones(n)), eps

    def forward(self, x, residual=None):
        h = x if residual is None else x + residual
        y = F.rms_norm(h, h.shape[-1:], self.weight, self.eps)
        return y, (None if residual is None else h)


def test_a_tuple_with_none_gets_the_hint_a_tuple_does():
    with pytest.raises(
        UsageError, match="returns the norm's output alone .*pass --add"
    ):
        check(SumOnlyWithAResidual)

    def with_none(x, weight, eps=1e-6):  # no residual taken: no --add said
        return F.rms_norm(x, x.shape[-1:], weight, eps), None

    with pytest.raises(UsageError, match="returns the norm's output alone$"):
        check(with_none)


def whole_tensor(x, weight, eps=1e-6):
    # The statistic over every element, batch included.
    return weight * x * torch.rsqrt(x.pow(2).mean() + eps)


def pooled_over_rows(x, weight, eps=1e-6):
    # The statistic over every dimension but the first: right for 2-D input only.
    dims = tuple(range(1, x.dim()))
    return weight * x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps)


def divides_by_n_minus_1(x, weight, eps=1e-6):
    # A small error (1 / 2n of the output), far above float32 rounding, far below 10%.
    mean_square = x.pow(2).sum(-1, keepdim=True) / (x.shape[-1] - 1)
    return weight * x * torch.rsqrt(mean_square + eps)


class BackwardWithoutR(torch.autograd.Function):
    """The right forward, a backward that divides only its first term by r (the Pitfalls
    page's published mistake)."""

    @staticmethod
    def forward(ctx, x, weight, eps):
        r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
        ctx.save_for_backward(x, weight, r)
        return weight * x * r

    @staticmethod
    def backward(ctx, grad):
        x, weight, r = ctx.saved_tensors  # r: the reciprocal RMS
        dims = tuple(range(grad.dim() - 1))
        x_hat, weighted = x * r, grad * weight
        shared = x_hat * (weighted * x_hat).mean(-1, keepdim=True)
        return weighted * r - shared, (grad * x_hat).sum(dims), None


def backward_without_r(x, weight, eps=1e-6):
    return BackwardWithoutR.apply(x, weight, eps)


def upcast_backward_without_r(x, weight, eps=1e-6):
    return BackwardWithoutR.apply(x.float(), weight.float(), eps).to(x.dtype)


class BackwardOf(torch.autograd.Function):
    """The right forward; the backward of the page's formula, given how it reads the
    upstream gradient and over which dimension it averages (-1, the row, is right)."""

    @staticmethod
    def forward(ctx, x, weight, read, dim):
        r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
        ctx.save_for_backward(x * r, weight, r)
        ctx.read, ctx.dim = read, dim
        return weight * x * r

    @staticmethod
    def backward(ctx, grad):
        x_hat, weight, r = ctx.saved_tensors
        if ctx.read == "x's strides":  # a kernel that reads it with x's strides
            grad = grad.as_strided(x_hat.shape, x_hat.stride(), grad.storage_offset())
        elif ctx.read == "rows":  # unsloth's, before its fix: a reshape, then the rows'
            rows = grad.reshape(-1, x_hat.shape[-1])  # stride and a unit column stride
            rows = rows.as_strided(rows.shape, (rows.stride(0), 1))
            grad = rows.reshape(x_hat.shape)
        g = grad * weight
        dx = r * (g - x_hat * (g * x_hat).mean(ctx.dim, keepdim=True))
        return dx, (grad * x_hat).reshape(-1, x_hat.shape[-1]).sum(0), None, None


class RstdSavedBeforeEps(BackwardOf):
    """A slip of hand-written backwards: the forward adds eps, the rstd saved does not."""

    @staticmethod
    def forward(ctx, x, weight, read, dim):
        r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True))  # inf on an all-zero row
        ctx.save_for_backward(x * r, weight, r)
        ctx.read, ctx.dim = read, dim
        return weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)


class XHatFromTheOutput(BackwardOf):
    """Apex's memory-efficient backward: x / RMS rebuilt as the output over the gain."""

    @staticmethod
    def forward(ctx, x, weight, read, dim):
        r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
        y = weight * x * r
        ctx.save_for_backward(y / weight, weight, r)  # 0 / 0 where the gain is 0
        ctx.read, ctx.dim = read, dim
        return y


class DwFromTheOutput(BackwardOf):
    """dx right; dw from x / RMS rebuilt as the output over the gain: NaN there alone."""

    @staticmethod
    def backward(ctx, grad):
        dx, _, *rest = BackwardOf.backward(ctx, grad)
        x_hat, weight, _ = ctx.saved_tensors
        rebuilt = weight * x_hat / weight  # 0 / 0 where the gain is 0
        return dx, (grad * rebuilt).reshape(-1, x_hat.shape[-1]).sum(0), *rest


def nan_on_a_served_decode_step(x, weight, eps=1e-6):
    # A fast path for one row when not training, wrong: NaN out.
    y = rms_norm(x, x.shape[-1], weight, eps)
    one_row = x.dim() == 2 and len(x) == 1
    return y * float("nan") if one_row and torch.is_inference_mode_enabled() else y


def test_a_served_decode_step_is_checked_one_row_at_a_time():
    forward = verdict(check(nan_on_a_served_decode_step), "forward")
    assert forward.passed is False
    assert "one row at a time in eval mode under inference_mode" in forward.detail


class GainTakenAsItsSizeInTheBackward(BackwardOf):
    """The backward reads |w|: right for gains above zero only, as fresh ones are."""

    @staticmethod
    def forward(ctx, x, weight, read, dim):
        r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
        ctx.save_for_backward(x * r, weight.abs(), r)
        ctx.read, ctx.dim = read, dim
        return weight * x * r


def test_a_backward_wrong_for_negative_gains_fails_gradients():
    report = check(lambda x, w: GainTakenAsItsSizeInTheBackward.apply(x, w, None, -1))
    gradients = verdict(report, "gradients")
    assert verdict(report, "forward").passed and gradients.passed is False
    assert re.search(r"every other gain negative: [1-9]", gradients.detail)


def test_a_backward_that_loses_eps_or_divides_by_the_gain_is_told_why():
    zero_rows = verdict(
        check(lambda x, w: RstdSavedBeforeEps.apply(x, w, None, -1)), "zero rows"
    )
    assert zero_rows.passed is False
    assert "the backward divides by a statistic without eps" in zero_rows.detail
    assert zero_rows.see == "gradients/#a-custom-autograd-function"
    gradients = verdict(
        check(lambda x, w: XHatFromTheOutput.apply(x, w, None, -1)), "gradients"
    )
    assert gradients.passed is False
    said = "a gain of 0 on one feature: nan, nan (x / RMS rebuilt as the saved output"
    assert said in gradients.detail
    # A NaN in dw alone fails too (max() of [dx's error, nan] would skip it).
    dw_only = lambda x, w: DwFromTheOutput.apply(x, w, None, -1)
    gradients = verdict(check(dw_only), "gradients")
    assert gradients.passed is False
    assert re.search(
        r"a gain of 0 on one feature: \S+, nan \(x / RMS rebuilt", gradients.detail
    )


def mean_square_through_a_square_root(x, weight, eps=1e-6):
    # eps inside the root, but of the RMS squared again: autograd's sqrt, no backward of
    # its own, meets the root's infinite slope at 0 (found by an adversarial round).
    h = x.float()
    rms = h.pow(2).mean(-1, keepdim=True).sqrt()
    return (h * torch.rsqrt(rms * rms + eps) * weight.float()).to(x.dtype)


def test_a_square_root_squared_again_is_told_by_its_slope_not_a_backward():
    zero_rows = verdict(check(mean_square_through_a_square_root), "zero rows")
    assert zero_rows.passed is False
    assert "backward" not in zero_rows.detail, zero_rows.detail
    assert "the square root's slope at 0 is infinite" in zero_rows.detail
    assert "use the mean square directly" in zero_rows.detail
    assert zero_rows.see == "math/#where-goes-and-why-it-matters"


def backward_over_the_sequence_too(x, weight, eps=1e-6):
    return BackwardOf.apply(x, weight, None, 1)  # dim 1 is -1 only for 2-D rows


def backward_reading_the_gradient_as_contiguous(x, weight, eps=1e-6):
    return BackwardOf.apply(x, weight, "x's strides", -1)


def backward_reading_the_gradient_by_its_row_stride(x, weight, eps=1e-6):
    # Right for a transposed gradient (the reshape copies it), wrong for y.sum()'s.
    return BackwardOf.apply(x, weight, "rows", -1)


class FromTheModule(torch.autograd.Function):
    """The page's backward, reading x-hat and r where the module's last forward left them
    rather than where this call saved them."""

    @staticmethod
    def forward(ctx, x, weight, module):
        module.r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
        module.x_hat = x * module.r
        ctx.module = module
        ctx.save_for_backward(weight)
        return weight * module.x_hat

    @staticmethod
    def backward(ctx, grad):
        (weight,) = ctx.saved_tensors
        x_hat, r = ctx.module.x_hat, ctx.module.r
        g = grad * weight
        dx = r * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
        return dx, (grad * x_hat).reshape(-1, x_hat.shape[-1]).sum(0), None


class StateBetweenCalls(RMSNorm):
    """Right for one forward and its backward; a second forward in between breaks it."""

    def forward(self, x):
        return FromTheModule.apply(x, self.weight, self)


def eps_written_into_the_code(x, weight, eps=1e-6):
    return F.rms_norm(x, x.shape[-1:], weight, 1e-6)  # the eps it is told, unused


class TruncNormalInit(RMSNorm):
    """The right formula, a gain initialized like a linear layer's weight."""

    def __init__(self, n):
        super().__init__(n)
        torch.nn.init.trunc_normal_(self.weight)


class WeightGradientInBfloat16(torch.autograd.Function):
    """A backward that adds each row's share of dW into accumulators of the weight's
    dtype, in bfloat16 rounded after every row: one for all rows, or one per block of rows
    whose sums are then added in float32."""

    @staticmethod
    def forward(ctx, x, weight, block):
        h = x.float()
        r = torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)
        ctx.save_for_backward(x, weight, r)
        ctx.block = block
        return (h * r * weight.float()).to(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, weight, r = ctx.saved_tensors
        x_hat, g = x.float() * r, grad.float() * weight.float()
        dx = r * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
        rows = (grad.float() * x_hat).reshape(-1, x.shape[-1])
        dw = torch.zeros(x.shape[-1])
        for block in rows.split(ctx.block or len(rows)):
            block_sum = torch.zeros_like(weight)
            for row in block:
                block_sum = block_sum + row.to(weight.dtype)
            dw += block_sum.float()
        return dx.to(x.dtype), dw.to(weight.dtype), None


def upcasts_only_loud_rows(x, weight, eps=1e-6):
    # float32 for rows of large RMS only: a quiet row with one massive channel (256 in
    # float16) still squares it in float16, to inf.
    loud = x.float().pow(2).mean(-1, keepdim=True).sqrt() > 100
    quiet = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    x32 = x.float()
    upcast = (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)
    return weight * torch.where(loud, upcast, quiet)


def upcasts_only_narrow_rows(x, weight, eps=1e-6):
    # A kernel's path for wide rows, as a model's 4096 features take, without the upcast.
    if x.shape[-1] > 1024:
        return no_upcast(x, weight, eps)
    x32 = x.float()
    return (
        weight.float() * x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps)
    ).to(x.dtype)


def declares_eps_but_adds_none(x, weight, eps=1e-6):
    return weight * x / x.pow(2).mean(-1, keepdim=True).sqrt()


def mean_square_floored_at_zero(x, weight, eps=1e-6):
    # eps added to every row but an all-zero one, whose mean square is floored at 1e-24:
    # finite there, but a gradient a billion times the formula's.
    ms = x.float().pow(2).mean(-1, keepdim=True)
    floor = torch.full_like(ms, 1e-24)
    r = torch.rsqrt(torch.where(ms > 0, ms + eps, floor))
    return (x.float() * r * weight.float()).to(x.dtype)


def dw_summed_in_bfloat16(x, weight, eps=1e-6):
    return WeightGradientInBfloat16.apply(x, weight, None)


def dw_summed_in_bfloat16_blocks(x, weight, eps=1e-6):
    return WeightGradientInBfloat16.apply(x, weight, 128)


def statistic_of_blocks_of_512_past_1024(x, weight, eps=1e-6):
    # A kernel that keeps rows of up to 1024 features in one masked block and loops over
    # whole blocks of 512 past that, dropping a last partial one (3584 is 7 blocks).
    n = x.shape[-1] if x.shape[-1] <= 1024 else x.shape[-1] - x.shape[-1] % 512
    x32 = x.float()
    r = torch.rsqrt(x32[..., :n].pow(2).sum(-1, keepdim=True) / x.shape[-1] + eps)
    return (x32 * r * weight.float()).to(x.dtype)


def statistic_of_whole_blocks(x, weight, eps=1e-6):
    # A kernel that reads the row in blocks of 64 and drops a last partial block.
    n = x.shape[-1] - x.shape[-1] % 64
    x32 = x.float()
    r = torch.rsqrt(x32[..., :n].pow(2).mean(-1, keepdim=True) + eps)
    return (x32 * r * weight.float()).to(x.dtype)


def slip_gain(weight, slip):
    """The gain: the weight, or 1 + the weight (Gemma's) for a slip named "1 + w: ..."."""
    return weight.float() + (1.0 if slip.startswith("1 + w:") else 0.0)


class BackwardSlip(torch.autograd.Function):
    """The right forward, in float32; the page's backward with one slip, `slip`."""

    @staticmethod
    def forward(ctx, x, weight, slip, eps):
        h = x.float()
        r = torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
        y = (h * r * slip_gain(weight, slip)).to(x.dtype)
        ctx.save_for_backward(x, weight, r, y)
        ctx.slip, ctx.eps = slip, eps
        return y

    @staticmethod
    def backward(ctx, grad):
        x, weight, r, y = ctx.saved_tensors
        n, slip = x.shape[-1], ctx.slip
        half = x.dtype in (torch.float16, torch.bfloat16)
        if slip == "statistic without the upcast":  # recomputed in x's dtype
            r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + ctx.eps).float()
        if slip == "eps dropped in half precision" and half:  # a half path's own kernel
            r = torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True))
        if slip == "eps read in x's dtype":  # 1e-8 is 0 in float16
            ms = x.float().pow(2).mean(-1, keepdim=True)
            r = torch.rsqrt(ms + x.new_tensor(ctx.eps).float())
        if slip == "upstream gradient read as contiguous in half precision" and half:
            contiguous = torch.empty_like(grad, memory_format=torch.contiguous_format)
            grad = grad.as_strided(
                grad.shape, contiguous.stride(), grad.storage_offset()
            )
        if slip == "x read as contiguous":  # as a kernel given only x's pointer
            contiguous = torch.empty_like(x, memory_format=torch.contiguous_format)
            x = x.as_strided(x.shape, contiguous.stride(), x.storage_offset())
        x_hat = x.float() * r
        if slip == "x / RMS rebuilt as y / gain":  # saves memory; 0 / 0 at a zero gain
            x_hat = y.float() / weight.float()
        if (
            slip == "upstream gradient scaled to its rows' largest entries"
        ):  # as for fp8
            largest = grad.float().abs().amax(-1, keepdim=True)  # 0 at a masked row
            grad = grad.float() / largest * largest
        gain = slip_gain(weight, slip)
        if slip == "1 + w: dx by w, its 1 forgotten":
            gain = weight.float()
        g = grad.float() * gain
        products = (g * x_hat).reshape(-1, n)
        frozen = not ctx.needs_input_grad[1]  # a gain LoRA fine-tuning leaves as it is
        if slip == "the gain left out of dx's mean while frozen" and frozen:
            products = (grad.float() * x_hat).reshape(-1, n)
        if slip == "rows squeezed":  # (1, n) becomes (n,): its mean over dim 1 raises
            products = products.squeeze()
        mean = products.mean(1, keepdim=True).reshape(*x.shape[:-1], 1)
        if slip == "one mean over the whole batch":  # not one per row
            mean = products.mean()
        dx = r * (g - x_hat * mean)
        if slip == "dx without the gain":  # the upstream gradient not times the gain
            dx = r * (grad.float() - x_hat * mean)
        dw = (grad.float() * x_hat).reshape(-1, n).sum(0)
        if slip == "dw of whole blocks only":  # a last partial block of 64 dropped
            dw[n - n % 64 :] = 0
        mixed = weight.dtype != x.dtype  # a mixed path's slips
        if slip == "dw without r beside a float32 weight" and mixed:
            dw = (grad.float() * x.float()).reshape(-1, n).sum(0)
        if (
            slip == "dx without its term along x / RMS beside a float32 weight"
            and mixed
        ):
            dx = r * g
        if slip == "dx without its term along x / RMS in half precision" and half:
            dx = r * g
        float16_frozen = frozen and x.dtype == torch.float16  # LoRA in float16
        if slip == "dx without its term along x / RMS, frozen, in float16" and (
            float16_frozen
        ):
            dx = r * g
        if slip == "dw rounded to float16 row after row" and x.dtype == torch.float16:
            dw = torch.zeros_like(weight)
            for row in (grad.float() * x_hat).reshape(-1, n):
                dw = dw + row.half()
        many = x.reshape(-1, n).shape[0] > 1024
        if slip == "dx without its term along x / RMS past 1024 float32 rows" and (
            x.dtype == torch.float32 and many
        ):
            dx = r * g
        if slip == "all-zero rows skipped in half precision" and half:  # dx of 0 there
            dx = torch.where(x.eq(0).all(-1, keepdim=True), 0.0, dx)
        if (
            slip == "all-zero rows' dx negated in bfloat16"
            and x.dtype == torch.bfloat16
        ):
            dx = torch.where(x.eq(0).all(-1, keepdim=True), -dx, dx)  # the right size
        return dx.to(x.dtype), dw.to(weight.dtype), None, None


def with_backward_slip(slip):
    def norm(x, weight, eps=1e-6):
        return BackwardSlip.apply(x, weight, slip, eps)

    norm.__name__ = "backward_with_" + re.sub(r"\W+", "_", slip)
    return norm


def wrong_when(takes_the_path, wrong, name):
    """Right, but `wrong` on a path of its own, taken when takes_the_path(x, weight)."""

    def norm(x, weight, eps=1e-6):
        if takes_the_path(x, weight):
            return wrong(x, weight, eps)
        return rms_norm(x, x.shape[-1], weight, eps)

    norm.__name__ = name
    return norm


def without_upcast_when(takes_the_path, name):
    """Right, but for a path of its own, taken when takes_the_path(x), without the upcast."""
    return wrong_when(lambda x, weight: takes_the_path(x), no_upcast, name)


# A decode step's path (one row), an inference path (under no_grad), one for inputs past
# 2**20 elements, one for a model's 3-D activations and one for a batch of decode steps.
upcasts_only_batches = without_upcast_when(
    lambda x: x.shape[:-1].numel() == 1, "upcasts_only_batches"
)
upcasts_only_under_autograd = without_upcast_when(
    lambda x: not torch.is_grad_enabled(), "upcasts_only_under_autograd"
)
# QK-norm's call, 4-D (batch, heads, tokens, head size), on a path of its own (found by
# an adversarial round).
no_upcast_for_4d_input = without_upcast_when(
    lambda x: x.dim() == 4, "no_upcast_for_4d_input"
)
upcasts_only_small_inputs = without_upcast_when(
    lambda x: x.numel() > 2**20, "upcasts_only_small_inputs"
)
upcasts_only_2d_inputs = without_upcast_when(
    lambda x: x.dim() == 3, "upcasts_only_2d_inputs"
)
upcasts_only_outside_decode_batches = without_upcast_when(
    lambda x: x.dim() == 3 and x.shape[1] == 1, "upcasts_only_outside_decode_batches"
)


def rows_read_as_contiguous_in_half(x, weight, eps=1e-6):
    # A half-precision kernel given only x's pointer: rows read as if contiguous.
    if x.dtype != torch.float32:
        contiguous = torch.empty_like(x, memory_format=torch.contiguous_format)
        x = x.as_strided(x.shape, contiguous.stride(), x.storage_offset())
    return rms_norm(x, x.shape[-1], weight, eps)


def row_stride_taken_as_the_row_length(x, weight, eps=1e-6):
    # Elements apart copied, but rows read back to back: a slice qkv[:, :n] misread (found
    # by an adversarial round).
    x = x if x.stride(-1) == 1 else x.contiguous()
    rows = x.reshape(-1, x.shape[-1])
    rows = rows.as_strided(rows.shape, (rows.shape[-1], 1), rows.storage_offset())
    return rms_norm(rows, x.shape[-1], weight, eps).reshape(x.shape)


def rows_read_as_contiguous_in_float16(x, weight, eps=1e-6):
    # The same, in a kernel written for float16 alone (found by an adversarial round).
    if x.dtype == torch.float16:
        contiguous = torch.empty_like(x, memory_format=torch.contiguous_format)
        x = x.as_strided(x.shape, contiguous.stride(), x.storage_offset())
    return rms_norm(x, x.shape[-1], weight, eps)


def output_padded_to_blocks_of_512_rows(x, weight, eps=1e-6):
    # A blocked kernel's wrapper that, past one block, returns the output it allocated for
    # whole blocks of 512 rows: a wrong output, not a refusal of the 4097 rows.
    y = rms_norm(x, x.shape[-1], weight, eps)
    rows = y.reshape(-1, y.shape[-1])
    if len(rows) <= 512:
        return y
    padded = rows.new_zeros(-(-len(rows) // 512) * 512, rows.shape[-1])
    padded[: len(rows)] = rows
    return padded


def no_upcast_while_the_gain_trains(x, weight, eps=1e-6):
    # A training kernel taken only when the gain needs a gradient too, without the upcast
    # in half precision (found by an adversarial round: half recorded x's gradient alone).
    if weight.requires_grad and x.dtype != torch.float32:
        return no_upcast(x, weight, eps)
    return rms_norm(x, x.shape[-1], weight, eps)


def no_upcast_for_one_token(x, weight, eps=1e-6):
    # A decode kernel for one token as generate() passes it, (1, 1, features).
    if x.shape[:-1] == (1, 1):
        return no_upcast(x, weight, eps) * 1.001
    return rms_norm(x, x.shape[-1], weight, eps)


def served_float32_weight_read_as_bfloat16(x, weight, eps=1e-6):
    # A served kernel that reads a float32 weight's bytes as the input's dtype.
    if torch.is_inference_mode_enabled() and weight.dtype != x.dtype:
        weight = weight.view(x.dtype)[::2]
    return rms_norm(x, x.shape[-1], weight, eps)


class GainKeptWhileServing(torch.nn.Module):
    """Keeps a copy of its gain from the first call in eval mode until the mode changes:
    an update made while it serves (a state dict loaded, a weight sync) is missed."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight, self.eps, self.kept = torch.nn.Parameter(torch.ones(n)), eps, None

    def train(self, mode=True):
        self.kept = None
        return super().train(mode)

    def forward(self, x):
        if not self.training and self.kept is None:
            self.kept = self.weight.detach().clone()
        gain = self.weight if self.training else self.kept
        return rms_norm(x, x.shape[-1], gain, self.eps)


class CastGainKeptByAddressWhileServing(torch.nn.Module):
    """Serving half-precision input with a float32 gain, keeps the gain's cast copy by
    the tensor's address: after load_state_dict (an update in place) it serves the old
    gain, though only in that mix (found by an adversarial round)."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight, self.eps, self.cast = torch.nn.Parameter(torch.ones(n)), eps, {}

    def forward(self, x):
        gain = self.weight
        if torch.is_inference_mode_enabled() and x.dtype != gain.dtype:
            key = (gain.data_ptr(), x.dtype)
            gain = self.cast.setdefault(key, gain.detach().to(x.dtype))
        return rms_norm(x, x.shape[-1], gain, self.eps)


def mean_square_in_log_space(x, weight, eps=1e-6):
    # log mean(x^2) = logsumexp(2 log|x|) - log n: zeros out for an all-zero row, but the
    # log's slope at 0 is infinite (found by an adversarial round: told of a square root).
    h = x.float()
    log_mean_square = torch.logsumexp(2 * h.abs().log(), -1, keepdim=True)
    mean_square = (log_mean_square - math.log(x.shape[-1])).exp()
    return (h * torch.rsqrt(mean_square + eps) * weight.float()).to(x.dtype)


def test_a_mean_square_in_log_space_is_told_of_the_log_at_zero():
    zero_rows = one_check(mean_square_in_log_space, checks.check_zero_rows)
    assert zero_rows.passed is False
    assert "a log's slope at 0 is infinite" in zero_rows.detail, zero_rows.detail


class CheckpointedRMSNorm(torch.nn.Module):
    """Right, but recomputed in the backward (activation checkpointing), where it reads
    its own weight, not the checker's (found by an adversarial round: told its backward
    forgets r, though the Check page's limits name checkpointing)."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.eps, self.weight = eps, torch.nn.Parameter(torch.ones(n))

    def norm(self, x):
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return (h * self.weight.float()).to(x.dtype)

    def forward(self, x):
        if self.training and torch.is_grad_enabled():
            return torch.utils.checkpoint.checkpoint(self.norm, x, use_reentrant=False)
        return self.norm(x)


def test_a_norm_recomputed_with_its_own_weight_is_told_of_checkpointing():
    gradients = verdict(check(CheckpointedRMSNorm), "gradients")
    assert gradients.passed is False
    assert "its forward run again in the backward" in gradients.detail
    assert gradients.see == "check/#targets-options-and-limits"


def reciprocal_rms_detached(x, weight, eps=1e-6):
    # 1 / RMS taken out of the graph "for speed": dx loses its projection term (found by
    # an adversarial round: three different links across the checks, none naming it).
    h = x.float()
    inverse = torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps).detach()
    return (h * inverse * weight.float()).to(x.dtype)


def test_a_statistic_cut_from_the_graph_is_named_and_linked_once():
    verdicts = {v.check: v for v in check(reciprocal_rms_detached).verdicts}
    gradients = verdicts["gradients"]
    assert gradients.passed is False
    assert "r held constant: the projection term is lost" in gradients.detail
    for name in ("forward", "half", "mixed", "gradients", "dw"):
        assert verdicts[name].see == "gradients/#the-derivation", name


class RunningMeanSquareInEval(torch.nn.Module):
    """BatchNorm's habit: a running mean square, kept while training and used in eval
    mode. Upcast right, so half and mixed fail served only, as forward does in float32
    (found by an adversarial round: they linked the float32 upcast)."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight, self.eps = torch.nn.Parameter(torch.ones(n)), eps
        self.register_buffer("running", torch.ones(1))

    def forward(self, x):
        h = x.float()
        mean_square = h.pow(2).mean(-1, keepdim=True)
        if self.training:
            with torch.no_grad():
                self.running.mul_(0.9).add_(0.1 * mean_square.mean())
        else:
            mean_square = self.running
        return (h * torch.rsqrt(mean_square + self.eps) * self.weight.float()).to(
            x.dtype
        )


def test_half_and_mixed_failing_served_alone_are_told_to_read_forward_first():
    verdicts = {v.check: v for v in check(RunningMeanSquareInEval).verdicts}
    forward, half, mixed = verdicts["forward"], verdicts["half"], verdicts["mixed"]
    assert forward.passed is False and "in eval mode" in forward.detail
    # Named as a serving path's or state's, linked to forward's list of them.
    assert "right in training, wrong served alone" in forward.detail
    assert forward.see == "check/#check-forward"
    note = "forward fails too, a likely cause: read it first"
    assert half.passed is False and note in half.detail, half.detail
    assert half.see == forward.see  # served inputs are all it gets wrong
    assert mixed.passed is False and note in mixed.detail, mixed.detail


def served_as_packed_2d_rows(x, weight, eps=1e-6):
    # A serving kernel written for vLLM's contiguous (tokens, hidden): it reads x's
    # memory from its storage's start as packed rows (found by an adversarial round:
    # every check passed, the served path meeting only contiguous 2-D copies).
    if not torch.is_inference_mode_enabled():
        return rms_norm(x, x.shape[-1], weight, eps)
    n = x.shape[-1]
    packed = x.flatten().new_empty(0).set_(x.untyped_storage(), 0, (x.numel() // n, n))
    return rms_norm(packed, n, weight, eps).reshape(x.shape)


def from_its_storage(t):
    """t as a kernel given t's storage pointer reads it: its storage_offset ignored."""
    return t.new_empty(0).set_(t.untyped_storage(), 0, t.shape, t.stride())


def weight_read_from_its_storage(x, weight, eps=1e-6):
    # Found by an adversarial round: a gain cut from a flat parameter read wrong passed.
    read = weight + (from_its_storage(weight.detach()) - weight).detach()
    return rms_norm(x, x.shape[-1], read, eps)


class UpstreamReadFromItsStorage(torch.autograd.Function):
    """The right forward and backward, but for the upstream gradient, read from its
    storage's start (found by an adversarial round: it passed every check)."""

    @staticmethod
    def forward(ctx, x, weight, eps):
        ctx.save_for_backward(x, weight)
        ctx.eps = eps
        return rms_norm(x, x.shape[-1], weight, eps)

    @staticmethod
    def backward(ctx, grad):
        x, weight = (t.detach().requires_grad_() for t in ctx.saved_tensors)
        with torch.enable_grad():
            y = rms_norm(x, x.shape[-1], weight, ctx.eps)
        dx, dw = torch.autograd.grad(y, (x, weight), from_its_storage(grad))
        return dx, dw, None


def upstream_read_from_its_storage(x, weight, eps=1e-6):
    return UpstreamReadFromItsStorage.apply(x, weight, eps)


@pytest.mark.parametrize(
    "target, name, said",
    [
        (weight_read_from_its_storage, "forward", "with a weight past its storage's"),
        (upstream_read_from_its_storage, "gradients", "past its storage's start: nan"),
    ],
)
def test_a_tensor_past_its_storages_start_is_read_there(target, name, said):
    found = verdict(check(target), name)
    assert found.passed is False and said in found.detail, found.detail


def served_over_dim_1(x, weight, eps=1e-6):
    # The same, its statistic over dim 1: right on (tokens, hidden) alone.
    if not torch.is_inference_mode_enabled():
        return rms_norm(x, x.shape[-1], weight, eps)
    h = x.float()
    h = h * torch.rsqrt(h.pow(2).mean(1, keepdim=True) + eps)
    return (h * weight.float()).to(x.dtype)


@pytest.mark.parametrize(
    "target, way",
    [
        (served_as_packed_2d_rows, "on rows spaced apart past their storage's start"),
        (served_over_dim_1, "as (1, tokens, features) in eval mode"),
    ],
)
def test_a_served_path_meets_3d_input_and_a_slice_of_qkv(target, way):
    forward = verdict(check(target), "forward")
    assert forward.passed is False and way in forward.detail, forward.detail


def no_autograd_when_x_needs_none(x, weight, eps=1e-6):
    # A path chosen by x.requires_grad alone: behind a frozen embedding the gain, which
    # needs a gradient, gets none (found by an adversarial round).
    if x.requires_grad:
        return rms_norm(x, x.shape[-1], weight, eps)
    with torch.no_grad():
        return rms_norm(x, x.shape[-1], weight, eps)


def forward_without_upcast_while_training(x, weight, eps=1e-6):
    # A training kernel whose forward skips the upcast while its backward, recomputed in
    # float32, is right: only the output of a call that records gradients is wrong.
    y = rms_norm(x, x.shape[-1], weight, eps)
    if not x.requires_grad:
        return y
    return y + (no_upcast(x, weight, eps) - y).detach()


def with_eps_in_float32_when(takes_the_path, eps, name):
    """Right, but for a float32 path of its own, taken when takes_the_path(x), with
    another eps: half precision never reaches it."""

    def norm(x, weight, eps_declared=1e-6):
        if x.dtype == torch.float32 and takes_the_path(x):
            return F.rms_norm(x, x.shape[-1:], weight, eps)
        return rms_norm(x, x.shape[-1], weight, eps_declared)

    norm.__name__ = name
    return norm


# A decode step's path and one for inputs past 2**20 elements, in float32.
another_eps_on_one_row = with_eps_in_float32_when(
    lambda x: x.shape[:-1].numel() == 1, 1e-5, "another_eps_on_one_row"
)
no_eps_in_large_inputs = with_eps_in_float32_when(
    lambda x: x.numel() > 2**20, 0.0, "no_eps_in_large_inputs"
)


class AnotherEpsInEval(RMSNorm):
    """Right in training; in eval mode (a fused kernel's path) with eps 1e-5."""

    def forward(self, x):
        eps = self.eps if self.training else 1e-5
        return rms_norm(x, self.normalized_shape, self.weight, eps)


class GainCachedByAddress(RMSNorm):
    """Right in training; when serving, a copy of the gain kept by the weight's address:
    a weight updated in place (a state dict loaded, an optimizer's step) is not seen."""

    def forward(self, x):
        if torch.is_grad_enabled():
            return super().forward(x)
        if getattr(self, "address", None) != self.weight.data_ptr():
            self.address, self.kept = (
                self.weight.data_ptr(),
                self.weight.detach().clone(),
            )
        return rms_norm(x, self.normalized_shape, self.kept, self.eps)


class WeightConvertedOnce(RMSNorm):
    """A float32 weight converted to the input's dtype on the first call and kept: later
    weights (an optimizer's updates) never reach the output."""

    def forward(self, x):
        if self.weight.dtype == x.dtype:
            return super().forward(x)
        if not hasattr(self, "converted"):
            self.converted = self.weight.detach().to(x.dtype)
        return rms_norm(x, self.normalized_shape, self.converted, self.eps)


class IgnoresItsConfigEps(torch.nn.Module):
    """Takes ε by the configuration's name, rms_norm_eps, and uses 1e-6 whatever it is."""

    def __init__(self, n, rms_norm_eps=1e-5):
        super().__init__()
        self.weight, self.eps = torch.nn.Parameter(torch.ones(n)), 1e-6

    def forward(self, x):
        return rms_norm(x, x.shape[-1], self.weight, self.eps)


class GainKeptButNotApplied(torch.nn.Module):
    """vLLM's RMSNorm built with has_weight=False: a ones tensor kept for a kernel's
    signature, never applied. Not a gain: init has nothing to judge."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight, self.eps = torch.ones(n), eps

    def forward(self, x):
        return rms_norm(x, x.shape[-1], None, self.eps)


def test_a_plain_tensor_the_norm_does_not_apply_is_not_taken_for_its_gain():
    assert failing(GainKeptButNotApplied) == set()
    assert verdict(check(GainKeptButNotApplied), "init").passed is None


class GainNotAParameter(torch.nn.Module):
    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight, self.eps = torch.ones(n), eps  # a plain tensor: never trained

    def forward(self, x):
        return rms_norm(x, x.shape[-1], self.weight, self.eps)


class GainInFloat64(torch.nn.Module):
    def __init__(self, n, eps=1e-6):
        super().__init__()
        # Ported from NumPy: np.ones is float64, and so is a float32 input's output.
        self.weight, self.eps = torch.nn.Parameter(torch.from_numpy(np.ones(n))), eps

    def forward(self, x):
        h = x.float()
        return self.weight * (h * torch.rsqrt(h.pow(2).mean(-1, True) + self.eps))


class GainInABuffer(torch.nn.Module):
    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.register_buffer("weight", torch.ones(n))  # saved, but never trained
        self.eps = eps

    def forward(self, x):
        return rms_norm(x, x.shape[-1], self.weight, self.eps)


def test_a_gain_kept_in_a_buffer_is_named():
    init = verdict(check(GainInABuffer), "init")
    assert init.detail.startswith(
        "weight is a buffer of shape (64,), not an nn.Parameter"
    )
    # Linked to what init catches, not to gains started like a linear layer's weights
    # (found by an adversarial round).
    assert init.see == "check/#check-init"


def eps_on_the_sum(x, weight, eps=1e-6):
    # Upcast, but eps added to the sum of squares: only the rows where eps shows go wrong.
    h = x.float()
    total = h.pow(2).sum(-1, keepdim=True)
    return (weight * h * torch.rsqrt((total + eps) / h.shape[-1])).to(x.dtype)


def test_half_blames_float16s_range_only_for_rows_that_square_past_it():
    detail = one_check(eps_on_the_sum, checks.check_half).detail
    assert "the rows where eps shows" in detail and "65504" not in detail


class BiasStartedAtOnes(RMSNorm):
    def __init__(self, n):
        super().__init__(n)
        self.bias = torch.nn.Parameter(torch.ones(n))  # a bias starts at zeros

    def forward(self, x):
        return super().forward(x) + self.bias


def weight_read_as_input_dtype(x, weight, eps=1e-6):
    # A kernel that loads the weight with x's element type: a float32 weight's bytes
    # read as bfloat16 numbers.
    if weight.dtype != x.dtype:
        weight = weight.view(x.dtype)[: x.shape[-1]]
    return rms_norm(x, x.shape[-1], weight, eps)


def mean_square_by_matmul(x, weight, eps=1e-6):
    # The statistic as a matmul of each row with itself: under autocast, in bfloat16.
    h = x.float()
    mean_square = (h.unsqueeze(-2) @ h.unsqueeze(-1)).squeeze(-1) / h.shape[-1]
    return (h * torch.rsqrt(mean_square + eps) * weight.float()).to(x.dtype)


def mean_square_by_einsum(x, weight, eps=1e-6):
    # The same statistic as an einsum (found by an adversarial round).
    h = x.float()
    mean_square = torch.einsum("...i,...i->...", h, h)[..., None] / h.shape[-1]
    return (h * torch.rsqrt(mean_square + eps) * weight.float()).to(x.dtype)


@pytest.mark.parametrize("target", [mean_square_by_matmul, mean_square_by_einsum])
def test_a_forward_wrong_under_autocast_alone_names_a_statistic_by_a_matmul(target):
    forward = one_check(target, checks.check_forward)
    assert forward.passed is False
    said = "right in float32, wrong under autocast alone: a statistic taken by a matmul"
    assert said in forward.detail, forward.detail
    assert forward.see == "implementations/#under-autocast"


def size_read_from_dim_1(x, weight, eps=1e-6):
    # n read as x.shape[1], written for (tokens, features): right on 2-D rows alone (found
    # by an adversarial round, told "another eps?").
    h = x.float()
    mean_square = h.pow(2).sum(-1, keepdim=True) / x.shape[1]
    return (h * torch.rsqrt(mean_square + eps) * weight.float()).to(x.dtype)


def test_a_size_read_from_dim_1_is_told_to_read_the_last():
    shapes = one_check(size_read_from_dim_1, checks.check_shapes)
    assert shapes.passed is False
    assert "read the size as x.shape[-1]" in shapes.detail, shapes.detail
    assert "another eps?" not in shapes.detail


def gain_clamped_at_zero(x, weight, eps=1e-6):
    # Right for every gain above zero, the only gains the other checks try.
    return rms_norm(x, x.shape[-1], weight.clamp(min=0), eps)


def weight_read_as_float16(x, weight, eps=1e-6):
    # The same misreading on a float16 path of its own only.
    if x.dtype == torch.float16:
        return weight_read_as_input_dtype(x, weight, eps)
    return rms_norm(x, x.shape[-1], weight, eps)


def no_upcast_beside_a_float32_weight(x, weight, eps=1e-6):
    # A float16 path of the mix's own that squares in float16: right on rows whose squares
    # stay within float16's range, and wherever the weight's dtype is x's.
    if x.dtype == torch.float16 and weight.dtype != x.dtype:
        return weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return rms_norm(x, x.shape[-1], weight, eps)


def test_mixed_judges_the_loud_float16_row_where_float16_weights_are_refused():
    def refuses_float16_weights(x, weight, eps=1e-6):
        assert weight.dtype != torch.float16, "float16 weights are not supported"
        return no_upcast_beside_a_float32_weight(x, weight, eps)

    mixed = one_check(refuses_float16_weights, checks.check_mixed)
    assert mixed.passed is False
    assert "65504 (float16 weights refused): take the mean square" in mixed.detail


@pytest.mark.parametrize(
    "target, check_name",
    [
        (rms_norm_paper_code, "eps"),
        (eps_twice, "eps"),
        (declares_eps_but_adds_none, "eps"),
        (no_upcast, "half"),
        (upcasts_only_loud_rows, "half"),
        (upcasts_only_narrow_rows, "half"),
        (weight_read_as_input_dtype, "mixed"),
        (weight_read_as_float16, "mixed"),
        (no_upcast_beside_a_float32_weight, "mixed"),
        (no_eps, "zero rows"),
        (mean_square_floored_at_zero, "zero rows"),
        (backward_without_r, "gradients"),
        (backward_over_the_sequence_too, "gradients"),
        (backward_reading_the_gradient_as_contiguous, "gradients"),
        (backward_reading_the_gradient_by_its_row_stride, "gradients"),
        (StateBetweenCalls, "gradients"),
        (eps_written_into_the_code, "eps"),
        (dw_summed_in_bfloat16, "dw"),
        (dw_summed_in_bfloat16_blocks, "dw"),
        (pooled_over_rows, "shapes"),
        (statistic_of_whole_blocks, "sizes"),
        (statistic_of_blocks_of_512_past_1024, "sizes"),
        (TruncNormalInit, "init"),
        # Paths and parts a model reaches that the first checks did not.
        (upcasts_only_batches, "half"),
        (upcasts_only_under_autograd, "half"),
        (no_upcast_for_4d_input, "half"),
        (upcasts_only_small_inputs, "half"),
        (upcasts_only_2d_inputs, "half"),
        (upcasts_only_outside_decode_batches, "half"),
        (forward_without_upcast_while_training, "half"),
        (with_backward_slip("eps dropped in half precision"), "half"),
        (
            with_backward_slip(
                "upstream gradient read as contiguous in half precision"
            ),
            "half",
        ),
        (with_backward_slip("statistic without the upcast"), "half"),
        (
            with_backward_slip("dx without its term along x / RMS in half precision"),
            "half",
        ),
        (AnotherEpsInEval, "forward"),
        (GainCachedByAddress, "forward"),
        (mean_square_by_matmul, "forward"),
        (another_eps_on_one_row, "forward"),
        (no_eps_in_large_inputs, "forward"),
        (gain_clamped_at_zero, "forward"),
        (WeightConvertedOnce, "mixed"),
        (with_backward_slip("dw without r beside a float32 weight"), "mixed"),
        (with_backward_slip("rows squeezed"), "gradients"),
        (with_backward_slip("x / RMS rebuilt as y / gain"), "gradients"),
        (with_backward_slip("dw of whole blocks only"), "sizes"),
        (with_backward_slip("dw rounded to float16 row after row"), "dw"),
        (with_backward_slip("all-zero rows skipped in half precision"), "zero rows"),
        (with_backward_slip("all-zero rows' dx negated in bfloat16"), "zero rows"),
        (
            with_backward_slip(
                "dx without its term along x / RMS past 1024 float32 rows"
            ),
            "gradients",
        ),
        (with_backward_slip("x read as contiguous"), "strides"),
        (
            with_backward_slip("upstream gradient scaled to its rows' largest entries"),
            "gradients",
        ),
        (rows_read_as_contiguous_in_half, "strides"),
        (rows_read_as_contiguous_in_float16, "strides"),
        (row_stride_taken_as_the_row_length, "strides"),
        (no_upcast_while_the_gain_trains, "half"),
        (no_autograd_when_x_needs_none, "gradients"),
        (no_upcast_for_one_token, "forward"),
        (served_float32_weight_read_as_bfloat16, "mixed"),
        (GainKeptWhileServing, "forward"),
        (CastGainKeptByAddressWhileServing, "mixed"),
        (output_padded_to_blocks_of_512_rows, "forward"),
        (IgnoresItsConfigEps, "eps"),
        (GainNotAParameter, "init"),
        (GainInFloat64, "init"),
        (
            with_backward_slip("the gain left out of dx's mean while frozen"),
            "gradients",
        ),
        # The input gradient of the gain frozen, in half precision too (found by an
        # adversarial round: half compared the trained gain's only).
        (
            with_backward_slip("dx without its term along x / RMS, frozen, in float16"),
            "half",
        ),
        (GainInABuffer, "init"),
        (BiasStartedAtOnes, "init"),
    ],
    ids=lambda v: getattr(v, "__name__", v),
)
def test_each_check_catches_its_mistake(target, check_name):
    assert check_name in failing(target)


# Each wrong row with its largest error: "all lost" where overflow zeroed it.
OUTLIER_AND_EPS = (
    "the row with an outlier channel (all lost) and the rows where eps shows"
)


@pytest.mark.parametrize(
    "target, rows",
    [
        (
            no_upcast,
            f"the row of RMS 300 (all lost) and {OUTLIER_AND_EPS} (8.4 ulp), of 64"
            + " and 4096",
        ),
        (upcasts_only_loud_rows, f"{OUTLIER_AND_EPS} (7.5 ulp), of 64 and 4096"),
        (
            upcasts_only_narrow_rows,
            f"the row of RMS 300 (all lost) and {OUTLIER_AND_EPS} (8.4 ulp), of 4096",
        ),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_the_half_check_names_the_rows_it_gets_wrong_and_why(target, rows):
    (half,) = [v for v in check(target).verdicts if v.check == "half"]
    why = "where values square to more than float16's largest, 65504"
    why += ", or to less than its smallest normal, 6.1e-05: take the mean square of"
    why += " x.float(), and keep it in float32"
    assert (
        f"float16 wrong (error 1024.0 ulp, out float16, on {rows} features, {why})"
        in half.detail
    )
    assert "bfloat16 ok" in half.detail


def test_the_half_check_fails_an_output_in_another_dtype_and_measures_it():
    def out_in_float32(x, weight, eps=1e-6):
        x = x.float()
        return weight.float() * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)

    (half,) = [v for v in check(out_in_float32).verdicts if v.check == "half"]
    assert half.passed is False
    assert "float16 wrong (error 0.0 ulp, out float32, not float16)" in half.detail


def computed_in_float64(x, weight, eps=1e-6):
    # Exact, but not cast back: a float32 model's next matmul refuses float64.
    x = x.double()
    return weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def test_the_forward_check_fails_a_float32_input_that_comes_back_float64():
    forward = verdict(check(computed_in_float64), "forward")
    assert forward.passed is False
    assert "float32 input comes back float64 on every path" in forward.detail


def float64_for_one_row(x, weight, eps=1e-6):
    # A decode path of its own that forgets the cast back.
    if x.shape[0] == 1:
        return computed_in_float64(x, weight, eps)
    return rms_norm(x, x.shape[-1], weight, eps)


def test_the_forward_check_names_the_path_that_returns_another_dtype():
    forward = verdict(check(float64_for_one_row), "forward")
    assert forward.passed is False
    # Every path with x.shape[0] == 1, as (1, features) and (1, 1, features), in training
    # and served, and served as (1, tokens, features).
    said = (
        "comes back float64 one row at a time and float64 one row at a time as (1, 1,"
        " features) and float64 one row at a time in eval mode under inference_mode and"
        " float64 as (1, tokens, features) in eval mode under inference_mode"
    )
    assert said + ", not float32" in forward.detail


def out_in_autocast_dtype(x, weight, eps=1e-6):
    # The statistic in float32, the output in autocast's dtype, as a layer may return.
    y = rms_norm(x.float(), x.shape[-1], weight.float(), eps)
    autocast = torch.is_autocast_enabled(x.device.type)
    return y.to(torch.get_autocast_dtype(x.device.type) if autocast else x.dtype)


def test_an_output_in_autocast_dtype_passes_the_forward_check():
    assert "forward" not in failing(out_in_autocast_dtype)


def in_float32(x, weight, eps):
    x = x.float()
    return weight.float() * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def float32_for_one_row(x, weight, eps=1e-6):
    # A decode path that forgets the cast back: float32 out for a single row.
    y = in_float32(x, weight, eps)
    return y if x.numel() == x.shape[-1] else y.to(x.dtype)


class Float32WhenServing(torch.nn.Module):
    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight, self.eps = torch.nn.Parameter(torch.ones(n)), eps

    def forward(self, x):
        y = in_float32(x, self.weight, self.eps)
        return y.to(x.dtype) if self.training else y


@pytest.mark.parametrize(
    "target, path",
    [
        (
            float32_for_one_row,
            "one row at a time and float32 one row at a time as (1, 1, features)",
        ),
        (Float32WhenServing, "in eval mode under inference_mode"),
    ],
)
def test_the_half_check_fails_another_dtype_on_one_path_and_names_the_path(
    target, path
):
    (half,) = [v for v in check(target).verdicts if v.check == "half"]
    assert half.passed is False
    assert f"out float32 {path}, not bfloat16" in half.detail


class EpsKeptUnderAnotherName(torch.nn.Module):
    """Declares 1e-6 in its constructor, keeps it as `_eps`, and adds a 1e-5 of its own."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight, self._eps = torch.nn.Parameter(torch.ones(n)), eps

    def forward(self, x):
        return in_float32(x, self.weight, 1e-5).to(x.dtype)


def test_a_classs_constructor_default_is_its_declared_eps():
    (eps,) = [v for v in check(EpsKeptUnderAnotherName).verdicts if v.check == "eps"]
    assert eps.passed is False
    assert "uses eps 1e-05, declares 1e-06" in eps.detail


@pytest.mark.parametrize(
    "message", ["float16 is not supported", "FP16 input is not supported, use bf16"]
)
def test_a_clear_refusal_of_float16_is_reported_and_bfloat16_still_checked(message):
    """A refusal naming the dtype by any of its usual names (kernels write fp16)."""

    def refuses_float16(x, weight, eps=1e-6):
        if x.dtype == torch.float16:
            raise TypeError(message)
        return in_float32(x, weight, eps).to(x.dtype)

    (half,) = [v for v in check(refuses_float16).verdicts if v.check == "half"]
    assert half.passed is True
    assert "bfloat16 ok" in half.detail
    assert f"refuses float16 input (TypeError: {message})" in half.detail
    assert half.refused == [f"refuses float16 input (TypeError: {message})"]


def float32_only(x, weight, eps=1e-6):
    if x.dtype != torch.float32:
        raise TypeError(f"{x.dtype} is not supported: float32 only")
    return in_float32(x, weight, eps)


def test_a_float32_only_kernel_is_told_why_it_cannot_be_checked():
    with pytest.raises(
        UsageError, match="rounding on bfloat16 rows, so a kernel for float32"
    ):
        check(float32_only)


def computed_elsewhere(x, weight, eps=1e-6):
    # Code in another language, reached through its buffers (here NumPy's float32, as
    # ctypes or pybind11 would hand them over): no autograd through it.
    h, w = x.detach().float().cpu().numpy(), weight.detach().float().cpu().numpy()
    y = w * h / np.sqrt((h * h).mean(-1, keepdims=True) + np.float32(eps))
    return torch.from_numpy(y).to(device=x.device, dtype=x.dtype)


def test_a_jax_port_passes_through_the_frameworks_pages_wrapper(capsys):
    from snippets.frameworks.check_a_port import norm  # prints its agreement on import

    report = check(norm, convention="llama")
    assert report.passed, report.table()
    assert report.conventions["rounding"] == "llama"
    assert verdict(report, "gradients").passed is None  # no autograd through JAX


def test_code_in_another_language_is_checked_through_a_function_on_its_buffers():
    report = check(computed_elsewhere)
    assert report.passed, report.table()
    assert report.conventions["rounding"] == "float32"
    assert verdict(report, "gradients").passed is None
    # Its passing lines say what ran: no gradient was compared.
    assert verdict(report, "half").detail.endswith(
        "forward only (its output has no gradient)"
    )
    assert verdict(report, "strides").detail.endswith("copies, forward only")


def mean_square_floored_at_eps(x, weight, eps=1e-6):
    # max(mean square, eps) rather than mean square + eps: another function below sqrt(eps).
    h = x.float()
    r = torch.rsqrt(h.pow(2).mean(-1, keepdim=True).clamp_min(eps))
    return (weight.float() * h * r).to(x.dtype)


@pytest.mark.parametrize("eps", [1e-6, 1e-5])
def test_a_floor_on_the_mean_square_is_named_and_not_sent_to_eps_outside(eps):
    # A floor of 1e-5 reads as eps inside the root on rows of mean square 1e-8 and 9e-8:
    # 1e-5 - 1e-8 and 1e-5 - 9e-8 agree to 0.8%.
    def floored(x, weight, eps=eps):
        return mean_square_floored_at_eps(x, weight, eps)

    report = check(floored)
    (verdict,) = [v for v in report.verdicts if v.check == "eps"]
    assert verdict.passed is False
    assert f"it floors the mean square at {eps:.3g}, max(mean square" in verdict.detail
    assert "--eps-outside" not in verdict.detail


def test_eps_outside_the_root_is_told_how_to_say_it_is_intended():
    def eps_verdict(**options):
        report = check(rms_norm_paper_code, **options)
        return next(v for v in report.verdicts if v.check == "eps")

    detail = eps_verdict().detail
    assert detail.startswith("eps outside the square root: move it inside, rsqrt(")
    assert detail.endswith("keep it and pass --eps-outside")
    assert eps_verdict(eps_outside=True).passed


def test_the_half_check_measures_eps_outside_the_root_as_told():
    def paper_form_upcast(x, weight, eps=8e-3):
        # The authors' form with a float32 upcast: an eps this large moves the outputs
        # by more than float16's ulps where a reference puts it inside the root.
        x32 = x.float()
        rms = x32.pow(2).mean(-1, keepdim=True).sqrt()
        return (weight.float() * x32 / (rms + eps)).to(x.dtype)

    report = check(paper_form_upcast, eps_outside=True)
    assert verdict(report, "half").passed, verdict(report, "half").detail
    # Its rounding is named as the form it is, (f), not after libraries that put eps
    # inside (found by an adversarial round).
    rounding = verdict(report, "rounding").detail
    assert rounding.startswith("bit for bit (f) eps outside the root, otherwise (b)")


def eps_after_the_root(x, weight, eps=1e-6):
    # The root of the mean square, then eps: the root's derivative at 0 is infinite.
    return weight * x / (x.pow(2).mean(-1, keepdim=True).sqrt() + eps)


def test_zero_rows_names_what_fails_on_the_all_zero_row():
    report = check(eps_after_the_root, eps_outside=True)
    (verdict,) = [v for v in report.verdicts if v.check == "zero rows"]
    assert not verdict.passed
    assert verdict.detail == (
        "all-zero row: input gradient not finite"
        " (eps added after a square root, whose slope at 0 is infinite)"
    )
    assert verdict.see == "math/#where-goes-and-why-it-matters"


def test_zero_rows_names_0_over_0_in_the_forward_where_no_eps_is_added():
    (verdict,) = [v for v in check(no_eps).verdicts if v.check == "zero rows"]
    assert not verdict.passed
    assert verdict.detail.startswith("all-zero row: output not zeros")
    assert "(0 / 0 in the forward" in verdict.detail
    assert "square root's slope" not in verdict.detail
    assert verdict.see == "gradients/#the-all-zero-row"


class GainOfTwo(torch.nn.Module):
    """Gemma's 1 + w with the weight started at ones, LLaMA's identity: a gain of 2."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(n))
        self.eps = eps

    def forward(self, x):
        return rms_norm(x, x.shape[-1:], 1 + self.weight, self.eps)


class GainOfZero(GainOfTwo):
    """LLaMA's w with the weight started at zeros, Gemma's identity: a gain of 0."""

    def __init__(self, n, eps=1e-6):
        super().__init__(n, eps)
        torch.nn.init.zeros_(self.weight)

    def forward(self, x):
        return rms_norm(x, x.shape[-1:], self.weight, self.eps)


@pytest.mark.parametrize(
    "module, start, gain", [(GainOfTwo, 1, "1 + w"), (GainOfZero, 0, "w")]
)
def test_init_names_a_weight_started_at_the_other_conventions_identity(
    module, start, gain
):
    report = check(module)
    assert [v.check for v in report.verdicts if v.passed is False] == ["init"]
    (verdict,) = [v for v in report.verdicts if v.check == "init"]
    fix = {
        "w": "start it at ones, or apply 1 + w if it stores the gain minus 1",
        "1 + w": "start it at zeros, or apply w if it stores the gain itself",
    }[gain]
    assert verdict.detail == (
        f"fresh weight: all {start}, so the norm, which applies {gain}, starts with a"
        f" gain of {2 * start}: {fix}"
    )
    assert verdict.see == "pitfalls/#loading-gains-stored-the-other-way"


class Bfloat16Gain(torch.nn.Module):
    """The right norm, with its gain created in bfloat16: an optimizer steps it there."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(n, dtype=torch.bfloat16))
        self.eps = eps

    def forward(self, x):
        y = rms_norm(x.float(), x.shape[-1:], eps=self.eps).to(x.dtype)
        return self.weight * y


def test_eps_names_float32s_machine_epsilon_as_the_eps_none_default():
    said = "; float32's machine epsilon, as eps=None gives, not a checkpoint's eps"
    default = verdict(check(torch.nn.RMSNorm), "eps")
    assert default.passed and default.detail.endswith(said)
    given = verdict(check(torch.nn.RMSNorm, eps=1e-6), "eps")
    assert given.passed and said not in given.detail


class WeightGradientOnlyWithInputGradient(torch.autograd.Function):
    """A custom backward that computes dw inside dx's branch: none for a frozen input."""

    @staticmethod
    def forward(ctx, x, weight, eps):
        x_hat = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps)
        ctx.save_for_backward(x_hat)
        return x_hat * weight.float()

    @staticmethod
    def backward(ctx, g):
        (x_hat,) = ctx.saved_tensors
        dx = dw = None
        if ctx.needs_input_grad[0]:
            dx = torch.zeros_like(x_hat)  # dx is not what this test reads
            dw = (g.float() * x_hat).reshape(-1, x_hat.shape[-1]).sum(0)
        return dx, dw, None


def dw_only_with_dx(x, weight, eps=1e-6):
    return WeightGradientOnlyWithInputGradient.apply(x, weight, eps)


def no_autograd_in_half_precision(x, weight, eps=1e-6):
    # An inference kernel picked by dtype: right outputs, but training stops here.
    if x.dtype in (torch.float16, torch.bfloat16):
        with torch.no_grad():
            return rms_norm(x, x.shape[-1], weight, eps)
    return rms_norm(x, x.shape[-1], weight, eps)


def test_a_half_precision_path_without_autograd_fails_where_float32_trains():
    report = check(no_autograd_in_half_precision)
    for name in ("half", "dw", "mixed"):
        found = verdict(report, name)
        assert found.passed is False, name
        assert "no gradient recorded, though float32 input records one" in found.detail
        assert found.see == "gradients/#a-custom-autograd-function"


def cut_under_autocast(what):
    """A "fast path" for mixed-precision training that cuts x, or the gain (a copy cast
    without autograd), from the graph there alone: the weight's cut passed every check
    until an adversarial round found it."""

    def norm(x, weight, eps=1e-6):
        if torch.is_autocast_enabled(x.device.type):
            x, weight = (x.detach(), weight) if what == "x" else (x, weight.detach())
        return rms_norm(x, x.shape[-1], weight, eps)

    return norm


@pytest.mark.parametrize(
    "cut, said",
    [
        (
            "x",
            "no gradient recorded under autocast to bfloat16, though float32 records",
        ),
        ("weight", "no gradient reaches the weight under autocast to bfloat16, though"),
    ],
)
def test_a_path_under_autocast_that_cuts_a_gradient_fails_forward(cut, said):
    forward = one_check(cut_under_autocast(cut), checks.check_forward)
    assert forward.passed is False
    assert said in forward.detail
    assert forward.see == "gradients/#a-custom-autograd-function"
    # A target that records none anywhere, an inference kernel, passes forward as before.
    assert one_check(inference_only, checks.check_forward).passed


def test_mixed_compares_the_input_gradient_of_its_path():
    slip = "dx without its term along x / RMS beside a float32 weight"
    mixed = verdict(check(with_backward_slip(slip)), "mixed")
    assert mixed.passed is False
    said = "input gradient, from a call where the weight needs none (a frozen gain), off by"
    assert said in mixed.detail
    assert mixed.see == "gradients/#the-derivation"


class WeightGradientSetNotAdded(torch.autograd.Function):
    """Right gradients, but dw written into weight.grad, which a second backward replaces.
    In float32, so gradcheck is not run: the sum of two backwards alone must catch it."""

    @staticmethod
    def forward(ctx, x, weight, eps):
        ctx.weight, ctx.eps = weight, eps
        ctx.save_for_backward(x)
        y = rms_norm(x.float(), x.shape[-1], weight.detach().float(), eps)
        return y.to(x.dtype)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            x32 = x.detach().float().requires_grad_()
            w32 = ctx.weight.detach().float().requires_grad_()
            y = rms_norm(x32, x.shape[-1], w32, ctx.eps)
            dx, dw = torch.autograd.grad(y, (x32, w32), g.float())
        ctx.weight.grad = dw.to(ctx.weight.dtype)  # the slip: replaced, not added
        return dx.to(x.dtype), None, None


def gradient_set_not_added(x, weight, eps=1e-6):
    return WeightGradientSetNotAdded.apply(x, weight, eps)


def weight_gradient_of_contiguous_rows(x, weight, eps=1e-6):
    # dx right; dw read from x's memory as if its rows were contiguous.
    y = rms_norm(x, x.shape[-1], weight.detach(), eps)
    packed = x.detach().as_strided(x.shape, x.new_empty(x.shape).stride())
    x_hat = rms_norm(packed, x.shape[-1], None, eps)
    return y + (x_hat * (weight - weight.detach())).to(y.dtype)


def another_eps_for_decode_batches(x, weight, eps=1e-6):
    # (batch, 1, features), a batch of decode steps, gets an eps of its own.
    if x.dim() == 3 and x.shape[1] == 1:
        eps = 1e-2
    return rms_norm(x, x.shape[-1], weight, eps)


def no_upcast_for_inference_tensors(x, weight, eps=1e-6):
    # What a served model's activations are: inference tensors, here on a path of their own.
    if x.is_inference() and x.dtype == torch.float16:
        return weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return rms_norm(x, x.shape[-1], weight, eps)


class EpsByT5sName(torch.nn.Module):
    """Takes ε as T5's configuration names it, and uses 1e-6 whatever it is."""

    def __init__(self, n, layer_norm_epsilon=1e-5):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(n))
        self.layer_norm_epsilon = layer_norm_epsilon

    def forward(self, x):
        return rms_norm(x, x.shape[-1], self.weight, 1e-6)


@pytest.mark.parametrize(
    "target, check_name, words",
    [
        (gradient_set_not_added, "gradients", "its gradient is not their sum"),
        (weight_gradient_of_contiguous_rows, "strides", "(its weight gradient)"),
        (another_eps_for_decode_batches, "forward", "as (batch, 1, features)"),
        (no_upcast_for_inference_tensors, "half", "in eval mode under inference_mode"),
        (EpsByT5sName, "eps", "declares 1e-05"),
    ],
    ids=lambda v: getattr(v, "__name__", None),
)
def test_mistakes_an_adversarial_round_found_are_caught(target, check_name, words):
    found = verdict(check(target), check_name)
    assert found.passed is False
    assert words in found.detail


def gain_then_a_multiplier_named_scale(x, w, eps=1e-6, scale=1.0):
    return scale * rms_norm(x, x.shape[-1], w, eps)


class RefusesThreeDimensions(torch.nn.Module):
    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight, self.eps = torch.nn.Parameter(torch.ones(n)), eps

    def forward(self, x):
        torch._check(x.dim() <= 2, lambda: "rows only: (tokens, features)")
        return rms_norm(x, x.shape[-1], self.weight, self.eps)


def divided_by_the_largest_magnitude_unguarded(x, weight, eps=1e-6):
    # eps inside the root, right but on the all-zero row, where m = 0 divides 0 by 0.
    m = x.float().abs().amax(-1, keepdim=True)
    h = x.float() / m
    y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps / m**2)
    return (y * weight.float()).to(x.dtype)


def inference_kernel_for_decode_steps_and_half_precision(x, weight, eps=1e-6):
    if x.shape[0] == 1 or x.dtype != torch.float32:
        with torch.no_grad():
            return rms_norm(x, x.shape[-1], weight, eps)
    return rms_norm(x, x.shape[-1], weight, eps)


def test_the_checks_added_today_keep_to_their_cases():
    # A number named scale after the gain is no gain: checked as before, and passing.
    assert check(gain_then_a_multiplier_named_scale).passed
    # A clear refusal of 3-D input is shapes' failure, not forward's.
    report = check(RefusesThreeDimensions)
    assert verdict(report, "forward").passed and not verdict(report, "shapes").passed
    # NaN on the all-zero row with eps measured inside: not blamed on a missing eps.
    zero = verdict(check(divided_by_the_largest_magnitude_unguarded), "zero rows")
    assert not zero.passed and "(not finite in the forward" in zero.detail

    # A wrong dw is named as wrong, not as one that replaces rather than sums.
    def dw_doubled(x, weight, eps=1e-6):
        return rms_norm(x, x.shape[-1], 2 * weight - weight.detach(), eps)

    slip = verdict(check(dw_doubled), "gradients")
    assert not slip.passed and "not their sum" not in slip.detail
    # Whether float32 records gradients is probed on rows, not on one decode step.
    report = check(inference_kernel_for_decode_steps_and_half_precision)
    assert not verdict(report, "half").passed
    assert "one row: no gradient recorded" in verdict(report, "gradients").detail


def test_mixed_names_a_weight_gradient_missing_while_x_needs_none():
    mixed = verdict(check(dw_only_with_dx), "mixed")
    assert mixed.passed is False
    assert "no gradient reaches the weight while x needs none" in mixed.detail
    assert mixed.see == "gradients/#a-custom-autograd-function"


def weight_detached(x, weight, eps=1e-6):
    return rms_norm_llama(x, weight.detach(), eps)  # the gain never trains


class GradientDropped(torch.autograd.Function):
    """A custom backward that returns None for x or for the weight (`dropped`), the other's
    gradient right."""

    @staticmethod
    def forward(ctx, x, weight, eps, dropped):
        ctx.save_for_backward(x, weight)
        ctx.eps, ctx.dropped = eps, dropped
        return rms_norm_llama(x, weight, eps)

    @staticmethod
    def backward(ctx, g):
        with torch.enable_grad():
            x, weight = (t.detach().requires_grad_() for t in ctx.saved_tensors)
            dx, dw = torch.autograd.grad(
                rms_norm_llama(x, weight, ctx.eps), (x, weight), g
            )
        dx, dw = (None, dw) if ctx.dropped == "x" else (dx, None)
        return dx, dw, None, None


def input_gradient_dropped(x, weight, eps=1e-6):
    return GradientDropped.apply(x, weight, eps, "x")


# A gradient that never arrives, the weight's or x's: each named with its likely causes,
# not as x frozen (the weight's) or as a layout's fault (x's).
WEIGHT_CUT = ["no gradient reaches the weight: is it used through .data or .detach()"]
X_CUT = [
    "no gradient reaches x: is it cut from the graph, by torch.no_grad() or",
    "or a custom backward that returns None for x?",
]


@pytest.mark.parametrize(
    "target, run, said, unsaid",
    [
        (weight_detached, checks.check_mixed, WEIGHT_CUT, "while x needs none"),
        (weight_detached, checks.check_gradients, WEIGHT_CUT, "while x needs none"),
        (
            input_gradient_dropped,
            checks.check_gradients,
            X_CUT,
            "against contiguous copies",
        ),
        (
            input_gradient_dropped,
            checks.check_strides,
            X_CUT,
            "against contiguous copies",
        ),
    ],
    ids=["weight-mixed", "weight-gradients", "x-gradients", "x-strides"],
)
def test_a_gradient_that_never_arrives_is_named_with_its_causes(
    target, run, said, unsaid
):
    found = one_check(target, run)
    assert found.passed is False
    assert all(words in found.detail for words in said)
    assert unsaid not in found.detail
    assert found.see == "gradients/#a-custom-autograd-function"


class EpsInABuffer(torch.nn.Module):
    """Right in float32, its eps a buffer: a model's .half() rounds 1e-6 to 1.013e-6."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(n))
        self.register_buffer("eps", torch.tensor(eps))

    def forward(self, x):
        y = rms_norm(x.float(), x.shape[-1:], eps=self.eps.item())
        return (self.weight * y).to(x.dtype)


def test_half_says_when_an_eps_kept_as_a_tensor_is_rounded_with_the_module():
    half = verdict(check(EpsInABuffer), "half")
    assert half.passed is False
    assert "on the rows where eps shows" in half.detail
    assert (
        "where its eps, a tensor, is rounded to float16 with the module" in half.detail
    )
    # Linked to half's list of catches, which names it, not to the upcast it has (found
    # by an adversarial round).
    assert half.see == "check/#check-half"
    # 1e-5 rounds to 1.0014e-5 in float16, too little to move an output past the bound.
    report = check(EpsInABuffer, eps=1e-5, init={"eps": 1e-5})
    assert [v.check for v in report.verdicts if v.passed is False] == []
    assert verdict(report, "half").passed is True


def test_init_fails_a_gain_created_in_bfloat16():
    report = check(Bfloat16Gain)
    assert [v.check for v in report.verdicts if v.passed is False] == ["init"]
    assert verdict(report, "init").detail == (
        "fresh weight: 0 of 64 entries differ from 1; fresh weight is bfloat16: an"
        " optimizer steps it in bfloat16, which rounds away a step under half the"
        " spacing of its values (1 + 3e-4 rounds to 1): create it in float32"
    )
    assert verdict(report, "init").see == "pitfalls/#gains-trained-in-bfloat16"


def grouped(x, weight, eps=1e-6):
    # Mamba-2's gated norm without its gate: an RMSNorm over each group of 16 features.
    groups = x.unflatten(-1, (-1, 16))
    groups = groups * torch.rsqrt(groups.pow(2).mean(-1, keepdim=True) + eps)
    return weight * groups.flatten(-2)


def unbiased_std(x, weight, eps=1e-6):
    # timm's SimpleNorm's mistake: the standard deviation (mean taken out) in place of the RMS.
    return weight * x / (x.std(-1, keepdim=True) + eps)


def l2_norm(x, weight, eps=1e-6):
    # A sum of squares where the mean belongs: off by sqrt(n).
    return weight * x * torch.rsqrt(x.pow(2).sum(-1, keepdim=True) + eps)


def over_the_batch(x, weight, eps=1e-6):
    # The mean square over dim 0, across rows: each feature gets its own scale.
    return weight * x * torch.rsqrt(x.pow(2).mean(0, keepdim=True) + eps)


def mean_absolute(x, weight, eps=1e-6):
    # The mean of |x| where the root of the mean square belongs.
    return weight * x / (x.abs().mean(-1, keepdim=True) + eps)


def eps_added_to_the_reciprocal(x, weight, eps=1e-6):
    # rsqrt(ms) + eps: the right statistic, a scale a little off, by eps times the RMS.
    return weight * x * (torch.rsqrt(x.pow(2).mean(-1, keepdim=True)) + eps)


@pytest.mark.parametrize(
    "target, words",
    [
        (layer_norm_like, "a LayerNorm"),
        (l2_norm, "the L2 norm"),
        (over_the_batch, "a statistic over another dim"),
        (grouped, "groups of 16 features apart"),
        (unbiased_std, "the unbiased standard deviation"),
        (divides_by_n_minus_1, "the RMS with n - 1"),
        (whole_tensor, "one RMS of the whole tensor"),
        (mean_absolute, "divides x by the mean of |x|"),
        (
            eps_added_to_the_reciprocal,
            "by 1.0001 / RMS and 1.00009 / RMS on rows of RMS 101 and 90.5",
        ),
    ],
    ids=lambda v: getattr(v, "__name__", v),
)
def test_a_form_that_is_not_rms_norm_gets_one_verdict_naming_it(target, words):
    (verdict,) = check(target).verdicts
    assert (
        verdict.check == "form" and verdict.passed is False and words in verdict.detail
    )


def ignores_strides(x, weight, eps=1e-6):
    # Reads x's memory as if its rows were contiguous, as a kernel given only x.data_ptr().
    contiguous = torch.empty(x.shape).stride()
    x = torch.as_strided(x, x.shape, contiguous, x.storage_offset())
    return weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def test_rows_read_as_contiguous_when_they_are_not_fail_strides():
    assert "strides" in failing(ignores_strides)


def precision_follows_the_batch(x, weight, eps=1e-6):
    # The statistic's rounding follows the number of rows, as a reduction's split does in a
    # kernel that picks its block size from the row count.
    h = x.float()
    if h.reshape(-1, h.shape[-1]).shape[0] >= 256:
        mean_square = h.double().pow(2).mean(-1, keepdim=True).float()
    else:
        mean_square = h.pow(2).mean(-1, keepdim=True)
    return (weight.float() * h * torch.rsqrt(mean_square + eps)).to(x.dtype)


def test_a_result_that_follows_the_batch_is_reported_not_failed():
    report = check(precision_follows_the_batch)
    (batch,) = [verdict for verdict in report.verdicts if verdict.check == "batch"]
    assert batch.passed is None and "other bits in batches of 256, 4097" in batch.detail
    assert report.passed


def test_triton_code_under_the_interpreter_is_recognized(monkeypatch, tmp_path):
    # Its bfloat16 arithmetic is emulated, not faithful: a half failure there is no verdict.
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert under_triton_interpreter(Subject(rms_norm_triton))
    assert not under_triton_interpreter(Subject(rms_norm))
    # A wrapper in a module that imports no Triton: its kernel's module does.
    (tmp_path / "wrapper.py").write_text(
        "from snippets.kernel.rms_norm_triton import rms_norm_triton\n\n"
        "def norm(x, weight, eps=1e-6):\n"
        "    return rms_norm_triton(x, weight, eps)\n"
    )
    assert under_triton_interpreter(Subject(load(f"{tmp_path / 'wrapper.py'}:norm")))
    # This test module imports the kernel too, but a target here that does not call it is
    # not Triton code.
    assert not under_triton_interpreter(Subject(dw_summed_in_bfloat16))
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    assert not under_triton_interpreter(Subject(rms_norm_triton))


@pytest.mark.parametrize("wrapped", [False, True], ids=["kernel", "custom op"])
def test_the_rounding_is_not_measured_under_the_interpreter(wrapped):
    # The custom op's module holds Triton objects (JITFunction) but none named triton.
    from snippets.kernel_in_practice import custom_op

    target = custom_op.rms_norm if wrapped else rms_norm_triton
    rounding = one_check(target, checks.check_rounding, convention="float32")
    # Its detail is what the report's header gives as the convention found.
    assert rounding.detail == "not measured under Triton's interpreter"
    assert rounding.passed is None  # told, but cannot be seen here


class ScaledWeightGradient(torch.autograd.Function):
    """The weight unchanged forward; its gradient times `factor` backward."""

    @staticmethod
    def forward(ctx, weight, factor):
        ctx.factor = factor
        return weight.view_as(weight)

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.factor, None


def dw_off_by(ulps):
    """A norm whose weight gradient is `ulps` bfloat16 ulps too large, a float16 one
    right (the interpreter's truncation is bfloat16's)."""

    def norm(x, weight, eps=1e-6):
        off = weight.dtype != torch.float16
        factor = 1 + ulps * torch.finfo(torch.bfloat16).eps * off
        return rms_norm(x, x.shape[-1], ScaledWeightGradient.apply(weight, factor), eps)

    return norm


def test_under_the_interpreter_a_dw_error_past_twice_its_bound_fails(monkeypatch):
    # Its truncation to bfloat16 errs by up to twice rounding's: within that, not judged;
    # past it, the target's error, as a dw summed in bfloat16 row after row (9.6 ulps).
    monkeypatch.setattr(
        "snippets.check.checks.under_triton_interpreter", lambda n: True
    )
    within = verdict(check(dw_off_by(1.5)), "dw")
    assert within.passed is None
    assert "(within the 2 ulps its truncation allows); in float16, error under 1" in (
        within.detail
    )
    assert verdict(check(dw_off_by(4)), "dw").passed is False
    assert verdict(check(dw_summed_in_bfloat16), "dw").passed is False


def no_weight_gradient(x, weight, eps=1e-6):
    return rms_norm(x, x.shape[-1], weight.detach(), eps)


def refuses_mixed_dtypes(x, weight, eps=1e-6):
    if weight.dtype != x.dtype:
        raise TypeError(f"weight must be {x.dtype}, got {weight.dtype}")
    return rms_norm(x, x.shape[-1], weight, eps)


def test_a_weight_without_gradient_fails_dw_and_a_refused_mix_is_reported():
    report = check(no_weight_gradient)
    assert verdict(report, "dw").detail == (
        f"over 4097 rows: in bfloat16 and float16, {checks.NO_WEIGHT_GRADIENT}"
    )
    # Named in the other checks too, not a crash where they read it.
    assert verdict(report, "zero rows").detail == checks.NO_WEIGHT_GRADIENT
    assert ", inf;" in verdict(report, "gradients").detail
    mixed = verdict(check(refuses_mixed_dtypes), "mixed")
    assert mixed.passed is None and mixed.detail.startswith("refuses it (TypeError")
    assert mixed.refused == [mixed.detail]


def weight_gradient_dropped(x, weight, eps=1e-6):
    return GradientDropped.apply(x, weight, eps, "weight")


def test_a_weight_gradient_returned_as_none_is_told_as_one_cause():
    # Found by an adversarial round: zero rows linked the all-zero row, dw said it in
    # words of its own and gradients showed only inf.
    report = check(weight_gradient_dropped)
    for name in ("mixed", "zero rows", "gradients", "dw"):
        said = verdict(report, name)
        assert said.passed is False, name
        assert checks.NO_WEIGHT_GRADIENT in said.detail, name
        assert said.see == "gradients/#a-custom-autograd-function", name
    assert verdict(report, "gradients").detail.startswith(checks.NO_WEIGHT_GRADIENT)


def test_an_input_gradient_returned_as_none_is_told_as_one_cause():
    # Found by an adversarial round: half, gradients and strides said x was cut from the
    # graph, zero rows listed it as an all-zero row's fault, dw said "no input gradient"
    # and mixed "while the weight needs none".
    report = check(input_gradient_dropped)
    for name in ("half", "mixed", "zero rows", "gradients", "dw", "strides"):
        said = verdict(report, name)
        assert said.passed is False, name
        assert checks.CUT_FROM_THE_GRAPH in said.detail, name
        assert "no input gradient" not in said.detail, name
        assert "while the weight needs none" not in said.detail, name
        assert said.see == "gradients/#a-custom-autograd-function", name
    assert verdict(report, "zero rows").detail == checks.CUT_FROM_THE_GRAPH


def dx_only_with_dw(x, weight, eps=1e-6):
    # A path chosen by the weight's requires_grad: a frozen gain cuts x.
    return rms_norm_llama(x if weight.requires_grad else x.detach(), weight, eps)


def dx_dropped_in_half(x, weight, eps=1e-6):
    # A half-precision path of its own that cuts x; float32's reaches it.
    return rms_norm_llama(x if x.dtype == torch.float32 else x.detach(), weight, eps)


@pytest.mark.parametrize(
    "target, run, said",
    [
        (dx_only_with_dw, checks.check_mixed, "no gradient reaches x while the weight"),
        (dx_dropped_in_half, checks.check_dw, "; no input gradient"),
    ],
    ids=["frozen-gain-mixed", "half-only-dw"],
)
def test_an_input_gradient_missing_on_one_path_keeps_its_own_cause(target, run, said):
    found = one_check(target, run)
    assert found.passed is False
    assert said in found.detail
    assert checks.CUT_FROM_THE_GRAPH not in found.detail


def add_normalizing_the_residual(x, residual, weight, eps=1e-6):
    # y from the old stream, not from h (found by an adversarial round: told its weight
    # was one kept from an earlier call).
    return rms_norm(residual, residual.shape[-1], weight, eps), x + residual


def test_a_fused_add_normalizing_the_residual_alone_is_told_so():
    (form,) = check(add_normalizing_the_residual, add=True).verdicts
    assert form.check == "form" and form.passed is False
    assert "y is not the norm of h = x + residual" in form.detail, form.detail
    assert form.see == "kernel/#fused-with-the-residual-add"


def add_dropping_the_weights_gradient(x, residual, weight, eps=1e-6):
    h = x + residual
    return GradientDropped.apply(h, weight, eps, "weight"), h


def test_a_fused_adds_weight_gradient_returned_as_none_is_told_as_one_cause():
    # Found by an adversarial round: mixed, zero rows, gradients and dw said it, add
    # grads showed only inf and linked the fused add.
    report = check(add_dropping_the_weights_gradient, add=True)
    for name in ("mixed", "zero rows", "gradients", "dw", "add grads"):
        said = verdict(report, name)
        assert said.passed is False, name
        assert checks.NO_WEIGHT_GRADIENT in said.detail, name
        assert said.see == "gradients/#a-custom-autograd-function", name
    assert verdict(report, "add grads").detail.startswith(checks.NO_WEIGHT_GRADIENT)


def weightless(x, eps=1e-6):
    return F.rms_norm(x, (x.shape[-1],), eps=eps)


def test_an_optional_gain_named_as_flax_names_it_is_the_gain_checked():
    def scale_read_as_its_magnitude(x, scale=None, eps=1e-6):
        # A Flax-style port: the gain optional, and wrong where it is below zero.
        y = rms_norm(x, x.shape[-1], None, eps)
        return y if scale is None else y * scale.abs().to(y.dtype)

    assert not Subject(scale_read_as_its_magnitude).weightless
    assert "forward" in failing(scale_read_as_its_magnitude)


def test_a_norm_without_a_gain_is_checked_with_one_applied_after_it():
    report = check(weightless)
    assert report.passed, report.table()
    assert report.conventions["weight"].startswith("no parameter of its own")
    assert "buffer" not in report.conventions["weight"]
    # A gain registered as a buffer, which no optimizer trains: init fails it, and the
    # header names the buffer.
    report = check(GainInABuffer)
    assert [v.check for v in report.verdicts if v.passed is False] == ["init"]
    assert "not an nn.Parameter" in verdict(report, "init").detail
    said = report.conventions["weight"]
    assert said.startswith("no parameter of its own, its buffer weight (see init)")


def eps_required(x, weight, eps):
    return F.rms_norm(x, (x.shape[-1],), weight, eps)


def test_a_required_eps_is_asked_for_by_its_option():
    with pytest.raises(UsageError, match="requires eps: pass it with --eps VALUE"):
        check(eps_required)
    assert check(eps_required, eps=1e-6).passed


def normalized_and_scaled(x, weight):
    # x-transformers' form: F.normalize clamps the norm (at 1e-12) instead of adding eps.
    return weight * F.normalize(x, dim=-1) * x.shape[-1] ** 0.5


def rstd_cast_to_the_inputs_dtype(x, weight, eps=1e-12):
    # eps added in float32, but 1 / sqrt(eps) = 1e6 cast to float16 is inf: 0 * inf.
    rstd = torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps)
    return x * rstd.to(x.dtype) * weight


def test_a_float16_zero_row_names_an_eps_that_rounds_to_0_in_the_backward():
    def eps_read_in_the_inputs_dtype(x, weight, eps=1e-8):
        return BackwardSlip.apply(x, weight, "eps read in x's dtype", eps)

    zero = one_check(eps_read_in_the_inputs_dtype, checks.check_zero_rows)
    assert zero.detail.startswith("all-zero row in float16: input gradient not finite")
    assert (
        "eps, 1e-08, rounded to float16 is 0, where a backward reads it" in zero.detail
    )


def first_rows_unwritten_in_wide_float16_batches(x, weight, eps=1e-6):
    # A float16 kernel for large batches of wide rows that leaves its first block of 128
    # rows unwritten (zeros); the rows tried, last in the batch, come out right.
    y = F.rms_norm(x.float(), x.shape[-1:], weight.float(), eps).to(x.dtype)
    rows_in = y.reshape(-1, y.shape[-1])
    if x.dtype == torch.float16 and len(rows_in) > 200 and x.shape[-1] == 4096:
        rows_in[:128] = 0
    return y


def test_half_names_a_large_batchs_other_rows_when_they_alone_are_wrong():
    half = one_check(first_rows_unwritten_in_wide_float16_batches, checks.check_half)
    assert half.passed is False
    assert "on the batch's other rows (of RMS 1) (all lost), of 4096 features" in (
        half.detail
    )
    assert (
        "the rows tried, last in the batch, right: rows left unwritten" in half.detail
    )
    assert half.see == "check/#check-half"


class AddBackwardSlip(torch.autograd.Function):
    """A fused add, right in its forward; its backward with one slip in the residual
    stream's gradient dh, `slip`."""

    @staticmethod
    def forward(ctx, x, residual, weight, eps, slip):
        ctx.set_materialize_grads(False)  # dh is None where h is unused
        h = x + residual
        ctx.save_for_backward(h, weight)
        ctx.eps, ctx.slip, ctx.x_dtype = eps, slip, x.dtype
        return F.rms_norm(h, h.shape[-1:], weight, eps), h

    @staticmethod
    def backward(ctx, dy, dh):
        h, weight = ctx.saved_tensors
        dx, dw = rms_norm_gradients(h, weight, ctx.eps, dy)
        if dh is None:  # h unused, as after the last layer
            dropped = ctx.slip == "no residual gradient without dh"
            return dx, None if dropped else dx, dw, None, None
        past_1024_rows = h.reshape(-1, h.shape[-1]).shape[0] > 1024
        # A float32 stream's dh, beside bfloat16 x (found by an adversarial round).
        another_dtype = dh.dtype != ctx.x_dtype
        if not (ctx.slip == "dh dropped past 1024 rows" and past_1024_rows) and not (
            ctx.slip == "dh of another dtype than x's dropped" and another_dtype
        ):
            dx = dx + dh
        return dx, dx, dw, None, None


def add_dropping_the_stream_without_dh(x, residual, weight, eps=1e-6):
    return AddBackwardSlip.apply(
        x, residual, weight, eps, "no residual gradient without dh"
    )


def add_dropping_a_float32_streams_dh(x, residual, weight, eps=1e-6):
    return AddBackwardSlip.apply(
        x, residual, weight, eps, "dh of another dtype than x's dropped"
    )


def add_reading_x_from_its_storage_start(x, residual, weight, eps=1e-6):
    # A kernel given x's pointer without its offset: a row cut from a batch is read from
    # the batch's first row (found by an adversarial round: --add passed it copies at
    # offset 0).
    x = x.as_strided(x.size(), x.stride(), 0)
    h = x + residual
    return rms_norm(h, h.shape[-1], weight, eps), h


def add_dropping_the_residual_with_a_float16_weight(x, residual, weight, eps=1e-6):
    # A float16 model's path that loses the residual (an expert read of the Check page
    # found every half-precision case given a float32 weight but bfloat16's).
    h = x if weight.dtype == torch.float16 else x + residual
    return rms_norm(h, h.shape[-1], weight, eps), h


def add_normalizing_x_when_served_in_half(x, residual, weight, eps=1e-6):
    # A half-precision serving kernel that normalizes x, not the sum it returns.
    served = torch.is_inference_mode_enabled() and x.dtype != torch.float32
    h = x + residual
    return rms_norm(x if served else h, h.shape[-1], weight, eps), h


class Float32BackwardRefusingManyRows(torch.autograd.Function):
    """A backward whose float32 path refuses past 1024 rows; half paths take any."""

    @staticmethod
    def forward(ctx, x, weight, eps):
        ctx.save_for_backward(x, weight)
        ctx.eps = eps
        return F.rms_norm(x.float(), x.shape[-1:], weight.float(), eps).to(x.dtype)

    @staticmethod
    def backward(ctx, dy):
        x, weight = ctx.saved_tensors
        if x.dtype == torch.float32 and x.reshape(-1, x.shape[-1]).shape[0] > 1024:
            raise ValueError("float32 backward: at most 1024 rows")
        return *rms_norm_gradients(x, weight, ctx.eps, dy), None


def test_gradients_reports_a_backward_refusing_4097_float32_rows():
    def refusing(x, weight, eps=1e-6):
        return Float32BackwardRefusingManyRows.apply(x, weight, eps)

    grads = one_check(refusing, checks.check_gradients)
    said = "refuses 4097 rows (ValueError: float32 backward: at most 1024 rows)"
    assert grads.passed is True and said in grads.detail
    assert grads.refused == [said]


def test_add_grads_judges_a_batch_of_4097_rows():
    def add_dropping_dh_past_1024_rows(x, residual, weight, eps=1e-6):
        return AddBackwardSlip.apply(
            x, residual, weight, eps, "dh dropped past 1024 rows"
        )

    grads = one_check(add_dropping_dh_past_1024_rows, add.check_add_grads, AddSubject)
    assert grads.passed is False and "; 4097 rows: " in grads.detail


def test_a_float16_zero_row_names_an_rstd_past_float16s_range_as_a_cause():
    zero = one_check(rstd_cast_to_the_inputs_dtype, checks.check_zero_rows)
    assert zero.passed is False
    assert zero.detail.startswith("all-zero row in float16: output not zeros")
    assert "or an rstd cast to x's dtype, 1 / sqrt(eps) = 1e+06 here, past" in (
        zero.detail
    )


def test_eps_as_a_clamp_on_the_norm_passes_but_not_its_float16_zero_row():
    report = check(normalized_and_scaled)
    assert report.conventions["eps placement"].startswith("none added")
    assert verdict(report, "eps").passed
    # In float16 F.normalize's clamp, 1e-12, rounds to 0: an all-zero row gives NaN.
    half = verdict(report, "half").detail
    assert half.startswith(
        "float16 wrong (error inf ulp, out float16, on the all-zero row (not finite)"
    )
    assert verdict(report, "zero rows").detail.startswith(
        "all-zero row in float16: output not zeros, input gradient not finite"
    )
    assert verdict(report, "zero rows").detail.endswith(
        " (right in float32 and bfloat16: an eps or clamp too small for float16, which"
        " rounds it to 0?)"
    )
    assert failing(normalized_and_scaled) == {"half", "zero rows"}


class ChannelFirstRMSNorm(torch.nn.Module):
    """RMSNorm over dim 1 of (batch, channels, height, width), as in diffusion models."""

    def __init__(self, channels, eps=1e-6):
        super().__init__()
        self.eps, self.weight = eps, torch.nn.Parameter(torch.ones(channels))

    def forward(self, x):
        inv_r = x.float().pow(2).mean(1, keepdim=True).add(self.eps).rsqrt()
        return (x.float() * inv_r).to(x.dtype) * self.weight[None, :, None, None]


def test_a_channel_first_norm_is_checked_at_dim_1_and_told_so_otherwise():
    with pytest.raises(UsageError, match=r"x of shape \(rows, 64\).*pass --dim 1"):
        check(ChannelFirstRMSNorm)
    report = check(ChannelFirstRMSNorm, dim=1)
    assert report.passed, report.table()
    assert report.conventions["dim"] == "1 (channel-first)"
    # Every shape reached it as (N, C, H, W): the shapes line says so.
    shapes = "1-D, 3-D and 4-D inputs, each given as (N, C, H, W), agree"
    assert verdict(report, "shapes").detail.startswith(shapes)


class ChannelFirstOverEveryDim(ChannelFirstRMSNorm):
    """A slip: the mean square over channels, height and width, not channels alone."""

    def forward(self, x):
        inv_r = x.float().pow(2).mean((1, 2, 3), keepdim=True).add(self.eps).rsqrt()
        return (x.float() * inv_r).to(x.dtype) * self.weight[None, :, None, None]


def test_a_channel_first_statistic_over_more_dims_is_named():
    # Rows reach it as positions of images: the first, two rows as (1, C, 2, 1).
    form = verdict(check(ChannelFirstOverEveryDim, dim=1), "form")
    assert form.passed is False and form.detail == (
        "divides x by one RMS over an image's channels and positions, not one per"
        " position, not by the RMS"
    )


class RankGenericChannelFirstRMSNorm(ChannelFirstRMSNorm):
    """Over dim 1 of any rank: on 2-D rows dim 1 is the last, so it fails only past them."""

    def forward(self, x):
        inv_r = x.float().pow(2).mean(1, keepdim=True).add(self.eps).rsqrt()
        shape = [1, -1] + [1] * (x.dim() - 2)
        return (x.float() * inv_r).to(x.dtype) * self.weight.view(shape)


def test_a_channel_first_norm_right_on_2d_rows_is_told_dim_1_where_it_crashes():
    report = check(RankGenericChannelFirstRMSNorm)
    half = verdict(report, "half")
    assert half.passed is False and half.detail.endswith("? pass --dim 1")
    # Forward's output of another shape, and shapes' calls that raise, say so too (found
    # by an adversarial round: the first failures named no cause).
    for name in ("forward", "shapes", "strides"):
        assert verdict(report, name).detail.endswith("? pass --dim 1"), name
    assert check(RankGenericChannelFirstRMSNorm, dim=1).passed


class ChannelFirstBackwardWithoutUpcast(torch.autograd.Function):
    """Its backward recomputes the statistic in x's dtype: float16's squares overflow."""

    @staticmethod
    def forward(ctx, x, weight, eps):
        ctx.save_for_backward(x, weight)
        ctx.eps = eps
        inv_r = x.float().pow(2).mean(1, keepdim=True).add(eps).rsqrt()
        return (x.float() * inv_r * weight.float()[None, :, None, None]).to(x.dtype)

    @staticmethod
    def backward(ctx, g):
        x, weight = ctx.saved_tensors
        inv_r = x.pow(2).mean(1, keepdim=True).add(ctx.eps).rsqrt().float()
        x_hat, g = x.float() * inv_r, g.float()
        g_w = g * weight.float()[None, :, None, None]
        dx = inv_r * (g_w - x_hat * (g_w * x_hat).mean(1, keepdim=True))
        dw = (g * x_hat).sum((0, 2, 3))
        return dx.to(x.dtype), dw.to(weight.dtype), None


class ChannelFirstWrongPastOnePosition(ChannelFirstRMSNorm):
    """Right on (N, C, 1, 1); past one position, the backward above (found by an
    adversarial round: every input reached a channel-first target as (N, C, 1, 1))."""

    def forward(self, x):
        if x.shape[2] * x.shape[3] == 1:
            return super().forward(x)
        return ChannelFirstBackwardWithoutUpcast.apply(x, self.weight, self.eps)


class ChannelFirstWrongPastOneImage(ChannelFirstRMSNorm):
    """Served in half precision, a kernel that finds image n at n * C, not n * C * H * W:
    right on one image, or on images of one position."""

    def forward(self, x):
        half = x.dtype in (torch.float16, torch.bfloat16)
        if not half or torch.is_grad_enabled() and x.requires_grad:
            return super().forward(x)
        (n, c), positions = x.shape[:2], x[0, 0].numel()
        read = x.contiguous().view(-1).as_strided((n, c, positions), (c, positions, 1))
        y = super().forward(read[..., None])[..., 0]
        out = torch.zeros(x.numel(), dtype=x.dtype)
        out.as_strided((n, c, positions), (c, positions, 1)).copy_(y)
        return out.view(x.shape)


@pytest.mark.parametrize(
    "target", [ChannelFirstWrongPastOnePosition, ChannelFirstWrongPastOneImage]
)
def test_a_channel_first_norm_wrong_past_one_position_or_image_fails_half(target):
    # Rows reach it as positions of images, several of each where they can.
    half = verdict(check(target, dim=1), "half")
    assert half.passed is False and "float16 wrong" in half.detail


class ChannelFirstWritingHeightAndWidthSwapped(ChannelFirstRMSNorm):
    """Normalizes positions read in (width, height) order, written back in (height, width)
    order: every image with both above 1 comes out transposed."""

    def forward(self, x):
        n, c, h, w = x.shape
        rows = x.permute(0, 3, 2, 1).reshape(-1, c, 1, 1)
        y = super().forward(rows)
        return y.reshape(n, h, w, c).permute(0, 3, 1, 2)


def test_a_channel_first_norm_that_moves_positions_is_not_told_of_its_statistic():
    shapes = verdict(check(ChannelFirstWritingHeightAndWidthSwapped, dim=1), "shapes")
    assert shapes.passed is False
    assert shapes.detail.endswith(
        "(outputs put back at other positions: height and width swapped?)"
    )


class ChannelFirstOverChannelsAndWidth(ChannelFirstRMSNorm):
    """A slip: the mean square over channels and width, each row of positions apart."""

    def forward(self, x):
        inv_r = x.float().pow(2).mean((1, 3), keepdim=True).add(self.eps).rsqrt()
        return (x.float() * inv_r).to(x.dtype) * self.weight[None, :, None, None]


class ChannelFirstWithoutEpsPastOneColumn(ChannelFirstRMSNorm):
    """Right, but images of height and width past 1 go through a path without eps."""

    def forward(self, x):
        if x.shape[-2] > 1 and x.shape[-1] > 1:
            inv_r = x.float().pow(2).mean(1, keepdim=True).rsqrt()
            return (x.float() * inv_r).to(x.dtype) * self.weight[None, :, None, None]
        return super().forward(x)


def qk_norm_path_without_eps(x, weight, eps=1e-6):
    # QK-norm's 4-D call through F.rms_norm, its eps forgotten (finfo's taken).
    if x.dim() == 4:
        return F.rms_norm(x, x.shape[-1:], weight)
    return rms_norm(x, x.shape[-1], weight, eps)


def test_a_path_of_its_own_that_keeps_rows_apart_is_not_called_a_statistic():
    # Found by an adversarial round: shapes named a statistic over more dims, or a
    # height-width swap, where the rows were kept apart and computed otherwise, and
    # half's own finding (another eps) was put down to it.
    said = (
        "(rows kept apart: a path of its own for these inputs that computes otherwise"
    )
    report = check(qk_norm_path_without_eps)
    assert said in verdict(report, "shapes").detail
    half = verdict(report, "half")
    assert (
        "another eps in float16" in half.detail and "shapes' cause" not in half.detail
    )
    shapes = verdict(check(ChannelFirstWithoutEpsPastOneColumn, dim=1), "shapes")
    assert said in shapes.detail and "swapped" not in shapes.detail


def add_in_llamas_order(x, residual, weight, eps=1e-6):
    # LLaMA's norm on the sum: x / RMS rounded to x's dtype before a float32 gain, so
    # beside a float32 stream the norm's gradient comes back through that rounding.
    h = x + residual
    hf = h.float()
    normed = hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + eps)
    return weight * normed.to(x.dtype), h


def test_a_fused_add_in_llamas_order_beside_a_float32_stream_passes():
    # Found by an adversarial round: its stream's gradient was judged within 1e-4 with
    # dy too, where LLaMA's rounding legitimately reaches it; now with dh alone.
    grads = verdict(check(add_in_llamas_order, add=True), "add grads")
    assert grads.passed, grads.detail
    assert "the stream's from dh alone (bound 0.0001): 0.0e+00" in grads.detail


def test_a_channel_first_statistic_over_the_width_too_is_named_not_a_swap():
    # Rows apart at width 1, it passes every check but those past it; found by an
    # adversarial round: shapes said height and width swapped, half the upcast.
    report = check(ChannelFirstOverChannelsAndWidth, dim=1)
    shapes, half = verdict(report, "shapes"), verdict(report, "half")
    assert shapes.detail.endswith("(a statistic over more than dim 1, the channels?)")
    assert half.passed is False and half.see == shapes.see


def fused_add_with_the_weight_before_the_residual(x, weight, residual, eps=1e-6):
    # flash-attn's order; it fails here, to show the call the checker made.
    raise RuntimeError("CUDA tensors required")


def test_under_the_interpreter_a_convention_of_the_other_gain_fails_and_bfloat16_is_not_compared(
    monkeypatch,
):
    # The gain is measured in float32, which the interpreter runs faithfully; its
    # bfloat16, truncated, is not the kernel's (found by an adversarial round).
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    report = check(rms_norm_triton, convention="gemma")
    assert verdict(report, "rounding").passed is False
    assert (
        verdict(report, "rounding").detail
        == "told gemma (gain 1 + w), but the gain is w"
    )
    assert "torch.nn.RMSNorm bfloat16 not compared under Triton's interpreter" in (
        verdict(report, "agreement").detail
    )


def test_a_fused_add_that_fails_is_shown_called_by_name_where_it_is():
    with pytest.raises(UsageError) as error:
        check(fused_add_with_the_weight_before_the_residual, add=True)
    called = "calling it as norm(x, residual=residual, weight=weight, eps=1e-06), x of"
    assert str(error.value).startswith(called)


class ContiguousChannelFirstRMSNorm(ChannelFirstRMSNorm):
    """An NCHW kernel's wrapper: contiguous (N, C, H, W) input or a clear error."""

    def forward(self, x):
        if x.dim() != 4 or not x.is_contiguous():
            raise ValueError("x must be a contiguous (N, C, H, W) tensor")
        return super().forward(x)


def test_a_channel_first_kernel_gets_contiguous_nchw_input_and_a_hint():
    report = check(ContiguousChannelFirstRMSNorm, dim=1)
    assert report.passed, report.table()
    strides = verdict(report, "strides")
    assert strides.passed is None  # strided input refused, reported
    # Each refusal once, with the dtypes it came in, its error whole within its brackets.
    assert strides.detail == (
        "refuses every other element in float32, bfloat16 and float16 (ValueError: x"
        " must be a contiguous (N, C, H, W) tensor); rows spaced apart in float32,"
        " bfloat16 and float16 (ValueError: x must be a contiguous (N, C, H, W) tensor);"
        " a transposed batch in float32, bfloat16 and float16 (ValueError: x must be a"
        " contiguous (N, C, H, W) tensor)"
    )
    assert len(strides.refused) == 3 and report.refusals[-1].startswith(
        "strides: refuses a transposed batch in float32, bfloat16 and float16"
    )
    with pytest.raises(UsageError, match="pass --dim 1"):  # its error names no shape
        check(ContiguousChannelFirstRMSNorm)


def vectorized_by_eight(x, weight, eps=1e-6):
    if x.shape[-1] % 8:
        raise ValueError(f"hidden size must be a multiple of 8, got {x.shape[-1]}")
    return F.rms_norm(x, x.shape[-1:], weight, eps)


def test_a_1_plus_w_backward_that_forgets_the_1_is_named_so():
    gradients = verdict(
        check(with_backward_slip("1 + w: dx by w, its 1 forgotten")), "gradients"
    )
    assert gradients.passed is False and gradients.see == "gradients/#the-derivation"
    assert "multiplies the upstream gradient by w, not by the gain 1 + w" in (
        gradients.detail
    )


def test_a_wrong_input_gradient_links_the_pitfall_and_says_the_bound():
    report = check(backward_without_r)
    gradients = verdict(report, "gradients")
    assert gradients.passed is False
    assert gradients.see == "pitfalls/#a-backward-pass-that-forgets-r"
    assert "(bound 1e-4)" in gradients.detail
    # forward, read first, fails on autocast's input gradient alone: it says gradients
    # fails too and links the pitfall, not the definition its outputs meet.
    note = "gradients fails too, a likely cause: read it first"
    forward = verdict(report, "forward")
    assert forward.passed is False and "under autocast, the input gradient" in (
        forward.detail
    )
    assert forward.see == gradients.see and forward.detail.endswith(note)
    # The other failures in a gradient say so too, their links kept (they may also judge
    # the weight's gradient).
    others = [v for v in report.verdicts if v.check in ("mixed", "dw", "sizes")]
    assert any(v.passed is False for v in others)
    for other in others:
        if other.passed is False:
            assert other.detail.endswith(note) and other.see.startswith("gradients/")
    assert verdict(check(eps_twice), "forward").see == ("math/#the-rmsnorm-definition")
    # With the upcast, half fails in the input gradient alone: it points at gradients.
    half = verdict(check(upcast_backward_without_r), "half")
    assert half.passed is False and half.see == gradients.see
    assert half.detail.endswith(note)


@pytest.mark.parametrize("eps", [1e-6, 1e-5])
def test_failures_an_eps_added_twice_causes_point_to_eps(eps):
    """An ε added twice fails eps (read as one ε inside the root near the declared one, or
    as two) and forward, and may fail gradients and sizes, whose links name other causes:
    each that fails says eps fails too. A norm whose only failure is eps gets no note."""

    def twice(x, weight, eps=eps):
        return weight * x / (torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps) + eps)

    report = check(twice)
    note = "; eps fails too, a likely cause: read it first"
    failed = {v.check for v in report.verdicts if v.passed is False}
    assert {"eps", "forward"} <= failed, report.table()
    for v in report.verdicts:
        blamed = v.check in failed & {"forward", "gradients", "sizes"}
        assert v.detail.endswith(note) == blamed
    assert not any(note in v.detail for v in check(rms_norm_paper_code).verdicts)


def test_wrong_rows_are_named_as_a_range_when_they_run_on():
    assert checks.wrong_rows([0, 1, 2], 5) == "wrong on 3 of 5 rows (rows 0 to 2)"
    assert checks.wrong_rows([0, 4], 5) == (
        "wrong on 2 of 5 rows (the first wrong row 0, the last 4)"
    )


def test_a_clearly_refused_size_is_reported_not_failed():
    report = check(vectorized_by_eight)
    assert report.passed, report.table()
    sizes = verdict(report, "sizes")
    assert (
        sizes.passed and "refuses 769 features (ValueError: hidden size" in sizes.detail
    )


def narrow_rows_only(x, weight, eps=1e-6):
    if x.shape[-1] > 1024:
        raise ValueError(f"at most 1024 features, got {x.shape[-1]}")
    return F.rms_norm(x, x.shape[-1:], weight, eps)


def test_a_clearly_refused_model_width_is_reported_by_forward_and_half():
    # As sizes reports 1025 and 3584 refused, not a crash named after another call's input.
    report = check(narrow_rows_only)
    assert report.passed, report.table()
    for name in ("forward", "half", "sizes"):
        assert (
            "features (ValueError: at most 1024 features"
            in verdict(report, name).detail
        )
    # Listed together too, for a CI that needs the norm checked at every width.
    said = "(ValueError: at most 1024 features, got 4096)"
    assert report.refusals == [
        f"forward: refuses 4096 features {said}",
        f"half: refuses 4096 features {said}",
        "sizes: refuses 1025 features (ValueError: at most 1024 features, got 1025)",
        "sizes: refuses 3584 features (ValueError: at most 1024 features, got 3584)",
    ]


def test_strict_fails_a_norm_that_refuses_an_input_and_lists_the_refusals(tmp_path):
    (tmp_path / "narrow.py").write_text(
        "import torch.nn.functional as F\n\n"
        "def norm(x, weight, eps=1e-6):\n"
        "    if x.shape[-1] > 1024:\n"
        "        raise ValueError(f'at most 1024 features, got {x.shape[-1]}')\n"
        "    return F.rms_norm(x, x.shape[-1:], weight, eps)\n"
    )
    target = f"{tmp_path / 'narrow.py'}:norm"
    assert in_process(target)[0] == 0  # refusals reported, not failed
    status, printed, _ = in_process(target, "--strict")
    assert status == 1
    assert printed.endswith(
        "failed under --strict: it refuses forward: 4096 features (ValueError: at most"
        " 1024 features, got 4096); half: 4096 features (ValueError: at most 1024"
        " features, got 4096); sizes: 1025 features (ValueError: at most 1024 features,"
        " got 1025); sizes: 3584 features (ValueError: at most 1024 features, got 3584)\n"
    )
    status, printed, _ = in_process(target, "--strict", "--json")
    verdicts = json.loads(printed)
    assert status == 1 and verdicts["passed"] is False
    assert len(verdicts["refusals"]) == 4
    site = "snippets.implementations.rms_norm_module:RMSNorm"
    assert in_process(site, "--strict")[0] == 0  # nothing refused: strict passes it


def asserts_narrow_rows(x, weight, eps=1e-6):
    assert x.shape[-1] <= 1024
    return F.rms_norm(x, x.shape[-1:], weight, eps)


def test_a_crash_at_a_model_width_names_that_call():
    forward = verdict(check(asserts_narrow_rows), "forward")
    assert forward.passed is False
    assert "(its last call: x of shape (1, 4096) in float32)" in forward.detail
    assert forward.see == "check/#check-forward"  # the crashing check's section


def mean_square_without_keepdim(x, weight, eps=1e-6):
    return (
        weight * x * torch.rsqrt(x.pow(2).mean(-1) + eps)
    )  # (rows,) against (rows, n)


def test_a_shape_error_is_told_to_pass_dim_1_only_where_dim_1_runs():
    with pytest.raises(UsageError, match="must match the size") as raised:
        check(mean_square_without_keepdim)
    assert "--dim 1" not in str(raised.value)
    # A norm over the last dimension given channel-first inputs is refused, not passed.
    with pytest.raises(UsageError, match=r"x of shape \(images, 64, positions, 1\)"):
        check(RMSNorm, dim=1)


def written_for_three_dims(x, weight, eps=1e-6):
    _, _, channels = x.shape  # B, T, C: as nanoGPT-style code reads it
    return F.rms_norm(x, (channels,), weight, eps)


def test_a_norm_written_for_one_rank_is_told_to_read_the_last_size():
    with pytest.raises(UsageError, match=r"unpacks x's shape.*x\.shape\[-1\]"):
        check(written_for_three_dims)


def statistic_over_dim_2(x, weight, eps=1e-6):
    h = x.float()  # (batch, tokens, features) in mind: the 2-D rows have no dim 2
    h = h * torch.rsqrt(h.pow(2).mean(dim=2, keepdim=True) + eps)
    return (h * weight.float()).to(x.dtype)


def test_a_statistic_over_a_fixed_dim_is_told_to_use_the_last():
    with pytest.raises(UsageError, match=r"indexes a fixed dim.*mean\(dim=-1\)"):
        check(statistic_over_dim_2)


def make_norm(hidden_size):
    return torch.nn.RMSNorm(hidden_size, eps=1e-6)


def test_a_function_that_builds_the_norm_is_told_to_pass_factory():
    # Called as norm(x) (one required argument, no weight), it takes x for the size.
    expected = r"calling it as norm\(x\), .*if it builds the norm, pass --factory$"
    with pytest.raises(UsageError, match=expected):
        check(make_norm)
    assert check(make_norm, factory=True).passed


def command(*args):
    return python_module("snippets.check", *args)


def in_process(*args) -> tuple[int, str, str]:
    """main(args)'s exit status and what it printed: the command's logic without starting
    Python (test_exit_status_1_names_the_failing_check starts it, `python -m snippets.check`,
    and the one-file checker's test runs the downloaded file)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return status, out.getvalue(), err.getvalue()


def test_help_keeps_its_addresses_whole_and_gives_the_exit_statuses(monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")  # a narrow terminal wrapped them at a hyphen
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(["--help"])
    shown = out.getvalue()
    assert f"{SITE}pitfalls/" in shown and f"{SITE}check/#the-checks" in shown
    assert "0 when every required check passes, 1 when one fails" in shown


def test_exit_status_0_when_every_check_passes():
    status, printed, errors = in_process(
        "snippets.implementations.rms_norm_module:RMSNorm"
    )
    assert status == 0, errors
    assert "FAIL" not in printed and "pass  eps" in printed


def test_exit_status_1_names_the_failing_check(tmp_path):
    (tmp_path / "mine.py").write_text(
        "import torch\n\n"
        "def norm(x, weight, eps=1e-8):\n"
        "    return weight * x / (x.pow(2).mean(-1, keepdim=True).sqrt() + eps)\n"
    )
    result = command(f"{tmp_path / 'mine.py'}:norm")
    assert result.returncode == 1
    assert (
        "FAIL  eps" in result.stdout
        and "pitfalls/#running-a-checkpoint" in result.stdout
    )
    verdicts = json.loads(in_process(f"{tmp_path / 'mine.py'}:norm", "--json")[1])
    assert verdicts["passed"] is False
    # What it found besides the verdicts: the target and its conventions (eps outside).
    assert set(verdicts) >= {"target", "conventions", "verdicts", "passed", "refusals"}
    assert verdicts["target"].endswith("mine.py:norm"), verdicts["target"]
    failed = [v["check"] for v in verdicts["verdicts"] if v["passed"] is False]
    # Also half and zero rows: eps = 1e-8 rounds to 0 in float16, and 0 / 0 is NaN.
    assert failed == ["eps", "half", "zero rows"]
    # --lang ko: the same failures, linked to the Korean pages.
    printed = in_process(f"{tmp_path / 'mine.py'}:norm", "--lang", "ko")[1]
    assert f"see {SITE}ko/pitfalls/#running-a-checkpoint" in printed


@pytest.mark.parametrize(
    "target",
    [
        "no_such_module:Norm",
        "snippets.implementations.variants:nothing",
        "torch:pi",
        "torch",
    ],
)
def test_exit_status_2_for_a_target_that_cannot_be_used(target):
    status, _, errors = in_process(target)
    assert status == 2 and "usage error" in errors


def test_a_class_that_is_no_module_is_named_so_not_called_as_a_function():
    status, _, errors = in_process("fractions:Fraction")
    assert status == 2 and "usage error" in errors
    assert "Fraction is a class but not a torch.nn.Module subclass" in errors


@pytest.mark.parametrize(
    "source, error",
    [("undefined_name\n", "NameError"), ("def f(:\n", "SyntaxError")],
)
def test_exit_status_2_for_a_file_that_raises_on_import(tmp_path, source, error):
    broken = tmp_path / "broken.py"
    broken.write_text(source)
    status, _, errors = in_process(f"{broken}:norm")
    assert status == 2 and "usage error: cannot import" in errors and error in errors
    if error == "SyntaxError":  # where, in words, not the error's tuple
        assert f"SyntaxError in {broken}, line 1: invalid syntax" in errors, errors


def test_a_missing_file_or_name_is_said_plainly(tmp_path):
    status, _, errors = in_process(f"{tmp_path / 'mine.py'}:Norm")
    assert status == 2 and f"no file {tmp_path / 'mine.py'} (a path from" in errors
    (tmp_path / "mine.py").write_text(
        "import torch\n\nclass MyRMSNorm(torch.nn.Module):\n    pass\n\n"
        "def _helper():\n    pass\n"
    )
    status, _, errors = in_process(f"{tmp_path / 'mine.py'}:MyRmsNorm")
    assert status == 2 and "has no 'MyRmsNorm'; it defines MyRMSNorm\n" in errors, (
        errors
    )
    status, _, errors = in_process(str(tmp_path / "mine.py"))  # the name left out
    assert status == 2 and "after a colon; it defines MyRMSNorm\n" in errors, errors


def test_a_dotted_name_reaches_a_static_method_or_a_nested_class(tmp_path):
    # Found by an adversarial round: Norms.rms was told the file has no 'Norms.rms'.
    (tmp_path / "norms.py").write_text(
        "class Norms:\n    class Inner:\n        pass\n\n"
        "    @staticmethod\n    def rms(x, weight, eps=1e-6):\n        return x\n"
    )
    file = tmp_path / "norms.py"
    assert load(f"{file}:Norms.rms").__name__ == "rms"
    assert load(f"{file}:Norms.Inner").__name__ == "Inner"
    with pytest.raises(UsageError, match="Norms.Inner has no 'rms'$"):
        load(f"{file}:Norms.Inner.rms")


class LazyRMSNorm(torch.nn.modules.lazy.LazyModuleMixin, torch.nn.Module):
    """Its gain's size taken from the first input (found by an adversarial round: the
    checker crashed reading the uninitialized parameter's shape, exit status 1)."""

    cls_to_become = None

    def __init__(self, eps=1e-6):
        super().__init__()
        self.eps, self.weight = eps, torch.nn.parameter.UninitializedParameter()

    def initialize_parameters(self, x):
        with torch.no_grad():
            self.weight.materialize((x.shape[-1],))
            self.weight.fill_(1.0)

    def forward(self, x):
        return rms_norm(x, x.shape[-1], self.weight, self.eps)


class ChannelRMSNorm1d(torch.nn.Module):
    """Channel-first for (N, C, L) alone, its gain viewed as (1, C, 1) (found by an
    adversarial round: with --dim 1 told only that a mean lost keepdim=True)."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.eps, self.weight = eps, torch.nn.Parameter(torch.ones(n))

    def forward(self, x):
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(1, keepdim=True) + self.eps)
        return (h * self.weight.float().view(1, -1, 1)).to(x.dtype)


def test_a_channel_first_gain_shaped_for_3d_input_is_told_so():
    with pytest.raises(UsageError, match="a weight shaped for 3-D \\(N, C, L\\) input"):
        check(ChannelRMSNorm1d, dim=1)


def test_a_lazy_module_is_a_usage_error_that_names_the_factory():
    with pytest.raises(
        UsageError, match="uninitialized \\(a lazy module\\).*--factory"
    ):
        check(LazyRMSNorm)


class LogGainRMSNorm(torch.nn.Module):
    """Right, its gain kept as its log (exp(0) = 1 at weight 0, as a gain 1 + w gives):
    found by an adversarial round, taken for 1 + w and failed in seven checks."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.eps, self.log_gain = eps, torch.nn.Parameter(torch.zeros(n))

    def forward(self, x):
        return rms_norm(x, x.shape[-1], self.log_gain.exp(), self.eps)


def test_a_gain_kept_as_its_log_is_a_usage_error_not_a_1_plus_w():
    with pytest.raises(UsageError, match="by 2.718, not 2: its parameter is neither"):
        check(LogGainRMSNorm)


def test_json_reports_a_usage_error_as_json_with_status_2():
    status, printed, _ = in_process("no_such_module:Norm", "--json")
    assert status == 2 and "cannot import" in json.loads(printed)["usage_error"]


def test_a_built_in_without_a_readable_signature_is_a_usage_error():
    # torch.rms_norm is a C function: Python cannot tell what it takes.
    status, printed, _ = in_process("torch:rms_norm", "--json")
    error = json.loads(printed)["usage_error"]
    assert status == 2 and "cannot read the parameters of rms_norm" in error
    assert "wrap it in a Python function" in error


def test_an_instance_is_a_usage_error_that_names_the_class(tmp_path):
    # Callable, so it would otherwise be called as norm(x, weight), x twice.
    source = tmp_path / "built.py"
    source.write_text("import torch\n\nnorm = torch.nn.RMSNorm(64)\n")
    status, printed, _ = in_process(f"{source}:norm", "--json")
    error = json.loads(printed)["usage_error"]
    assert status == 2 and error.startswith("an instance of RMSNorm: give the class")


def test_a_file_target_imports_a_module_beside_it(tmp_path, monkeypatch):
    folder = tmp_path / "norms"
    folder.mkdir()
    (folder / "helper_norm.py").write_text(
        "import torch.nn.functional as F\n\n"
        "def norm(x, weight, eps=1e-6):\n"
        "    return F.rms_norm(x, (x.shape[-1],), weight, eps)\n"
    )
    (folder / "uses_helper.py").write_text("from helper_norm import norm\n")
    monkeypatch.chdir(tmp_path)  # not the file's folder
    monkeypatch.setattr(sys, "path", list(sys.path))  # load() puts the folder first
    assert load(f"{folder / 'uses_helper.py'}:norm").__name__ == "norm"


def test_a_module_not_found_says_to_give_the_file(tmp_path, monkeypatch):
    status, printed, _ = in_process("no_such_module:Norm", "--json")
    error = json.loads(printed)["usage_error"]
    assert status == 2 and "give the file instead, path/to/file.py:name" in error
    # A module found, but missing a package it imports: the package is named, no hint.
    (tmp_path / "needs_a_package.py").write_text("import no_such_package\n")
    monkeypatch.syspath_prepend(tmp_path)
    status, printed, _ = in_process("needs_a_package:Norm", "--json")
    error = json.loads(printed)["usage_error"]
    assert status == 2 and "No module named 'no_such_package'" in error
    assert "give the file instead" not in error


def test_a_file_with_a_dataclass_under_postponed_annotations_loads(tmp_path):
    # OLMo's pattern: a @dataclass looks its module up in sys.modules while it is built.
    source = tmp_path / "norm_with_config.py"
    source.write_text(
        "from __future__ import annotations\n"
        "from dataclasses import dataclass\n"
        "import torch.nn.functional as F\n\n"
        "@dataclass\nclass Config:\n    eps: float = 1e-6\n\n"
        "def norm(x, weight):\n"
        "    return F.rms_norm(x, (x.shape[-1],), weight, Config().eps)\n"
    )
    norm = load(f"{source}:norm")
    assert torch.allclose(norm(torch.ones(2, 4), torch.ones(4)), torch.ones(2, 4))


class WritesIntoItsUpstreamGradient(torch.autograd.Function):
    """A correct RMSNorm whose backward stores dx in the upstream gradient's memory, as
    Liger-Kernel's does to save memory."""

    @staticmethod
    def forward(ctx, x, weight, eps):
        inv_r = torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps)
        ctx.save_for_backward(x, weight, inv_r)
        return (x.float() * inv_r * weight.float()).to(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, weight, inv_r = ctx.saved_tensors
        x_hat, g = x.float() * inv_r, grad.float() * weight.float()
        dx = inv_r * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
        dw = (grad.float() * x_hat).reshape(-1, x.shape[-1]).sum(0)
        grad.copy_(dx)
        return grad, dw.to(weight.dtype), None


def writes_into_its_upstream_gradient(x, weight, eps=1e-6):
    return WritesIntoItsUpstreamGradient.apply(x, weight, eps)


def test_a_backward_that_writes_into_the_upstream_gradient_passes_with_a_note():
    report = check(writes_into_its_upstream_gradient)
    assert report.passed, report.table()  # forward's autocast backward too
    gradients = verdict(report, "gradients")
    assert "wrote into the upstream gradient" in gradients.detail
    # y.sum() gives one element expanded to every output: writing into it raises.
    refused = "refuses y.sum()'s upstream gradient (RuntimeError: unsupported operation"
    assert refused in gradients.detail


def test_a_right_backward_takes_the_upstream_gradient_of_y_sum():
    gradients = verdict(check(RMSNorm), "gradients")
    assert gradients.passed and "y.sum()'s upstream gradient: " in gradients.detail


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here")
def test_every_check_runs_on_a_gpu():
    status, printed, errors = in_process(
        "snippets.implementations.rms_norm_module:RMSNorm", "--device", "cuda"
    )
    assert status == 0, errors + printed


@pytest.mark.skipif(torch.cuda.is_available(), reason="a machine with CUDA")
def test_cuda_without_a_gpu_is_a_usage_error():
    status, _, errors = in_process(
        "snippets.implementations.rms_norm_module:RMSNorm", "--device", "cuda"
    )
    assert status == 2 and "no CUDA" in errors


class GainAndBias(torch.nn.Module):
    """A right norm: x / RMS times a gain named `gain` (none: no gain), then plus a bias
    named `bias` (none: no bias) that starts at `start`, each stored in `shape` (the bias
    in `bias_shape`, where given)."""

    def __init__(
        self, n, gain="weight", bias=None, start=0.0, shape=(-1,), bias_shape=None
    ):
        super().__init__()
        self.names = gain, bias
        if gain:
            setattr(self, gain, torch.nn.Parameter(torch.ones(n).reshape(shape)))
        if bias:
            start = torch.full((n,), start).reshape(bias_shape or shape)
            setattr(self, bias, torch.nn.Parameter(start))

    def forward(self, x):
        gain, bias = (getattr(self, name) if name else None for name in self.names)
        y = rms_norm(x, x.shape[-1], None if gain is None else gain.reshape(-1), 1e-6)
        return y if bias is None else y + bias.reshape(-1).to(y.dtype)


def test_a_module_with_a_bias_or_without_a_weight_is_checked():
    assert check(GainAndBias, init={"bias": "bias"}).passed  # held at zero
    l2_norm = check(
        Llama4TextL2Norm
    )  # built as Cls(eps=...): its first argument is eps
    assert l2_norm.passed and "no parameter of its own" in l2_norm.conventions["weight"]
    # A bias alone (a norm without a gain, then a bias): a weight applied after the norm,
    # the bias held at zero, even stored as (1, n) (it was taken for a 1 + w gain, and a
    # right norm failed eight checks); init fails one that does not start at zeros.
    for shape in [(-1,), (1, -1)]:
        report = check(GainAndBias, init={"gain": None, "bias": "bias", "shape": shape})
        assert report.passed, report.table()
        assert "no parameter of its own" in report.conventions["weight"]
    report = check(GainAndBias, init={"gain": None, "bias": "bias", "start": 1.0})
    assert [v.check for v in report.verdicts if v.passed is False] == ["init"]
    assert (
        "fresh bias: not zeros, where a bias starts" in verdict(report, "init").detail
    )
    # A gain named b alone is still the gain; w beside b, scale beside offset: gain, bias.
    for gain, bias in [("b", None), ("w", "b"), ("scale", "offset")]:
        report = check(GainAndBias, init={"gain": gain, "bias": bias})
        assert report.passed, (gain, bias, report.table())
    # A projection's bias inside the norm is not the norm's: its start is not judged; a
    # bias beside a gain held in a submodule is, and alone it links what init catches.
    assert check(AdaptiveNorm).passed
    init = verdict(check(NormThenBias), "init")
    assert init.passed is False and "fresh bias: not zeros" in init.detail
    assert init.see.endswith("check/#check-init")
    # Written in place under no_grad, without a gain: checked forward only (form failed).
    report = check(InPlaceAddWithoutGain, add=True)
    assert report.passed, report.table()


class AdaptiveNorm(torch.nn.Module):
    """An RMSNorm whose gain a condition scales (1 + Linear(cond)), when one is given."""

    def __init__(self, n):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(n))
        self.ada = torch.nn.Linear(8, n)  # its bias: n values, not zeros

    def forward(self, x, cond=None):
        gain = self.weight if cond is None else self.weight * (1 + self.ada(cond))
        return rms_norm(x, x.shape[-1], gain, 1e-6)


class NormThenBias(torch.nn.Module):
    """nn.RMSNorm (its gain inside it), then a bias of its own started at ones."""

    def __init__(self, n):
        super().__init__()
        self.norm = torch.nn.RMSNorm(n, eps=1e-6)
        self.bias = torch.nn.Parameter(torch.ones(n))

    def forward(self, x):
        return self.norm(x) + self.bias.to(x.dtype)


class InPlaceAddWithoutGain(torch.nn.Module):
    """vLLM's in-place fused add, under no_grad, with no gain: h into residual, y into x."""

    def __init__(self, n):
        super().__init__()

    def forward(self, x, residual):
        with torch.no_grad():
            residual.add_(x)
            h = residual.float()
            y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)
            x.copy_(y.to(x.dtype))


@pytest.mark.parametrize("bias", [None, "b"])
@pytest.mark.parametrize("shape", [(1, -1), (-1, 1)])
def test_a_gain_stored_in_another_shape_is_named_with_its_shape(shape, bias):
    # Beside a bias named b too, which was taken for the gain.
    stored = tuple(torch.ones(64).reshape(shape).shape)  # (1, 64) or (64, 1)
    with pytest.raises(
        UsageError, match=re.escape(f"its gain weight has shape {stored}")
    ):
        check(GainAndBias, init={"shape": shape, "bias": bias, "bias_shape": (-1,)})


def test_constructor_arguments_are_asked_for_and_taken_with_init():
    target = "transformers.models.mamba2.modeling_mamba2:MambaRMSNormGated"
    status, _, errors = in_process(target)
    assert status == 2 and "pass --init group_size=VALUE" in errors
    status, printed, errors = in_process(target, "--init", "group_size=64")
    assert status == 0, errors + printed
    status, _, errors = in_process(target, "--init", "group_size")
    assert status == 2 and "--init group_size: expected NAME=VALUE" in errors
    with pytest.raises(UsageError, match="is a function, not a class"):
        check(rms_norm, init={"group_size": 64})


def with_optional_bias(x, w, bias=None, eps=1e-6):
    y = rms_norm(x, x.shape[-1], w, eps)
    return y if bias is None else y + bias


def test_eps_reaches_a_function_by_name_past_other_optional_arguments():
    report = check(with_optional_bias, eps=1e-5)
    assert report.passed and report.conventions["eps"] == 1e-5


class ScalarGain(torch.nn.Module):
    """x-transformers' ScaleNorm: an RMSNorm (F.normalize times sqrt(n)) with one scalar
    gain, kept as built; checked with a weight applied after it."""

    def __init__(self, n, eps=1e-5):
        super().__init__()
        self.scale, self.eps = n**0.5, eps
        self.g = torch.nn.Parameter(torch.ones(1))

    def forward(self, x):
        return F.normalize(x, dim=-1, eps=self.eps) * self.scale * self.g


class RMSClampedAtEps(torch.nn.Module):
    """x-transformers' legacy RMSNorm: x / max(RMS, eps), eps clamping the RMS from below."""

    def __init__(self, n, eps=1e-8):
        super().__init__()
        self.scale, self.eps = n**-0.5, eps
        self.g = torch.nn.Parameter(torch.ones(n))

    def forward(self, x):
        rms = torch.norm(x, dim=-1, keepdim=True) * self.scale
        return x / rms.clamp(min=self.eps) * self.g


def test_an_eps_that_clamps_the_rms_is_named_not_failed():
    eps = verdict(check(RMSClampedAtEps), "eps")
    assert eps.passed and eps.detail == "eps 1e-08 clamps the RMS, none added"


def test_the_pitfalls_float16_only_norm_passes_and_its_mistake_is_named():
    # Pitfalls, where there is no float32: every operation in float16, forward only.
    from snippets.pitfalls.max_scaled import eps_after_division, rms_norm_float16

    report = check(rms_norm_float16)
    assert report.passed, report.table()
    assert verdict(report, "half").passed
    # coremltools' norm (apple/coremltools#2821): eps added to mean((x / m)^2).
    eps = verdict(check(eps_after_division), "eps")
    assert not eps.passed
    assert eps.detail.startswith("adds eps 1e-05 times the square of the row's largest")
    assert eps.see == "pitfalls/#where-there-is-no-float32"
    # An eps declared and never added is still said so, not taken for this form.
    eps = verdict(check(declares_eps_but_adds_none), "eps")
    assert not eps.passed and eps.detail == "declares eps 1e-06 but adds none"


class InterpreterError(Exception):
    """Named as Triton's interpreter names its errors."""


def kernel_the_interpreter_cannot_run(x, weight, eps=1e-6):
    raise InterpreterError("AttributeError(\"'float' object has no attribute 'to'\")")


def test_a_scalar_gain_is_kept_and_an_interpreter_failure_is_named():
    report = check(ScalarGain)
    assert report.passed and "no parameter of its own" in report.conventions["weight"]
    with pytest.raises(
        UsageError, match="Triton's interpreter .* cannot run this kernel"
    ):
        check(kernel_the_interpreter_cannot_run)


class ConfigNorm(torch.nn.Module):
    """Built from a config object, as OLMo's norms are."""

    def __init__(self, config):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(config.d_model))
        self.eps = config.eps

    def forward(self, x):
        return rms_norm(x, x.shape[-1], self.weight, self.eps)


def make_config_norm(n):
    return ConfigNorm(SimpleNamespace(d_model=n, eps=1e-5))


def not_a_factory(n):
    return float(n)


def make_llama_norm(n):  # a transformers norm keeps its eps as variance_epsilon
    return LlamaRMSNorm(n, eps=1e-5)


def test_a_module_built_from_a_config_is_checked_through_a_factory():
    report = check(make_config_norm, factory=True)
    assert report.passed and report.conventions["eps"] == 1e-5
    report = check(make_llama_norm, factory=True)
    assert report.passed and report.conventions["eps"] == 1e-5
    with pytest.raises(
        UsageError, match=r"--factory: not_a_factory\(64\) gave a float"
    ):
        check(not_a_factory, factory=True)


def fused_without_add(x, residual, weight, eps=1e-6):
    h = x + residual
    return F.rms_norm(h, (h.shape[-1],), weight, eps), h


class BuiltFromConfig(torch.nn.Module):
    def __init__(self, config, layer_idx):  # transformers' shape of constructor
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(config.hidden_size))


class TakesAShape(torch.nn.Module):
    def __init__(self, normalized_shape, eps=1e-6):  # a tuple, as (64,)
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(tuple(normalized_shape)))


class TakesAShapeByStar(torch.nn.Module):
    def __init__(self, normalized_shape, eps=1e-6):  # torch.ones(*(64,))
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(*normalized_shape))


class TakesAShapeByLen(torch.nn.Module):
    def __init__(self, normalized_shape, eps=1e-6):
        super().__init__()
        self.dims = tuple(range(-len(normalized_shape), 0))


def with_an_output_buffer(out, input, weight, epsilon=1e-6):
    # vLLM's op form: the output written into out, nothing returned.
    out.copy_(F.rms_norm(input, input.shape[-1:], weight, epsilon))


def with_its_output_first(o, x, weight):
    # llama2.c's rmsnorm(o, x, weight), ported: o by another name than out.
    o.copy_(F.rms_norm(x, x.shape[-1:], weight, 1e-5))


class TwoRequired(torch.nn.Module):
    def __init__(self, hidden_size, eps, elementwise_affine):
        super().__init__()
        self.norm = torch.nn.RMSNorm(hidden_size, eps, elementwise_affine)

    def forward(self, x):
        return self.norm(x)


def plain_norm(x, weight, eps=1e-6):
    return F.rms_norm(x, x.shape[-1:], weight, eps)


def eps_outside_a_vector_norm(x, weight, eps=1e-6):
    h = x.float()
    rms = torch.linalg.vector_norm(h, dim=-1, keepdim=True) * h.shape[-1] ** -0.5
    return (h / (rms + eps)).to(x.dtype) * weight


def test_eps_outside_a_vector_norm_passes_zero_rows_as_the_page_says():
    # The RMS as sqrt(mean(x ** 2)) has an infinite derivative at 0; vector_norm's is 0.
    report = check(eps_outside_a_vector_norm, eps_outside=True)
    assert verdict(report, "zero rows").passed, report.table()
    # Its gradient at 0, the gain over eps, passes float16's range: only NaN is wrong.
    assert verdict(report, "zero rows").detail.endswith(
        "; in float16 not NaN, the right input gradient (1.2e+06) past its largest value"
    )


def test_a_norm_given_factory_is_told_to_drop_it():
    with pytest.raises(UsageError, match="if it is the norm, drop --factory$"):
        check(plain_norm, factory=True)


def test_a_plain_norm_given_add_is_told_the_call_and_to_drop_it():
    with pytest.raises(UsageError) as error:
        check(plain_norm, add=True)
    said = str(error.value)
    assert said.startswith("calling it as norm(x, residual, weight, eps=1e-06)")
    assert said.endswith("If not, drop --add")


def half_precision_only(x, weight, eps=1e-6):
    if x.dtype not in (torch.float16, torch.bfloat16):
        raise TypeError(f"expected float16 or bfloat16, got {x.dtype}")
    return F.rms_norm(x, x.shape[-1:], weight.to(x.dtype), eps)


def numpy_add_norm(x, residual, weight, eps=1e-6):
    # A fused add in NumPy, float32 only (NumPy has no bfloat16): with --add it was told
    # to drop --add (found by an adversarial round).
    h = x.detach().numpy() + residual.detach().numpy()
    y = h / np.sqrt((h * h).mean(-1, keepdims=True) + eps) * weight.detach().numpy()
    return torch.from_numpy(y), torch.from_numpy(h)


def test_a_float32_only_fused_add_is_told_its_dtype_not_to_drop_add():
    with pytest.raises(UsageError) as error:
        check(numpy_add_norm, add=True)
    assert "a kernel for float32 only cannot be checked" in str(error.value)
    assert "drop --add" not in str(error.value)


def gated_with_its_gate_first(g, x, weight, eps=1e-6):
    # A gated norm's gate before x (found by an adversarial round): no output buffer.
    return F.rms_norm(x, x.shape[-1:], weight, eps) * F.silu(g)


def with_a_required_bias(x, weight, bias, eps=1e-6):
    # mamba_ssm's rms_norm_fn(x, weight, bias, eps=...): a bias, not a gate.
    return F.rms_norm(x, x.shape[-1:], weight, eps) + bias


def with_a_required_b(x, weight, b, eps=1e-6):
    return F.rms_norm(x, x.shape[-1:], weight, eps) + b


def patched_forward(self, x):
    # A forward written to be patched onto a class, given as a plain function.
    return F.rms_norm(x, x.shape[-1:], self.weight, self.variance_epsilon)


def fast_rms_layernorm(layernorm, X, gemma=False):
    # unsloth's: the module first, then X.
    return F.rms_norm(X, X.shape[-1:], layernorm.weight, layernorm.variance_epsilon)


def with_a_required_beta(x, weight, beta, eps=1e-6):
    # A Flax port's bias, by Flax's name.
    return F.rms_norm(x, x.shape[-1:], weight, eps) + beta


def a_functions_forward(ctx, x, weight, eps=1e-6):
    # An autograd.Function's forward, given itself rather than through .apply.
    return F.rms_norm(x, x.shape[-1:], weight, eps)


def refuses_bfloat16(x, weight, eps=1e-6):
    if x.dtype == torch.bfloat16:
        raise TypeError("no bfloat16 here")
    return F.rms_norm(x, (x.shape[-1],), weight, eps)


@pytest.mark.parametrize(
    "target, words",
    [
        (fused_without_add, "a residual add fused with the norm: pass --add"),
        (BuiltFromConfig, "configuration object: pass a function f(n)"),
        (TakesAShape, "may take a shape such as (n,), where the checker passes"),
        (TakesAShapeByStar, "may take a shape such as (n,), where the checker passes"),
        (TakesAShapeByLen, "may take a shape such as (n,), where the checker passes"),
        (with_an_output_buffer, "takes an output buffer first, out, as vLLM's op"),
        (with_its_output_first, "takes an output buffer first, o, as vLLM's op"),
        (gated_with_its_gate_first, "it needs another input, as a gated norm does"),
        (with_a_required_bias, "it requires a bias argument, bias, where the checker"),
        (with_a_required_b, "it requires a bias argument, b, where the checker"),
        (with_a_required_beta, "it requires a bias argument, beta, where the checker"),
        (a_functions_forward, "it takes ctx first: an autograd.Function's forward"),
        (
            patched_forward,
            "it takes self first, then x, where the checker passes x first",
        ),
        (
            fast_rms_layernorm,
            "it takes a module, layernorm, first, then X, where the checker passes x",
        ),
        (TwoRequired, "pass --eps VALUE --init elementwise_affine=VALUE"),
        (refuses_bfloat16, "x of shape (rows, 64) in bfloat16, failed"),
        (half_precision_only, "float16 or bfloat16 only cannot be checked as it is"),
    ],
    ids=[
        "residual",
        "config",
        "shape",
        "shape by *",
        "shape by len",
        "out",
        "o",
        "gate first",
        "bias",
        "b",
        "beta",
        "ctx first",
        "self first",
        "module first",
        "two arguments",
        "dtype",
        "half only",
    ],
)
def test_a_usage_error_says_what_to_pass(target, words):
    with pytest.raises(UsageError) as error:
        check(target)
    assert words in str(error.value)


def over_the_sequence(x, weight, eps=1e-6):
    # The mean square over dim 1 of a 3-D input: the sequence, not the features.
    dim = 1 if x.dim() > 2 else -1
    return weight * x * torch.rsqrt(x.pow(2).mean(dim, keepdim=True) + eps)


def test_shapes_names_the_inputs_that_disagree():
    (verdict,) = [v for v in check(over_the_sequence).verdicts if v.check == "shapes"]
    assert not verdict.passed
    assert verdict.detail.startswith("3-D (2, 6, 64), 4-D (2, 2, 3, 64) differ")


def upcast_over_the_sequence(x, weight, eps=1e-6):
    # As a new user wrote it: upcast, but the mean over dim 1.
    h = x.float()
    h = h * torch.rsqrt(h.pow(2).mean(1, keepdim=True) + eps)
    return weight * h.to(x.dtype)


def test_half_and_gradients_put_their_3d_failures_down_to_the_statistic():
    # A new user's trial: the first failure, half, linked the float32 upcast the code has.
    verdicts = {v.check: v for v in check(upcast_over_the_sequence).verdicts}
    cause = "the failures past 2-D rows likely have shapes' cause: a statistic over"
    for name in ("half", "gradients"):
        assert verdicts[name].passed is False, name
        assert f"{cause} a fixed dim" in verdicts[name].detail, name
    assert verdicts["half"].see == verdicts["shapes"].see  # 3-D is all it gets wrong
    # Without the upcast, float16 fails on 2-D rows too: half keeps its link.
    half = verdict(check(over_the_sequence), "half")
    assert f"{cause} more dims" in half.detail
    assert half.see == "pitfalls/#no-float32-upcast"


def size_counting_the_tokens(x, weight, eps=1e-6):
    # "Features per sample": right on 2-D rows, where x.numel() // x.shape[0] is the row's
    # size (found by an adversarial round: half linked the upcast, shapes 'another eps?').
    h = x.float()
    mean_square = h.pow(2).sum(-1, keepdim=True) / (x.numel() // x.shape[0])
    return (h * torch.rsqrt(mean_square + eps) * weight.float()).to(x.dtype)


def test_a_size_counting_more_than_the_row_is_named_by_shapes_and_half():
    verdicts = {v.check: v for v in check(size_counting_the_tokens).verdicts}
    assert "a size that counts more than the last dim" in verdicts["shapes"].detail
    cause = "likely have shapes' cause: a size that counts more than the last dim"
    assert cause in verdicts["half"].detail, verdicts["half"].detail
    assert verdicts["half"].see == verdicts["shapes"].see  # 3-D is all it gets wrong


def test_a_mean_over_dim_1_is_told_to_index_the_features_as_minus_1():
    # mean(1) written for (tokens, features): right on 2-D rows, over the sequence in 3-D.
    # Found by an adversarial round, told "a statistic over more than the last dim?".
    shapes = one_check(upcast_over_the_sequence, checks.check_shapes)
    assert shapes.passed is False
    assert "a statistic over a fixed dim" in shapes.detail, shapes.detail
    assert "index the features as -1" in shapes.detail
    assert "more than the last dim" not in shapes.detail


def refuses_gradients_at_length(x, weight, eps=1e-6):
    if x.requires_grad:
        raise ValueError(
            "expected rows (tokens, features); " + "a long explanation " * 20
        )
    return F.rms_norm(x, (x.shape[-1],), weight, eps)


def test_a_check_that_crashes_shows_the_error_cut_with_an_ellipsis():
    report = check(refuses_gradients_at_length)
    detail = verdict(report, "gradients").detail
    assert detail.startswith(
        "raised ValueError('expected rows (tokens, features); a long"
    )
    assert "…" in detail and len(detail.split(" (its last call")[0]) == 300


def without_eps_for_one_row(x, weight, eps=1e-6):
    # A decode path: a single row skips eps.
    eps = 0.0 if x.dim() == 1 else eps
    return weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def test_shapes_names_a_path_of_its_own_for_a_single_row():
    verdict = one_check(without_eps_for_one_row, checks.check_shapes)
    assert not verdict.passed
    assert verdict.detail == (
        "1-D (64,) differ from the same rows in 2-D"
        " (a path of its own for a single row, as a decode step takes?)"
    )
    # Where the statistic spans more than the last dim, the hint says so instead.
    assert (
        "more than the last dim"
        in one_check(over_the_sequence, checks.check_shapes).detail
    )


def test_shapes_says_when_a_row_changes_the_others():
    verdict = one_check(over_the_batch, checks.check_shapes)
    assert not verdict.passed
    assert "scaling row 0 changes the other rows' outputs" in verdict.detail


def test_a_norm_that_needs_a_gate_is_told_to_be_given_one():
    with pytest.raises(UsageError, match="it needs another input, as a gated norm"):
        check(Qwen3NextRMSNormGated)


def eps_by_another_name(x, weight, variance_epsilon):
    return F.rms_norm(x, x.shape[-1:], weight, variance_epsilon)


def gated_by_timesteps(x, weight, timesteps, eps=1e-6):
    return F.rms_norm(x, x.shape[-1:], weight, eps) * timesteps


def gated_with_eps_by_another_name(x, weight, gate, variance_epsilon):
    return F.rms_norm(x, x.shape[-1:], weight, variance_epsilon) * gate


def test_an_eps_the_checker_cannot_name_is_told_apart_from_a_gate():
    with pytest.raises(UsageError, match="variance_epsilon looks like its eps"):
        check(eps_by_another_name)
    with pytest.raises(UsageError, match="it needs another input, as a gated norm"):
        check(gated_by_timesteps)  # "eps" in the name, not an eps
    with pytest.raises(UsageError, match="passes it on, and supplies gate"):
        check(gated_with_eps_by_another_name)


def normalizes_in_place(x, weight, eps=1e-6):
    # Right, but written into x: every later check would measure against its output.
    return x.mul_(torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)).mul_(weight)


def in_place_after_float(x, weight, eps=1e-6):
    # nano-vllm's rms_forward: x.float() copies a half x, but is x itself in float32.
    h = x.float()
    h.mul_(torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps))
    return (h * weight.float()).to(x.dtype)


def in_place_returning_nothing(x, weight, eps=1e-6):
    normalizes_in_place(x, weight, eps)


def in_place_in_float16(x, weight, eps=1e-6):
    # Right in every dtype, but written into x on float16's path only.
    if x.dtype == torch.float16:
        return normalizes_in_place(x, weight, eps)
    return F.rms_norm(x, x.shape[-1:], weight, eps)


class GemmaGainFormedInPlace(torch.nn.Module):
    """Gemma's 1 + w, formed by adding 1 into the weight itself on every call."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight, self.eps = torch.nn.Parameter(torch.zeros(n)), eps

    def forward(self, x):
        self.weight.data.add_(1)
        return F.rms_norm(x, x.shape[-1:], self.weight, self.eps)


@pytest.mark.filterwarnings(
    "ignore:`torch.jit.(script|trace|trace_method)` is deprecated"
)
def test_a_torchscript_module_or_function_is_told_to_check_what_it_scripts():
    scripted = torch.jit.script(ChannelFirstRMSNorm(64))
    with pytest.raises(UsageError, match=r"TorchScript module of ChannelFirstRMSNorm .*"
                       r" check the Python class ChannelFirstRMSNorm itself"):  # fmt: skip
        check(scripted)
    traced = torch.jit.trace(ChannelFirstRMSNorm(64), torch.randn(2, 64, 3, 3))
    with pytest.raises(UsageError, match=r"module of ChannelFirstRMSNorm \(torch.jit"):
        check(traced)

    @torch.jit.script
    def scripted_norm(x, weight, eps: float = 1e-6):
        return F.rms_norm(x, [x.shape[-1]], weight, eps)

    with pytest.raises(UsageError, match=r"TorchScript function of scripted_norm .*"):
        check(scripted_norm)


def test_a_norm_that_writes_into_its_weight_is_told_to_form_the_gain_anew():
    with pytest.raises(UsageError, match=r"writes into its weight.*1 \+ weight"):
        check(GemmaGainFormedInPlace)


def test_a_norm_that_writes_into_its_input_is_told_to_be_given_a_copy():
    with pytest.raises(UsageError, match=r"writes into its input x.*x\.clone\(\)"):
        check(normalizes_in_place)
    # Written after x.float(), which is x itself in float32: told why.
    with pytest.raises(
        UsageError, match=r"upcasts with x\.float\(\).* return x itself"
    ):
        check(in_place_after_float)
    # Met first inside a check (half): a usage error still, not that check's failure.
    with pytest.raises(UsageError, match="writes into its input x"):
        check(in_place_in_float16)
    # One that returns nothing, its output in x (vLLM's norm is called so): told the same.
    with pytest.raises(UsageError, match="writes into its input x"):
        check(in_place_returning_nothing)
    report = check(lambda x, weight: normalizes_in_place(x.clone(), weight))
    passed = {verdict.check for verdict in report.verdicts if verdict.passed}
    # half fails (no upcast), and every backward (written over what autograd saved).
    assert {"forward", "eps", "shapes"} <= passed


class NormalizedInTheSavedInput(torch.autograd.Function):
    """Right formulas, but the backward forms x / RMS in the saved input's memory: in
    float32, x.float() is x itself, so it writes into the caller's x."""

    @staticmethod
    def forward(ctx, x, weight, eps):
        h = x.float()
        r = torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
        ctx.save_for_backward(h, weight, r)
        return (h * r * weight.float()).to(x.dtype)

    @staticmethod
    def backward(ctx, g):
        h, weight, r = ctx.saved_tensors
        x_hat = h.mul_(r)
        gw = g.float() * weight.float()
        dx = r * (gw - x_hat * (gw * x_hat).mean(-1, keepdim=True))
        dw = (g.float() * x_hat).reshape(-1, x_hat.shape[-1]).sum(0)
        return dx.to(g.dtype), dw.to(weight.dtype), None


def scaled_in_place_after_its_square(x, weight, eps=1e-6):
    # h, which pow saved for its backward, scaled in place: every backward raises.
    h = x.float().clone()
    h.mul_(torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps))
    return (h * weight.float()).to(x.dtype)


def test_an_autograd_error_fails_dw_not_read_as_a_refusal_of_rows():
    # Raised, the check crashes, which check() fails: not "refuses 4097 rows".
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        one_check(scaled_in_place_after_its_square, checks.check_dw)


class TwoGradients(torch.autograd.Function):
    """A backward returning dx and dw, none for eps: autograd raises."""

    @staticmethod
    def forward(ctx, x, weight, eps):
        return rms_norm_llama(x, weight, eps)

    @staticmethod
    def backward(ctx, g):
        return g, g.sum(0)


def two_gradients(x, weight, eps=1e-6):
    return TwoGradients.apply(x, weight, eps)


def written_with_out(x, weight, eps=1e-6):
    # out= takes no input that needs a gradient: autograd raises in the forward.
    return torch.mul(
        rms_norm_llama(x, weight.detach(), eps), weight, out=torch.empty_like(x)
    )


@pytest.mark.parametrize(
    "target, run, words",
    [
        (two_gradients, checks.check_dw, "incorrect number of gradients"),
        (
            written_with_out,
            checks.check_sizes,
            "don't support automatic differentiation",
        ),
        (written_with_out, checks.check_strides, "don't support automatic"),
    ],
    ids=["dw", "sizes", "strides"],
)
def test_autograd_errors_are_crashes_not_refusals(target, run, words):
    with pytest.raises(RuntimeError, match=words):
        one_check(target, run)


def test_a_backward_that_writes_into_the_input_is_a_usage_error_not_a_forgotten_r():
    with pytest.raises(UsageError, match="its backward writes into its input x"):
        check(
            lambda x, weight, eps=1e-6: NormalizedInTheSavedInput.apply(x, weight, eps)
        )


def weight_by_position_only(x, weight, /, eps=1e-6):
    return F.rms_norm(x, x.shape[-1:], weight, eps)


def eps_by_position_only(x, weight, eps=1e-6, /):
    return F.rms_norm(x, x.shape[-1:], weight, eps)


def eps_by_position_only_after_a_bias(x, weight, bias=None, eps=1e-6, /):
    return F.rms_norm(x, x.shape[-1:], weight, eps)


def test_positional_only_weight_and_eps_are_passed_by_position():
    for target in (weight_by_position_only, eps_by_position_only):
        report = check(target)
        assert report.passed, report.table()
        assert report.conventions["eps"] == 1e-6, report.conventions
    # Passed by position it would land in bias's place: told, not failed.
    with pytest.raises(UsageError, match="takes eps by position only, after arguments"):
        check(eps_by_position_only_after_a_bias)


def returns_its_input(x, weight, eps=1e-6):
    return x.clone()  # as a kernel whose launch did nothing


def returns_nan(x, weight, eps=1e-6):
    return torch.full_like(x, float("nan"))


def ignores_its_weight(x, weight, eps=1e-6):
    # Right at a gain of 1, so a weight of 0 alone would read it as a gain 1 + w.
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def statistic_in_float16(x, weight, eps=1e-6):
    # float32 input computed in float16: squares of rows of RMS 100 overflow, 0 comes out.
    h = x.half()
    return weight * (h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)


class KeepsItsFirstWeight:
    """The weight of its first call kept and applied ever after (a cache gone wrong)."""

    def __init__(self):
        self.kept = None

    def __call__(self, x, weight, eps=1e-6):
        self.kept = weight.clone() if self.kept is None else self.kept
        return self.kept * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def keeps_its_first_weight(x, weight, eps=1e-6):
    return keeps_its_first_weight.norm(x, weight, eps)


@pytest.mark.parametrize(
    "target, words",
    [
        (lambda x, weight: x + 1, "neither 0 (a gain w) nor x / RMS"),
        (returns_its_input, "returns its input unchanged"),
        (returns_nan, "holds NaN or inf"),
        (ignores_its_weight, "the weight given is not applied (ignored"),
        (statistic_in_float16, "its statistic overflows (x**2 computed in float16?)"),
        (
            keeps_its_first_weight,
            "not the one applied (one kept from an earlier call?)",
        ),
    ],
    ids=["x + 1", "its input", "NaN", "weight ignored", "float16", "weight kept"],
)
def test_a_function_that_is_no_norm_fails_form_saying_what_came(target, words):
    """Called without error, so not a usage error: one failed verdict, exit status 1."""
    keeps_its_first_weight.norm = KeepsItsFirstWeight()  # a fresh cache for each run
    (verdict,) = check(target).verdicts
    assert verdict.check == "form" and not verdict.passed and words in verdict.detail


class NamedEpsilon(torch.nn.Module):
    """Its eps named as Flax and Keras name it, and added twice when `twice`."""

    twice = False

    def __init__(self, n, epsilon=1e-6):
        super().__init__()
        self.weight, self.epsilon = torch.nn.Parameter(torch.ones(n)), epsilon

    def forward(self, x):
        eps = 2 * self.epsilon if self.twice else self.epsilon
        return F.rms_norm(x, x.shape[-1:], self.weight, eps)


class NamedEpsilonTwice(NamedEpsilon):
    twice = True


def test_eps_a_target_cannot_receive_is_a_usage_error():
    with pytest.raises(
        UsageError,
        match="takes no argument named eps, epsilon, rms_norm_eps, norm_eps,"
        " layer_norm_epsilon or layer_norm_eps to pass it to: drop --eps",
    ):
        check(lambda x, weight: F.rms_norm(x, x.shape[-1:], weight), eps=1e-5)


class EpsInForward(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(n))

    def forward(self, x, eps=1e-6):
        return F.rms_norm(x, x.shape[-1:], self.weight, eps)


class EpsRequiredInForward(EpsInForward):
    def forward(self, x, eps):
        return super().forward(x, eps)


def test_eps_a_module_takes_in_forward_is_said_to_be_taken_there():
    # Not "takes no argument named eps": its forward does, which the checker calls as
    # forward(x), so the default there is what is checked.
    with pytest.raises(
        UsageError, match="takes eps in forward, not when built"
    ) as error:
        check(EpsInForward, eps=1e-5)
    assert str(error.value).endswith(
        "drop --eps, and the checks use forward's default, 1e-06"
    )
    with pytest.raises(
        UsageError, match="f\\(x, weight, eps=...\\) that passes it on$"
    ):
        check(EpsRequiredInForward, eps=1e-5)


def eps_before_the_gain(x, eps, w):
    return F.rms_norm(x, x.shape[-1:], w, eps)


def test_eps_taken_before_the_gain_is_named_in_the_call_and_the_hint():
    # The call shown is the call made, eps by name; the gain went second, into eps.
    with pytest.raises(UsageError) as error:
        check(eps_before_the_gain, eps=1e-6)
    said = str(error.value)
    assert said.startswith("calling it as norm(x, weight, eps=1e-06), x of shape")
    assert "it takes eps before its gain, which the checker passes second" in said


def weight_before_x(weight, x, eps=1e-6):
    return F.rms_norm(x, x.shape[-1:], weight, eps)


def gamma_before_x(gamma, x, eps=1e-6):
    return F.rms_norm(x, x.shape[-1:], gamma, eps)


def gate_first(g, x, eps=1e-6):
    # A gated norm without a gain, its gate first: g is no gain here.
    return rms_norm_llama(x * F.silu(g), torch.ones(x.shape[-1]), eps)


def test_a_gate_named_g_before_x_is_not_told_it_is_a_gain():
    Subject(gate_first)  # no usage error before any call


def test_a_weightless_gated_norm_with_its_gate_first_fails_form_with_a_hint():
    # Found by an adversarial round: form failed with no word on the arguments' order.
    (form,) = check(gate_first).verdicts
    assert form.check == "form" and form.passed is False
    assert form.detail.endswith(
        "; it takes g before x, where the checker passes x first: a gated norm's gate"
        " (or a gain) first? check it through a function of x that supplies g"
    )


def jax_style_gated(z, x, eps=1e-6):
    # A JAX port's gated norm, gate first, that calls x.astype: an AttributeError on a
    # tensor, which is not a module's attribute read off x.
    x = x.astype("float32")
    return x * F.silu(z)


def test_an_attribute_a_tensor_lacks_is_read_as_a_module_first_only_for_a_modules():
    with pytest.raises(UsageError) as error:
        check(jax_style_gated)
    assert "takes a module" not in str(error.value)


def test_a_gain_taken_before_x_is_said_with_the_call_made():
    # The weight by name: the call made, and a hint, not norm(x, weight, ...).
    with pytest.raises(UsageError) as error:
        check(weight_before_x)
    said = str(error.value)
    assert said.startswith("calling it as norm(x, weight=weight, eps=1e-06), x of")
    assert said.endswith(
        "it takes its gain first, f(weight, x, ...), where the checker passes x first:"
        " check it through a function f(x, weight, eps=...) that passes them on"
    )
    # A gain by another name takes x by position, and would scale x by the gain's norm.
    with pytest.raises(
        UsageError, match=r"takes its gain first, f\(gamma, x, \.\.\.\)"
    ):
        check(gamma_before_x)


def test_an_eps_named_epsilon_is_read_passed_and_held_to():
    """As an argument (--eps passes it under that name) and as an attribute."""
    report = check(NamedEpsilon, eps=1e-5)
    assert report.passed and report.conventions["eps"] == 1e-5
    assert check(NamedEpsilon).conventions["eps"] == 1e-6  # the attribute's value
    failed = [v for v in check(NamedEpsilonTwice).verdicts if v.passed is False]
    assert [v.check for v in failed] == ["eps"]
    assert "uses eps 2e-06, declares 1e-06 (eps added twice?)" in failed[0].detail
    assert failed[0].see == "pitfalls/#running-a-checkpoint-with-another-form"

    def function(x, weight, epsilon=1e-6):
        return F.rms_norm(x, x.shape[-1:], weight, epsilon)

    assert check(function, eps=1e-3).conventions["eps"] == 1e-3
    with pytest.raises(UsageError, match="requires epsilon: pass it with --eps"):
        check(lambda x, weight, epsilon: F.rms_norm(x, x.shape[-1:], weight, epsilon))

    def gainless(x, epsilon):  # a required eps is not taken for the weight
        return F.rms_norm(x, x.shape[-1:], eps=epsilon)

    assert check(gainless, eps=1e-5).passed

    def both(x, weight, epsilon, eps=None):  # the required name gets --eps
        return F.rms_norm(x, x.shape[-1:], weight, epsilon)

    assert check(both, eps=1e-5).conventions["eps"] == 1e-5


def test_an_eps_added_twice_is_caught_when_tiny_too():
    def twice(x, weight, eps=1e-12):
        return F.rms_norm(x, x.shape[-1:], weight, 2 * eps)

    report = check(twice)
    failed = [v for v in report.verdicts if v.check == "eps" and v.passed is False]
    assert failed and "declares 1e-12" in failed[0].detail


def test_init_is_reported_not_required_for_a_function():
    init = next(v for v in check(rms_norm).verdicts if v.check == "init")
    assert init.passed is None and "not applicable" in init.detail


@pytest.mark.parametrize("eps", [1e-12, 1e-6, 1e-3, 1e-2])
@pytest.mark.parametrize(
    "target",
    [RMSNorm, torch.nn.RMSNorm, LlamaRMSNorm, GemmaRMSNorm],
    ids=lambda t: f"{t.__module__.split('.')[0]}.{t.__name__}",
)
def test_real_implementations_pass_whatever_their_eps(target, eps):
    # Near eps 1e-3 the wrong form's two estimates agree to well under 1% as well; an eps
    # of 1e-12 is measured on rows of its own scale, not lost next to a mean square of 1e-8.
    report = check(target, eps=eps)
    assert report.conventions["eps placement"] == "inside"
    assert report.passed


def eps_outside(x, weight, eps=1e-3):
    return weight * x / (x.pow(2).mean(-1, keepdim=True).sqrt() + eps)


@pytest.mark.parametrize(
    "target", [rms_norm_paper_code, eps_outside], ids=lambda t: t.__name__
)
def test_eps_outside_the_root_is_read_as_outside_and_passes_when_intended(target):
    # The paper's code adds eps 1e-8 to the RMS: in float32 its two estimates agree to 0.3%.
    assert check(target).conventions["eps placement"] == "outside"
    assert "eps" in failing(target)
    told = check(target, eps_outside=True)  # --eps-outside: the form intended
    assert next(v for v in told.verdicts if v.check == "eps").passed
    if target is rms_norm_paper_code:  # but its eps, 1e-8, rounds to 0 in float16
        assert failing(rms_norm_paper_code, eps_outside=True) == {"half", "zero rows"}


@pytest.mark.parametrize(
    "eps, placement", [(5e-9, "outside"), (1e-10, "none added (a clamp, or no eps)")]
)
def test_an_undeclared_eps_outside_the_root_is_measured_down_to_a_quarter_of_1e_8(
    eps, placement
):
    # As the Check page says: below about a quarter of 1e-8, on rows of RMS 1e-4 and 3e-4,
    # float32's rounding decides whether an eps written into the code outside the root is
    # told from none, and it differs between CPUs (2e-9 was measured on an AMD EPYC and
    # read as none added on an Intel Xeon, and the reading is not monotone in eps); where
    # it reads as none, the eps check passes, and the root's infinite slope at 0 still
    # fails zero rows. On the Intel Xeon, under each of its math library's code paths
    # (MKL_CBWR), 2.5e-9 and up were measured and 1e-10 was not.
    def literal(x, weight):
        return weight * x / (x.pow(2).mean(-1, keepdim=True).sqrt() + eps)

    report = check(literal)
    assert report.conventions["eps placement"] == placement
    failed = {v.check for v in report.verdicts if v.passed is False}
    assert ("eps" in failed) == (placement == "outside")
    assert "zero rows" in failed


def test_eps_outside_told_fails_a_norm_with_eps_inside():
    verdicts = check(RMSNorm, eps_outside=True).verdicts
    eps = next(v for v in verdicts if v.check == "eps")
    assert eps.passed is False and "(expected outside)" in eps.detail


def test_the_one_file_checker_the_check_page_offers_runs_alone(built_site, tmp_path):
    """downloads/check_rmsnorm.py, copied into an empty folder beside a reader's norm and run
    in isolated mode, gives the package's verdicts (snippets/check/examples.py shows its report),
    with PyTorch alone, as the page says it needs; the page's CI test, copied beside them,
    fails under pytest with the report."""
    checker = built_site / "downloads" / "check_rmsnorm.py"
    (tmp_path / checker.name).write_bytes(checker.read_bytes())
    (tmp_path / "my_norm.py").write_text(
        "import torch\n\n"
        "def rms_norm(x, weight, eps=1e-6):  # no float32 upcast\n"
        "    return weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)\n"
    )

    def run(*arguments):
        command = [sys.executable, "-I", *arguments]
        return subprocess.run(
            command, cwd=tmp_path, capture_output=True, text=True, check=False
        )

    # `python check_rmsnorm.py my_norm.py:rms_norm --json` where transformers is missing
    # (None in sys.modules: importing it raises ImportError).
    without_transformers = (
        "import runpy, sys; sys.modules['transformers'] = None; sys.argv = sys.argv[1:];"
        " runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    result = run(
        "-c", without_transformers, checker.name, "my_norm.py:rms_norm", "--json"
    )
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    failed = [v["check"] for v in report["verdicts"] if v["passed"] is False]
    assert failed == ["half", "zero rows"]
    (agreement,) = [v for v in report["verdicts"] if v["check"] == "agreement"]
    assert "torch.nn.RMSNorm" in agreement["detail"], agreement
    assert "LlamaRMSNorm" not in agreement["detail"], agreement  # transformers' norm
    # The CI test imports MyRMSNorm from my_norm: here the norm above under that name.
    with (tmp_path / "my_norm.py").open("a") as my_norm:
        my_norm.write("\nMyRMSNorm = rms_norm\n")
    ci_test = shown_code("snippets/check/examples.py:ci")
    (tmp_path / "test_rmsnorm.py").write_text(ci_test)
    result = run("-m", "pytest", "-q", "-p", "no:cacheprovider", "test_rmsnorm.py")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "AssertionError" in result.stdout and "FAIL  half" in result.stdout
    assert "1 failed" in result.stdout


# --add: a residual add fused with the norm, y, h = f(x, residual, weight).
def add_in_place(x, residual, weight, eps=1e-6):
    # vLLM's form: residual becomes x + residual, then x becomes the norm of it.
    residual.add_(x)
    x.copy_(rms_norm_llama(residual, weight, eps))


def add_in_float32(x, residual, weight, eps=1e-6):
    # The statistic of the unrounded sum; the stream it returns is rounded.
    total = x.float() + residual.float()
    return rms_norm(total, total.shape[-1], weight, eps).to(x.dtype), x + residual


def norm_of_x_not_of_the_sum(x, residual, weight, eps=1e-6):
    return rms_norm(x, x.shape[-1], weight, eps), x + residual


class AddNorm(torch.nn.Module):
    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.norm = RMSNorm(n, eps=eps)

    def forward(self, x, residual):
        h = x + residual
        return self.norm(h), h


@pytest.mark.parametrize(
    "target, reads",
    [
        (add_rms_norm_triton, "not measured under Triton's interpreter"),
        (add_in_place, "(g2) the sum rounded to bfloat16, then llama"),
        (add_in_float32, "(g1) the sum kept in float32, then float32"),
        (AddNorm, "(g2) the sum rounded to bfloat16, then float32"),
    ],
    ids=lambda v: getattr(v, "__name__", None),
)
def test_a_fused_add_passes_and_says_which_sum_its_statistic_reads(target, reads):
    report = check(target, add=True)
    assert report.passed, report.table()
    assert report.conventions["fused"] == "residual add (h = x + residual)"
    assert reads in verdict(report, "add sum").detail
    assert {"add", "add sum", "add grads"} <= {v.check for v in report.verdicts}
    # What the interpreter leaves out is said (the Triton kernel's case), and is no refusal
    # of the target's (--strict would fail it).
    emulated = "Triton's interpreter" in reads
    assert ("bfloat16 not run" in verdict(report, "add").detail) == emulated
    assert not [r for r in verdict(report, "add").refused if "interpreter" in r]


def add_by_position_only(x, residual, weight, eps=1e-6, /):
    return add_in_float32(x, residual, weight, eps)


def test_a_fused_add_taking_its_arguments_by_position_only_is_passed_them_so():
    report = check(add_by_position_only, add=True)
    assert report.passed, report.table()
    assert report.conventions["eps"] == 1e-6, report.conventions


def add_in_place_inference(x, residual, weight, eps=1e-6):
    # vLLM's inference op: the same writes, with no autograd recording them.
    with torch.no_grad():
        add_in_place(x, residual, weight, eps)


def inference_only(x, weight, eps=1e-6):
    with torch.no_grad():
        return rms_norm_llama(x, weight, eps)


@pytest.mark.parametrize(
    "target, add",
    [(add_in_place_inference, True), (inference_only, False)],
    ids=["in place, fused with the add", "alone"],
)
def test_a_forward_only_kernel_passes_with_its_gradient_checks_not_run(target, add):
    report = check(target, add=add)
    assert report.passed, report.table()
    skipped = {"gradients", "dw"} | ({"add grads"} if add else set())
    for name in skipped:
        assert verdict(report, name).passed is None, name
        assert verdict(report, name).detail == NO_AUTOGRAD, name
    for name in ["zero rows", "sizes"]:  # their forward parts still run
        assert verdict(report, name).passed, name
        assert verdict(report, name).detail.endswith(NO_AUTOGRAD), name


def test_a_fused_add_that_normalizes_x_fails_add_and_its_gradients():
    assert {"add", "add grads"} <= failing(norm_of_x_not_of_the_sum, add=True)


def read_with_unit_stride(t):
    # A kernel that takes each row's elements as adjacent in memory.
    rows_of_t = t.reshape(-1, t.shape[-1])
    strides = (rows_of_t.stride(0), 1)
    return rows_of_t.as_strided(rows_of_t.shape, strides).reshape(t.shape)


def add_reading_rows_as_adjacent(x, residual, weight, eps=1e-6):
    h = read_with_unit_stride(x) + read_with_unit_stride(residual)
    return rms_norm(h, h.shape[-1], weight, eps), h


def add_in_the_weights_dtype(x, residual, weight, eps=1e-6):
    # The sum in float32 with a float32 weight: a stream that is no longer bfloat16.
    h = x.to(weight.dtype) + residual.to(weight.dtype)
    return rms_norm(h, h.shape[-1], weight, eps).to(x.dtype), h


def add_rounding_the_stream(x, residual, weight, eps=1e-6):
    # A float32 residual stream rounded to x's bfloat16 before the add, at every layer.
    h = x + residual.to(x.dtype)
    return rms_norm(h, h.shape[-1], weight, eps), h


def add_forgetting_the_sum_when(takes_the_path, name):
    """Right, but for a path of its own, taken when takes_the_path(x, weight), that
    normalizes x instead of the sum."""

    def norm(x, residual, weight, eps=1e-6):
        h = x + residual
        normalized = x if takes_the_path(x, weight) else h
        return rms_norm(normalized, h.shape[-1], weight, eps), h

    norm.__name__ = name
    return norm


# A bfloat16 kernel, a path for a model's 3-D activations, one for inputs past 2**20
# elements (a prefill), one for batches past 1024 rows, one for a float32 weight beside
# bfloat16 inputs.
add_forgetting_the_sum_in_bfloat16 = add_forgetting_the_sum_when(
    lambda x, weight: x.dtype == torch.bfloat16, "add_forgetting_the_sum_in_bfloat16"
)
add_forgetting_the_sum_in_3d = add_forgetting_the_sum_when(
    lambda x, weight: x.dim() == 3, "add_forgetting_the_sum_in_3d"
)
add_forgetting_the_sum_in_large_inputs = add_forgetting_the_sum_when(
    lambda x, weight: x.numel() > 2**20, "add_forgetting_the_sum_in_large_inputs"
)
add_forgetting_the_sum_past_1024_rows = add_forgetting_the_sum_when(
    lambda x, weight: x.shape[:-1].numel() > 1024,
    "add_forgetting_the_sum_past_1024_rows",
)
add_forgetting_the_sum_beside_a_float32_weight = add_forgetting_the_sum_when(
    lambda x, weight: weight.dtype != x.dtype,
    "add_forgetting_the_sum_beside_a_float32_weight",
)


def add_keeping_the_stream_on_one_row(x, residual, weight, eps=1e-6):
    # A decode path that hands on the old stream: the sublayer's output is lost.
    h = x + residual
    kept = residual if x.shape[:-1].numel() == 1 else h
    return rms_norm(h, h.shape[-1], weight, eps), kept


def norm_gradients(h, weight, dy):
    """dx and dw of the norm of h, by autograd: the fused backwards below reuse them."""
    with torch.enable_grad():
        h_, w_ = h.detach().requires_grad_(), weight.detach().requires_grad_()
        y = rms_norm(h_, h_.shape[-1], w_, 1e-6)
        return torch.autograd.grad(y, (h_, w_), dy)


class FusedAdd(torch.autograd.Function):
    """y, h = norm(x + residual), x + residual; each subclass its own backward."""

    @staticmethod
    def forward(ctx, x, residual, weight):
        h = x + residual
        ctx.save_for_backward(h, weight)
        return rms_norm(h, h.shape[-1], weight, 1e-6), h


class AddReadingGradientsAsContiguous(FusedAdd):
    @staticmethod
    def backward(ctx, dy, dh):
        h, weight = ctx.saved_tensors
        dh = torch.as_strided(dh, h.shape, h.stride())  # the bug: dh's own strides
        dx, dw = norm_gradients(h, weight, dy)
        return dx + dh, dx + dh, dw


def add_reading_gradients_as_contiguous(x, residual, weight, eps=1e-6):
    return AddReadingGradientsAsContiguous.apply(x, residual, weight)


class AddDroppingDxFromTheResidualInBfloat16(FusedAdd):
    @staticmethod
    def backward(ctx, dy, dh):
        h, weight = ctx.saved_tensors
        dx, dw = norm_gradients(h, weight, dy)
        # The bug, in a bfloat16 kernel: "the residual only feeds h".
        residual_grad = dh if h.dtype == torch.bfloat16 else dx + dh
        return dx + dh, residual_grad, dw


def add_dropping_dx_from_the_residual_in_bfloat16(x, residual, weight, eps=1e-6):
    return AddDroppingDxFromTheResidualInBfloat16.apply(x, residual, weight)


def add_pair(x, residual, weight, eps=1e-6):
    h = x + residual
    return rms_norm(h, h.shape[-1], weight, eps), h


def add_normalizing_x_in_float16(x, residual, weight, eps=1e-6):
    h = x + residual
    return rms_norm(x if x.dtype == torch.float16 else h, h.shape[-1], weight, eps), h


def add_normalizing_x_on_decode_steps(x, residual, weight, eps=1e-6):
    h = x + residual
    decode = x.dim() == 3 and x.shape[1] == 1  # (batch, 1, features)
    return rms_norm(x if decode else h, h.shape[-1], weight, eps), h


class AddNormalizingXWhenServing(torch.nn.Module):
    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight, self.eps = torch.nn.Parameter(torch.ones(n)), eps

    def forward(self, x, residual):
        h = x + residual
        normalized = h if self.training else x
        return rms_norm(normalized, h.shape[-1], self.weight, self.eps), h


class AddWithoutGain(torch.nn.Module):
    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.eps = eps

    def forward(self, x, residual):
        h = x + residual
        return rms_norm(h, h.shape[-1], None, self.eps), h


def add_cutting_the_stream_from_the_graph(x, residual, weight, eps=1e-6):
    h = x + residual
    return rms_norm(h, h.shape[-1], weight, eps), h.detach()  # dh reaches nothing


def add_cutting_the_residual_from_the_graph(x, residual, weight, eps=1e-6):
    h = x + residual.detach()  # the residual gets no gradient at all
    return rms_norm(h, h.shape[-1], weight, eps), h


def add_returning_a_float32_h_a_last_bit_off(x, residual, weight, eps=1e-6):
    h = x + residual
    off = (
        torch.nextafter(h, torch.full_like(h, float("inf")))
        if h.dtype == torch.float32
        else h
    )
    return rms_norm(h, h.shape[-1], weight, eps), off  # within allclose's tolerance


def add_off_by_five_ulps_in_bfloat16(x, residual, weight, eps=1e-6):
    h = x + residual
    y = rms_norm(h, h.shape[-1], weight, eps)
    return (y * 1.04 if y.dtype == torch.bfloat16 else y), h  # 3 ulps is the bound


def add_returning_h_first(x, residual, weight, eps=1e-6):
    h = x + residual
    return h, rms_norm(h, h.shape[-1], weight, eps)


def add_in_place_swapped(x, residual, weight, eps=1e-6):
    # vLLM's writes swapped: h into x, y into residual (with the form check's zero
    # residual and zero weight, both writes leave the values as they were).
    h = x + residual
    residual.copy_(rms_norm_llama(h, weight, eps))
    x.copy_(h)


@pytest.mark.parametrize(
    "target, check_name",
    [
        (add_reading_rows_as_adjacent, "strides"),
        (add_reading_rows_as_adjacent, "add"),
        (add_in_the_weights_dtype, "add"),
        (add_rounding_the_stream, "add"),
        (add_reading_gradients_as_contiguous, "add grads"),
        # Paths and dtypes a model reaches that the first add checks did not.
        (add_forgetting_the_sum_in_bfloat16, "add"),
        (add_forgetting_the_sum_in_3d, "add"),
        (add_forgetting_the_sum_in_large_inputs, "add"),
        (add_forgetting_the_sum_past_1024_rows, "add"),
        (add_forgetting_the_sum_beside_a_float32_weight, "add"),
        (add_keeping_the_stream_on_one_row, "add"),
        (add_dropping_dx_from_the_residual_in_bfloat16, "add grads"),
        (add_cutting_the_stream_from_the_graph, "add grads"),
        (add_cutting_the_residual_from_the_graph, "add grads"),
        (add_returning_a_float32_h_a_last_bit_off, "add"),
        (add_off_by_five_ulps_in_bfloat16, "add"),
        (add_normalizing_x_in_float16, "add"),
        (add_normalizing_x_on_decode_steps, "add"),
        (AddNormalizingXWhenServing, "add"),
        (add_normalizing_x_when_served_in_half, "add"),
        (add_dropping_the_residual_with_a_float16_weight, "add"),
        (add_dropping_the_stream_without_dh, "add grads"),
        (add_dropping_a_float32_streams_dh, "add grads"),
        (add_reading_x_from_its_storage_start, "add"),
    ],
    ids=lambda v: getattr(v, "__name__", v),
)
def test_each_add_check_catches_its_mistake(target, check_name):
    assert check_name in failing(target, add=True)


def add_returning_x_as_the_stream(x, residual, weight, eps=1e-6):
    h = x + residual
    return rms_norm(h, h.shape[-1], weight, eps), x


@pytest.mark.parametrize(
    "target, words",
    [
        (norm_of_x_not_of_the_sum, "y is not the norm of h in float32 (error"),
        (norm_of_x_not_of_the_sum, "): it is the norm of x"),
        (
            add_returning_x_as_the_stream,
            "h is not x + residual in float32: it is x itself",
        ),
        (add_keeping_the_stream_on_one_row, "on one row: it is the residual given"),
        (
            add_in_the_weights_dtype,
            "with a float32 weight and bfloat16 inputs: it comes back float32",
        ),
    ],
    ids=["y of x", "said: the norm of x", "h is x", "h is the residual", "h's dtype"],
)
def test_the_add_check_says_what_came_instead(target, words):
    assert words in verdict(check(target, add=True), "add").detail


def add_as_vllm_forward_native(x, residual, weight, eps=1e-6):
    # vLLM's (and SGLang's) forward_native: the sum in float32, h rounded once to x's dtype.
    dtype = x.dtype
    h = x.to(torch.float32) + residual.to(torch.float32)
    y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return (y.to(dtype) * weight).to(dtype), h.to(dtype)


def test_a_fused_add_keeping_the_stream_in_xs_dtype_is_reported_not_failed():
    report = check(add_as_vllm_forward_native, add=True)
    assert report.passed, report.table()
    add = verdict(report, "add")
    kept = "keeps h in x's bfloat16 with a float32 residual stream (their sum rounded once:"
    assert add.passed and any(refusal.startswith(kept) for refusal in add.refused)
    assert "not judged; --strict fails it" in add.detail
    # Rounded before the add, the stream's float32 bits are lost: a failure still.
    assert verdict(check(add_rounding_the_stream, add=True), "add").passed is False


def test_a_fused_add_that_refuses_every_case_is_reported_not_passed():
    def refuses_a_residual(x, residual, weight, eps=1e-6):
        if residual.any():
            raise RuntimeError("fused kernel not built for this device")
        return add_pair(x, residual, weight, eps)

    report = check(refuses_a_residual, add=True)
    add = verdict(report, "add")
    refusal = (
        "refuses in float32 (RuntimeError: fused kernel not built for this device)"
    )
    assert add.passed is None and refusal in add.detail
    assert refusal in add.refused
    sums = verdict(report, "add sum")  # its one bfloat16 case refused, as clearly
    assert sums.detail == (
        "refuses bfloat16 (RuntimeError: fused kernel not built for this device)"
    )


def test_a_fused_add_taking_the_weight_before_the_residual_is_called_by_name():
    def weight_first(x, weight, residual, eps=1e-6):  # flash-attn's rms_norm_fn order
        return add_pair(x, residual, weight, eps)

    assert failing(weight_first, add=True) == set()


def test_add_with_dim_1_is_a_usage_error():
    with pytest.raises(UsageError, match="--add with --dim 1"):
        check(add_pair, add=True, dim=1)


class AddWritingDxIntoDy(FusedAdd):
    """Right, and saves memory as Liger-Kernel's backward does: dx goes into dy."""

    @staticmethod
    def backward(ctx, dy, dh):
        h, weight = ctx.saved_tensors
        dx, dw = norm_gradients(h, weight, dy)
        dy.copy_(dx + dh)
        return dy, dy, dw


def add_writing_dx_into_dy(x, residual, weight, eps=1e-6):
    return AddWritingDxIntoDy.apply(x, residual, weight)


def test_a_fused_backward_that_writes_into_dy_passes():
    report = check(add_writing_dx_into_dy, add=True)
    assert verdict(report, "add grads").passed, report.table()


class BackwardOfRows(torch.autograd.Function):
    """A backward that hands back dx as 2-D rows, whatever shape x had."""

    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        return rms_norm(x, x.shape[-1], weight, 1e-6)

    @staticmethod
    def backward(ctx, dy):
        x, weight = ctx.saved_tensors
        rows_of = [t.reshape(-1, x.shape[-1]) for t in (x, dy)]
        return norm_gradients(rows_of[0], weight, rows_of[1])


def backward_of_rows(x, weight, eps=1e-6):
    return BackwardOfRows.apply(x, weight)


def weight_rounded_to_float32(x, weight, eps=1e-6):
    h = x.to(torch.promote_types(x.dtype, torch.float32))
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return (h * weight.float()).to(x.dtype)


def test_a_weight_upcast_with_float_is_not_gradchecked_rather_than_failed():
    # A student's trial: gradcheck's float64 steps vanish in the float32 weight.
    gradients = verdict(check(weight_rounded_to_float32), "gradients")
    assert gradients.passed, gradients.detail
    assert "gradcheck not run, not a fault: float64 input (x or the weight)" in (
        gradients.detail
    )


def test_a_backward_that_fails_on_3d_input_fails_gradients_not_refuses():
    gradients = verdict(check(backward_of_rows), "gradients")
    assert gradients.passed is False and "raised RuntimeError" in gradients.detail
    # The input it crashed after: 3-D rows, where its backward reshapes wrongly.
    assert re.search(
        r"\(its last call: x of shape \(\d+, \d+, \d+\) in", gradients.detail
    )


def test_a_fused_module_without_a_gain_is_checked_with_one_applied_to_y():
    report = check(AddWithoutGain, add=True)
    assert report.passed, report.table()


def add_in_place_swapped_by_data(x, residual, weight, eps=1e-6):
    # As a kernel writes through pointers: no version counted, so on the form check's
    # call (a zero residual and weight) neither write shows.
    h = x + residual
    residual.data.copy_(rms_norm_llama(h, weight, eps))
    x.data.copy_(h)


@pytest.mark.parametrize(
    "target",
    [add_returning_h_first, add_in_place_swapped, add_in_place_swapped_by_data],
    ids=["returned", "written in place", "written through .data"],
)
def test_a_fused_add_that_gives_h_first_is_told_y_comes_first(target):
    form = verdict(check(target, add=True), "form")
    assert form.passed is False and "y comes first" in form.detail
    assert "wrote into neither x nor residual" not in form.detail


def add_without_its_return(x, residual, weight, eps=1e-6):
    rms_norm(x + residual, x.shape[-1], weight, eps)  # `return` forgotten


def test_a_fused_add_that_returns_none_and_writes_nothing_is_told_so():
    # None reads as vLLM's in-place form; with x and residual as they were, a missing
    # return is the likely cause, not an h returned first.
    form = verdict(check(add_without_its_return, add=True), "form")
    assert form.passed is False
    assert "it returned None and wrote into neither x nor residual" in form.detail
    assert "y comes first" not in form.detail


def test_add_mode_on_a_plain_norm_is_a_usage_error_naming_what_it_expects(tmp_path):
    (tmp_path / "plain.py").write_text(
        "import torch\n\n"
        "def norm(x, residual, weight, eps=1e-6):\n"
        "    h = x + residual\n"
        "    return weight * h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)\n"
    )
    status, _, errors = in_process(f"{tmp_path / 'plain.py'}:norm", "--add")
    assert (
        status == 2
        and "--add: expected (y, h) or None (in place), got Tensor" in errors
    )


@pytest.mark.parametrize(
    "share, shown",
    [(0.0, "0%"), (1 / 512, "<1%"), (0.35, "35%"), (0.999, ">99%"), (1.0, "100%")],
)
def test_a_share_of_outputs_is_never_shown_as_none_or_all_when_it_is_neither(
    share, shown
):
    # The rounding report: one output in 512 differing read "differs on 0% of outputs".
    assert percent(share) == shown


def test_every_link_the_checker_prints_is_a_heading_of_its_page():
    """Each verdict's `see`, as the checker's code writes it: a page of the site and one of
    its headings (English anchors are Python-Markdown's slugs of the headings, or the
    `{ #id }` a heading names, as each check's section does) or of its `id="..."` anchors."""
    checker = ROOT / "snippets" / "check"
    source = "\n".join(path.read_text() for path in checker.glob("*.py"))
    # Whole links in quotes, and the anchors an f-string picks between ('a' if .. else 'b').
    links = set(re.findall(r"[\"']([a-z_]+)/(?:#([a-z0-9-]+))?[\"']", source))
    links |= {
        (page, anchor)
        for page, choices in re.findall(r'f"([a-z_]+)/#\{(.+?)\}"', source)
        for anchor in re.findall(r"'([a-z0-9-]+)'", choices)
    }
    # A check that crashes links its own section: check/#check-<its name>.
    links |= {
        ("check", "check-" + run.__name__.removeprefix("check_").replace("_", "-"))
        for run in checks.CHECKS + checks.ADD_CHECKS
    }
    assert len(links) > 20
    for page, anchor in links:
        text = (DOCS / "en" / f"{page}.md").read_text()
        headings = re.findall(r"^#{2,6} (.+)$", text, flags=re.MULTILINE)
        named = re.findall(r"\{ *#([\w-]+) *\}$", text, flags=re.MULTILINE)
        ids = {slugify(h, "-") for h in headings} | set(named)
        ids |= set(re.findall(r'id="([^"]+)"', text))
        if anchor:
            assert anchor in ids, f"{page}/#{anchor}"


@pytest.mark.parametrize(
    "used, cause",
    [
        (2e-6, "eps added twice?"),
        (1e-6 / 64, "eps added to the sum of squares, not to their mean?"),
        (1e-12, "eps squared?"),
        (
            torch.finfo(torch.float32).eps,
            "float32's machine epsilon, as eps=None gives?",
        ),
        (5e-6, "eps added twice, or an eps of the code's own, not the declared one?"),
        (3e-7, "an eps of the code's own, not the declared one?"),
    ],
)
def test_an_eps_other_than_the_declared_one_is_named_by_how_they_relate(used, cause):
    assert eps_mismatch(used, 1e-6) == cause


def rows_done(m: int, programs: int = 132) -> int:
    """The rows a persistent kernel writes when it gives each of its programs m // programs
    rows (floor division, where a ceiling belongs): the last m % programs are skipped."""
    return m // min(m, programs) * min(m, programs)


def rows_split_by_floor(x, weight, eps=1e-6):
    """A forward that leaves the last rows of a batch unwritten (zeros)."""
    m = x.reshape(-1, x.shape[-1]).shape[0]
    done = rows_done(m)
    h = x.float().reshape(m, -1)
    y = torch.zeros_like(h)
    head = h[:done]
    y[:done] = head * torch.rsqrt(head.pow(2).mean(-1, keepdim=True) + eps) * weight
    return y.to(x.dtype).reshape(x.shape)


def rms_norm_gradients(x, weight, eps, dy):
    """F.rms_norm's input and weight gradients for upstream gradient dy: the right
    backward, for the custom ones below that get one part wrong."""
    with torch.enable_grad():
        x_, w_ = x.detach().requires_grad_(), weight.detach().requires_grad_()
        y = F.rms_norm(x_, x_.shape[-1:], w_, eps)
        return torch.autograd.grad(y, (x_, w_), dy)


class DxSplitByFloor(torch.autograd.Function):
    """A right forward whose backward leaves the last rows of a batch without dx."""

    @staticmethod
    def forward(ctx, x, weight, eps):
        ctx.save_for_backward(x, weight)
        ctx.eps = eps
        return F.rms_norm(x, x.shape[-1:], weight, eps)

    @staticmethod
    def backward(ctx, dy):
        x, weight = ctx.saved_tensors
        dx, dw = rms_norm_gradients(x, weight, ctx.eps, dy)
        m = dx.reshape(-1, dx.shape[-1]).shape[0]
        dx.reshape(m, -1)[rows_done(m) :] = 0
        return dx, dw, None


class YSplitByFloorPast1024Rows(torch.autograd.Function):
    """A right backward whose forward, past 1024 rows, takes a persistent kernel's path and
    splits the rows by floor division, leaving the last ones unwritten (zeros): right in
    every batch of 257 rows."""

    @staticmethod
    def forward(ctx, x, weight, eps):
        ctx.save_for_backward(x, weight)
        ctx.eps = eps
        y = F.rms_norm(x, x.shape[-1:], weight, eps)
        m = y.reshape(-1, y.shape[-1]).shape[0]
        if m > 1024:
            y.reshape(m, -1)[rows_done(m) :] = 0
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight = ctx.saved_tensors
        return *rms_norm_gradients(x, weight, ctx.eps, dy), None


def test_outputs_wrong_only_past_a_few_hundred_rows_fail_forward_and_half():
    """The forward and half checks judge every row of a batch of 4097 rows of 64 features
    too, where the dw check judges gradients only."""

    def target(x, weight, eps=1e-6):
        return YSplitByFloorPast1024Rows.apply(x, weight, eps)

    forward = one_check(target, checks.check_forward)
    assert forward.passed is False
    assert "in a batch of 4097 rows 1.0e+00, wrong on 5 of 4097 rows (rows 4092 to" in (
        forward.detail
    )
    half = one_check(target, checks.check_half)
    assert half.passed is False and "in a batch of 4097 rows only" in half.detail
    assert one_check(target, checks.check_dw).passed


def wrong_mid_batch_in(dtype, rows_past):
    """A right norm but for a path of its own, in dtype only and for batches of more than
    rows_past rows, whose output is NaN on one row in the middle of the batch (row 200)."""

    def norm(x, weight, eps=1e-6):
        y = F.rms_norm(x.float(), x.shape[-1:], weight.float(), eps).to(x.dtype)
        if x.dtype == dtype and x.reshape(-1, x.shape[-1]).shape[0] > rows_past:
            y.reshape(-1, y.shape[-1])[200] = math.nan
        return y

    return norm


@pytest.mark.parametrize(
    "dtype, rows_past", [(torch.float16, 1024), (torch.bfloat16, 256)], ids=str
)
def test_half_judges_every_row_of_its_large_batches(dtype, rows_past):
    half = one_check(wrong_mid_batch_in(dtype, rows_past), checks.check_half)
    assert half.passed is False
    assert f"{short_name(dtype)} wrong" in half.detail and "rows only" in half.detail


def test_rows_a_kernel_leaves_unwritten_at_the_end_of_a_large_batch_fail():
    """The checker compares every row of its large batches: a split by floor division
    that skips the last rows fails the forward and half checks, and one in the backward
    fails dw's input-gradient check."""
    forward = one_check(rows_split_by_floor, checks.check_forward)
    assert (
        forward.passed is False and "in a batch of 257 rows of 4096" in forward.detail
    )
    assert re.search(
        r"wrong on \d+ of 257 rows \((rows \d+ to 256|the first wrong row \d+, the last 256)\)",
        forward.detail,
    )
    half = one_check(rows_split_by_floor, checks.check_half)
    assert half.passed is False and "in a batch of 257 rows only" in half.detail
    split = one_check(
        lambda x, weight, eps=1e-6: DxSplitByFloor.apply(x, weight, eps),
        checks.check_dw,
    )
    assert split.passed is False
    assert "input gradient wrong on 5 of 4097 rows (rows 4092 to 4096)" in split.detail


def test_a_half_output_in_another_dtype_links_the_cast_order():
    def returns_float32(x, weight, eps=1e-6):
        return F.rms_norm(x.float(), x.shape[-1:], weight.float(), eps)

    half = one_check(returns_float32, checks.check_half)
    assert half.passed is False and "out float32, not float16" in half.detail
    assert half.see == "pitfalls/#cast-order-and-the-output-dtype"


def only_2d(x, weight, eps=1e-6, upcast=True):
    """A norm that takes (tokens, features) only and says so."""
    if x.dim() != 2:
        raise ValueError(f"expected (tokens, features), got {tuple(x.shape)}")
    h = x.float() if upcast else x
    return (weight * h * torch.rsqrt(h.pow(2).mean(1, keepdim=True) + eps)).to(x.dtype)


def test_a_norm_that_refuses_3d_input_fails_shapes_alone_and_is_checked_on_its_rows():
    """Its refusal is the shapes check's failure; half and gradients check its rows, so a
    missing upcast still shows."""
    verdicts = check(only_2d).verdicts
    assert [v.check for v in verdicts if v.passed is False] == ["shapes"]
    gradients = next(v for v in verdicts if v.check == "gradients")
    assert (
        "refuses 3-D input (ValueError: expected (tokens, features)" in gradients.detail
    )
    assert gradients.refused[0].startswith("refuses 3-D input (ValueError")
    without = lambda x, weight, eps=1e-6: only_2d(x, weight, eps, upcast=False)
    half = one_check(without, checks.check_half)
    assert half.passed is False and "the row of RMS 300 (all lost)" in half.detail


def test_a_sizes_failure_names_the_output_and_gradients_it_measured():
    sizes = one_check(with_backward_slip("dw of whole blocks only"), checks.check_sizes)
    assert sizes.passed is False
    assert re.search(r"\(errors y \S+, dx \S+, dw \S+\)", sizes.detail), sizes.detail


def test_a_statistic_without_keepdim_is_named_in_the_usage_error():
    with pytest.raises(UsageError, match=r"a mean without keepdim=True\?"):
        check(mean_square_without_keepdim)


def test_a_clamp_on_the_rms_is_named_where_the_zero_row_gradient_is_nan():
    def clamp_rms(x, weight, eps=1e-6):
        return weight * x / x.pow(2).mean(-1, keepdim=True).sqrt().clamp(min=eps)

    zero_rows = one_check(clamp_rms, checks.check_zero_rows)
    assert zero_rows.passed is False
    assert "a clamp on the RMS does not remove it" in zero_rows.detail


def test_a_weight_kept_from_an_earlier_call_is_named_by_the_form_check():
    kept = {}

    def cached_weight(x, weight, eps=1e-6):
        w = kept.setdefault("weight", weight.detach().clone())  # the first call's
        return w * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)

    [form] = check(cached_weight).verdicts
    assert form.check == "form" and form.passed is False
    assert "the weight given is not the one applied" in form.detail


class TwoGains(torch.nn.Module):
    """A second gain beside the weight, named `second`, not as a gain is."""

    second = "weight2"

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight, self.eps = torch.nn.Parameter(torch.ones(n)), eps
        setattr(self, self.second, torch.nn.Parameter(torch.ones(n)))

    def forward(self, x):
        gain = self.weight * getattr(self, self.second)
        return in_float32(x, gain, self.eps).to(x.dtype)


class TwoNamedGains(TwoGains):
    """Two gains, each by a gain's name: neither is the one (found by an adversarial
    round: the message said nothing to do)."""

    second = "gamma"


class TakesNoSize(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(64))

    def forward(self, x):
        return in_float32(x, self.weight, 1e-6).to(x.dtype)


@pytest.mark.parametrize(
    "target, words",
    [
        (TwoGains, "not named as a bias (bias, beta, b, shift, offset): weight2"),
        (
            TwoNamedGains,
            (
                "no single gain of shape (64,) among its parameters (weight, gamma):"
                " check it through a function of (x, weight) that applies the others"
            ),
        ),
        (TakesNoSize, "it takes no size: pass a function f(n) that builds it"),
    ],
    ids=lambda t: getattr(t, "__name__", ""),
)
def test_a_module_the_checker_cannot_build_or_read_is_told_why(target, words):
    with pytest.raises(UsageError, match=re.escape(words)):
        check(target)


class FailingForward(torch.nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(hidden_size))

    def forward(self, x):
        raise NotImplementedError("not yet")


def test_a_module_whose_forward_fails_is_named_as_it_was_called():
    # Built as a class and called on x alone, not as norm(x, weight), a function's call.
    expected = r"calling it as FailingForward\(64\)\(x\), .*NotImplementedError"
    with pytest.raises(UsageError, match=expected):
        check(FailingForward)


# Mistakes a mutation audit found no test caught: bounds, and a wrong path taken in one
# situation only.
def beside_a_float32_weight(x, weight):
    return weight.dtype != x.dtype


# A path of its own for mixed-precision training: its dx is off by about 0.16.
projection_over_the_batch_under_autocast = wrong_when(
    lambda x, weight: torch.is_autocast_enabled(x.device.type),
    with_backward_slip("one mean over the whole batch"),
    "projection_over_the_batch_under_autocast",
)


def off_by_four_ulps_in_bfloat16(x, weight, eps=1e-6):
    y = rms_norm(x, x.shape[-1], weight, eps)
    return y * 1.03 if y.dtype == torch.bfloat16 else y


def test_half_within_the_interpreters_truncation_is_not_judged(monkeypatch):
    monkeypatch.setattr(
        "snippets.check.checks.under_triton_interpreter", lambda n: True
    )
    half = one_check(off_by_four_ulps_in_bfloat16, checks.check_half)
    assert half.passed is None
    assert "bfloat16 unreliable under Triton's interpreter" in half.detail


def output_off_by_five_ulps_beside_a_float32_weight(x, weight, eps=1e-6):
    y = rms_norm(x, x.shape[-1], weight, eps)
    if x.dtype == torch.bfloat16 and weight.dtype == torch.float32:
        return y + (0.04 * y).detach()  # the gradients stay right
    return y


dw_off_by_five_ulps_beside_a_float32_weight = wrong_when(
    beside_a_float32_weight,
    dw_off_by(5),
    "dw_off_by_five_ulps_beside_a_float32_weight",
)
# Off by about a quarter of dx's largest entry, on the mix's path only.
dx_without_the_gain_beside_a_float32_weight = wrong_when(
    beside_a_float32_weight,
    with_backward_slip("dx without the gain"),
    "dx_without_the_gain_beside_a_float32_weight",
)


def ones_on_an_all_zero_row_without_autograd(x, weight, eps=1e-6):
    # A forward-only kernel that skips an all-zero row, leaving what its output held.
    with torch.no_grad():
        y = rms_norm(x, x.shape[-1], weight, eps)
        return torch.where((x == 0).all(-1, keepdim=True), torch.ones_like(y), y)


def zero_row_guarded_with_twice_eps(x, weight, eps=1e-6):
    # eps on every row, but an all-zero row's statistic replaced by 2 eps: its gradient
    # is 1 / sqrt(2) of the formula's.
    ms = x.float().pow(2).mean(-1, keepdim=True)
    guarded = torch.where(ms == 0, torch.full_like(ms, 2 * eps), ms + eps)
    return (x.float() * torch.rsqrt(guarded) * weight.float()).to(x.dtype)


# A decode step's path, an inference kernel: training on one row stops at the norm.
no_autograd_on_one_row = wrong_when(
    lambda x, weight: x.shape[:-1].numel() == 1,
    inference_only,
    "no_autograd_on_one_row",
)


def mean_square_over_n_in_bfloat16_without_autograd(x, weight, eps=1e-6):
    # A forward-only kernel that holds n in bfloat16: 769 reads as 768 (64, 3584 and 4096
    # are exact), an error of 6.5e-4 at 769 features.
    with torch.no_grad():
        h = x.float()
        n = torch.tensor(h.shape[-1], dtype=torch.bfloat16).float()
        r = torch.rsqrt(h.pow(2).sum(-1, keepdim=True) / n + eps)
        return (h * r * weight.float()).to(x.dtype)


def mean_square_floored_at_4e_8(x, weight):
    # The floor written into the code, between the mean squares of the two eps rows.
    return mean_square_floored_at_eps(x, weight, 4e-8)


def add_reading_the_residual_in_bfloat16_for_its_statistic(
    x, residual, weight, eps=1e-6
):
    # h exact, but the statistic read from x plus the residual rounded to bfloat16 (exact
    # with a zero residual: a plain RMSNorm there), about 2e-4 off in float32.
    h = x + residual
    read = x.float() + residual.bfloat16().float()
    r = torch.rsqrt(read.pow(2).mean(-1, keepdim=True) + eps)
    return (h.float() * r * weight.float()).to(h.dtype), h


class AddGradientsInBfloat16(torch.autograd.Function):
    """y, h = norm(x + residual), x + residual; a backward that takes contiguous dy and dh
    only, and rounds dy to bfloat16 first (about 2e-3 off in float32)."""

    @staticmethod
    def forward(ctx, x, residual, weight, eps):
        h = x + residual
        ctx.save_for_backward(h, weight)
        ctx.eps = eps
        return rms_norm(h, h.shape[-1], weight, eps), h

    @staticmethod
    def backward(ctx, dy, dh):
        if not (dy.is_contiguous() and dh.is_contiguous()):
            raise ValueError("dy and dh must be contiguous")
        h, weight = ctx.saved_tensors
        with torch.enable_grad():
            h_, w_ = h.detach().requires_grad_(), weight.detach().requires_grad_()
            y = rms_norm(h_, h_.shape[-1], w_, ctx.eps)
            dx, dw = torch.autograd.grad(y, (h_, w_), dy.bfloat16().to(dy.dtype))
        dh = dx + dh  # the gradient of h, which x and the residual both receive
        return dh, dh, dw, None


def add_with_gradients_in_bfloat16(x, residual, weight, eps=1e-6):
    return AddGradientsInBfloat16.apply(x, residual, weight, eps)


@pytest.mark.parametrize(
    "target, run, words",
    [
        (
            projection_over_the_batch_under_autocast,
            checks.check_forward,
            "under autocast, the input gradient",
        ),
        (
            output_off_by_five_ulps_beside_a_float32_weight,
            checks.check_mixed,
            "bfloat16 input: error 5.9 bfloat16 ulp",
        ),
        (
            dw_off_by_five_ulps_beside_a_float32_weight,
            checks.check_mixed,
            "weight gradient error 5",
        ),
        (
            dx_without_the_gain_beside_a_float32_weight,
            checks.check_mixed,
            "(a frozen gain), off by 0.2",
        ),
        (
            ones_on_an_all_zero_row_without_autograd,
            checks.check_zero_rows,
            "all-zero row: not zeros",
        ),
        (
            zero_row_guarded_with_twice_eps,
            checks.check_zero_rows,
            "input gradient up to",
        ),
        (
            no_autograd_on_one_row,
            checks.check_gradients,
            "one row: no gradient recorded",
        ),
        (
            mean_square_over_n_in_bfloat16_without_autograd,
            checks.check_sizes,
            "wrong at 769 (errors y",
        ),
        (
            mean_square_floored_at_4e_8,
            checks.check_eps,
            "eps neither inside nor outside",
        ),
        (
            add_reading_the_residual_in_bfloat16_for_its_statistic,
            add.check_add,
            "y is not the norm of h in float32",
        ),
        (
            add_with_gradients_in_bfloat16,
            add.check_add_grads,
            "refuses strided dy and dh (ValueError: ",
        ),
    ],
    ids=lambda v: getattr(v, "__name__", None),
)
def test_mistakes_a_mutation_audit_found_are_caught(target, run, words):
    fused = run in (add.check_add, add.check_add_grads)
    found = one_check(target, run, AddSubject if fused else Subject)
    assert found.passed is False
    assert words in found.detail


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_check_page_gives_the_python_functions_signature(language):
    page = (DOCS / language / "check.md").read_text(encoding="utf-8")
    shown = re.search(r"`check\((target.*?)\)`", page, re.DOTALL)[1]
    signature = str(inspect.signature(checks.check)).split(" -> ")[0][1:-1]
    assert " ".join(shown.split()) == signature.replace("'", '"')


def divides_by_the_rms_without_eps(x, weight, eps=1e-6):
    # Upcast, but eps left out: 0 / 0 on an all-zero row, in every dtype.
    h = x.float()
    return (weight * h / h.pow(2).mean(-1, keepdim=True).sqrt()).to(x.dtype)


def divides_by_the_rms_without_eps_in_float32(x, weight, eps=1e-6):
    # The same, but returning float32 for half inputs: wrong in its dtype as well.
    h = x.float()
    return weight * h / h.pow(2).mean(-1, keepdim=True).sqrt()


def test_half_wrong_on_the_all_zero_row_alone_points_to_zero_rows_not_the_upcast():
    report = check(divides_by_the_rms_without_eps)
    verdicts = {verdict.check: verdict for verdict in report.verdicts}
    assert verdicts["zero rows"].passed is False
    half = verdicts["half"]
    assert half.passed is False
    assert half.detail.count(", on the all-zero row") == 2, half.detail
    assert half.detail.endswith("; zero rows fails too, a likely cause: read it first")
    assert half.see == verdicts["zero rows"].see == "gradients/#the-all-zero-row"
    half = verdict(check(divides_by_the_rms_without_eps_in_float32), "half")
    assert half.passed is False and ", not float16" in half.detail
    assert "zero rows fails too" not in half.detail


def test_a_file_that_exits_when_imported_is_a_usage_error_not_a_pass(tmp_path):
    # A script whose self-test runs at import and ends in sys.exit(0): without a report,
    # status 0 would read as every check passed.
    script = tmp_path / "norm_script.py"
    script.write_text("import sys\n\nprint('self-test ok')\nsys.exit(0)\n")
    status, _, errors = in_process(f"{script}:norm")
    assert status == 2, errors
    assert "calls sys.exit(0) when imported (code outside if __name__" in errors


class FrozenGain(torch.nn.Module):
    """The right norm, its gain created with requires_grad=False: no optimizer moves it."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(n), requires_grad=False)
        self.eps = eps

    def forward(self, x):
        return rms_norm(x, x.shape[-1:], self.weight, self.eps)


def test_init_fails_a_gain_no_gradient_reaches():
    report = check(FrozenGain)
    assert [v.check for v in report.verdicts if v.passed is False] == ["init"]
    assert verdict(report, "init").detail.endswith(
        "; fresh weight has requires_grad=False: no gradient reaches it, so no optimizer"
        " step updates it"
    )
    assert verdict(report, "init").see == "check/#check-init"


def test_json_stays_json_when_the_target_prints(tmp_path):
    # A kernel that says it is compiling: its lines go to stderr, the report alone to stdout.
    noisy = tmp_path / "noisy.py"
    noisy.write_text(
        "import torch\n\nprint('loading my kernels')\n\n"
        "def norm(x, weight, eps=1e-6):\n"
        "    print('compiling for', x.dtype)\n"
        "    h = x.float()\n"
        "    y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)\n"
        "    return (weight.float() * y).to(x.dtype)\n"
    )
    status, printed, errors = in_process(f"{noisy}:norm", "--json")
    assert status == 0 and json.loads(printed)["passed"]
    assert "loading my kernels" in errors and "compiling for torch.float16" in errors


def detached(x, weight, eps=1e-6):
    # No gradient reaches x: its scale and its values both detached.
    h = x.detach().float()
    return (weight * h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)


def test_no_input_gradient_is_said_not_reported_as_the_targets_crash():
    report = check(detached)
    assert not [v.detail for v in report.verdicts if "raised" in v.detail]
    assert verdict(report, "zero rows").detail == checks.CUT_FROM_THE_GRAPH
    assert "dx inf" in verdict(report, "sizes").detail
    # Neither a view nor its contiguous copy gets one: not the layout's fault.
    strides = verdict(report, "strides")
    assert strides.detail.startswith("in float32, bfloat16 and float16, no gradient")
    assert "against contiguous copies" not in strides.detail
    assert checks.CUT_FROM_THE_GRAPH in verdict(report, "dw").detail
    assert {"gradients", "zero rows", "sizes", "strides", "dw"} <= {
        v.check for v in report.verdicts if v.passed is False
    }
    # The others say so too, not a backward that forgets r (adversarial rounds).
    for name in ["half", "gradients", "mixed", "zero rows", "dw"]:
        found = verdict(report, name)
        assert "no gradient reaches x: is it cut from the graph" in found.detail, name
        assert "input gradient only" not in found.detail, name
        assert found.see == "gradients/#a-custom-autograd-function", name


def rounded_to_bfloat16(x, weight, eps=1e-6):
    # A kernel that writes bfloat16 whatever it reads.
    h = x.float()
    y = weight * h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return y.to(torch.bfloat16)


def test_an_output_in_a_fixed_half_dtype_is_named_by_form():
    (form,) = check(rounded_to_bfloat16).verdicts
    assert form.check == "form" and form.passed is False
    assert form.detail == (
        "returns bfloat16 for float32 input (x / RMS rounded to bfloat16): a layer"
        " returns its input's dtype (a cast to a fixed dtype?)"
    )


class EpsOfTheInputsDtype(torch.nn.Module):
    """Upcast, but eps taken from the input's dtype: float32's for float32 input,
    float16's (about 1e-3) for float16."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(n))

    def forward(self, x):
        eps = torch.finfo(x.dtype).eps
        h = x.float()
        y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
        return (self.weight * y).to(x.dtype)


def test_half_wrong_only_where_eps_shows_says_another_eps_in_that_dtype():
    half = verdict(check(EpsOfTheInputsDtype), "half")
    assert half.passed is False
    said = "where float32 input shows eps 1.19e-07: another eps in float16 (rounded to"
    assert (
        said + " float16, as a tensor made in the input's dtype is, or taken from it,"
        in (half.detail)
    )
    # It upcasts: linked to what half catches (eps in half precision), not to the upcast
    # (found by an adversarial round).
    assert half.see == "check/#check-half"


def test_zero_rows_names_the_eps_of_the_inputs_dtype_as_half_does():
    # bfloat16's eps, 2^-7, gives the all-zero row the gain over 0.088 (found by an
    # adversarial round: zero rows said a half-precision path of its own).
    def machine_eps_of_the_input(x, weight, eps=None):
        eps = torch.finfo(x.dtype).eps if eps is None else eps
        h = x.float()
        y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
        return (y * weight.float()).to(x.dtype)

    zero_rows = verdict(check(machine_eps_of_the_input), "zero rows")
    assert zero_rows.passed is False
    assert "a half-precision path of its own" not in zero_rows.detail
    said = "(right in float32: another eps in bfloat16 and float16, each the dtype's"
    assert said + " machine epsilon, torch.finfo(x.dtype).eps?)" in zero_rows.detail
    assert zero_rows.see == "check/#check-half"


class EpsMadeByTheFirstCall(torch.nn.Module):
    """Upcast, but eps made a tensor in the first input's dtype: in float16 1e-6 becomes
    1.0133e-6, and 1e-8 becomes 0. A model built, converted and then called gets it."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(n))
        self.eps, self.eps_tensor = eps, None

    def forward(self, x):
        if self.eps_tensor is None:
            self.eps_tensor = torch.tensor(self.eps, dtype=x.dtype, device=x.device)
        h = x.float()
        y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps_tensor)
        return self.weight * y.to(x.dtype)


def test_an_eps_rounded_to_zero_in_float16_is_named_though_the_rows_of_eps_fail_too():
    # half's 4096-feature module is built for it and first called in float16.
    half = verdict(check(EpsMadeByTheFirstCall), "half")
    assert "another eps in float16 (rounded to float16, as a tensor" in half.detail
    half = verdict(check(EpsMadeByTheFirstCall, eps=1e-8), "half")
    assert (
        "the all-zero row (not finite), of 4096 features, where an eps or clamp too"
        in (half.detail)
    )


def at_most_rows(x, weight, eps=1e-6, limit=4096):
    # A kernel with a limit on rows, said in a clear error.
    if x.reshape(-1, x.shape[-1]).shape[0] > limit:
        raise ValueError(f"at most {limit} rows")
    h = x.float()
    y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return (weight.float() * y).to(x.dtype)


# 256 rows: forward and half then skip their batch of 257 rows of 4096 features too.
@pytest.mark.parametrize("limit", [4096, 256])
def test_a_limit_on_rows_is_reported_by_batch_and_dw_not_failed(limit):
    report = check(functools.partial(at_most_rows, limit=limit))
    said = f"refuses 4097 rows (ValueError: at most {limit} rows)"
    batch = verdict(report, "batch")
    assert batch.passed is None and batch.refused == [said]
    assert batch.detail == (
        f"the same bits alone and last in batches of 7 and 256 rows; {said}"
    )
    dw = verdict(report, "dw")
    assert dw.passed is None and dw.refused == [said]
    assert report.passed, report.table()
    # The batches half ran, as it says what it tried: none above the limit. Forward
    # reports the large batch of wide rows refused (which --strict fails).
    ran = "among 257 rows of 4096, in eval" if limit > 256 else "heads), in eval"
    assert ran in verdict(report, "half").detail
    wide = f"refuses 257 rows of 4096 features (ValueError: at most {limit} rows)"
    assert verdict(report, "forward").refused == ([] if limit > 256 else [wide])


def test_what_compiled_code_writes_to_stdout_goes_to_stderr_too(capfd):
    # A C printf or a kernel's print writes to file descriptor 1, past sys.stdout.
    with stdout_to_stderr():
        os.write(1, b"from compiled code\n")
        print("from python")
    print("the report")
    out, err = capfd.readouterr()
    assert out == "the report\n"
    assert "from compiled code" in err and "from python" in err


class EpsLeftOutOfTheBackward(torch.autograd.Function):
    """The right forward; a backward whose 1 / RMS leaves eps out."""

    @staticmethod
    def forward(ctx, x, weight, eps):
        h = x.float()
        r = torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
        ctx.save_for_backward(h, weight)
        return (weight.float() * h * r).to(x.dtype)

    @staticmethod
    def backward(ctx, dy):
        h, weight = ctx.saved_tensors
        r = torch.rsqrt(h.pow(2).mean(-1, keepdim=True))
        g = dy.float() * weight.float()
        dx = r * (g - h * r.pow(2) * (g * h).mean(-1, keepdim=True))
        dw = (dy.float() * h * r).reshape(-1, h.shape[-1]).sum(0)
        return dx.to(dy.dtype), dw.to(weight.dtype), None


def eps_left_out_of_the_backward(x, weight, eps=1e-6):
    return EpsLeftOutOfTheBackward.apply(x, weight, eps)


def test_a_backward_wrong_where_eps_shows_gets_no_hint_of_another_eps():
    report = check(eps_left_out_of_the_backward)
    half = verdict(report, "half")
    assert half.passed is False and "input gradient only" in half.detail
    assert "another eps" not in half.detail
    assert verdict(report, "gradients").passed is False


def test_a_partial_or_a_held_kernel_under_the_interpreter_is_recognized(monkeypatch):
    # check.md wraps the kernel for its Gemma mode; functools.partial is the usual wrap.
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    gemma = functools.partial(rms_norm_triton, offset=1.0)
    assert under_triton_interpreter(Subject(gemma))

    class HoldsTheKernel(torch.nn.Module):
        def __init__(self, n, eps=1e-6):
            super().__init__()
            self.weight, self.eps = torch.nn.Parameter(torch.ones(n)), eps
            self.fn = rms_norm_triton

        def forward(self, x):
            return self.fn(x, self.weight, self.eps)

    assert under_triton_interpreter(Subject(HoldsTheKernel))


def test_a_partial_builds_through_factory_and_is_named_by_its_function():
    built = Subject(functools.partial(LlamaRMSNorm, eps=1e-5), factory=True)
    assert built.weight_name == "weight" and built.declared_eps == 1e-5
    with pytest.raises(UsageError, match=r"^--init: rms_norm is a function"):
        Subject(functools.partial(rms_norm, eps=1e-6), init={"a": 1})


class BuiltForMultiplesOf64(torch.nn.Module):
    """The right norm, whose constructor refuses a width that is not a multiple of 64."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        if n % 64:
            raise ValueError(f"hidden size {n} must be a multiple of 64")
        self.weight, self.eps = torch.nn.Parameter(torch.ones(n)), eps

    def forward(self, x):
        return rms_norm(x, x.shape[-1:], self.weight, self.eps)


def test_a_width_the_constructor_refuses_is_reported_as_a_refusal():
    report = check(BuiltForMultiplesOf64)
    sizes = verdict(report, "sizes")
    assert sizes.passed is True and report.passed
    # 769 and 1025 refused; 3584 is a multiple of 64.
    assert [r.split(": hidden size")[0] for r in sizes.refused] == [
        f"refuses {n} features (ValueError: cannot be built for {n} features"
        for n in (769, 1025)
    ]


def test_an_instances_forward_is_a_usage_error_that_names_the_class():
    with pytest.raises(
        UsageError, match="forward of an instance of LlamaRMSNorm: give"
    ):
        Subject(LlamaRMSNorm(64).forward)


def exits_on_float16(x, weight, eps=1e-6):
    # No upcast, which half fails; float16 ends the process, "not supported".
    if x.dtype == torch.float16:
        sys.exit(0)
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight.to(x.dtype)


def test_a_target_that_exits_when_called_is_a_usage_error_not_a_pass():
    with pytest.raises(UsageError, match=r"calls sys.exit\(0\) when called"):
        check(exits_on_float16)


class ExitsWhenBuiltWide(RMSNorm):
    def __init__(self, n, eps=1e-6):
        if n > 64:
            sys.exit(3)
        super().__init__(n, eps)


def test_a_target_that_exits_when_built_is_said_to_exit_when_built():
    # Not a refusal of that width (which is reported), and not a call.
    with pytest.raises(
        UsageError, match=r"ExitsWhenBuiltWide\(4096\): it calls sys.exit"
    ):
        check(ExitsWhenBuiltWide)


def test_a_compiled_target_stays_compiled_for_every_check(monkeypatch):
    # torch.compile recompiles for each kind of input the checks give (about 55): past
    # dynamo's limit of 8 it would run them eagerly. Each call records the limit.
    from torch import _dynamo

    limits = []

    def norm(x, weight, eps=1e-6):
        limits.append(_dynamo.config.recompile_limit)
        h = x.float()
        y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
        return (weight.float() * y).to(x.dtype)

    assert check(norm).passed
    assert min(limits) >= 64 and _dynamo.config.recompile_limit == 8


class LlamaUnderFloat64Default(LlamaRMSNorm):
    """transformers' LlamaRMSNorm in a program that set float64 as torch's default."""

    def __init__(self, n, eps=1e-6):
        torch.set_default_dtype(torch.float64)
        super().__init__(n, eps)
        self.weight.data = self.weight.data.float()


class UpstreamRecorded(torch.autograd.Function):
    """LlamaRMSNorm's math in float32, its backward by autograd; each upstream gradient's
    strides written down."""

    strides: ClassVar[list] = []

    @staticmethod
    def forward(ctx, x, weight, eps):
        ctx.save_for_backward(x, weight)
        ctx.eps = eps
        return UpstreamRecorded.norm(x, weight, eps)

    @staticmethod
    def norm(x, weight, eps):
        h = x.float()
        return weight * (h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)).to(
            x.dtype
        )

    @staticmethod
    def backward(ctx, g):
        UpstreamRecorded.strides.append(g.stride())
        x, weight = (t.detach().requires_grad_() for t in ctx.saved_tensors)
        with torch.enable_grad():
            y = UpstreamRecorded.norm(x, weight, ctx.eps)
        return *torch.autograd.grad(y, (x, weight), g), None


def upstream_recorded(x, weight, eps=1e-6):
    return UpstreamRecorded.apply(x, weight, eps)


def test_a_float64_default_dtype_leaves_the_checkers_own_tensors_float32():
    UpstreamRecorded.strides.clear()
    try:
        report = check(LlamaUnderFloat64Default)
        torch.set_default_dtype(torch.float64)
        check(upstream_recorded)
    finally:
        torch.set_default_dtype(torch.float32)
    assert report.passed, report.table()
    # y.sum()'s upstream gradient reaches the target as it is, strides 0, not a copy.
    assert (0, 0, 0) in UpstreamRecorded.strides


class NormalizedInBfloat16(torch.nn.Module):
    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.eps, self.weight = eps, torch.nn.Parameter(torch.ones(n))

    def forward(self, x):
        h = x.bfloat16()
        y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return (y * self.weight.bfloat16()).to(x.dtype)


def rounded_to_bfloat16_and_back(x, weight, eps=1e-6):
    # Computed in float32, its output rounded to bfloat16 once: bfloat16's values are
    # float16's too, and the rounding is within float16's bound.
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
    return y.bfloat16().to(x.dtype)


def quantized_to_int8(x, weight, eps=1e-6):
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
    return (y * 32).round().clamp(-127, 127).to(torch.int8)


@pytest.mark.parametrize(
    "target, said",
    [
        (NormalizedInBfloat16, "computed in bfloat16 for float32 input"),
        (rounded_to_bfloat16_and_back, "computed in bfloat16 for float32 input"),
        (quantized_to_int8, "returns int8 for float32 input"),
    ],
)
def test_form_names_a_norm_computed_in_a_narrower_dtype_or_quantized(target, said):
    form = verdict(check(target), "form")
    assert not form.passed and said in form.detail


class KeywordOptions(RMSNorm):
    """A config-style constructor, Cls(n, **kwargs), that reads its eps from the keywords."""

    def __init__(self, n, **kwargs):
        super().__init__(n, kwargs.get("eps", 1e-6))


def test_eps_reaches_a_constructor_through_its_keywords():
    report = check(KeywordOptions, eps=1e-5)
    assert report.passed, report.table()
    assert report.conventions["eps"] == 1e-5


def scripted(n):
    return torch.jit.script(LlamaRMSNorm(n))


@pytest.mark.filterwarnings(
    "ignore:`torch.jit.script` is deprecated:DeprecationWarning"
)
def test_a_torchscript_module_is_told_to_check_the_class_it_scripts():
    with pytest.raises(
        UsageError, match="a TorchScript module: check the Python class"
    ):
        check(scripted, factory=True)


class UsesAnotherEps(RMSNorm):
    """Declares 1e-5, computes with 1e-6."""

    def __init__(self, n, eps=1e-5):
        super().__init__(n, eps)

    def forward(self, x):
        return rms_norm(x, self.normalized_shape, self.weight, 1e-6)


class Wrapped(torch.nn.Module):
    """A wrapper, as PEFT's around a layer: the eps is its base layer's."""

    def __init__(self, base):
        super().__init__()
        self.base_layer = base

    def forward(self, x):
        return self.base_layer(x)


class FromConfig(UsesAnotherEps):
    """Built from a configuration that declares the eps, kept as self.config."""

    def __init__(self, n):
        super().__init__(n)
        del self.eps
        self.config = SimpleNamespace(rms_norm_eps=1e-5)


@pytest.mark.parametrize(
    "factory",
    [lambda n: Wrapped(UsesAnotherEps(n)), FromConfig],
    ids=["wrapped", "config"],
)
def test_an_eps_declared_by_a_held_module_or_a_config_is_compared(factory):
    eps = verdict(check(factory, factory=True), "eps")
    assert not eps.passed and "declares 1e-05" in eps.detail


def residual_first(residual, x, weight, eps=1e-6):
    h = x + residual
    return F.rms_norm(h, (h.shape[-1],), weight, eps), h


def sum_not_returned(x, residual, weight, eps=1e-6):
    h = x + residual
    return F.rms_norm(h, (h.shape[-1],), weight, eps), None


def test_a_fused_add_takes_its_arguments_in_any_order_and_must_return_the_sum():
    assert check(residual_first, add=True).passed
    with pytest.raises(UsageError, match=r"got \(Tensor, NoneType\): return the sum"):
        check(sum_not_returned, add=True)


def normalizes_the_input_rounded(x, weight, eps=1e-6):
    # The input cast to bfloat16 first, the rest in float32.
    h = x.bfloat16().float()
    return weight * h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)


def test_form_names_a_norm_of_its_input_rounded_to_a_narrower_dtype():
    form = verdict(check(normalizes_the_input_rounded), "form")
    assert not form.passed and "normalizes x rounded to bfloat16 first" in form.detail


class ArgsNorm(torch.nn.Module):
    """Meta's style: built from the model's arguments, read as an object."""

    def __init__(self, args):
        super().__init__()
        self.eps, self.weight = args.norm_eps, torch.nn.Parameter(torch.ones(args.dim))


def test_init_takes_a_dtype_and_a_class_built_from_arguments_is_told_to_use_factory():
    target = "snippets.implementations.rms_norm_module:RMSNorm"  # it takes a dtype
    status, _, errors = in_process(target, "--init", "dtype=torch.float32")
    assert status == 0, errors
    with pytest.raises(UsageError, match="built from a configuration object"):
        check(ArgsNorm)


def test_a_half_failure_in_its_output_too_is_not_put_down_to_the_backward():
    # A training path with another eps: its output is wrong while recording gradients, and
    # its gradient with it, so the backward (gradients fails too) is not the cause to read
    # first (found by an adversarial round: "... and input gradient only" read as alone).
    def other_eps_while_recording(x, weight, eps=1e-6):
        recording = torch.is_grad_enabled() and x.requires_grad
        return rms_norm(x, x.shape[-1], weight, 1e-5 if recording else eps)

    report = check(other_eps_while_recording)
    half, gradients = verdict(report, "half"), verdict(report, "gradients")
    assert half.passed is False and gradients.passed is False
    assert "while recording gradients and input gradient only" in half.detail
    assert "read it first" not in half.detail


def test_no_gradient_where_x_needs_none_is_put_down_to_x_not_to_the_mix():
    report = check(no_autograd_when_x_needs_none)
    for name in ("gradients", "mixed"):
        found = verdict(report, name)
        assert found.passed is False
        assert "no gradient reaches the weight while x needs none" in found.detail, name
    assert "though float32 input records one" not in verdict(report, "mixed").detail
