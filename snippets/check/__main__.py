"""Check an RMSNorm implementation for the mistakes the Pitfalls page describes.

    python -m snippets.check my_model.norms:MyRMSNorm [--device cpu|cuda] [--eps E] [--json]
    python -m snippets.check path/to/file.py:rms_norm
    python check_rmsnorm.py path/to/file.py:rms_norm    (this file, downloaded from the site)

TARGET names an nn.Module class, built as Cls(n) (with eps= when its constructor takes one and
--eps is given), or a function called as f(x, weight) or f(x, weight, eps). The checker works
out the implementation's conventions (the gain w or 1 + w, eps and where it sits, the cast
order in half precision), then checks it against a float64 reference of those conventions.
Exit status: 0 when every required check passes, 1 when one fails, 2 for a usage error.
"""

import argparse
import copy
import importlib
import importlib.util
import inspect
import json
import math
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from torch.func import functional_call

SITE = "https://rmsnorm-reference.github.io/"
N = 64  # features per row: small enough for gradcheck, large enough for a mean

class UsageError(Exception):
    """The target cannot be imported, built or called (exit status 2)."""

@dataclass
class Verdict:
    check: str
    passed: bool | None  # None: reported, not required
    detail: str
    see: str  # the page (and anchor) that explains it

@dataclass
class Report:
    target: str
    conventions: dict
    verdicts: list

    @property
    def passed(self) -> bool:
        return all(v.passed is not False for v in self.verdicts)

    def table(self) -> str:
        mark = {True: "pass", False: "FAIL", None: "info"}
        shown = {
            k: f"{v:.3g}" if isinstance(v, float) else v
            for k, v in self.conventions.items()
        }
        lines = [f"{self.target}: " + ", ".join(f"{k} {v}" for k, v in shown.items())]
        for v in self.verdicts:
            lines.append(f"  {mark[v.passed]:<4}  {v.check:<10}  {v.detail}")
            if v.passed is False:
                lines.append(f"{'':18}see {SITE}{v.see}")
        return "\n".join(lines)

# --8<-- [start:subject]
class Subject:
    """The implementation under test, called as norm(x, weight) whatever its form."""

    eps_outside = False  # whether eps added to the RMS is the form intended (check())
    weightless = False  # a function f(x) with no gain of its own
    dim = -1  # the dimension it normalizes: -1, or 1 when channel-first (check())

    def __init__(self, obj, eps=None, device="cpu"):
        self.device, self.declared_eps = device, eps
        if inspect.isclass(obj) and issubclass(obj, torch.nn.Module):
            takes = inspect.signature(obj).parameters
            _passable(obj, eps, takes)
            kwargs = {"eps": eps} if eps is not None else {}
            try:
                self.module = obj(N, **kwargs).to(device)
            except Exception as error:
                hint = _eps_hint(takes, eps)
                raise UsageError(
                    f"cannot build {obj.__name__}({N}): {error}{hint}"
                ) from error
            weights = [
                (k, p) for k, p in self.module.named_parameters() if p.shape == (N,)
            ]
            if len(weights) != 1:
                raise UsageError(
                    f"{obj.__name__}({N}) has no single weight of shape ({N},)"
                )
            self.weight_name = weights[0][0]
            for name in ("eps", "variance_epsilon"):
                if self.declared_eps is None and isinstance(
                    getattr(self.module, name, None), float
                ):
                    self.declared_eps = getattr(self.module, name)
        elif callable(obj):
            self.module, self.function = None, obj
            self.takes = inspect.signature(obj).parameters
            _passable(obj, eps, self.takes)
            if _eps_hint(self.takes, eps):
                raise UsageError(
                    f"{obj.__name__} requires eps{_eps_hint(self.takes, eps)}"
                )
            # A norm without a gain, f(x): checked as f(x) * weight, the weight applied to
            # its output as a model's next layer would.
            required = [
                p for p in self.takes.values() if p.default is inspect.Parameter.empty
            ]
            self.weightless = len(required) == 1 and "weight" not in self.takes
            default = getattr(self.takes.get("eps"), "default", None)
            if self.declared_eps is None and isinstance(default, float):
                self.declared_eps = default
        else:
            raise UsageError(f"{obj!r} is neither an nn.Module class nor a function")

    def __call__(self, x, weight, dtype=None):
        """The checks' inputs hold the features last; a channel-first target gets them at
        dim 1 of a 4-D tensor, (batch, channels, height, width), and its output back."""
        if self.dim == -1:
            return self._call(x, weight, dtype)
        one_row = x.dim() == 1
        moved = (x[None] if one_row else x).movedim(-1, 1)
        added = (None,) * (4 - moved.dim())  # views all along: strides stay the checks'
        y = self._call(moved[(..., *added)], weight, dtype)
        y = y[(..., *(0 for _ in added))].movedim(1, -1)
        return y[0] if one_row else y

    def _call(self, x, weight, dtype=None):
        if self.module is not None:
            module = (
                self.module if dtype is None else copy.deepcopy(self.module).to(dtype)
            )
            return functional_call(module, {self.weight_name: weight}, (x,))
        if self.weightless:
            return self.function(x) * weight.to(x.dtype)
        kwargs = {}
        if "normalized_shape" in self.takes:  # torch.nn.functional.rms_norm's form
            kwargs["normalized_shape"] = tuple(weight.shape)
        if self.declared_eps is not None and "eps" in self.takes:
            kwargs["eps"] = self.declared_eps
        if "weight" in self.takes:
            return self.function(x, weight=weight, **kwargs)
        return self.function(x, weight, *kwargs.values())  # f(x, w) or f(x, w, eps)

# --8<-- [end:subject]

def _eps_hint(takes, eps) -> str:
    """What to pass when the target requires an eps and none was given."""
    required = getattr(takes.get("eps"), "default", None) is inspect.Parameter.empty
    return ": pass it with --eps VALUE" if required and eps is None else ""

def _passable(obj, eps, takes):
    # A declared eps that the target never receives would blame the target for it.
    if eps is not None and "eps" not in takes:
        raise UsageError(
            f"--eps {eps:g}: {obj.__name__} takes no argument named eps to pass it to"
        )

def eps_rows(declared, outside=False) -> torch.Tensor:
    """The RMS of the rows that measure eps: 1e-4 and 3e-4, where a usual eps (1e-8 and
    up) is large against the mean square, or sqrt(eps) and 3 sqrt(eps) for a smaller
    declared eps, which float32's rounding of 1e-8 would hide. An eps told to be outside
    the root is added to the RMS itself: rows of RMS eps and 3 eps measure it best."""
    if outside and declared:
        return torch.tensor([1.0, 3.0], dtype=torch.float64) * min(1e-4, declared)
    unit = min(1e-4, math.sqrt(declared)) if declared else 1e-4
    return torch.tensor([1.0, 3.0], dtype=torch.float64) * unit

def rows(scales, device, dtype=torch.float32, seed=0):
    """One row per scale, each with exactly that RMS."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(len(scales), N, generator=g, dtype=torch.float64)
    x = (
        x
        / x.pow(2).mean(-1, keepdim=True).sqrt()
        * torch.tensor(scales).double()[:, None]
    )
    return x.to(device=device, dtype=dtype)

def reference(x, gain, eps, inside=True):
    """Float64 RMSNorm of the detected conventions."""
    x = x.double()
    mean_square = x.pow(2).mean(-1, keepdim=True)
    scale = 1 / (mean_square + eps).sqrt() if inside else 1 / (mean_square.sqrt() + eps)
    return gain.double() * x * scale

def not_rms_norm(norm, neutral, device) -> str | None:
    """What the target computes instead of x / RMS(x) over the whole row, in words, or None
    for an RMSNorm. Rows of RMS about 100 (eps negligible) with a mean of 30, so that the
    RMS, the standard deviation and its unbiased form all differ."""
    x = rows([100.0, 80.0], device) + 30.0
    y, x = norm(x, neutral).double(), x.double()
    if torch.allclose(y, reference(x, torch.ones_like(x[0]), 0.0), rtol=1e-4):
        return None
    centred = x - x.mean(-1, keepdim=True)
    if torch.allclose(
        y, centred / centred.pow(2).mean(-1, keepdim=True).sqrt(), rtol=1e-3
    ):
        return "subtracts the mean and divides by the standard deviation: a LayerNorm"
    scale = y / x  # one number per row for a norm that only rescales whole rows
    for size in [s for s in range(1, N + 1) if N % s == 0][::-1]:
        groups = scale.reshape(len(x), -1, size)
        if torch.allclose(groups, groups[..., :1], rtol=1e-4):
            break
    else:
        return "does not scale x: its output is not x times one number per row"
    if size < N:
        grouped = x.reshape(len(x), -1, size)
        rms = grouped.pow(2).mean(-1, keepdim=True).sqrt()
        if torch.allclose(y, (grouped / rms).reshape(x.shape), rtol=1e-3):
            return f"normalizes groups of {size} features apart: a grouped RMSNorm"
        return f"scales groups of {size} features by one number each, not by 1 / RMS"
    whole = x.pow(2).mean().sqrt()
    statistics = {
        "one RMS of the whole tensor, not one per row": whole.expand(len(x)),
        "the unbiased standard deviation (x.std())": x.std(-1),
        "the standard deviation": x.std(-1, correction=0),
        "the RMS with n - 1 in the mean": (x.pow(2).sum(-1) / (N - 1)).sqrt(),
    }
    for words, statistic in statistics.items():
        if torch.allclose(scale[:, 0], 1 / statistic, rtol=1e-3):
            return f"divides x by {words}, not by the RMS"
    return "scales each row by a number other than 1 / RMS"

def conventions(norm: Subject, device) -> dict:
    """The gain form and eps (value, and inside or outside the root), measured."""
    x = rows([100.0, 100.0], device)  # RMS 100: any plausible eps is negligible here
    zeros = torch.zeros(N, device=device)
    y = norm(x, zeros).double()
    if y.abs().max() == 0:
        gain = "w"
    elif torch.allclose(y, reference(x, torch.ones(N, device=device), 0.0), rtol=1e-3):
        gain = "1 + w"
    else:
        raise UsageError(
            "with weight 0 the output is neither 0 (gain w) nor x / rms (1 + w)"
        )
    neutral = torch.ones(N, device=device) if gain == "w" else zeros
    other = not_rms_norm(norm, neutral, device)
    if other:
        return {"gain": gain, "form": other}
    declared = norm.declared_eps
    r = eps_rows(declared, norm.eps_outside)
    tiny = rows(r.tolist(), device)
    ratio = (norm(tiny, neutral).double() / tiny.double()).mean(-1).cpu()
    inside, outside = 1 / ratio**2 - r**2, 1 / ratio - r
    found = {
        "gain": gain,
        "eps": None,
        "eps placement": "neither inside nor outside alone",
    }
    # The right form gives the same eps at both RMS values, to float32's error (0.3% for
    # eps 1e-8 outside the root). The wrong form's two values differ too, by a factor of
    # about 3 for a small eps but by well under 1% for eps 1e-3 or more: the form whose two
    # values agree more closely is the one, if they agree to 1%.
    estimates = {"inside": inside, "outside": outside}
    spread = {
        where: ((eps[0] - eps[1]).abs() / eps.max()).item() if eps.min() > 0 else 1.0
        for where, eps in estimates.items()
    }
    where = min(spread, key=spread.get)
    if spread[where] <= 1e-2:
        found["eps"], found["eps placement"] = estimates[where].mean().item(), where
    elif (inside.abs() <= 1e-3 * r**2).all():
        # No eps at all at these rows: x / RMS(x) exactly, as F.normalize(x) * sqrt(n) gives
        # where its clamp on the norm does not act; the zero rows check tells a clamp (zeros)
        # from no eps (0 / 0).
        found["eps"], found["eps placement"] = 0.0, "none added (a clamp, or no eps)"
    # Measured to about 1e-5 of its value in float32; an eps added twice is 2e-3 off.
    if found["eps"] and declared and abs(found["eps"] - declared) <= 1e-4 * declared:
        found["eps"] = declared  # the measurement agrees: the exact value
    found["cast order"] = cast_order(norm, found, device)
    return found

def cast_order(norm, found, device) -> str:
    """In bfloat16: float32 throughout, one rounding at the end, or the Hugging Face order
    (normalize in float32, cast, then multiply by the weight in bfloat16)."""
    scales = [0.37, 0.81, 1.9, 3.3, 7.3, 13.0, 23.0, 57.0]  # not 1: x / rms must round
    x, w = rows(scales, device, torch.bfloat16), weight(found, device, 9).bfloat16()
    y = norm(x, w, dtype=torch.bfloat16)
    normalized = reference(x, torch.ones(N, device=device), found["eps"] or 0.0).float()
    if torch.equal(y, (gain(found, w).float() * normalized).bfloat16()):
        return "float32 throughout"
    hugging_face = gain(found, w).bfloat16() * normalized.bfloat16()
    return "Hugging Face" if torch.equal(y, hugging_face) else "other"

def check_forward(norm, found, device):
    x = rows([1e-2, 1e-1, 1.0, 10.0, 100.0], device)
    w = weight(found, device, seed=1)
    y = norm(x, w)
    ref = reference(
        x, gain(found, w), found["eps"] or 0.0, found["eps placement"] == "inside"
    )
    error = ((y.double() - ref).abs().amax(-1) / ref.abs().amax(-1)).max().item()
    ok = error < (1e-12 if y.dtype == torch.float64 else 1e-5)
    return Verdict(
        "forward",
        ok,
        f"float32 rows of RMS 1e-2 to 1e2: largest error {error:.1e}",
        "math/#the-rmsnorm-definition",
    )

def check_eps(norm, found, device):
    # Inside the root is the form of torch.nn.RMSNorm and transformers; --eps-outside takes
    # the RMSNorm authors' form (eps added to the RMS) as the one intended.
    intended = "outside" if norm.eps_outside else "inside"
    if found["eps placement"].startswith("none"):  # a clamp on the norm, or no eps
        declared = norm.declared_eps
        detail = (
            f"declares eps {declared:.6g} but adds none"
            if declared
            else "none added: x / RMS(x) exactly at rows of RMS 1e-4 (see zero rows)"
        )
        return Verdict(
            "eps", not declared, detail, "math/#where-goes-and-why-it-matters"
        )
    if found["eps placement"] != intended:
        told = f" (expected {intended})" if norm.eps_outside else ""
        return Verdict(
            "eps",
            False,
            f"eps {found['eps placement']} the square root{told}",
            "pitfalls/#running-a-checkpoint-with-another-form",
        )
    declared = norm.declared_eps
    if declared is not None and found["eps"] != declared:
        return Verdict(
            "eps",
            False,
            f"uses eps {found['eps']:.6g}, declares {declared:.6g}",
            "math/#where-goes-and-why-it-matters",
        )
    r = eps_rows(declared, norm.eps_outside)
    return Verdict(
        "eps",
        True,
        f"eps {found['eps']:.3g} {intended} the square root (rows of RMS {r[0]:.3g}, {r[1]:.3g})",
        "math/#where-goes-and-why-it-matters",
    )

def check_half(norm, found, device):
    details, failed, unreliable = [], False, False
    for dtype, scales in (
        (torch.float16, [1.0, 300.0]),
        (torch.bfloat16, [1.0, 300.0]),
    ):
        x = rows(scales, device, dtype)
        w = weight(found, device, seed=2).to(dtype)
        y = norm(x, w, dtype=dtype)
        ref = reference(x, gain(found, w), found["eps"] or 0.0)
        fine = y.dtype == dtype and bool(torch.isfinite(y).all())
        error = (
            ((y.double() - ref).abs() / ref.abs().clamp_min(1e-3)).max().item()
            if fine
            else float("inf")
        )
        ulp = torch.finfo(dtype).eps
        fine = fine and error <= 3 * ulp
        short = str(dtype).removeprefix("torch.")
        if not fine and dtype == torch.bfloat16 and under_triton_interpreter(norm):
            # The interpreter emulates bfloat16 with NumPy, not faithfully: no verdict.
            unreliable = True
            details.append(f"{short} unreliable under Triton's interpreter")
            continue
        failed |= not fine
        details.append(
            f"{short} {'ok' if fine else 'wrong'} (error {error / ulp:.1f} ulp, out {str(y.dtype).removeprefix('torch.')})"
        )
    return Verdict(
        "half",
        False if failed else (None if unreliable else True),
        "; ".join(details) + ", rows of RMS 1 and 300",
        "pitfalls/#no-float32-upcast",
    )

def under_triton_interpreter(norm) -> bool:
    """Whether the target is Triton code run by Triton's interpreter (TRITON_INTERPRET=1)."""
    target = norm.module if norm.module is not None else norm.function
    module = inspect.getmodule(target)
    names = (
        [getattr(value, "__name__", "") for value in vars(module).values()]
        if module
        else []
    )
    uses_triton = any(name.split(".")[0] == "triton" for name in names)
    return uses_triton and os.environ.get("TRITON_INTERPRET") == "1"

def check_zero_rows(norm, found, device):
    x = rows([0.0, 1.0], device).requires_grad_()
    w = weight(found, device, seed=3).requires_grad_()
    y = norm(x, w)
    y.backward(torch.ones_like(y))
    ok = bool(
        y[0].eq(0).all()
        and torch.isfinite(x.grad).all()
        and torch.isfinite(w.grad).all()
    )
    return Verdict(
        "zero rows",
        ok,
        (
            "all-zero row: zeros out, finite gradients"
            if ok
            else "all-zero row: not zeros, or gradients not finite"
        ),
        "gradients/#the-all-zero-row",
    )

def check_gradients(norm, found, device):
    x = rows([1e-3, 1e-1, 1.0, 10.0], device).requires_grad_()
    w = weight(found, device, seed=4).requires_grad_()
    g = rows([1.0] * 4, device, seed=5)
    # A copy of the upstream gradient for the target: a backward may write into it to save
    # memory (Liger-Kernel's does), and the reference below needs it as it was.
    given = g.clone()
    torch.autograd.backward(norm(x, w), given)
    x64, w64 = (
        x.detach().double().requires_grad_(),
        w.detach().double().requires_grad_(),
    )
    ref = reference(
        x64, gain(found, w64), found["eps"] or 0.0, found["eps placement"] == "inside"
    )
    torch.autograd.backward(ref, g.double())
    errors = [
        ((a.double() - b).abs().max() / b.abs().max()).item()
        for a, b in ((x.grad, x64.grad), (w.grad, w64.grad))
    ]
    ok = max(errors) < 1e-4
    detail = f"input and weight against float64 autograd: errors {errors[0]:.1e}, {errors[1]:.1e}"
    if not torch.equal(given, g):
        detail += "; the backward wrote into the upstream gradient (allowed, noted)"
    if runs_in_float64(norm, found, device):
        x64 = rows([1e-2, 1.0], device, torch.float64).requires_grad_()
        w64 = weight(found, device, seed=10).double().requires_grad_()
        passed = torch.autograd.gradcheck(norm, (x64, w64), raise_exception=False)
        ok &= passed
        detail += f"; gradcheck in float64 {'passes' if passed else 'fails'}"
    return Verdict(
        "gradients",
        ok,
        detail,
        "gradients/#a-custom-autograd-function",
    )

def runs_in_float64(norm, found, device) -> bool:
    """Whether float64 input is computed in float64 (many upcast only to float32)."""
    x, w = rows([1.0, 3.0], device, torch.float64), weight(found, device, 11).double()
    try:
        y = norm(x, w)
    except Exception:  # noqa: BLE001 (float64 refused: nothing to gradcheck)
        return False
    ref = reference(
        x, gain(found, w), found["eps"] or 0.0, found["eps placement"] == "inside"
    )
    return y.dtype == torch.float64 and bool(torch.allclose(y, ref, rtol=1e-12, atol=0))

def check_shapes(norm, found, device):
    w = weight(found, device, seed=6)
    # Rows of different RMS: a statistic pooled across rows would change their outputs.
    x = rows([0.5 + 0.25 * i for i in range(12)], device, seed=7)
    flat = norm(x, w)
    same = all(
        torch.allclose(
            norm(x.reshape(shape), w).reshape(12, N), flat, rtol=1e-6, atol=1e-7
        )
        for shape in ((2, 6, N), (2, 2, 3, N))
    ) and torch.allclose(norm(x[0], w), flat[0], rtol=1e-6, atol=1e-7)
    changed = x.clone()
    changed[0] *= 10
    independent = torch.equal(norm(changed, w)[1:], flat[1:])
    ok = bool(same and independent)
    return Verdict(
        "shapes",
        ok,
        (
            "1-D, 3-D and 4-D inputs agree; rows independent"
            if ok
            else "shapes disagree, or one row changes another"
        ),
        "math/#the-rmsnorm-definition",
    )

def check_strides(norm, found, device):
    """Rows that are views, not contiguous copies: every other element of a wider tensor, and
    a batch transposed. A kernel that reads memory as if rows were contiguous gets them wrong.
    """
    w = weight(found, device, seed=12)
    x = rows([0.5 + 0.25 * i for i in range(8)], device, seed=13)
    wider = torch.zeros(8, 2 * N, device=device)
    wider[:, ::2] = x
    views = {
        "every other element": wider[:, ::2],
        "a transposed batch": x.reshape(2, 4, N).transpose(0, 1),
    }
    wrong, refused = [], []
    for name, view in views.items():
        try:
            y = norm(view, w)
        except (
            ValueError,
            TypeError,
            RuntimeError,
        ) as error:  # a clear refusal is fine
            refused.append(f"{name} ({type(error).__name__}: {error})"[:120])
            continue
        if not torch.allclose(y, norm(view.contiguous(), w), rtol=1e-6, atol=1e-7):
            wrong.append(name)
    if wrong:
        detail = "wrong on " + " and ".join(wrong) + ", against contiguous copies"
    elif refused:
        detail = "refuses " + "; ".join(refused)
    else:
        detail = "strided rows and a transposed batch: the output of contiguous copies"
    passed = False if wrong else (None if refused else True)
    return Verdict("strides", passed, detail, "numerics/#batch-invariance")

def check_batch(norm, found, device):
    """Reported, not required: the same rows alone and inside batches of 7, 256 and 4097
    rows, bit for bit (a reduction split chosen from the row count breaks it)."""
    w = weight(found, device, seed=14)
    x = rows([0.3 + 0.4 * i for i in range(7)], device, seed=15)
    alone = torch.cat([norm(row[None], w) for row in x])
    differ = []
    for size in [7, 256, 4097]:
        batch = torch.cat([x, rows([1.0] * (size - 7), device, seed=16)])
        if not torch.equal(norm(batch, w)[:7], alone):
            differ.append(str(size))
    detail = (
        "the same bits alone and in batches of 7, 256 and 4097 rows"
        if not differ
        else "other bits in batches of " + ", ".join(differ) + " rows than alone"
    )
    return Verdict("batch", None, detail, "numerics/#batch-invariance")

def check_init(norm, found, device):
    """A fresh module's weight is the identity gain: ones for w, zeros for 1 + w."""
    see = "pitfalls/#gains-initialized-like-a-linear-layers-weights"
    if norm.module is None:
        return Verdict(
            "init", None, "not applicable: a function has no weight of its own", see
        )
    fresh = dict(norm.module.named_parameters())[norm.weight_name].detach()
    identity = 1.0 if found["gain"] == "w" else 0.0
    off = int((fresh != identity).sum())
    return Verdict(
        "init",
        off == 0,
        f"fresh {norm.weight_name}: {off} of {N} entries differ from {identity:g}",
        see,
    )

def agreement(norm, found, device):
    """Bit-for-bit agreement with torch.nn.RMSNorm and transformers' norm (reported)."""
    if found["eps placement"] != "inside":
        return Verdict(
            "agreement",
            None,
            "not compared: another eps form",
            "implementations/#agreement-with-transformers",
        )
    x, w = rows([1.0, 0.1], device), weight(found, device, seed=8)
    results = []
    if found["gain"] == "w":
        torch_norm = torch.nn.RMSNorm(N, eps=found["eps"]).to(device)
        results.append(
            ("torch.nn.RMSNorm", functional_call(torch_norm, {"weight": w}, (x,)))
        )
    try:
        from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
        from transformers.models.llama.modeling_llama import LlamaRMSNorm
    except ImportError:
        pass
    else:
        other = LlamaRMSNorm if found["gain"] == "w" else GemmaRMSNorm
        for dtype in (torch.float32, torch.bfloat16):
            theirs = other(N, eps=found["eps"]).to(device=device, dtype=dtype)
            y = functional_call(theirs, {"weight": w.to(dtype)}, (x.to(dtype),))
            results.append(
                (f"{other.__name__} {str(dtype).removeprefix('torch.')}", y, dtype)
            )
    said = []
    for name, y, *dtype in results:
        dtype = dtype[0] if dtype else torch.float32
        mine = norm(
            x.to(dtype), w.to(dtype), dtype=dtype if dtype != torch.float32 else None
        )
        said.append(f"{name} {'bit for bit' if torch.equal(mine, y) else 'differs'}")
    return Verdict(
        "agreement",
        None,
        "; ".join(said) or "nothing to compare",
        "implementations/#agreement-with-transformers",
    )

def weight(found, device, seed):
    """A random weight in the implementation's convention, its gain near 1."""
    w = 0.1 * torch.randn(N, generator=torch.Generator().manual_seed(seed))
    return (w + (1.0 if found["gain"] == "w" else 0.0)).to(device)

def gain(found, w):
    return w if found["gain"] == "w" else 1 + w.double()

CHECKS = [
    check_forward,
    check_eps,
    check_half,
    check_zero_rows,
    check_gradients,
    check_shapes,
    check_strides,
    check_batch,
    check_init,
    agreement,
]

def check(
    target, eps=None, device="cpu", name=None, eps_outside=False, dim=-1
) -> Report:
    """Run every check on `target` (an nn.Module class or a function); with `eps_outside`,
    eps added to the RMS is the form intended; `dim` is the dimension it normalizes (-1, or
    1 for channel-first inputs)."""
    if device == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda: no CUDA device here")
    norm = Subject(target, eps, device)
    norm.eps_outside, norm.dim = eps_outside, dim
    try:
        found = conventions(norm, device)
    except UsageError:
        raise
    except Exception as error:
        shape = f"(rows, {N})" if dim == -1 else f"(rows, {N}, 1, 1)"
        hint = "" if dim == 1 else "; a norm over dim 1 (channel-first): pass --dim 1"
        raise UsageError(
            f"calling it as norm(x, weight), x of shape {shape}, failed: {error!r}{hint}"
        ) from error
    if dim == 1:
        found = {"dim": "1 (channel-first)", **found}
    name = name or getattr(target, "__name__", repr(target))
    if norm.weightless:
        found = {
            "weight": "none of its own (checked with one applied after it)",
            **found,
        }
    if "form" in found:  # not an RMSNorm: one verdict that says what it is
        verdict = Verdict("form", False, found["form"], "math/#the-rmsnorm-definition")
        return Report(name, found, [verdict])
    verdicts = []
    for run in CHECKS:
        try:
            verdicts.append(run(norm, found, device))
        except Exception as error:  # noqa: BLE001 (a crash in a check fails that check)
            short = run.__name__.removeprefix("check_").replace("_", " ")
            verdicts.append(
                Verdict(short, False, f"raised {error!r}"[:200], "pitfalls/")
            )
    return Report(name, found, verdicts)

def load(target: str):
    """`module:name` or `path/to/file.py:name`, importable from the working directory."""
    where, _, name = target.rpartition(":")
    if not where or not name:
        raise UsageError(f"TARGET must be module:name or file.py:name, got {target!r}")
    try:
        if where.endswith(".py"):
            spec = importlib.util.spec_from_file_location(Path(where).stem, where)
            module = importlib.util.module_from_spec(spec)
            # Registered before it runs, as an import would: a @dataclass under
            # `from __future__ import annotations` looks its module up in sys.modules.
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
        else:
            sys.path.insert(0, "")
            module = importlib.import_module(where)
        return getattr(module, name)
    except Exception as error:  # whatever the import raises: exit status 2
        raise UsageError(f"cannot import {target}: {error!r}") from error

def main(argv=None) -> int:
    # Run as the site's package or as the one file the Check page offers.
    prog = "python -m snippets.check" if __package__ else None
    description = (
        "Check an RMSNorm implementation for the mistakes of " + SITE + "pitfalls/"
    )
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("target", help="module:name or path/to/file.py:name")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--eps", type=float, help="the eps to build or call it with")
    parser.add_argument("--json", action="store_true", help="the verdicts as JSON")
    parser.add_argument(
        "--eps-outside",
        action="store_true",
        help="eps added to the RMS, outside the root, is intended (the RMSNorm authors' code)",
    )
    parser.add_argument(
        "--dim",
        type=int,
        choices=[-1, 1],
        default=-1,
        help="the dimension it normalizes: 1 for (batch, channels, ...) inputs",
    )
    args = parser.parse_args(argv)
    try:
        report = check(
            load(args.target),
            args.eps,
            args.device,
            args.target,
            args.eps_outside,
            args.dim,
        )
    except UsageError as error:
        if args.json:  # a caller reading JSON gets the error as JSON too
            sys.stdout.write(json.dumps({"usage_error": str(error)}, indent=2) + "\n")
        print(f"usage error: {error}", file=sys.stderr)
        return 2
    if args.json:
        text = json.dumps({**asdict(report), "passed": report.passed}, indent=2)
    else:
        text = report.table()
    # Written to sys.stdout, which a caller can redirect (the Check page's cli.py does).
    sys.stdout.write(text + "\n")
    return 0 if report.passed else 1

if __name__ == "__main__":
    sys.exit(main())
