"""The checks, each a verdict on one mistake, and check(): the form and conventions measured,
then every check against a float64 reference of those conventions."""

import contextlib
import inspect
import math
import re
import warnings

import torch
from torch.func import functional_call

from snippets.check.add import ADD_CHECKS
from snippets.check.measure import (
    CONVENTIONS,
    conventions,
    eps_rows,
    gain,
    largest,
    neutral_weight,
    of_gain,
    reference,
    rounding,
    rows,
    scales,
    weight,
    where_eps_shows,
)
from snippets.check.report import (
    NO_AUTOGRAD,
    NO_WEIGHT_GRADIENT,
    REFUSALS,
    Report,
    Verdict,
    WrongOutput,
    cut,
    said,
    short_name,
)
from snippets.check.target import (
    BIAS_NAMES,
    EPS_ARGUMENTS,
    EPS_ATTRIBUTES,
    INPUT_NAMES,
    LARGE_BATCH,
    MANY_ROWS,
    N,
    TRUNCATION,
    WIDE,
    AddSubject,
    Subject,
    UsageError,
    hides_its_names,
    images,
    under_triton_interpreter,
)

def partly_along(x, noise):
    """An upstream gradient partly along x, noise besides: a backward that drops the term
    along x / RMS is then wrong by far more than rounding."""
    along = x.float() / x.float().pow(2).mean(-1, keepdim=True).sqrt()
    return along + 0.5 * noise.float()

# A function's output buffer by the names it goes by before x: vLLM's out, llama2.c's o.
OUTPUT_NAMES = ("out", "output", "dst", "o", "y")
# Errors autograd itself raises, on a backward's mistake or a forward it cannot record:
# crashes, which fail the check, never read as a refusal of rows, widths or layouts.
AUTOGRAD_ERRORS = (
    "modified by an inplace operation",
    "returned an incorrect number of gradients",
    "returned an invalid gradient",
    "don't support automatic differentiation",
)

def by_autograd(error) -> bool:
    """Whether autograd raised the error, not the target refusing its input."""
    return any(words in str(error) for words in AUTOGRAD_ERRORS)

# One of forward's ways that judges no output: its input gradient under autocast.
AUTOCAST_GRADIENT = "under autocast, the input gradient"
# Said where autocast's path records no gradient and float32's does.
NO_GRADIENT_UNDER_AUTOCAST = (
    "no gradient recorded under autocast to bfloat16, though float32 records one (a path"
    " without autograd: mixed-precision training stops at the norm)"
)
# Said where autocast's path gives the weight no gradient and float32's gives it one.
NO_WEIGHT_GRADIENT_UNDER_AUTOCAST = (
    "no gradient reaches the weight under autocast to bfloat16, though float32 gives it one"
    " (a copy of it made under no_grad or .detach()? the gain never trains in mixed"
    " precision)"
)

def cuts_the_weight(norm, x, w, upstream, device) -> bool:
    """Whether autocast's path leaves the weight without a gradient where float32's
    gives it one: a copy of the gain made without autograd, which never trains."""
    if norm.weightless:  # the checker's own weight, applied after it
        return False
    gradients = []
    for under_autocast in (True, False):
        trained = w.detach().clone().requires_grad_()
        given = x.detach().clone().requires_grad_()
        kind = torch.device(device).type
        try:
            with torch.autocast(kind, dtype=torch.bfloat16, enabled=under_autocast):
                y = norm(given, trained)
            torch.autograd.backward(y, upstream.to(y.dtype, copy=True))
        except RuntimeError:  # a backward that fails, or none recorded: said elsewhere
            return False
        gradients.append(trained.grad)
    return gradients[0] is None and gradients[1] is not None

SLICED = "rows spaced apart past their storage's start (qkv[:, n:2 * n])"

def check_forward(norm, found, device):
    """Rows of RMS 1e-2 to 1e2 against float64, as training calls the norm, under autocast
    (mixed-precision training), one row at a time (a decode step), as a batch of decode
    steps, with gains below zero, in a batch of many rows, in a large batch of wide rows
    and as a model serves
    (eval mode, inference_mode), there also after its weight is updated in place: a norm
    may take another path there, with another eps or formula, or a gain it kept, or lose
    its float32 statistic to autocast."""
    tried, eps = [1e-2, 1e-1, 1.0, 10.0, 100.0], found["eps"] or 0.0
    inside = found["eps placement"] == "inside"
    # --8<-- [start:forward_bound]
    # Each row's error relative to its largest output, in float32.
    bound = 1e-5
    # --8<-- [end:forward_bound]
    errors, bounds, other_dtype = {}, {}, {}  # by way of calling it

    def judge(way, y, x, w, allowed=()):  # each row's error, relative to its largest
        ref = reference(x, gain(found, w), eps, inside)
        errors[way] = (y.double() - ref).abs().amax(-1) / ref.abs().amax(-1)
        bounds[way] = 3 * torch.finfo(y.dtype).eps if y.dtype in allowed else bound
        if y.dtype != x.dtype and y.dtype not in allowed:  # the next layer's input
            other_dtype[way or "at once"] = short_name(y.dtype)

    x, w = rows(tried, device), weight(found, device, seed=1)
    judge("", norm(x, w), x, w)
    flipped = every_other_gain_negative(found, w)
    judge("with every other gain negative", norm(x, flipped), x, flipped)
    # A gain cut from a larger tensor (a flat parameter, as FSDP keeps): past its
    # storage's start, where a kernel given the storage's pointer reads another.
    cut = torch.cat([flipped, w])[N:]
    judge("with a weight past its storage's start", norm(x, cut), x, cut)
    judge("one row at a time", torch.cat([norm(row[None], w) for row in x]), x, w)
    # Autocast runs matmuls in bfloat16: a statistic taken as x @ x would be one. And
    # mixed-precision training differentiates there: the input gradient too, from an
    # upstream gradient partly along x (where a statistic detached under autocast shows).
    given = x.detach().clone().requires_grad_()
    with torch.autocast(torch.device(device).type, dtype=torch.bfloat16):
        y = norm(given, w)
    # A layer may return autocast's dtype: then judged within 3 of its ulps.
    judge("under autocast to bfloat16", y.detach(), x, w, (torch.bfloat16,))
    upstream = partly_along(x, rows([1.0] * len(tried), device, seed=33))
    # None recorded under autocast where float32 records one: training stops at the norm
    # (a target that records none anywhere, an inference kernel, is judged as before).
    ungraded = not y.requires_grad and records_gradients(norm, found, device)
    # And the gain's there: the input's gradient may flow while the weight's is cut.
    w_cut = y.requires_grad and cuts_the_weight(norm, x, w, upstream, device)
    with contextlib.suppress(RuntimeError):  # a backward that fails: gradients says so
        if y.requires_grad:
            # A copy even in y's dtype: a backward may write into it (Liger-Kernel's does).
            torch.autograd.backward(y, upstream.to(y.dtype, copy=True))
            x64 = x.double().requires_grad_()
            ref = reference(x64, gain(found, w), eps, inside)
            torch.autograd.backward(ref, upstream)
            dx = torch.full_like(x64, math.nan) if given.grad is None else given.grad
            wrong = (dx.double() - x64.grad).abs().amax(-1) / x64.grad.abs().amax(-1)
            errors[AUTOCAST_GRADIENT] = wrong.nan_to_num(nan=math.inf)
            bounds[AUTOCAST_GRADIENT] = HALF_GRADIENT
    # A batch of decode steps, (batch, 1, features); a clear refusal of 3-D input is
    # the shapes check's failure.
    with contextlib.suppress(*REFUSALS):
        judge("as (batch, 1, features)", norm(x[:, None], w)[:, 0], x, w)
        y = torch.cat([norm(row[None, None], w)[0] for row in x])
        judge("one row at a time as (1, 1, features)", y, x, w)
    # The rows last in a batch of tokens, every row compared: a path taken from a few
    # hundred rows on may be wrong there alone. A limit on rows is batch's and dw's to say.
    many = torch.cat([rows([1.0] * (MANY_ROWS - len(tried)), device, seed=52), x])
    with contextlib.suppress(*REFUSALS):
        judge(f"in a batch of {MANY_ROWS} rows", norm(many, w), many, w)
    # Served, the input is made under inference_mode too (x.is_inference() is True).
    with norm.serving():
        judge("in eval mode under inference_mode", norm(x.clone(), w), x, w)
        # A decode step served: a fast path for one row when not training is common.
        y = torch.cat([norm(row[None].clone(), w) for row in x])
        judge("one row at a time in eval mode under inference_mode", y, x, w)
        # As generate() gives it, (batch, tokens, features), and as a QK-norm on a slice
        # of the fused qkv projection, rows spaced apart past their storage's start: a
        # served kernel may read memory as rows of its own (strides runs in training).
        with contextlib.suppress(*REFUSALS):
            y = norm(x.clone()[None], w)[0]
            judge("as (1, tokens, features) in eval mode under inference_mode", y, x, w)
            sliced = torch.cat([x.flip(-1), x], -1)[:, N:]
            y = norm(sliced, w)
            judge(f"on {SLICED} in eval mode under inference_mode", y, x, w)
        # In place, as load_state_dict and a served model's weight sync update a weight,
        # the module still in eval mode: a gain cached by the tensor's address, or kept
        # until the mode changes, would be the old one.
        w.copy_(weight(found, device, seed=29))
        judge("after its weight is updated in place", norm(x.clone(), w), x, w)
    refused = refuses_wide_rows(norm, found, device)
    if not norm.init and not refused:  # --init sets the arguments for 64 features
        wide, w = rows(tried, device, seed=27, n=WIDE), weight(found, device, 1, WIDE)
        filler = rows([1.0] * (LARGE_BATCH - len(tried)), device, seed=28, n=WIDE)
        # Every row compared: a kernel may leave the last rows of a batch unwritten. A
        # limit on rows, refusing this batch alone, is reported (half leaves it to this).
        batch = torch.cat([wide, filler])
        try:
            y = norm.at_width(WIDE)(batch, w)
        except REFUSALS as error:
            refused = f"refuses {LARGE_BATCH} rows of {WIDE} features ({said(error)})"
        else:
            judge(f"in a batch of {LARGE_BATCH} rows of {WIDE} features", y, batch, w)
    detail = f"float32 rows of RMS 1e-2 to 1e2: largest error {errors[''].max():.1e}"
    for way, each in errors.items():
        bad = (~(each < bounds[way])).nonzero().flatten().tolist()  # NaN is wrong too
        if way and bad:
            detail += f"; {way} {each.max():.1e}, {wrong_rows(bad, len(each))}"
    if other_dtype:  # float64 out, say: a float32 model's next matmul refuses it
        out = " and ".join(f"{name} {way}" for way, name in other_dtype.items())
        outputs = [way for way in errors if way != AUTOCAST_GRADIENT]
        if len(other_dtype) == len(outputs) and len(set(other_dtype.values())) == 1:
            out = f"{other_dtype['at once']} on every path"
        detail += f"; float32 input comes back {out}, not float32"
    if ungraded:
        detail += f"; {NO_GRADIENT_UNDER_AUTOCAST}"
    if w_cut:
        detail += f"; {NO_WEIGHT_GRADIENT_UNDER_AUTOCAST}"
    detail += f"; {refused}" if refused else ""
    wrong = [way for way, each in errors.items() if not (each < bounds[way]).all()]
    x_gradient_wrong = AUTOCAST_GRADIENT in wrong
    wrong += [AUTOCAST_GRADIENT] if (ungraded or w_cut) and not x_gradient_wrong else []
    passed = not wrong and not other_dtype
    refusals = [refused] if refused else []
    # Every output right, only autocast's input gradient wrong: the backward's formula.
    only_gradient = wrong == [AUTOCAST_GRADIENT] and not other_dtype
    see = (
        "gradients/#the-derivation" if only_gradient else "math/#the-rmsnorm-definition"
    )
    if (ungraded or w_cut) and only_gradient and not x_gradient_wrong:  # no formula's
        see = "gradients/#a-custom-autograd-function"
    # Every output right but autocast's: its casts, of a matmul's inputs to bfloat16.
    autocast = "under autocast to bfloat16"
    if autocast in wrong and set(wrong) <= {autocast, AUTOCAST_GRADIENT}:
        detail += (
            "; right in float32, wrong under autocast alone: a statistic taken by a"
            " matmul or einsum, which autocast runs in bfloat16? take the mean of"
            " x.float().pow(2)"
        )
        see = "implementations/#under-autocast" if not other_dtype else see
    # Every output right but served ones: a path or a state of serving's own.
    served = (SERVED, "after its weight is updated in place")
    if wrong and all(any(words in way for words in served) for way in wrong):
        detail += (
            "; right in training, wrong served alone: a path of its own in eval mode or"
            " under inference_mode, or a statistic, gain or cast weight kept between"
            " calls (by a tensor's address?)"
        )
        see = "check/#check-forward"  # its list of what serving gets wrong
    return Verdict("forward", passed, detail, see, refusals)

def refuses_wide_rows(norm, found, device) -> str | None:
    """A clear refusal of rows of a model's width (WIDE features), in a few words: forward
    and half then check the width they can and say so, as sizes says a size refused."""
    if norm.init:  # --init sets the arguments for 64 features: no wide rows are tried
        return None
    x, w = rows([1.0], device, n=WIDE), weight(found, device, seed=0, n=WIDE)
    try:
        norm.at_width(WIDE)(x, w)
    except REFUSALS as error:
        return f"refuses {WIDE} features ({said(error)})"
    return None

def wrong_rows(bad: list[int], total: int) -> str:
    """Which rows of a batch came out wrong (a kernel that skips some leaves the last)."""
    if len(bad) == 1:
        where = f"row {bad[0]}"
    elif bad == list(range(bad[0], bad[-1] + 1)):
        where = f"rows {bad[0]} to {bad[-1]}"
    else:
        where = f"the first wrong row {bad[0]}, the last {bad[-1]}"
    return f"wrong on {len(bad)} of {total} rows ({where})"

def check_eps(norm, found, device):
    # Inside the root is the form of torch.nn.RMSNorm and transformers; --eps-outside takes
    # the RMSNorm authors' form (eps added to the RMS) as the one intended.
    intended = "outside" if norm.eps_outside else "inside"
    see = "math/#where-goes-and-why-it-matters"
    if found["eps placement"].startswith("none"):  # a clamp on the norm, or no eps
        declared = norm.declared_eps
        if not declared:
            detail = (
                "none added: x / RMS(x) at rows of RMS 1e-4, to a thousandth of their"
                " mean square (see zero rows)"
            )
            return Verdict("eps", True, detail, see)
        clamped = clamped_by(norm, found, device, declared)
        if clamped:
            detail = f"eps {declared:.6g} clamps {clamped}, none added"
            return Verdict("eps", True, detail, see)
        if adds_eps_times_largest_square(norm, found, device, declared):
            detail = (
                f"adds eps {declared:.6g} times the square of the row's largest magnitude"
                " m (eps added after dividing the row by m, not divided by m^2 too)"
            )
            return Verdict("eps", False, detail, "pitfalls/#where-there-is-no-float32")
        return Verdict("eps", False, f"declares eps {declared:.6g} but adds none", see)
    another_form = "pitfalls/#running-a-checkpoint-with-another-form"
    if found["eps placement"].startswith("neither"):
        floor = floors_the_mean_square(norm, found, device)
        detail = (
            f"eps neither inside nor outside the square root alone (expected {intended})"
            + (
                f": it floors the mean square at {floor:.3g}, max(mean square, eps),"
                " where both forms add eps"
                if floor
                else " (eps in two places?)"
            )
        )
        return Verdict("eps", False, detail, another_form)
    if found["eps placement"] != intended:
        told = (
            f" (expected {intended})"
            if norm.eps_outside
            else ": move it inside, rsqrt(mean(x**2) + eps), torch's and Hugging Face's"
            " form; for a checkpoint trained with it outside, keep it and pass --eps-outside"
        )
        detail = f"eps {found['eps placement']} the square root{told}"
        return Verdict("eps", False, detail, another_form)
    declared = norm.declared_eps
    if declared is not None and found["eps"] != declared:
        return Verdict(
            "eps",
            False,
            f"uses eps {found['eps']:.6g}, declares {declared:.6g}"
            f" ({eps_mismatch(found['eps'], declared)})",
            "pitfalls/#running-a-checkpoint-with-another-form",
        )
    r = eps_rows(declared, norm.eps_outside)
    if declared and norm.eps_argument:  # told another eps, it must give another output
        x, w = rows(r.tolist(), device), weight(found, device, seed=24)
        if torch.equal(norm(x, w), norm.with_eps(10 * declared)(x, w)):
            detail = (
                f"gives the same output told eps {declared:.3g} or {10 * declared:.3g}"
                f" (rows of RMS {r[0]:.3g}, {r[1]:.3g}): an eps written into the code?"
            )
            return Verdict("eps", False, detail, "math/#where-goes-and-why-it-matters")
    detail = f"eps {found['eps']:.3g} {intended} the square root (rows of RMS {r[0]:.3g}, {r[1]:.3g})"
    machine = torch.finfo(torch.float32).eps
    if declared is None and abs(found["eps"] - machine) <= 1e-2 * machine:
        # torch.nn.RMSNorm's and F.rms_norm's default: no checkpoint's eps.
        detail += (
            "; float32's machine epsilon, as eps=None gives, not a checkpoint's eps"
        )
    return Verdict("eps", True, detail, "math/#where-goes-and-why-it-matters")

def eps_mismatch(used: float, declared: float) -> str:
    """The likely cause of an eps other than the one declared, from how the two relate."""
    causes = {  # the eps each mistake would give, and its name
        2 * declared: "eps added twice?",
        declared / N: "eps added to the sum of squares, not to their mean?",
        declared**2: "eps squared?",
        torch.finfo(torch.float32).eps: "float32's machine epsilon, as eps=None gives?",
    }
    for value, cause in causes.items():
        if abs(used - value) <= 1e-2 * value:  # eps is measured to about 1e-5 of itself
            return cause
    own = "an eps of the code's own, not the declared one?"
    return f"eps added twice, or {own}" if used > declared else own

def floors_the_mean_square(norm, found, device) -> float | None:
    """The floor, read as a mean square, where the rows that measure eps come out scaled by
    one number, as x * rsqrt(max(mean square, eps)) scales every row below eps; else None.
    """
    tiny = eps_rows(norm.declared_eps, norm.eps_outside).tolist()
    scale = scales(norm, neutral_weight(found["gain"], device), tiny)
    if (scale[0] - scale[1]).abs() <= 1e-3 * scale[0]:
        return 1 / scale[0].item() ** 2
    return None

def clamped_by(norm, found, device, eps) -> str | None:
    """What a declared eps clamps from below, read on a row whose L2 norm is eps / 2: the L2
    norm when it comes out as x / eps times sqrt(n), as x / max(||x||, eps) * sqrt(n) gives
    (F.normalize(x, eps=eps) * sqrt(n)); the RMS when it comes out as x / eps, as
    x / max(RMS, eps) gives; else None."""
    neutral = neutral_weight(found["gain"], device)
    rms = eps / 2 / math.sqrt(N)  # RMS = ||x|| / sqrt(n)
    scale = scales(norm, neutral, [rms]).item() * eps
    clamps = {"the L2 norm (F.normalize's form)": math.sqrt(N), "the RMS": 1.0}
    for what, expected in clamps.items():
        if abs(scale - expected) <= 1e-2 * expected:
            return what
    return None

def adds_eps_times_largest_square(norm, found, device, eps) -> bool:
    """Whether the norm adds eps m^2, m the row's largest magnitude, as
    sqrt(mean((x / m)^2) + eps) * m does: read on rows of one value m among values m / 100,
    where eps m^2 is about eps n against the mean square, at m = 1 and m = 100."""
    x = torch.full((2, WIDE), 1e-2, device=device, dtype=torch.float32)
    x[:, 0] = 1.0
    x[1] *= 100.0
    neutral = neutral_weight(found["gain"], device, WIDE)
    scale = norm.at_width(WIDE)(x, neutral).double() / x.double()
    mean_square = x.double().pow(2).mean(-1)
    added = 1 / scale.mean(-1).cpu() ** 2 - mean_square.cpu()
    largest = torch.tensor([1.0, 1e4], dtype=torch.float64)
    return bool(((added / largest - eps).abs() <= 0.05 * eps).all())

# The rows check_half tries, and the two with values whose squares pass float16's largest
# value, 65504.
HALF_ROWS = [
    "the row of RMS 1",
    "the row of RMS 300",
    "the row with an outlier channel",
]
PAST_FLOAT16 = HALF_ROWS[1:]
EPS_ROWS, ZERO_ROW = "the rows where eps shows", "the all-zero row"
# The rows before the ones tried in a large batch, each judged too.
FILLER_ROWS = "the batch's other rows (of RMS 1)"
# A way's key in half_errors' errors, with no rows: no gradient reached x on some call.
NO_INPUT_GRADIENT = "no input gradient"
# What half and gradients say then, where a backward's formula is not the cause.
CUT_FROM_THE_GRAPH = (
    "no gradient reaches x: is it cut from the graph, by torch.no_grad() or .detach(),"
    " or a custom backward that returns None for x?"
)
# The input gradient's bound, relative to its largest entry: a row lost to overflow is off
# by about 1; the rounding of a right one, a few ulps.
HALF_GRADIENT = 0.1

def half_errors(norm, found, device, dtype, n):
    """The names of the rows tried, of n features, the relative error of each (inf for
    NaN) for each way of calling the norm (all rows at once, keyed "", first), and the
    output's dtype each way. A norm may take another path called on one row (a decode
    step), on a large batch of wide rows or of many rows, or as a model serves, and its
    backward may lose what its forward keeps; such a path, or half precision itself, may
    also drop, move or replace eps: that shows on rows of mean square eps and 9 eps (eps
    inside) and on an all-zero row."""
    eps, inside = found["eps"] or 0.0, found["eps placement"] != "outside"
    shows_eps = where_eps_shows(eps) if eps and inside else []
    names = HALF_ROWS + [EPS_ROWS] * len(shows_eps) + [ZERO_ROW]
    x = rows([1.0, 300.0, 1.0, *shows_eps, 0.0], device, dtype, n=n)
    # An outlier channel, as activations have: 256 squared overflows float16 though the
    # row's RMS is only about 32 (about 4 at 4096 features).
    x[2, 7] = 256.0
    w = weight(found, device, seed=2, n=n).to(dtype)
    y = norm(x, w, dtype=dtype)
    outputs = {
        "": y,
        "one row at a time": torch.cat([norm(row[None], w, dtype=dtype) for row in x]),
    }
    # A model's activations, (batch, tokens, features), and a batch of decode steps; a
    # norm that refuses 3-D input clearly fails the shapes check, and is checked here on
    # its rows.
    with contextlib.suppress(TypeError, ValueError):
        outputs["as (1, tokens, features)"] = norm(x[None], w, dtype=dtype)[0]
        outputs["as (batch, 1, features)"] = norm(x[:, None], w, dtype=dtype)[:, 0]
        steps = [norm(row[None, None], w, dtype=dtype)[0] for row in x]
        outputs["one row at a time as (1, 1, features)"] = torch.cat(steps)
    # QK-norm's call, (batch, heads, tokens, head size): a path of its own for 4-D input.
    with contextlib.suppress(TypeError, ValueError):
        qk_norm = norm(x[None, None], w, dtype=dtype)
        outputs["as (1, 1, tokens, features)"] = qk_norm[0, 0]
    # The rows last in a large batch of wide rows, or in a batch of tokens: a kernel whose
    # programs leave the last rows unwritten fails. The batch in, and its output; a limit
    # on rows is forward's, batch's and dw's to say.
    batches = {}
    size, seed = (LARGE_BATCH, 25) if n == WIDE else (MANY_ROWS, 53)
    filler = rows([1.0] * (size - len(x)), device, dtype, seed=seed, n=n)
    batch = torch.cat([filler, x])
    with contextlib.suppress(*REFUSALS):
        batches[f"in a batch of {size} rows"] = batch, norm(batch, w, dtype=dtype)
    for way, (_, out) in batches.items():
        outputs[way] = out[-len(x) :]
    with norm.serving():  # the input made there too, as a served model's activations
        outputs["in eval mode under inference_mode"] = norm(x.clone(), w, dtype=dtype)
    # The all-zero row's output is zeros, also where no eps is added (a clamp's form).
    ref = reference(x.double(), gain(found, w), eps, inside).nan_to_num(0.0)

    def relative(out, ref):
        """Relative to each output, or to 1e-2 for smaller ones (the outputs' RMS is about
        1): at 4096 features x / ||x||, which forms like F.normalize(x) * sqrt(n) go
        through, holds values near float16's subnormal range, with fewer bits, there."""
        error = (out.double() - ref).abs() / ref.abs().clamp_min(1e-2)
        return error.amax(-1).nan_to_num(nan=math.inf).tolist()

    errors = {way: relative(out, ref) for way, out in outputs.items()}
    # Every row of a batch judged (a path may go wrong mid-batch): the filler rows' worst,
    # against their own reference, after the rows tried.
    names += [FILLER_ROWS] if batches else []
    for way, (batch, out) in batches.items():
        filler = reference(batch[: -len(x)].double(), gain(found, w), eps, inside)
        errors[way].append(largest(relative(out[: -len(x)], filler)))
    # Called as training calls it, recording gradients (a path of its own, whose forward
    # may differ), on every row but the all-zero one (a clamp's form has its own gradient
    # at zeros; a backward without eps shows on the rows where eps shows); then its
    # backward from a column-major upstream gradient, a transposed output's, unless the
    # target refuses one.
    given = x[:-1].clone().requires_grad_()
    frozen = norm(given, w, dtype=dtype)  # a gain frozen, as LoRA fine-tuning leaves it
    trained = w.clone().requires_grad_()  # and one trained: both need gradients
    y = norm(given, trained, dtype=dtype)
    both = [relative(out.detach(), ref[: len(given)]) for out in (y, frozen)]
    errors["while recording gradients"] = [max(a, b) for a, b in zip(*both)]
    dtypes = {way: out.dtype for way, out in outputs.items()}
    dtypes["while recording gradients"] = y.dtype
    if y.requires_grad:  # scaled to the outputs' bound: HALF_GRADIENT is 3 ulps here
        # Noise and a part along x a quarter its size: a backward that drops the term
        # along x / RMS is off by far more than the bound, while one that computes in
        # half precision (F.normalize's) loses only a little to that part's cancellation.
        noise = rows([1.0] * len(given), device, seed=26, n=n)
        upstream = partly_along(given.detach(), 8 * noise).to(dtype)
        upstream = upstream.t().contiguous().t()  # the same values, column-major
        x64 = given.detach().double().requires_grad_()
        ref = reference(x64, gain(found, w), eps, inside)
        torch.autograd.backward(ref, upstream.double())

        def dx_off(out, gain_given):  # each row's input gradient error, out's backward
            given.grad = None
            try:
                torch.autograd.backward(out, upstream.clone())  # it may write into it
            except REFUSALS:  # reported by the gradients check: here, a contiguous one
                given.grad = None
                out = norm(given, gain_given, dtype=dtype)
                torch.autograd.backward(out, upstream.contiguous())
            if given.grad is None:  # cut from the graph: said so, not as a size
                errors[NO_INPUT_GRADIENT] = []
            dx = torch.full_like(x64, math.nan) if given.grad is None else given.grad
            wrong = (dx.double() - x64.grad).abs().amax(-1)
            return (wrong / x64.grad.abs().amax(-1)).nan_to_num(nan=math.inf)

        # With the gain trained, and frozen: a backward may take a path of its own there.
        off = dx_off(y, trained)
        if frozen.requires_grad:
            off = torch.maximum(off, dx_off(frozen, w))
        # A gradient past the dtype's range (1 / RMS on rows of a tiny eps) is inf there.
        fits = x64.grad.abs().amax(-1) < torch.finfo(dtype).max
        off = torch.where(fits, off, 0.0)
        ulp = torch.finfo(dtype).eps
        errors["input gradient"] = (off * 3 * ulp / HALF_GRADIENT).tolist()
    return names, errors, dtypes

def off_by(share: float) -> str:
    """An error relative to a gradient's largest entry, in words: "off by 0.043 of its
    largest entry", "off by 33 times its largest entry", or "not finite" (inf, NaN)."""
    if share == math.inf:
        return "not finite"
    return f"off by {share:.2g} {'of' if share < 1 else 'times'} its largest entry"

def how_wrong(ulps, ulp):
    """A row's largest output error, in words where the row is lost."""
    if ulps == math.inf:  # NaN or inf in the output
        return "not finite"
    # An error of the whole value or more: zeros (overflow) or garbage, not rounding.
    return "all lost" if ulps * ulp >= 1 else f"{ulps:.{0 if ulps >= 10 else 1}f} ulp"

# Why an all-zero row fails in float16 alone; not said where it fails in bfloat16 too (a 0 / 0
# in every dtype, which the zero rows check names).
FLOAT16_ZERO_ROW = ", where an eps or clamp too small for float16 rounds to 0"

def eps_is_a_tensor(norm) -> bool:
    """Whether a module keeps its eps as a tensor (a buffer or parameter), which a model's
    .to(dtype) converts with the weights."""
    return norm.module is not None and any(
        isinstance(getattr(norm.module, name, None), torch.Tensor)
        for name in EPS_ATTRIBUTES
    )

def records_gradients(norm, found, device) -> bool:
    """Whether float32 input that needs a gradient comes out recording one: then a path
    that records none for other dtypes (an inference kernel picked by dtype) stops
    training at the norm there."""
    x = rows([1.0, 2.0, 0.5], device).requires_grad_()  # rows, not a decode step's one
    return norm(x, weight(found, device, seed=0)).requires_grad

def x_cut(norm, found, device) -> bool:
    """Whether no gradient reaches x on a plain float32 call where x and the weight both
    need one: x cut from the graph (CUT_FROM_THE_GRAPH), not a path of a dtype's own or
    one chosen by which of them needs a gradient."""
    x = rows([1.0, 2.0, 0.5], device).requires_grad_()
    y = norm(x, weight(found, device, seed=0).requires_grad_())
    if not y.requires_grad:
        return False
    with contextlib.suppress(RuntimeError):  # a backward that fails: gradients says
        torch.autograd.backward(y, torch.ones_like(y))
        return x.grad is None
    return False

# Said where a half-precision or mixed path records no gradient and float32 does.
NO_GRADIENT_THERE = (
    "no gradient recorded, though float32 input records one (a path without autograd:"
    " training stops at the norm)"
)
# Said where no gradient is recorded for x needing none: the gain never trains there.
NO_GRADIENT_WITHOUT_X = (
    "no gradient reaches the weight while x needs none (a path chosen by x.requires_grad"
    " alone: behind a frozen embedding or block, the gain never trains)"
)

def names_the_dtype(message: str, dtype) -> bool:
    """Whether an error's message names a half dtype, by any of its usual names."""
    names = {
        torch.float16: ("float16", "fp16", "half"),
        torch.bfloat16: ("bfloat16", "bf16", "half"),
    }
    return any(name in message.lower() for name in names[dtype])

def check_half(norm, found, device):
    details, failed, unreliable = [], False, False
    refusals = []  # a dtype the norm refuses with a clear error: reported, not failed
    rows_failed = False  # rows wrong, not only the output's dtype
    tried_rows_failed = False  # rows wrong besides a large batch's other rows
    in_3d = True  # whether the norm took the 3-D inputs (one that refuses fails shapes)
    in_4d = True  # and the 4-D one, QK-norm's
    another_eps = False  # a half dtype's output wrong on the eps rows alone
    beyond_eps = False  # and one wrong otherwise
    among_many = True  # whether it took the batch of many rows (batch says a refusal)
    among_large = True  # and the large batch of wide rows
    graded = False  # whether an input gradient was compared (none without autograd)
    x_cut, other_fault = False, False  # a dtype wrong by x's gradient alone, or else
    trains = records_gradients(norm, found, device)
    ungraded = False  # a dtype whose path records no gradient where float32's does
    refused = refuses_wide_rows(norm, found, device)
    widths = [N] if norm.init or refused else [N, WIDE]  # --init: set for 64
    for dtype in (torch.float16, torch.bfloat16):
        ulp, short = torch.finfo(dtype).eps, short_name(dtype)
        errors, wrong, wrong_widths, outs, lost = [], [], [], set(), True
        ways, gradient = [], 0.0  # the ways of calling it that go wrong; dx's error
        other_dtype = {}  # the ways of calling it that return another dtype: which
        worst = {}  # each wrong row's largest output error, in ulps
        dtype_refused, dtype_graded, cut = False, False, False
        for n in widths:
            target = norm if n == N else norm.at_width(n)
            try:
                names, by_way, out_dtypes = half_errors(target, found, device, dtype, n)
            except REFUSALS as error:
                # A refusal names the dtype (as kernels do: fp16, bf16, half too); another
                # error (a crash) fails below.
                if not names_the_dtype(str(error), dtype):
                    raise
                refusals.append(f"refuses {short} input ({said(error)})")
                dtype_refused = True
                break
            graded |= "input gradient" in by_way
            dtype_graded |= "input gradient" in by_way
            cut |= NO_INPUT_GRADIENT in by_way  # no gradient reached x
            in_3d &= "as (1, tokens, features)" in by_way
            in_4d &= "as (1, 1, tokens, features)" in by_way
            among_many &= n != N or f"in a batch of {MANY_ROWS} rows" in by_way
            among_large &= n != WIDE or f"in a batch of {LARGE_BATCH} rows" in by_way
            for way, out_dtype in out_dtypes.items():
                outs.add(name := short_name(out_dtype))
                if out_dtype != dtype:
                    other_dtype[way or "at once"] = name
            scaled = by_way.get("input gradient", [0.0])
            gradient = max(gradient, max(scaled) * HALF_GRADIENT / (3 * ulp))
            errors += [e for way, at_n in by_way.items() if way != "input gradient"
                       for e in at_n]  # fmt: skip
            rows_wrong = []
            for way, at_n in by_way.items():
                wrong_here = [r for r, e in zip(names, at_n) if not e <= 3 * ulp]
                rows_wrong = list(dict.fromkeys(rows_wrong + wrong_here))
                ways += [way] if wrong_here and way not in ways else []
                # Overflow loses a row (zeros or NaN), not a few ulps of it.
                if way != "input gradient":
                    for r, e in zip(names, at_n):
                        if not e <= 3 * ulp:
                            worst[r] = max(worst.get(r, 0.0), e / ulp)
                    past = [e for r, e in zip(names, at_n) if r in PAST_FLOAT16]
                    lost &= all(e >= 0.5 for e in past if not e <= 3 * ulp)
            wrong += [row for row in rows_wrong if row not in wrong]
            wrong_widths += [str(n)] if rows_wrong else []
        if dtype_refused:
            continue
        out = ", ".join(sorted(outs))
        no_gradient = trains and not dtype_graded
        ungraded |= no_gradient
        # The input's dtype out, as a layer's; and a gradient where float32 records one.
        bad = bool(wrong) or outs != {short} or no_gradient
        within = largest(errors) <= TRUNCATION * 3 * ulp
        truncated = within and gradient <= HALF_GRADIENT
        if (
            bad
            and dtype == torch.bfloat16
            and under_triton_interpreter(norm)
            and outs == {short}
            and truncated
        ):
            unreliable = True
            details.append(
                f"{short} unreliable under Triton's interpreter (error"
                f" {largest(errors) / ulp:.1f} ulp, within the {TRUNCATION * 3} its"
                " truncation allows)"
            )
            continue
        failed |= bad
        beyond_eps |= bad and wrong != [EPS_ROWS]
        rows_failed |= bool(wrong)
        tried_rows_failed |= bool(set(wrong) - {FILLER_ROWS})
        if 0 < len(other_dtype) < len(out_dtypes):  # some paths only: name them
            out = " and ".join(f"{name} {way}" for way, name in other_dtype.items())
        detail = f"error {largest(errors) / ulp:.1f} ulp, out {out}"
        if outs != {short}:
            detail += f", not {short}"
        if no_gradient:
            detail += f", {NO_GRADIENT_THERE}"
        # Every output right and no gradient reaching x: no rows to name.
        cut_alone = cut and ways == ["input gradient"]
        x_cut |= cut_alone and outs == {short} and not no_gradient
        other_fault |= bad and not (cut_alone and outs == {short} and not no_gradient)
        if cut_alone:
            detail += f", {CUT_FROM_THE_GRAPH}"
        elif wrong:
            named = [f"{r} ({how_wrong(worst[r], ulp)})" if r in worst else r
                     for r in wrong]  # fmt: skip
            detail += (
                f", on {' and '.join(named)}, of {' and '.join(wrong_widths)} features"
            )
            if "" not in ways:  # right called on all rows at once: say how it was wrong
                detail += f", {' and '.join(ways)} only"
                if "input gradient" in ways:
                    detail += f", {CUT_FROM_THE_GRAPH if cut else off_by(gradient)}"
            # Values that square past float16's range, or, on the rows where eps shows,
            # below its normal range.
            squared = set(wrong) - {EPS_ROWS}
            eps_or_zero = not squared - {ZERO_ROW}  # eps rounded to 0 shows in both
            lost &= ways != ["input gradient"]  # outputs lost, not only a gradient
            past = squared and squared <= set(PAST_FLOAT16)  # not the eps rows alone
            if dtype == torch.float16 and past and lost:
                detail += ", where values square to more than float16's largest, 65504"
                if EPS_ROWS in wrong:
                    detail += ", or to less than its smallest normal, 6.1e-05"
                detail += ": take the mean square of x.float(), and keep it in float32"
            elif dtype == torch.float16 and ZERO_ROW in wrong and eps_or_zero:
                detail += FLOAT16_ZERO_ROW
            elif wrong == [EPS_ROWS] and eps_is_a_tensor(norm):
                another_eps = True  # linked to half's list, not to a missing upcast
                detail += (
                    f", where its eps, a tensor, is rounded to {short} with the module"
                    " (.to(dtype) converts it): keep eps a Python float"
                )
            elif wrong == [FILLER_ROWS]:
                detail += (
                    ", the rows tried, last in the batch, right: rows left unwritten or"
                    " misplaced (a kernel's grid or row offsets?)"
                )
            elif wrong == [EPS_ROWS] and ways != ["input gradient"]:  # the output's eps
                another_eps = True
                detail += (
                    f", where float32 input shows eps {found['eps']:.3g}: another eps in {short}"
                    f" (rounded to {short}, as a tensor made in the input's dtype is, or"
                    " taken from it, torch.finfo(x.dtype).eps?)"
                )
        details.append(f"{short} {'wrong' if bad else 'ok'} ({detail})")
    # What was tried, said where all went well: a failure's line keeps to what failed.
    batches = [
        f"{m} rows of {n}"
        for m, n, taken in [
            (MANY_ROWS, N, among_many),
            (LARGE_BATCH, WIDE, WIDE in widths and among_large),
        ]
        if taken
    ]
    tried = (
        "; rows of RMS 1 and 300, one with an outlier channel, rows where eps shows"
        + " and an all-zero row, of "
        + " and ".join(str(n) for n in widths)
        + " features: at once, one at a time"
        + (", in 3-D (tokens; decode steps)" if in_3d else "")
        + (", in 4-D (QK-norm's heads)" if in_4d else "")
        + (", among " + " and ".join(batches) if batches else "")
        + ", in eval mode under inference_mode and recording gradients"
        + (
            ", and the input gradient from a column-major upstream gradient"
            if graded
            else "; forward only (its output has no gradient)"
        )
    )
    if ZERO_ROW in wrong:  # bfloat16's, the last dtype: not float16's own problem
        details = [detail.replace(FLOAT16_ZERO_ROW, "") for detail in details]
    # A right output in another dtype is a matter of where the norm casts.
    upcast = tried_rows_failed or not failed
    see = f"pitfalls/#{'no-float32-upcast' if upcast else 'cast-order-and-the-output-dtype'}"
    if rows_failed and not tried_rows_failed:  # a batch's other rows alone
        see = "check/#check-half"
    if ungraded and not rows_failed:
        see = "gradients/#a-custom-autograd-function"
    if another_eps and not beyond_eps:  # upcast: the eps is what differs
        see = "check/#check-half"  # its list of what it catches: eps in half precision
    if x_cut and not other_fault:  # x cut from the graph: no formula's mistake
        see = "gradients/#a-custom-autograd-function"
    if not details:  # both half dtypes refused: nothing checked
        return Verdict("half", None, "; ".join(refusals), see, refusals)
    notes = refusals + ([refused] if refused else [])
    return Verdict(
        "half",
        False if failed else (None if unreliable else True),
        "; ".join(details + notes) + ("" if failed else tried),
        see,
        notes,
    )

def mixed_call(norm, x, w):
    """norm(x, w) for x in another dtype than w, without torch.nn.RMSNorm's warning that
    no fused kernel takes the mix: the mixed check asks for it."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Mismatch dtype")
        return norm(x, w)

def no_weight_gradient(norm, x, w, upstream) -> str:
    """Why no gradient reached the weight: none at all, or none while x needs no gradient
    (frozen embeddings), as a backward that computes dw only beside dx gives."""
    given = x.clone().requires_grad_()
    torch.autograd.backward(mixed_call(norm, given, w), upstream.clone())
    if w.grad is None:
        return NO_WEIGHT_GRADIENT
    return (
        "no gradient reaches the weight while x needs none (dw computed only with dx?),"
        " as for a frozen embedding's output"
    )

def check_mixed(norm, found, device):
    """A float32 weight with bfloat16 input, as in a model whose weights stay in float32:
    the output, in whichever dtype it comes, within 3 bfloat16 ulps of float64, with one
    weight and then another (a weight converted once and kept would miss its updates), and
    the weight's gradient within 3 bfloat16 ulps of float64's largest entry, and the input's
    within half's bound; the output with float16 input too (another pair of dtypes, which a
    kernel may dispatch apart); served, before and after the weight is updated in place. A
    path that records no gradient where float32 input records one fails. A clear error
    refusing the mix is reported, not failed."""
    see = "pitfalls/#no-float32-upcast"
    x = rows([1.0, 300.0], device, torch.bfloat16)
    ulp, errors, ok = torch.finfo(torch.bfloat16).eps, [], True
    kept = False  # whether the second call's output is the first weight's
    refusals = []  # float16 input refused (said in the detail too)

    def off(y, ref):  # each row's, relative to each output or to 1e-3 where smaller
        error = (y.detach().double() - ref).abs() / ref.abs().clamp_min(1e-3)
        return error.amax(-1).nan_to_num(nan=math.inf)

    for seed in (17, 30):
        w = weight(found, device, seed=seed).requires_grad_()
        try:
            y = mixed_call(norm, x, w)
        except REFUSALS as error:
            refused = cut(f"refuses it ({type(error).__name__}: {error})", 160)
            return Verdict("mixed", None, refused, see, [refused])
        inside = found["eps placement"] == "inside"
        ref = reference(x, gain(found, w.detach()), found["eps"] or 0.0, inside)
        errors.append(off(y, ref).max().item())
        ok &= bool(torch.isfinite(y).all()) and errors[-1] <= 3 * ulp
        if seed == 17:
            first = ref
        else:  # against the first weight's output: a weight kept from the first call
            kept = off(y, first).max().item() <= 3 * ulp
    out = short_name(y.dtype)
    worst = largest(errors) / ulp
    detail = f"float32 weight, bfloat16 input: error {worst:.1f} bfloat16 ulp"
    if errors[1] > 3 * ulp >= errors[0] and kept:
        detail += " with a second weight (the first one kept)"
    detail += f", out {out}"

    def float16_errors(x, w):  # each row's, inf where an output is NaN
        y = mixed_call(norm, x, w)
        return off(y, reference(x, gain(found, w), found["eps"] or 0.0, inside))

    # Rows of RMS 1 and 10, and one of RMS 300 whose squares pass float16's largest value,
    # judged where a float16 weight's path gets it right or refuses float16 weights (where
    # it gets it wrong, half fails the norm): a path of the mix's own that squares in
    # float16 loses that row.
    loud = rows([1.0, 10.0, 300.0], device, torch.float16)
    half_ulp = torch.finfo(torch.float16).eps
    try:
        by_row = float16_errors(loud, w.detach())
    except REFUSALS:
        detail += "; refuses float16 input"
        refusals.append("refuses float16 input")
    else:
        try:
            same = float16_errors(loud[2:], w.detach().half()).item() <= 3 * half_ulp
        except Exception:  # noqa: BLE001 (half's to report: the mix judged on all rows)
            same = None
        judged = by_row if same is not False else by_row[:2]
        error = judged.max().item()
        detail += f"; float16 input: error {error / half_ulp:.1f} float16 ulp"
        loud_row_lost = len(judged) == 3 and not by_row[2] <= 3 * half_ulp
        if loud_row_lost and by_row[:2].max() <= 3 * half_ulp:
            detail += " on the row of RMS 300, whose squares pass float16's largest"
            detail += (
                " value, 65504, and which a float16 weight's path gets right"
                if same
                else " value, 65504 (float16 weights refused)"
            )
            detail += ": take the mean square in float32 on this path too"
        ok &= error <= 3 * half_ulp
    # Served, as a model whose weights stay in float32 serves (a kernel of its own there),
    # and again after the weight is updated in place, as load_state_dict does: a cast copy
    # of the gain cached by the tensor's address would be the old one.
    w_served, served = w.detach().clone(), []
    with norm.serving():
        for seed in (30, 29):
            w_served.copy_(weight(found, device, seed=seed))
            now = reference(x, gain(found, w_served), found["eps"] or 0.0, inside)
            served.append(off(mixed_call(norm, x.clone(), w_served), now).max().item())
    if not largest(served) <= 3 * ulp:  # a NaN is not
        ok = False
        after = " after its weight is updated in place" if served[0] <= 3 * ulp else ""
        error = largest(served) / ulp
        detail += f"; in eval mode under inference_mode{after}: error {error:.1f} ulp"
    if y.requires_grad:  # the weight's gradient too, for a dense upstream gradient
        upstream = rows([1.0, 1.0], device, torch.bfloat16, seed=31)
        torch.autograd.backward(y, upstream.clone())  # a backward may write into it
        if w.grad is None:
            ok = False
            detail += "; " + no_weight_gradient(norm, x, w, upstream)
            see = "gradients/#a-custom-autograd-function"  # not the mix: a backward's
        else:
            w64 = w.detach().double().requires_grad_()
            ref = reference(x, gain(found, w64), found["eps"] or 0.0, inside)
            torch.autograd.backward(ref, upstream.double())
            wrong = (w.grad.double() - w64.grad).abs().max() / w64.grad.abs().max()
            close = wrong.item() <= 3 * ulp  # a NaN is not
            # Below 1 ulp the digits follow the CPU's vector width: only the bound is said.
            size = "under 1" if wrong < ulp else f"{wrong.item() / ulp:.3g}"
            detail += f"; weight gradient error {size} bfloat16 ulp"
            truncated = wrong.item() <= TRUNCATION * 3 * ulp
            if not close and truncated and under_triton_interpreter(norm):
                detail += (
                    ", unreliable under Triton's interpreter (within the"
                    f" {TRUNCATION * 3} its truncation allows)"
                )
                return Verdict("mixed", None if ok else False, detail, see, refusals)
            ok &= close
        # The input gradient on this path too, from a call where only x needs one (said
        # where it is wrong: the bound is half's), its upstream gradient partly along x.
        given = x.detach().clone().requires_grad_()
        upstream = partly_along(x.detach(), upstream).to(torch.bfloat16)
        y_x = norm(given, w.detach())
        if y_x.requires_grad:
            torch.autograd.backward(y_x, upstream.clone())
        x64 = x.detach().double().requires_grad_()
        ref = reference(x64, gain(found, w.detach()), found["eps"] or 0.0, inside)
        torch.autograd.backward(ref, upstream.double())
        first = ok  # the link goes to the first mistake found
        if given.grad is None:  # none on a plain call either: x cut, as half says
            ok = False
            gone = x_cut(norm, found, device)
            detail += f"; {CUT_FROM_THE_GRAPH}" if gone else "; no gradient reaches x"
            detail += "" if gone else " while the weight needs none"
            see = "gradients/#a-custom-autograd-function" if first else see
        else:
            wrong = (given.grad.double() - x64.grad).abs().amax(-1)
            off = (wrong / x64.grad.abs().amax(-1)).max().nan_to_num(nan=math.inf)
            if not off <= HALF_GRADIENT:
                ok = False
                frozen = "from a call where the weight needs none (a frozen gain)"
                detail += f"; input gradient, {frozen}, {off_by(off.item())}"
                see = "gradients/#the-derivation" if first else see
    elif records_gradients(norm, found, device):
        ok = False
        # The mix's input needing a gradient too: recorded there, x's not needing one is
        # the cause (gradients names it), not the dtypes.
        given = x.detach().clone().requires_grad_()
        trained = w.detach().clone().requires_grad_()
        y = mixed_call(norm, given, trained)
        said = NO_GRADIENT_WITHOUT_X if y.requires_grad else NO_GRADIENT_THERE
        with contextlib.suppress(RuntimeError):  # a backward that fails: gradients says
            if y.requires_grad:
                torch.autograd.backward(y, torch.ones_like(y))
                # None with x needing one too: the weight is cut, not x's path chosen
                said = NO_WEIGHT_GRADIENT if trained.grad is None else said
        detail += f"; {said}"
        see = "gradients/#a-custom-autograd-function"
    return Verdict("mixed", ok, detail, see, refusals)

def percent(share: float) -> str:
    """One output in 512 is <1%, not 0%; 511 in 512 is >99%, not 100%."""
    shown = f"{share:.0%}"
    return {"0%": "<1%", "100%": ">99%"}.get(shown, shown) if 0 < share < 1 else shown

def check_rounding(norm, found, device):
    """The convention whose bits the target gives in bfloat16 (reported), or the one it was
    told to follow (--convention: then required)."""
    see = "numerics/#rounding-conventions-in-production-code"
    declared = norm.convention
    # Told a convention of the other gain form: known from the gain, measured in float32
    # (also under Triton's interpreter, which does not measure the rounding).
    if declared is not None and declared not in of_gain(found):
        gains = "w" if declared in ("llama", "float32") else "1 + w"
        detail = f"told {declared} (gain {gains}), but the gain is {found['gain']}"
        return Verdict("rounding", False, detail, see)
    measured = rounding(norm, found, device)
    if "distances" not in measured:
        unknown = declared and not under_triton_interpreter(
            norm
        )  # a dtype: known wrong
        passed = False if unknown else None
        return Verdict("rounding", passed, measured["convention"], see)
    # The convention it matches first, then how far it is from the others.
    distances = sorted(measured["distances"].items(), key=lambda item: item[1])
    parts = []
    outside = found["eps placement"] == "outside"  # (f): not the libraries named
    for name, (share, most) in distances:
        if share == 0 and outside:
            form = CONVENTIONS[name].split(" (")[0]
            parts.append(f"bit for bit (f) eps outside the root, otherwise {form}")
        elif share == 0:
            parts.append(f"bit for bit {CONVENTIONS[name]}")
        else:
            ulps = f"{most:.0f} ulp" + ("s" if most > 1 else "")
            parts.append(
                f"{name} differs on {percent(share)} of outputs, by up to {ulps}"
            )
    parts.append(f"{percent(measured['correctly rounded'])} correctly rounded")
    if measured["convention"] == "none":  # what the page's table says of it
        parts.insert(
            0,
            "matches none of them, as code without a float32 upcast gives, or code that"
            " rounds at another step",
        )
    detail = "; ".join(parts)
    if declared is None:
        return Verdict("rounding", None, detail, see)
    if measured["convention"] == declared:
        return Verdict("rounding", True, f"as told: {detail}", see)
    gives = measured["convention"]
    gives = "none of them" if gives == "none" else f"the bits of {gives}"
    return Verdict("rounding", False, f"told {declared}, gives {gives}: {detail}", see)

NOT_FINITE = "input gradient not finite"

def zero_row(norm, found, device, dtype=torch.float32, float32_gradient=0.0):
    """A row of zeros and a row of RMS 1 in dtype, forward and backward (where recorded):
    the output, input and weight, and what went wrong on the all-zero row, each part named.
    sqrt(mean(x^2)) + eps, say, gives zeros out but a NaN input gradient, since the square
    root's derivative at 0 is infinite. In half precision the right input gradient there,
    float32's largest entry, may pass the dtype's largest value (1e6 at an eps of 1e-12,
    past float16's 65504): then only a NaN is wrong."""
    x = rows([0.0, 1.0], device, dtype).requires_grad_()
    w = weight(found, device, seed=3).to(dtype).requires_grad_()
    y = norm(x, w, dtype=None if dtype == torch.float32 else dtype)
    if not y.requires_grad:
        return y, x, w, [] if y[0].eq(0).all() else ["output not zeros"]
    y.backward(torch.ones_like(y))
    fits = float32_gradient < torch.finfo(dtype).max / 2  # a margin for its rounding
    finite = torch.isfinite if fits else lambda t: ~torch.isnan(t)
    wrong = [
        what
        for what, right in [
            ("output not zeros", y[0].eq(0).all()),
            ("no input gradient", x.grad is not None),
            (NOT_FINITE, x.grad is None or finite(x.grad).all()),
            ("no weight gradient", w.grad is not None),
            ("weight gradient not finite", w.grad is None or finite(w.grad).all()),
        ]
        if not right
    ]
    return y, x, w, wrong

def graph(y):
    """The nodes of y's autograd graph, each once."""
    seen, nodes = set(), [y.grad_fn]
    while nodes:
        node = nodes.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        yield node
        nodes.extend(next_node for next_node, _ in node.next_functions)

def custom(y) -> bool:
    """Whether y's graph holds a backward of its own (a custom autograd Function, a
    compiled graph's too), not autograd's alone."""
    backward_of_its_own = torch.autograd.function.BackwardCFunction
    return any(isinstance(node, backward_of_its_own) for node in graph(y))

def takes_a_log(y) -> bool:
    """Whether y's graph takes a log (log, log2, log10, logsumexp), whose slope at 0 is
    infinite."""
    logs = ("LogBackward0", "Log2Backward0", "Log10Backward0", "LogsumexpBackward0")
    return any(type(node).__name__ in logs for node in graph(y))

def formula_gradient(found, w):
    """The input gradient at x = 0 for an upstream gradient of ones, entry by entry: the
    gain over sqrt(eps), or over eps outside the root; None without a measured eps."""
    eps = found["eps"]
    if not eps:
        return None
    scale = math.sqrt(eps) if found["eps placement"] == "inside" else eps
    return gain(found, w.detach()).double() / scale

def half_cause(failures, found) -> str:
    """Why an all-zero row may fail in half precision alone, where float32 gets it right:
    in float16, an eps or clamp that rounds to 0, an rstd past float16's range, or a
    backward in float16, which meets the root's derivative at eps."""
    if failures[0].startswith("all-zero row:"):  # float32 wrong: its cause is said
        return ""
    eps, inside = found["eps"], found["eps placement"] == "inside"
    slope = 0.5 / eps**1.5 if eps and inside else 0.0  # |d rsqrt(v) / dv| at v = eps
    if failures[0].startswith("all-zero row in float16: output not zeros"):
        causes = "an eps or clamp too small for float16, which rounds it to 0"
        if eps and inside and eps**-0.5 > 65504:  # an rstd of 1 / sqrt(eps) overflows
            causes += (
                f", or an rstd cast to x's dtype, 1 / sqrt(eps) = {eps**-0.5:.2g} here,"
                " past float16's largest value, 65504"
            )
        return f" (right in float32 and bfloat16: {causes}?)"
    # Only gradients wrong, in float16 alone: the backward's arithmetic there.
    backward_only = failures in (
        [f"all-zero row in float16: {NOT_FINITE}"],
        [f"all-zero row in float16: {NOT_FINITE}, weight gradient not finite"],
    )
    causes = []
    if backward_only and eps and eps < 2**-25:  # under half float16's smallest value
        causes.append(
            f"eps, {eps:.2g}, rounded to float16 is 0, where a backward reads it in x's"
            " dtype"
        )
    if failures == [f"all-zero row in float16: {NOT_FINITE}"] and slope > 65504:
        causes.append(
            "a backward in float16 overflows there, where the derivative of 1 / sqrt(v)"
            f" at v = eps, 0.5 / eps^1.5 = {slope:.2g} in size, passes float16's largest"
            " value, 65504: keep the backward in float32, from the mean square of"
            " x.float() to an rstd saved in float32"
        )
    if causes:
        return f" (right in float32 and bfloat16: {'; or '.join(causes)})"
    return " (right in float32: a half-precision path of its own?)"

def check_zero_rows(norm, found, device):
    """An all-zero row, forward and backward, in float32 (each failure's cause named), then
    in bfloat16 and float16, where a half path may be a kernel of its own: zeros out, finite
    gradients and, where eps is measured, the formula's input gradient."""
    see = "gradients/#the-all-zero-row"
    y, x, w, wrong = zero_row(norm, found, device)
    if not y.requires_grad:
        zeros = not wrong
        detail = "all-zero row: " + ("zeros out" if zeros else "not zeros")
        return Verdict("zero rows", zeros, f"{detail}; gradients {NO_AUTOGRAD}", see)
    if wrong:
        # None on a call with a row of RMS 1 too: no gradient reaches x or the weight at
        # all, a cause of its own, not the zero row's, said as mixed, gradients and dw say
        # it (x's first, as gradients says them).
        causes = {"no input gradient": CUT_FROM_THE_GRAPH}
        causes["no weight gradient"] = NO_WEIGHT_GRADIENT
        cut = [words for what, words in causes.items() if what in wrong]
        wrong = [what for what in wrong if what not in causes]
        detail = "all-zero row: " + ", ".join(wrong)
        if not torch.isfinite(y[0]).all() and not found["eps"]:  # the forward itself
            detail += (
                " (0 / 0 in the forward: nothing is added to the statistic, 0 on this"
                " row, before dividing by it; add eps inside the root)"
            )
        elif not torch.isfinite(y[0]).all():
            detail += (
                " (not finite in the forward: a division by something that is 0 on this"
                " row, before eps acts)"
            )
        elif (
            found["eps placement"] != "inside"
            and x.grad is not None
            and not torch.isfinite(x.grad).all()
        ):
            # x.norm() instead of sqrt(mean(x^2)) gives 0, not NaN, at a zero row.
            detail += (
                " (eps added after a square root, whose slope at 0 is infinite)"
                if found["eps placement"] == "outside"
                else " (the square root's slope at 0 is infinite, and a clamp on the RMS"
                " does not remove it: clamp the mean square, or add eps inside the root)"
            )
            see = "math/#where-goes-and-why-it-matters"
        elif x.grad is not None and not torch.isfinite(x.grad).all():
            detail += " (zeros out, eps inside the root: "
            if custom(y):  # a backward of its own that loses eps
                detail += (
                    "the backward divides by a statistic without eps, an rstd saved or"
                    " recomputed before eps is added?)"
                )
                see = "gradients/#a-custom-autograd-function"
            elif takes_a_log(y):  # a mean square formed in log space, say
                detail += (
                    "a log's slope at 0 is infinite, a log of the squares or of the mean"
                    " square, as logsumexp forms it, taken before eps: add eps to the mean"
                    " square first)"
                )
                see = "math/#where-goes-and-why-it-matters"
            else:  # autograd's: sqrt(mean(x^2)) squared again under rsqrt, say
                detail += (
                    "the square root's slope at 0 is infinite, a square root of the mean"
                    " square taken before eps, say, and squared again later: use the mean"
                    " square directly)"
                )
                see = "math/#where-goes-and-why-it-matters"
        if cut:  # said last; alone, linked where mixed, gradients and dw link it
            detail = "; ".join([detail] * bool(wrong) + cut)
            see = see if wrong else "gradients/#a-custom-autograd-function"
        return Verdict("zero rows", False, detail, see)
    failures, run, forward_only, machine_eps = [], [], [], []
    float32_gradient = x.grad[0].double().abs().max().item()
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        short = short_name(dtype)
        if dtype != torch.float32:
            try:
                y, x, w, wrong = zero_row(norm, found, device, dtype, float32_gradient)
            except REFUSALS as error:  # a refusal of the dtype: half reports it
                if not names_the_dtype(str(error), dtype):
                    raise
                continue
        run.append(short)
        if not y.requires_grad:  # though float32 records one: half and dw fail that
            forward_only.append(short)
        # Finite is not enough: a far larger gradient than the formula's means a tinier
        # eps than the one measured (to better than 1%).
        formula = formula_gradient(found, w)
        want = 0.0 if formula is None else formula.abs().max().item()
        if y.requires_grad and not wrong and 0 < want < torch.finfo(dtype).max:
            got = x.grad[0].double()
            size, off = got.abs().max().item(), (got - formula).abs().max().item()
            if not abs(size - want) <= 1e-2 * want:
                wrong.append(
                    f"input gradient up to {size:.2g}, the formula's {want:.2g}"
                )
                # The formula's with the dtype's machine epsilon for eps: taken from
                # the input, torch.finfo(x.dtype).eps, as half says too.
                machine = {**found, "eps": torch.finfo(dtype).eps}
                theirs = formula_gradient(machine, w).abs().max().item()
                if dtype != torch.float32 and abs(size - theirs) <= 1e-2 * theirs:
                    machine_eps.append(short)
            elif not off <= 1e-2 * want:  # the right size, not the right entries
                wrong.append(
                    f"input gradient off the formula's by up to {off:.2g}, its largest"
                    f" entry right ({want:.2g}): a sign or the gain misapplied?"
                )
        if wrong:
            where = "" if dtype == torch.float32 else f" in {short}"
            failures.append(f"all-zero row{where}: {', '.join(wrong)}")
    if failures and len(machine_eps) == len(failures):  # each one's eps, said as half
        detail = "; ".join(failures) + (
            f" (right in float32: another eps in {' and '.join(machine_eps)}, each the"
            " dtype's machine epsilon, torch.finfo(x.dtype).eps?)"
        )
        return Verdict("zero rows", False, detail, "check/#check-half")
    if failures:
        detail = "; ".join(failures) + half_cause(failures, found)
        return Verdict("zero rows", False, detail, see)
    in_dtypes = ", ".join(run[:-1]) + " and " * (len(run) > 1) + run[-1]
    detail = f"all-zero row in {in_dtypes}: zeros out, finite gradients"
    detail += ", as the formula's" if found["eps"] else ""
    # Where the right gradient passes a dtype's range, only a NaN was wrong there.
    largest_of = {name: torch.finfo(getattr(torch, name)).max for name in run}
    past = [name for name in run if not float32_gradient < largest_of[name] / 2]
    if past:
        detail += (
            f"; in {' and '.join(past)} not NaN, the right input gradient"
            f" ({float32_gradient:.2g}) past its largest value"
        )
    if forward_only:
        detail += f"; {' and '.join(forward_only)} forward only (no gradient recorded)"
    return Verdict("zero rows", True, detail, see)

def gradient_errors(norm, found, x, w, g, between=None):
    """The input and weight gradients' errors against float64 autograd for upstream gradient
    g, and whether the backward wrote into g; None when no gradient flows. `between`: rows
    to run forward after x's forward and before its backward."""
    # A copy of the upstream gradient for the target: a backward may write into it to save
    # memory (Liger-Kernel's does), and the reference below needs it as it was.
    if 0 in g.stride():
        # y.sum()'s gradient holds one number: a backward that reads past it, taking its
        # rows as rows of their own, reads NaN here, as a kernel reads what lies beyond.
        storage = torch.full((g.numel(),), math.nan, dtype=g.dtype, device=g.device)
        storage[0] = g.flatten()[0]
        given = storage.as_strided(g.shape, g.stride())
    elif g.storage_offset():  # and past its storage's start, NaN before it, as given
        given = torch.cat([torch.full_like(g, math.nan), g])[len(g) :]
    else:
        given = g.clone()  # strided as g is (clone keeps a view's strides)
    y = norm(x, w)
    if not y.requires_grad:
        return None
    if between is not None:
        norm(between, w)
    kept = x.detach().clone()
    torch.autograd.backward(y, given)
    # The forward's writes into x are caught as it returns (target.py); a backward's here.
    if not torch.equal(x.detach(), kept):
        raise UsageError(
            "its backward writes into its input x, which in a model is the residual"
            " stream (x / RMS formed in the memory of the saved input?): form it in a"
            " new tensor"
        )
    x64, w64 = (
        x.detach().double().requires_grad_(),
        w.detach().double().requires_grad_(),
    )
    ref = reference(
        x64, gain(found, w64), found["eps"] or 0.0, found["eps placement"] == "inside"
    )
    torch.autograd.backward(ref, g.double())
    errors = [
        (
            ((a.double() - b).abs().max() / b.abs().max()).item()
            if a is not None
            else math.inf
        )
        for a, b in ((x.grad, x64.grad), (w.grad, w64.grad))
    ]  # inf: no gradient reached it (the dw check names that)
    return errors, not torch.equal(given, g)

def right_for_the_gain_w(norm, found, x, w, g) -> bool:
    """Whether the input gradient is the one of the gain w where the gain is 1 + w
    (Gemma's): a backward multiplying the upstream gradient by w, its 1 forgotten."""
    if found["gain"] != "1 + w":
        return False
    inputs = x.detach().clone().requires_grad_(), w.detach().clone().requires_grad_()
    measured = gradient_errors(norm, {**found, "gain": "w"}, *inputs, g)
    return measured is not None and measured[0][0] < 1e-4

def input_gradient_is(x, want) -> bool:
    """Whether x's gradient is `want`, within 1e-4 of its largest entry: the formula of
    another function, where the checks' own bound fails."""
    return bool((x.grad.double() - want).abs().max() < 1e-4 * want.abs().max())

def recomputed_with_its_own_weight(norm, found, x, g) -> bool:
    """Whether the input gradient is the formula's for the module's own weight, not the
    one given: its forward run again in the backward (activation checkpointing) reads
    self.weight, which the checker does not set."""
    if norm.module is None or norm.weight_name is None:
        return False
    own = norm.module.get_parameter(norm.weight_name).detach().double()
    x64 = x.detach().double().requires_grad_()
    inside = found["eps placement"] == "inside"
    ref = reference(x64, gain(found, own), found["eps"] or 0.0, inside)
    torch.autograd.backward(ref, g.double())
    return input_gradient_is(x, x64.grad)

def statistic_held_constant(found, x, w, g) -> bool:
    """Whether the input gradient is gain * g / r, as if r were a constant: the projection
    term lost, as where the statistic is cut from the graph (computed under no_grad, or
    detached) or a custom backward drops it."""
    x64 = x.detach().double()
    mean_square, eps = x64.pow(2).mean(-1, keepdim=True), found["eps"] or 0.0
    inside = found["eps placement"] == "inside"
    r = (mean_square + eps).sqrt() if inside else mean_square.sqrt() + eps
    return input_gradient_is(x, gain(found, w.detach().double()) * g.double() / r)

def check_gradients(norm, found, device):
    """Input and weight gradients on 2-D rows, then on a (2, 2, n) batch: a backward that
    reduces over the sequence too goes wrong there; and on that batch with the upstream
    gradient a transposed view, where one that reads it as contiguous goes wrong, and as
    y.sum() gives it, one element expanded (only these two, and a limit on rows, may be
    refused); then on the 2-D rows with another forward run before their backward, where
    one that keeps state between calls goes wrong; then on one row, on masked rows
    (their upstream gradient 0), on gains of 0 and below, on a batch of 4097 rows."""
    see = "gradients/#a-custom-autograd-function"
    x = rows([1e-3, 1e-1, 1.0, 10.0], device).requires_grad_()
    w = weight(found, device, seed=4).requires_grad_()
    g = rows([1.0] * 4, device, seed=5)
    measured = gradient_errors(norm, found, x, w, g)
    if measured is None:
        return Verdict("gradients", None, NO_AUTOGRAD, see)
    errors, wrote = measured
    w_cut = w.grad is None  # no gradient reaches the weight even with x needing one
    ok = largest(errors) < 1e-4
    detail = (
        "input and weight gradients (each pair: dx, dw) against float64 autograd, each"
        f" relative to its largest entry (bound 1e-4): {errors[0]:.1e}, {errors[1]:.1e}"
    )
    # An input gradient wrong on plain rows of RMS 1e-3 to 10: the hand-written backward's
    # mistake that Pitfalls names (dividing only part of it by r), or, where the gain is
    # 1 + w, the input gradient of the gain w.
    # inf: no formula's error, x or the weight cut from the graph
    cut = [CUT_FROM_THE_GRAPH] * (x.grad is None) + [NO_WEIGHT_GRADIENT] * w_cut
    if cut:
        detail = f"{'; '.join(cut)} {detail[0].upper()}{detail[1:]}"
    if x.grad is not None and not errors[0] < 1e-4:
        see = "pitfalls/#a-backward-pass-that-forgets-r"
        if right_for_the_gain_w(norm, found, x, w, g):
            see = "gradients/#the-derivation"
            detail += (
                " (dx is the one of the gain w: the backward multiplies the upstream"
                " gradient by w, not by the gain 1 + w)"
            )
        elif recomputed_with_its_own_weight(norm, found, x, g):
            see = "check/#targets-options-and-limits"
            detail += (
                " (dx is the one of the module's own weight, not the weight given: its"
                " forward run again in the backward, as activation checkpointing runs it?"
                " check it without checkpointing)"
            )
        elif statistic_held_constant(found, x, w, g):
            see = "gradients/#the-derivation"
            detail += (
                " (dx is gain * g / r, r held constant: the projection term is lost, as"
                " where the RMS is cut from the graph by torch.no_grad() or .detach())"
            )
    # A 3-D batch of the same rows, whose upstream gradient comes contiguous, then as a
    # transposed view, then as y.sum() gives it (strides 0: writing into it raises, and
    # reading it as rows of its own reads past its one element): only these may be refused.
    upstream = g.reshape(2, 2, N)
    # In g's dtype: in another, autograd would pass the target a contiguous cast copy.
    one = torch.ones((), device=device, dtype=g.dtype)
    refusals = []
    cases = {
        "3-D": upstream,
        "3-D, a strided upstream gradient": upstream.transpose(0, 1),
        "3-D, y.sum()'s upstream gradient": one.expand(upstream.shape),
        # As torch.cat's backward hands each input its part: contiguous, but past the
        # start of its storage, where a kernel given the storage's pointer reads another.
        "3-D, an upstream gradient past its storage's start": torch.cat(
            [upstream, upstream]
        )[2:],
    }
    for name, given in cases.items():
        batch = x.detach().reshape(2, 2, N).requires_grad_()
        fresh = w.detach().clone().requires_grad_()
        try:
            errors, wrote_too = gradient_errors(norm, found, batch, fresh, given)
        except REFUSALS as error:
            if name == "3-D":  # 3-D input refused: the shapes check fails it
                if not isinstance(error, (TypeError, ValueError)):
                    raise  # a crash, not a refusal
                refusals.append(f"refuses 3-D input ({said(error)})")
                detail += f"; {refusals[-1]}"
                break
            refusals.append(f"refuses {name.removeprefix('3-D, ')} ({said(error)})")
            detail += f"; {refusals[-1]}"
            continue
        ok &= largest(errors) < 1e-4
        wrote |= wrote_too
        detail += f"; {name}: {errors[0]:.1e}, {errors[1]:.1e}"
    # Another forward before the first one's backward, as pipelined micro-batches or a norm
    # shared by two inputs run it: state kept between calls (a saved input, a cached RMS)
    # gives the first backward the second forward's values.
    again = x.detach().requires_grad_(), w.detach().clone().requires_grad_()
    other = rows([5.0, 0.2, 3.0, 0.7], device, seed=6)
    errors, _ = gradient_errors(norm, found, *again, g, between=other)
    ok &= largest(errors) < 1e-4
    detail += f"; after a second forward: {errors[0]:.1e}, {errors[1]:.1e}"
    # Two backwards into one weight, as gradient accumulation runs them: its gradient is
    # the sum of the two it gives apart (said only where it is not: a backward that sets
    # weight.grad itself; a wrong or missing one is named above).
    shared, apart = w.detach().clone().requires_grad_(), []
    for given in (x.detach(), other):  # x needing a gradient too, as in training
        fresh = w.detach().clone().requires_grad_()
        for into in (fresh, shared):
            y = norm(given.clone().requires_grad_(), into)
            torch.autograd.backward(y, g.clone())
        apart.append(fresh.grad)
    summed = (
        any(grad is None for grad in apart)
        or shared.grad is None
        or bool(
            (shared.grad - apart[0] - apart[1]).abs().max()
            <= 1e-5 * (apart[0] + apart[1]).abs().max()
        )
    )
    if not summed:
        ok = False
        detail += "; two backwards into one weight: its gradient is not their sum"
    # A frozen gain, as LoRA fine-tuning leaves it: a backward that branches on whether the
    # weight needs a gradient can drop the gain from dx on that branch alone.
    only_x = x.detach().clone().requires_grad_()
    frozen = gradient_errors(norm, found, only_x, w.detach(), g)
    dx_error = math.inf if frozen is None else frozen[0][0]
    ok &= dx_error < 1e-4  # a NaN fails too
    detail += f"; a frozen gain, dx: {dx_error:.1e}"
    # And x needing none, the gain trained, as a frozen embedding or block feeds it: a
    # path chosen by x.requires_grad alone records nothing, and the gain never trains.
    only_w = w.detach().clone().requires_grad_()
    frozen = gradient_errors(norm, found, x.detach().clone(), only_w, g)
    if frozen is None:
        ok = False
        detail += "" if w_cut else f"; {NO_GRADIENT_WITHOUT_X}"  # else said first
        see = "gradients/#a-custom-autograd-function"
    else:
        ok &= frozen[0][1] < 1e-4
        detail += f"; x frozen, dw: {frozen[0][1]:.1e}"
    # One row, as a decode step has it; a gain of 0 on one feature (one a model turned
    # off), where a backward that rebuilds x / RMS as y / gain divides by 0; and negative
    # gains, as trained ones can be.
    switched_off = weight(found, device, seed=4)
    switched_off[5] = 0.0 if found["gain"] == "w" else -1.0
    negative = every_other_gain_negative(found, w.detach())
    # Masked tokens (padding, or a loss over the answers alone): an upstream gradient of 0
    # gives an input gradient of 0, which a kernel skipping those rows leaves unwritten.
    masked = g.clone()
    masked[1::2] = 0.0
    # And a batch of tokens: a path taken from a few hundred rows on may differ there.
    many = f"a batch of {MANY_ROWS} rows"
    cases = {
        "one row": (x.detach()[2:3], w.detach(), g[2:3]),
        "masked rows (their upstream gradient 0)": (x.detach(), w.detach(), masked),
        "a gain of 0 on one feature": (x.detach(), switched_off, g),
        "every other gain negative": (x.detach(), negative, g),
        many: (
            rows([1.0] * MANY_ROWS, device, seed=58),
            w.detach(),
            rows([1.0] * MANY_ROWS, device, seed=59),
        ),
    }
    for name, (rows_in, gains, upstream) in cases.items():
        inputs = rows_in.clone().requires_grad_(), gains.clone().requires_grad_()
        try:
            measured = gradient_errors(norm, found, *inputs, upstream)
        except REFUSALS as error:  # a limit on rows there: reported, as add grads does
            if name != many:
                raise
            refusals.append(f"refuses {MANY_ROWS} rows ({said(error)})")
            detail += f"; {refusals[-1]}"
            continue
        if measured is None:  # a path of its own (a decode kernel) without autograd
            ok = False
            detail += f"; {name}: no gradient recorded (a path without autograd)"
            continue
        errors, _ = measured
        right_so_far = ok  # NaN at a gain of 0 alone: x / RMS rebuilt as y / gain
        ok &= largest(errors) < 1e-4  # a NaN fails too, dx's or dw's
        detail += f"; {name}: {errors[0]:.1e}, {errors[1]:.1e}"
        nan = math.isnan(largest(errors))
        if name.startswith("a gain of 0") and right_so_far and nan:
            detail += " (x / RMS rebuilt as the saved output over the gain: 0 / 0?)"
    if wrote:
        detail += "; the backward wrote into the upstream gradient (allowed, noted)"
    if runs_in_float64(norm, found, device):
        x64 = rows([1e-2, 1.0], device, torch.float64).requires_grad_()
        w64 = weight(found, device, seed=10).double().requires_grad_()
        try:
            passed = torch.autograd.gradcheck(norm, (x64, w64), raise_exception=False)
        except RuntimeError as error:  # a compiled backward runs once per graph
            if "retain_graph" not in str(error):
                raise
            detail += "; gradcheck not run: its backward refuses retain_graph=True"
        else:
            ok &= passed
            detail += f"; gradcheck in float64 {'passes' if passed else 'fails'}"
    else:  # gradcheck's finite differences need float64 all the way
        detail += (
            "; gradcheck not run, not a fault: float64 input (x or the weight) is computed"
            " in float32, as an upcast written .float() does, too coarse for gradcheck's"
            " finite differences"
        )
    return Verdict("gradients", ok, detail, see, refusals)

def check_dw(norm, found, device):
    """The weight's gradient over 4097 rows (a batch of tokens), in bfloat16 and in float16:
    present, and within 1 ulp of the largest entry of float64's. A sum kept in float32 and
    rounded once stays near half an ulp; one rounded to the weight's dtype as it goes
    drifts further with every row, past 1 ulp here even when it is rounded only in blocks
    of 128 rows. And the input gradient of every row: a backward whose programs split the
    rows may leave the last ones without one."""
    see = "gradients/#the-derivation"
    judged, refusals = {}, {}  # by dtype's name
    for dtype in (torch.bfloat16, torch.float16):
        short = short_name(dtype)
        try:
            result = dw_in(norm, found, device, dtype)
        except REFUSALS as error:  # a limit on rows or dtypes: reported, as by batch
            if by_autograd(error):  # autograd's: a crash
                raise
            refusals[short] = said(error)
            continue
        if result is None:  # no gradient recorded: a kernel for inference only?
            if not records_gradients(norm, found, device):
                return Verdict("dw", None, NO_AUTOGRAD, see)
            result = False, NO_GRADIENT_THERE, "gradients/#a-custom-autograd-function"
        judged[short] = result
    if len(refusals) == 2 and len(set(refusals.values())) == 1:  # a limit on rows
        notes = [f"refuses {MANY_ROWS} rows ({refusals['bfloat16']})"]
    else:
        notes = [f"refuses {MANY_ROWS} {short} rows ({error})"
                 for short, error in refusals.items()]  # fmt: skip
    if not judged:
        return Verdict("dw", None, "; ".join(notes), see, notes)
    states = [passed for passed, _, _ in judged.values()]
    found_in = [f"in {short}, {part}" for short, (_, part, _) in judged.items()]
    parts = {part for _, part, _ in judged.values()}
    if len(judged) == 2 and len(parts) == 1:  # the same in both: said once
        found_in = [f"in bfloat16 and float16, {parts.pop()}"]
    detail = f"over {MANY_ROWS} rows: " + "; ".join(found_in + notes)
    # The section of the first failure, or of the derivation.
    see = next((s for passed, _, s in judged.values() if passed is False), see)
    passed = False if False in states else (None if None in states else True)
    return Verdict("dw", passed, detail, see, notes)

def dw_in(norm, found, device, dtype):
    """check_dw in one dtype: whether it passed (None: unreliable under Triton's
    interpreter), what was found and the section to see; None where the output records
    no gradient."""
    x = rows([0.5 + 0.5 * (i % 7) for i in range(MANY_ROWS)], device, dtype, seed=18)
    x.requires_grad_()
    w = weight(found, device, seed=19).to(dtype).requires_grad_()
    dy = rows([1.0] * MANY_ROWS, device, dtype, seed=20)
    y = norm(x, w, dtype=dtype)
    if not y.requires_grad:
        return None
    see = "gradients/#the-derivation"
    torch.autograd.backward(y, dy.clone())  # a copy: a backward may write into it
    if w.grad is None:  # as mixed, zero rows and gradients say it, and link it
        return False, NO_WEIGHT_GRADIENT, "gradients/#a-custom-autograd-function"
    x64, w64 = (t.detach().double().requires_grad_() for t in (x, w))
    inside = found["eps placement"] == "inside"
    ref = reference(x64, gain(found, w64), found["eps"] or 0.0, inside)
    torch.autograd.backward(ref, dy.double())
    ulp = torch.finfo(dtype).eps
    error = ((w.grad.double() - w64.grad).abs().max() / w64.grad.abs().max()).item()
    # Below 1 ulp the digits follow the CPU's vector width: only the bound is said.
    size = "under 1 ulp" if error < ulp else f"{error / ulp:.2f} ulps (bound 1)"
    detail = f"error {size} of the largest entry"
    if x.grad is None and x_cut(norm, found, device):  # on a float32 call too
        custom = "gradients/#a-custom-autograd-function"  # as half and gradients link
        return False, f"{detail}; {CUT_FROM_THE_GRAPH}", custom
    if x.grad is None:  # a path of this dtype's own
        return False, f"{detail}; no input gradient", see
    # Each row's input gradient, relative to its largest entry: a row left without one is
    # off by 1, a rounded one by a few ulps.
    dx = x.grad
    off = (dx.double() - x64.grad).abs().amax(-1) / x64.grad.abs().amax(-1)
    bad_rows = (~(off <= HALF_GRADIENT)).nonzero().flatten().tolist()
    if bad_rows:
        return False, f"{detail}, input gradient {wrong_rows(bad_rows, MANY_ROWS)}", see
    truncated = dtype == torch.bfloat16 and under_triton_interpreter(norm)
    if ulp < error <= TRUNCATION * ulp and truncated:
        detail += (
            f", unreliable under Triton's interpreter (within the {TRUNCATION} ulps its"
            " truncation allows)"
        )
        return None, detail, see
    return error <= ulp, detail, see

def check_sizes(norm, found, device):
    """Rows of 769, 1025 and 3584 features (odd; one past 1024, where a kernel may
    start to loop over blocks; a hidden size that is no power of two) against float64,
    forward and both gradients: a kernel whose blocks assume a multiple of their size,
    or a power of two, misses or misreads the last features (3584 is a multiple of every
    power of two up to 512)."""
    if norm.init:
        detail = "not run: the constructor's arguments (--init) are set for 64 features"
        return Verdict("sizes", None, detail, "math/#the-rmsnorm-definition")
    wrong, forward_wrong, refused, sizes, y = [], False, [], [], None
    for n in (769, 1025, 3584):
        x = rows([0.5, 2.0, 30.0], device, seed=21, n=n).requires_grad_()
        w = weight(found, device, seed=22, n=n).requires_grad_()
        try:
            y = norm.at_width(n)(x, w)
        except REFUSALS as error:  # a clear refusal of a size is reported, not failed
            if by_autograd(error):  # autograd's: a crash
                raise
            refused.append(f"refuses {n} features ({said(error)})")
            continue
        sizes.append(str(n))
        dy = rows([1.0] * 3, device, seed=23, n=n)
        x64 = x.detach().double().requires_grad_()
        w64 = w.detach().double().requires_grad_()
        inside = found["eps placement"] == "inside"
        ref = reference(x64, gain(found, w64), found["eps"] or 0.0, inside)
        pairs = [(y.detach(), ref.detach())]
        if y.requires_grad:  # and the gradients, where there are
            torch.autograd.backward(y, dy.clone())  # a backward may write into it
            torch.autograd.backward(ref, dy.double())
            dx = torch.full_like(x64, math.inf) if x.grad is None else x.grad
            pairs.append((dx, x64.grad))
            if w.grad is not None:  # none reaching the weight fails dw
                pairs.append((w.grad, w64.grad))
        errors = [
            ((a.double() - b).abs().max() / b.abs().max()).item() for a, b in pairs
        ]
        if not (errors[0] <= 1e-5 and largest(errors[1:], default=0.0) <= 1e-4):
            named = zip(["y", "dx", "dw"], errors)
            wrong.append(f"{n} (errors {', '.join(f'{v} {e:.1e}' for v, e in named)})")
            forward_wrong |= not errors[0] <= 1e-5  # NaN too
    see = "math/#the-rmsnorm-definition"
    if y is None:
        return Verdict("sizes", None, "; ".join(refused), see, refused)
    checked = "forward and gradients" if y.requires_grad else "forward"
    detail = (
        f"wrong at {listed(wrong)} features, {checked}"
        if wrong
        else f"rows of {listed(sizes)} features: {checked} as float64's"
    )
    if not y.requires_grad:
        detail += f"; gradients {NO_AUTOGRAD}"
    detail = "; ".join([detail, *refused])
    # Only the gradients wrong: the backward is at fault, not the formula.
    if wrong and not forward_wrong:
        see = "gradients/#a-custom-autograd-function"
    return Verdict("sizes", not wrong, detail, see, refused)

def runs_in_float64(norm, found, device) -> bool:
    """Whether float64 input is computed in float64 (many upcast only to float32). The rows'
    mean squares are not float32 values, so a statistic summed in float32 shows too; the
    weight is moved off float32's values (spaced 2**-23 near 1) to show `weight.float()`.
    The rows' RMS (over 1e9) keeps an eps of 1e-3 or less, inside the root or outside it,
    under 1e-12 of the output, so neither an eps taken from the input's dtype
    (torch.nn.RMSNorm's eps=None: float64's for float64 input, unlike the float32 one
    measured) nor a second eps (as in eps twice) is a reason to skip gradcheck.
    """
    x = rows([1.37e9, 3.1e9], device, torch.float64)
    w = weight(found, device, 11).double() + 2.0**-30
    try:
        y = norm(x, w)
    except Exception:  # noqa: BLE001 (float64 refused: nothing to gradcheck)
        return False
    ref = reference(
        x, gain(found, w), found["eps"] or 0.0, found["eps placement"] == "inside"
    )
    return y.dtype == torch.float64 and bool(torch.allclose(y, ref, rtol=1e-12, atol=0))

# shapes' hint where 3-D inputs disagree with 2-D rows (blame_the_statistic reads it too),
# naming the dim the norm should reduce: the last, or 1 when channel-first.
STATISTIC_OVER_DIMS = "(a statistic over more than {}?)"
# shapes' hint where a 1-D row has no dim 1 (mean(dim=1) written for 2-D rows, over the
# sequence in 3-D): the same 3-D failures, from a dim fixed in the code.
# shapes' hint where each shape that disagrees is 2-D's output times one number: the mean
# square divided by a size that counts more than the row (x.numel() // x.shape[0]).
SIZE_OVER_MORE_DIMS = (
    " (each differs from 2-D by one factor: a size that counts more than the last dim, such"
    " as x.numel() // x.shape[0]? read it as x.shape[-1])"
)
STATISTIC_OVER_A_FIXED_DIM = (
    " (a statistic over a fixed dim, such as mean(dim=1), or a size read as x.size(1),"
    " written for 2-D rows where a norm over the last dim takes any rank: index the"
    " features as -1)"
)

def every_other_gain_negative(found, w):
    """The weight with every other gain negated, in the target's convention (w or 1 + w):
    trained gains can be below zero, and a gain clamped at zero, or taken as |w|, is wrong
    only there."""
    signs = torch.ones(w.shape[-1], device=w.device, dtype=torch.float32)
    signs[1::2] = -1.0
    return gain(found, w).float() * signs - (0.0 if found["gain"] == "w" else 1.0)

def check_shapes(norm, found, device):
    w = weight(found, device, seed=6)
    # Rows of different RMS: a statistic pooled across rows would change their outputs.
    x = rows([0.5 + 0.25 * i for i in range(12)], device, seed=7)
    flat = norm(x, w)
    disagree, raised, lone = [], [], True  # lone: only one-row inputs disagree
    broadcast = False  # a shape's call failed as a norm over another dim's does
    square = True  # only the 4-D input disagrees (channel-first, height and width > 1)
    apart = True  # each input that disagrees keeps its rows apart: no pooled statistic
    fixed_entry = False  # a 1-D row has no x.shape[1]: a size read from a fixed dim
    fixed_dim = False  # a 1-D row has no dim 1: a statistic over a fixed dim
    scaled = True  # each shape that disagrees is 2-D's output times one number

    def named(shape):  # and, channel-first, the (N, C, H, W) the target gets it as
        if norm.dim == -1:
            return f"{len(shape)}-D {shape}"
        batch, *middle = shape[:-1] or (1,)
        return f"{len(shape)}-D {shape} as {(batch, N, *middle, *(1,) * (2 - len(middle)))}"

    for shape in ((N,), (2, 6, N), (2, 2, 3, N)):
        rows_in = math.prod(shape[:-1])
        try:  # each shape on its own: a 1-D row that raises says nothing of 3-D
            y = norm(x[:rows_in].reshape(shape), w).reshape(-1, N)
        except UsageError:
            raise
        except Exception as error:  # noqa: BLE001 (that shape's failure, reported)
            raised.append(f"{named(shape)} raises {said(error)}")
            broadcast |= shapes_broadcast_wrong(error)
            out_of_range = isinstance(error, IndexError) and "tuple index" in str(error)
            fixed_entry |= len(shape) == 1 and out_of_range
            no_dim = "Dimension out of range" in str(error)
            fixed_dim |= len(shape) == 1 and isinstance(error, IndexError) and no_dim
            continue
        if not torch.allclose(y, flat[:rows_in], rtol=1e-6, atol=1e-7):
            disagree.append(named(shape))
            ratio = y / flat[:rows_in]  # far from 1: not another eps's few ulps
            one = ratio[0, :1].expand_as(ratio)
            far = abs(one[0, 0].item() - 1) > 0.01
            scaled &= far and bool(torch.allclose(ratio, one, rtol=1e-4))
            lone = lone and rows_in == 1
            square = square and len(shape) == 4
            apart = apart and rows_apart(norm, x, w, shape)
    independent = rows_apart(norm, x, w, x.shape)  # in 2-D
    problems = raised
    if disagree:
        batch, positions = images(len(x))
        as_rows = "in 2-D" if norm.dim == -1 else f"given as {(batch, N, positions, 1)}"
        problems.append(f"{', '.join(disagree)} differ from the same rows {as_rows}")
    if not independent:
        problems.append("scaling row 0 changes the other rows' outputs")
    detail = "; ".join(problems)
    if broadcast and norm.dim == -1:
        detail += channel_first_hint(norm, device)
    if fixed_entry and norm.dim == -1:
        detail += (
            " (it reads a fixed entry of x.shape, such as x.shape[1], written for 2-D rows"
            " where a norm over the last dim takes any rank: read the size as x.shape[-1])"
        )
    elif fixed_dim and norm.dim == -1 and not broadcast:  # not a channel-first norm's
        detail += STATISTIC_OVER_A_FIXED_DIM
    elif disagree and independent and lone:
        detail += " (a path of its own for a single row, as a decode step takes?)"
    elif disagree and scaled and norm.dim == -1:
        detail += SIZE_OVER_MORE_DIMS
    elif disagree and independent and apart:  # each row right or wrong on its own
        if square and norm.dim == 1 and moved_positions(norm, x, w, flat):
            detail += SWAPPED
        else:
            detail += (
                " (rows kept apart: a path of its own for these inputs that computes"
                " otherwise, another eps?)"
            )
    elif disagree or not independent:
        reduced = "the last dim" if norm.dim == -1 else "dim 1, the channels"
        detail += f" {STATISTIC_OVER_DIMS.format(reduced)}"
    agree = "1-D, 3-D and 4-D inputs agree; rows independent"
    if norm.dim != -1:  # every shape reaches the target as (N, C, H, W)
        agree = "1-D, 3-D and 4-D inputs, each given as (N, C, H, W), agree; rows independent"
    see = "math/#the-rmsnorm-definition"
    return Verdict("shapes", not problems, detail if problems else agree, see)

SWAPPED = " (outputs put back at other positions: height and width swapped?)"

def rows_apart(norm, x, w, shape) -> bool:
    """Whether the norm keeps the rows of an input of `shape` apart: scaling one leaves
    the others' outputs as they were (a statistic over the sequence, or channel-first
    over channels and width, changes theirs)."""
    given = x[: math.prod(shape[:-1])]
    scaled = given.clone()
    scaled[0] *= 10
    before, after = (norm(t.reshape(shape), w).reshape(-1, N) for t in (given, scaled))
    return torch.equal(before[1:], after[1:])

def moved_positions(norm, x, w, flat) -> bool:
    """Whether a channel-first norm's outputs for images of height and width past 1 are
    the right rows at other positions (every row one of the rows given flat)."""
    out = norm(x[:12].reshape(2, 2, 3, N), w).reshape(-1, N)  # as (2, N, 2, 3)
    return all(any(torch.equal(row, right) for right in flat[:12]) for row in out)

def listed(words):
    """Words as a sentence lists them: float32, bfloat16 and float16."""
    return " and ".join(filter(None, [", ".join(words[:-1]), words[-1]]))

def check_strides(norm, found, device):
    """Rows that are views, not contiguous copies: every other element of a wider tensor
    (elements apart in memory), the first half of each row of a wider tensor (contiguous
    rows spaced apart, as a slice qkv[:, :n] gives), and a batch transposed (rows apart),
    forward, input and weight gradients, in float32, bfloat16 and float16 (a half path may
    be a kernel of its own). A kernel, or a backward, that reads memory as if rows were
    contiguous errs."""
    wrong, refused = [], {}  # refused: (view, error) -> the dtypes it was refused in
    broadcast = False  # a refusal that is a norm over another dim's broadcast error
    backward = False  # whether any gradient was compared (none where autograd is not)
    cut_off = []  # the dtypes where x got no gradient, as a view or a contiguous copy
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        w = weight(found, device, seed=12).to(dtype)
        x = rows([0.5 + 0.25 * i for i in range(8)], device, dtype, seed=13)
        wider = torch.zeros(8, 2 * N, device=device, dtype=dtype)
        padded = torch.zeros_like(wider)
        wider[:, ::2] = x
        padded[:, :N] = x
        # Each view taken from a leaf, whose gradient holds the view's in the same places.
        views = {
            "every other element": (wider, lambda t: t[:, ::2]),
            "rows spaced apart": (padded, lambda t: t[:, :N]),
            "a transposed batch": (x.reshape(2, 4, N), lambda t: t.transpose(0, 1)),
        }
        upstream = rows([1.0] * 8, device, dtype, seed=27).reshape(4, 2, N)
        # The same rows in another layout: the same bits, or a few last-bit differences.
        close = {"rtol": 1e-6, "atol": 1e-7}
        if dtype != torch.float32:  # a last bit of the dtype
            close["rtol"] = 2**-7 if dtype == torch.bfloat16 else 2**-10
        dtype_name = short_name(dtype)
        in_half = "" if dtype == torch.float32 else f" in {dtype_name}"
        for name, (base, view_of) in views.items():
            leaf = base.clone().requires_grad_()
            view = view_of(leaf)
            w_view, w_copy = (w.detach().clone().requires_grad_() for _ in range(2))
            try:
                y = norm(view, w_view, dtype=dtype)
            except REFUSALS as error:
                if by_autograd(error):  # autograd's: a crash
                    raise
                why = cut(f"{type(error).__name__}: {error}", 140)
                refused.setdefault((name, why), []).append(dtype_name)
                broadcast |= shapes_broadcast_wrong(error)
                continue
            copy = view.detach().contiguous().requires_grad_()
            y_copy = norm(copy, w_copy, dtype=dtype)
            if not torch.allclose(y, y_copy, **close):
                wrong.append(name + in_half)
            elif y.requires_grad:
                backward = True
                g = upstream.reshape(y.shape)
                torch.autograd.backward(y, g.clone())  # a backward may write into it
                torch.autograd.backward(y_copy, g.clone())
                grad = None if leaf.grad is None else view_of(leaf.grad)
                if grad is None and copy.grad is None:  # the layout not the cause
                    cut_off += [] if dtype_name in cut_off else [dtype_name]
                elif grad is None or copy.grad is None:
                    wrong.append(f"{name}{in_half} (no input gradient)")
                elif not torch.allclose(grad, copy.grad, **close):
                    wrong.append(f"{name}{in_half} (its input gradient)")
                # dw, a sum over the rows: its order may differ with the layout.
                summed = {**close, "rtol": max(close["rtol"], 1e-5)}
                if w_copy.grad is not None and not (
                    w_view.grad is not None
                    and torch.allclose(w_view.grad, w_copy.grad, **summed)
                ):
                    wrong.append(f"{name}{in_half} (its weight gradient)")
    refusals = [
        f"{name} in {listed(dtypes)} ({why})" for (name, why), dtypes in refused.items()
    ]
    see = "kernel/#the-kernels"  # its Layouts
    if wrong or cut_off:
        said = [f"in {listed(cut_off)}, {CUT_FROM_THE_GRAPH}"] if cut_off else []
        if wrong:
            said.insert(0, f"wrong on {' and '.join(wrong)}, against contiguous copies")
        else:  # no layout's fault
            see = "gradients/#a-custom-autograd-function"
        detail = "; ".join(said)
    elif refused:
        detail = "refuses " + "; ".join(refusals)
        if broadcast and norm.dim == -1:  # no refusal: a norm over another dim's error
            detail += channel_first_hint(norm, device)
    else:
        passes = "forward and backward" if backward else "forward only"
        detail = (
            "rows with elements apart, rows spaced apart and a transposed batch, in float32,"
            f" bfloat16 and float16: as contiguous copies, {passes}"
        )
    passed = False if wrong or cut_off else (None if refused else True)
    return Verdict("strides", passed, detail, see, [f"refuses {r}" for r in refusals])

def check_batch(norm, found, device):
    """Reported, not required: the same rows alone and last in batches of 7, 256 and 4097
    rows, bit for bit (a reduction split chosen from the row count breaks it)."""
    w = weight(found, device, seed=14)
    x = rows([0.3 + 0.4 * i for i in range(7)], device, seed=15)
    alone = torch.cat([norm(row[None], w) for row in x])
    compared, differ, refused = [], [], []
    for size in [7, 256, MANY_ROWS]:
        batch = torch.cat([rows([1.0] * (size - 7), device, seed=16), x])
        try:
            y = norm(batch, w)
        except REFUSALS as error:  # a limit on rows, said as sizes says one on features
            refused.append(f"refuses {size} rows ({said(error)})")
            continue
        compared.append(str(size))
        if not torch.equal(y[-7:], alone):
            differ.append(str(size))
    if differ:
        detail = "other bits in batches of " + ", ".join(differ) + " rows than alone"
    elif compared:
        detail = f"the same bits alone and last in batches of {listed(compared)} rows"
    else:
        detail = "no batch compared"
    detail = "; ".join([detail, *refused])
    return Verdict("batch", None, detail, "numerics/#batch-invariance", refused)

def started_biases(norm):
    """The biases held at zero that do not start at zeros, but a projection's inside the
    norm (an adaptive norm's nn.Linear: its bias sits beside a larger weight)."""
    parameters = dict(norm.module.named_parameters())

    def projections(name):
        owner = norm.module.get_submodule(name.rpartition(".")[0])
        size = parameters[name].numel()
        return any(p.numel() > size for p in owner.parameters(recurse=False))

    return [
        name
        for name in norm.held
        if not projections(name) and bool(parameters[name].ne(0).any())
    ]

def check_init(norm, found, device):
    """A fresh module's weight is the identity gain: ones for w, zeros for 1 + w; any other
    parameter of its shape (a bias) starts at zeros; it is float32 or wider, not a
    half-precision parameter whose optimizer steps round away (nor a wider one that makes
    a float32 input's output wider), nor one created with requires_grad=False, which no
    gradient reaches; and a gain kept as a plain
    tensor attribute or a buffer, not a parameter, fails where it scales the output: no
    optimizer sees it (and no state_dict saves a plain tensor; one the module keeps but
    does not apply, as vLLM's norm without a weight does, passes)."""
    see = "pitfalls/#gains-initialized-like-a-linear-layers-weights"
    if norm.module is None:
        return Verdict("init", None, "not applicable: no weight of its own", see)
    if norm.weightless:
        module = norm.module
        kept = {
            n: "plain" for n, v in vars(module).items() if isinstance(v, torch.Tensor)
        }
        kept |= {name: "buffer" for name, _ in module.named_buffers(recurse=False)}
        plain = [
            name
            for name in kept
            if getattr(module, name).shape == (N,)
            and scales_the_output(norm, name, device)
        ]
        if plain:
            name = plain[0]
            detail = (
                f"{name} is a plain tensor of shape ({N},), not an nn.Parameter: a gain"
                " kept so never trains and is not in the state_dict"
                if kept[name] == "plain"
                else f"{name} is a buffer of shape ({N},), not an nn.Parameter: a gain"
                " kept so never trains (the state_dict saves it, no optimizer sees it)"
            )
            # Not a matter of its start: what init catches says why it must be a Parameter.
            return Verdict("init", False, detail, "check/#check-init")
        biased = started_biases(norm)
        if biased:  # a bias alone, after a norm without a gain
            detail = f"fresh {biased[0]}: not zeros, where a bias starts"
            detail = f"no weight of its own; {detail}"
            return Verdict("init", False, detail, "check/#check-init")
        return Verdict("init", None, "not applicable: no weight of its own", see)
    fresh = dict(norm.module.named_parameters())[norm.weight_name].detach()
    identity = 1.0 if found["gain"] == "w" else 0.0
    off = int((fresh != identity).sum())
    detail = f"fresh {norm.weight_name}: {off} of {N} entries differ from {identity:g}"
    other = 1.0 - identity  # the identity of the gain stored the other way
    if off and bool((fresh == other).all()):
        start = other if found["gain"] == "w" else 1 + other  # 0 or 2
        fix = (
            "start it at ones, or apply 1 + w if it stores the gain minus 1"
            if found["gain"] == "w"
            else "start it at zeros, or apply w if it stores the gain itself"
        )
        detail = (
            f"fresh {norm.weight_name}: all {other:g}, so the norm, which applies "
            f"{found['gain']}, starts with a gain of {start:g}: {fix}"
        )
        see = "pitfalls/#loading-gains-stored-the-other-way"
    biased = started_biases(norm)
    if biased:
        detail += f"; fresh {biased[0]}: not zeros, where a bias starts"
        see = see if off else "check/#check-init"  # the bias alone is wrong
    # An optimizer steps a parameter in its own dtype: next to 1, bfloat16's values are
    # 2^-7 apart (float16's 2^-10), and AdamW's steps, about the learning rate, round away.
    narrow = fresh.dtype in (torch.float16, torch.bfloat16)
    if narrow:
        half = short_name(fresh.dtype)
        at_one = " (1 + 3e-4 rounds to 1)" if found["gain"] == "w" else ""
        detail += (
            f"; fresh {norm.weight_name} is {half}: an optimizer steps it in {half}, which"
            f" rounds away a step under half the spacing of its values{at_one}: create"
            " it in float32"
        )
        see = "pitfalls/#gains-trained-in-bfloat16"
    # A float64 gain (built from NumPy's ones, say): float32 input times it is float64,
    # which a float32 model's next layer refuses, unless the norm casts its output back.
    wide = None  # the dtype a float32 input comes back in, if not float32
    if fresh.dtype == torch.float64:
        out = norm(rows([1.0], device), fresh).dtype
        wide = None if out == torch.float32 else short_name(out)
    if wide:
        detail += (
            f"; fresh {norm.weight_name} is float64: with it a float32 input comes back"
            f" {wide}, which a float32 model's next layer refuses: create it in float32"
        )
        see = "pitfalls/#cast-order-and-the-output-dtype"
    frozen = not dict(norm.module.named_parameters())[norm.weight_name].requires_grad
    if frozen:
        detail += (
            f"; fresh {norm.weight_name} has requires_grad=False: no gradient reaches it,"
            " so no optimizer step updates it"
        )
        if off == 0 and not (biased or narrow or wide):  # its start is right
            see = "check/#check-init"
    right = off == 0 and not (biased or narrow or wide or frozen)
    return Verdict("init", right, detail, see)

def scales_the_output(norm, name, device) -> bool:
    """Whether doubling the module's plain tensor attribute `name` changes its output."""
    x = rows([1.0, 2.0], device)
    ones = torch.ones(N, device=device, dtype=torch.float32)
    before, kept = norm(x, ones), getattr(norm.module, name)
    setattr(norm.module, name, kept * 2)
    try:
        return not torch.equal(norm(x, ones), before)
    finally:
        setattr(norm.module, name, kept)

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
    others = [torch.nn.RMSNorm] if found["gain"] == "w" else []
    try:
        from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
        from transformers.models.llama.modeling_llama import LlamaRMSNorm
    except ImportError:
        pass
    else:
        others.append(LlamaRMSNorm if found["gain"] == "w" else GemmaRMSNorm)
    said = []
    # Triton's interpreter truncates to bfloat16 where a GPU rounds: bfloat16 there is
    # not the kernel's.
    emulated = under_triton_interpreter(norm)
    for other in others:
        name = "torch.nn.RMSNorm" if other is torch.nn.RMSNorm else other.__name__
        for dtype in (torch.float32, torch.bfloat16):  # as a model converts them
            if emulated and dtype == torch.bfloat16:
                said.append(f"{name} bfloat16 not compared under Triton's interpreter")
                continue
            theirs = other(N, eps=found["eps"]).to(device=device, dtype=dtype)
            y = functional_call(theirs, {"weight": w.to(dtype)}, (x.to(dtype),))
            mine = norm(
                x.to(dtype),
                w.to(dtype),
                dtype=None if dtype == torch.float32 else dtype,
            )
            same = "bit for bit" if torch.equal(mine, y) else "not bit for bit"
            said.append(f"{name} {str(dtype).removeprefix('torch.')} {same}")
    return Verdict(
        "agreement",
        None,
        "; ".join(said) or "nothing to compare",
        "implementations/#agreement-with-transformers",
    )

CHECKS = [
    check_forward,
    check_eps,
    check_half,
    check_mixed,
    check_rounding,
    check_zero_rows,
    check_gradients,
    check_dw,
    check_shapes,
    check_sizes,
    check_strides,
    check_batch,
    check_init,
    agreement,
]

def shapes_broadcast_wrong(error) -> bool:
    """Whether a call failed as a norm over another dim does past 2-D rows: a gain that
    does not broadcast, or an output of another shape."""
    words = str(error)
    returned = isinstance(error, WrongOutput) and words.startswith("it returned shape")
    return returned or "must match the size of tensor" in words

def channel_first_hint(norm, device) -> str:
    """The hint for a norm over dim 1 checked without --dim 1, where it runs so."""
    if runs_channel_first(norm, device):
        return "; a norm over dim 1 (channel-first)? pass --dim 1"
    return ""

def runs_channel_first(norm, device, dim=1) -> bool:
    """Whether the target normalizes the checks' rows given channel-first, as --dim 1
    does (rows of RMS 1 and 2, where eps is negligible, divided by their RMS); with
    dim=-1, given features last."""
    channel_first = norm.at_width(N)
    channel_first.dim = dim
    x = rows([1.0, 2.0], device)
    try:
        y = channel_first(x, torch.ones(N, device=device, dtype=torch.float32))
    except Exception:  # noqa: BLE001 (any failure: no reason to suggest --dim 1)
        return False
    expected = x / x.pow(2).mean(-1, keepdim=True).sqrt()
    return y.shape == x.shape and bool(torch.allclose(y.float(), expected, rtol=1e-3))

def first_two(norm) -> list:
    """A function's first two parameters (None where it has fewer); a module's: None."""
    return [*norm.takes, None, None][:2] if norm.module is None else [None, None]

def takes_x_second(norm) -> bool:
    """Whether a function takes x second, after another parameter: f(z, x), f(self, x)."""
    first, second = first_two(norm)
    return first not in INPUT_NAMES and str(second).lower() in INPUT_NAMES

def order_hint(norm) -> str:
    """The hint for a function without a gain that takes x second, as a gated norm that
    takes its gate first, f(z, x), does: given x first and the weight second, its form
    fails."""
    first, second = first_two(norm)
    # A module takes none: only a function has a gain argument to ask about.
    if not takes_x_second(norm) or first == "self" or norm.gain_argument is not None:
        return ""
    return (
        f"; it takes {first} before {second}, where the checker passes x first: a gated"
        f" norm's gate (or a gain) first? check it through a function of x that supplies"
        f" {first}"
    )

def call_hint(error, norm, device) -> str:
    """What to do when calling the target as norm(x, weight) raised `error`."""
    words = str(error).lower()
    dtype = norm.last_call.get("dtype")  # read first: a hint's own calls replace it
    first, second = first_two(norm)
    # A forward written to be patched onto a class, forward(self, x), or a function that
    # takes the module, unsloth's fast_rms_layernorm(layernorm, X): given x first, it reads
    # a module's weight or eps off a tensor (JAX's x.astype is a port's, not a module's).
    read = re.search(r"'tensor' object has no attribute '(\w+)'", words)
    on_a_tensor = isinstance(error, AttributeError) and read is not None
    on_a_tensor = on_a_tensor and ("weight" in read[1] or "eps" in read[1])
    module_first = on_a_tensor and takes_x_second(norm)
    if first == "ctx":  # an autograd.Function's forward, given itself
        return (
            "; it takes ctx first: an autograd.Function's forward, which only its .apply"
            f" calls: check it through a function {norm.called_as} that calls .apply"
        )
    if first == "self" or module_first:
        what = "self" if first == "self" else f"a module, {first},"
        its_class = ", or check the class it belongs to" if first == "self" else ""
        return (
            f"; it takes {what} first, then {second}, where the checker passes x first:"
            f" check it through a function {norm.called_as} (a lambda will do) that"
            f" passes it a module holding the weight and eps{its_class}"
        )
    # The inputs the checker passes, for a wrapper's signature.
    adds = isinstance(norm, AddSubject)
    inputs = "f(x, residual, weight)" if adds else "f(x, weight)"
    missing_one = "required positional argument" in words and "residual" not in words
    refuses_bfloat16 = dtype == torch.bfloat16 and "bfloat16" in words  # said below
    if adds and isinstance(error, TypeError) and not (missing_one or refuses_bfloat16):
        return "; is it a residual add fused with the norm? If not, drop --add"
    if "required positional argument" in words and "residual" in words:
        return "; a residual add fused with the norm: pass --add"
    missing = re.findall(r"'(\w+)'", str(error))
    # variance_epsilon, norm_eps, eps: not timesteps.
    named_eps = [m for m in missing if re.search(r"(^|_)(eps|epsilon)$", m.lower())]
    if "multiple values for argument" in words and named_eps:  # f(x, eps, weight)
        return (
            f"; it takes {named_eps[0]} before its gain, which the checker passes second,"
            " by position: name the gain weight (passed by name then), or check it"
            f" through a function {inputs[:-1]}, eps=...) that passes them on"
        )
    gain_first = first in missing  # None for a module
    if "multiple values for argument" in words and gain_first:  # f(weight, x, eps)
        return (
            f"; it takes its gain first, f({', '.join(list(norm.takes)[:2])}, ...), where"
            f" the checker passes x first: check it through a function {norm.called_as}"
            " that passes them on"
        )
    # vLLM's op form, rms_norm(out, input, weight, epsilon), or llama2.c's rmsnorm(o, x,
    # weight): x went into the buffer. Another name first is a gate's, as often (below).
    x_missing = any(m in INPUT_NAMES and m != first for m in missing)
    if "required positional argument" in words and first in OUTPUT_NAMES and x_missing:
        return (
            f"; it takes an output buffer first, {first}, as vLLM's op form does: check"
            f" it through a function {norm.called_as} that makes the buffer, passes it"
            " on and returns it"
        )
    if "required positional argument" in words and named_eps:
        others = [m for m in missing if m != named_eps[0]]  # a gate, say
        hidden = norm.module is None and hides_its_names(norm.takes)
        if named_eps[0] in EPS_ARGUMENTS and hidden:  # an autograd Function's apply?
            said = (
                f"; it requires {named_eps[0]}, which the checker cannot pass to a"
                " function whose parameters it cannot read (an autograd Function's apply?)"
            )
        elif named_eps[0] in EPS_ARGUMENTS:  # a module's forward(x, eps)
            said = (
                f"; its forward requires {named_eps[0]}, which the checker passes to its"
                " constructor only"
            )
        else:
            said = (
                f"; {named_eps[0]} looks like its eps, by a name the checker does not pass"
                f" it by ({', '.join(EPS_ARGUMENTS)})"
            )
        supplies = f", and supplies {' and '.join(others)}" if others else ""
        return (
            f"{said}: check it through a function {inputs[:-1]}, eps=...) that passes it"
            f" on{supplies}"
        )
    biases = [m for m in missing if m in BIAS_NAMES]
    if "required positional argument" in words and biases:
        others = [m for m in missing if m not in biases]  # a gate, say
        supplies = f" and supplies {' and '.join(others)}" if others else ""
        return (
            f"; it requires a bias argument, {biases[0]}, where the checker passes no"
            f" bias: check it through a function of {inputs.removeprefix('f')} that"
            f" passes zeros for it{supplies}"
        )
    if "required positional argument" in words:  # a gate, for one
        return (
            "; it needs another input, as a gated norm does: check it through a"
            f" function of {inputs.removeprefix('f')} that supplies one"
        )
    if "jitted modules" in words:  # torch.func.functional_call refuses TorchScript
        return "; a TorchScript module: check the Python class it scripts"
    if "active drivers" in words:  # Triton finds no GPU
        return (
            "; a Triton kernel with no GPU: set TRITON_INTERPRET=1 to run it in Triton's"
            " interpreter, or check it on a GPU with --device cuda"
        )
    # Not a bare None: (y, None) is a tuple, as a fused norm returns without a residual.
    returned = words.endswith("not a tensor") and "returned nonetype" not in words
    if isinstance(error, WrongOutput) and returned:  # a tuple, a dict, a list
        # Two items of x's shape: the output and the sum, as a fused add returns them; or
        # the output and None, from a target that takes a residual (none given, no sum).
        shape = words.rsplit(" for x of ", 1)[-1].removesuffix(", not a tensor")
        pair = words.startswith(f"it returned a tuple of 2 ({shape}, {shape})")
        forward = norm.function if norm.module is None else norm.module.forward
        try:
            takes = inspect.signature(forward).parameters
        except (TypeError, ValueError):  # a built-in's: none to read
            takes = {}
        no_sum = words.startswith(f"it returned a tuple of 2 ({shape}, nonetype)")
        pair |= no_sum and any("residual" in name for name in takes)
        fused = " (a norm fused with a residual add, returning the sum too: pass --add)"
        alone = "; check it through a function that returns the norm's output alone"
        return alone + (fused if pair else "")
    if "Interpreter" in type(error).__name__:
        return (
            "; Triton's interpreter (TRITON_INTERPRET=1) cannot run this kernel:"
            " check it on a GPU with --device cuda"
        )
    if isinstance(error, TypeError) and "size" in words and "tensor" in words:
        # A tensor where a size belongs: a function that builds the norm, given x.
        return "; it took x for a size: if it builds the norm, pass --factory"
    if norm.dim == -1 and runs_channel_first(norm, device):
        return "; a norm over dim 1 (channel-first): pass --dim 1"
    if norm.dim == 1 and runs_channel_first(norm, device, dim=-1):
        return "; a norm over the last dim (features last): drop --dim 1"
    if isinstance(error, IndexError) and "dimension out of range" in words:
        # mean(dim=2) or x.size(2): written for (batch, tokens, features) alone.
        return (
            "; it indexes a fixed dim (a statistic over dim 2, or x.size(2)), written for"
            " one rank, where a norm over the last dim takes any (the checker passes 1-D"
            " to 4-D inputs): index the features as -1 (mean(dim=-1), x.size(-1))"
        )
    if isinstance(error, ValueError) and "values to unpack" in words:
        # B, T, C = x.shape: written for one rank, where a layer takes any.
        return (
            "; it unpacks x's shape into a fixed number of sizes, where a norm over the"
            " last dim takes any number of leading ones (the checker passes 1-D to 4-D"
            " inputs): read the size as x.shape[-1]"
        )
    # The conventions are worked out on float32 rows, which a half-precision kernel refuses,
    # and the rounding on bfloat16 rows, which a float32 kernel refuses.
    if dtype == torch.float32 and "float16" in words and "float32" in words:
        return (
            "; the checker works out the conventions on float32 rows first, so a kernel"
            " for float16 or bfloat16 only cannot be checked as it is (the Check page's"
            " limits)"
        )
    if dtype == torch.bfloat16 and "bfloat16" in words:
        return (
            "; the checker works out the rounding on bfloat16 rows, so a kernel for"
            " float32 only cannot be checked as it is (the Check page's limits)"
        )
    if isinstance(error, RuntimeError) and "must match the size of tensor" in words:
        # x.pow(2).mean(-1) is (rows,): against (rows, features) it broadcasts wrong.
        lost = "its last dimension" if norm.dim == -1 else "a dimension"
        hint = (
            f"; the statistic lost {lost} (a mean without keepdim=True?), so it does not"
            " broadcast over each row"
        )
        if norm.dim == 1:  # or a gain viewed as (1, C, 1), for (N, C, L) alone
            hint += (
                ", or a weight shaped for 3-D (N, C, L) input (viewed as (1, C, 1)?),"
                " where --dim 1 passes (N, C, H, W): shape it as"
                " (1, C, *[1] * (x.dim() - 2))"
            )
        return hint
    return ""

def check(
    target,
    eps=None,
    device="cpu",
    name=None,
    *,
    eps_outside=False,
    dim=-1,
    convention=None,
    add=False,
    init=None,
    factory=False,
) -> Report:
    """Run every check on `target` (an nn.Module class or a function); with `eps_outside`,
    eps added to the RMS is the form intended; `dim` is the dimension it normalizes (-1, or
    1 for channel-first inputs); `convention`, one of CONVENTIONS, the rounding intended;
    `add`, a residual add fused with the norm (AddSubject), checked with ADD_CHECKS too;
    `init`, keyword arguments for a module class's constructor besides the size;
    `factory`, whether `target` is a function f(n) that returns the module.
    """
    if device not in ("cpu", "cuda"):
        raise UsageError(f"device {device!r}: expected 'cpu' or 'cuda'")
    if device == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda: no CUDA device here")
    if dim not in (-1, 1):
        raise UsageError(
            f"dim {dim!r}: expected -1 (features last) or 1 (channel-first)"
        )
    if eps is not None and not (
        isinstance(eps, (int, float)) and not isinstance(eps, bool)
        and math.isfinite(eps) and eps > 0
    ):  # fmt: skip
        raise UsageError(f"eps {eps!r}: expected a finite number above 0, the target's")
    if convention is not None and convention not in CONVENTIONS:
        known = ", ".join(CONVENTIONS)
        raise UsageError(f"convention {convention!r}: expected one of {known}")
    if add and dim == 1:  # the add checks build rows with the features last
        raise UsageError(
            "--add with --dim 1: the fused add's checks take features-last rows only;"
            " check it through a function that moves the channels last"
        )
    # A torch.compile'd target compiles a graph for each kind of input the checks give
    # (dtypes, ranks, autograd, inference mode: about 55); past dynamo's recompile limit,
    # 8, it would run the rest eagerly, and the checks would judge uncompiled code.
    from torch import _dynamo  # here, not above: 1.5 s, which --help need not wait for

    limits = {"recompile_limit": 256, "accumulated_recompile_limit": 4096}
    args = (target, eps, device, name, eps_outside, dim, convention, add, init, factory)
    with _dynamo.config.patch(**limits):
        try:
            return _run_checks(*args)
        except SystemExit as error:  # the target's, while called: no report, status 0
            raise UsageError(
                f"it calls sys.exit({error.code!r}) when called, the checks unfinished:"
                " raise an error instead (one that refuses an input is reported)"
            ) from error

def writes_in_place(norm, device) -> bool:
    """Whether a fused add that wrote nothing seen on the form check's call (a zero
    residual and weight: h into x leaves x's values, and a kernel's writes through a
    pointer count no version) writes into x or residual where a write changes them."""
    norm.wrote_nothing = False
    x, residual = rows([1.0, 2.0], device), rows([0.5, 3.0], device, seed=1)
    with contextlib.suppress(Exception):  # a call that fails: as it was, nothing seen
        norm.added(x, residual, weight({"gain": "w"}, device, seed=0))
        return not norm.wrote_nothing
    norm.wrote_nothing = True
    return False

def _run_checks(
    target, eps, device, name, eps_outside, dim, convention, add, init, factory
):
    """check()'s work, its arguments validated."""
    subject = AddSubject if add else Subject
    norm = subject(target, eps, device, init=init, factory=factory)
    norm.eps_outside, norm.dim, norm.convention = eps_outside, dim, convention
    try:
        found = conventions(norm, device)
    except UsageError:
        raise
    except Exception as error:
        shape = f"(rows, {N})" if dim == -1 else f"(images, {N}, positions, 1)"
        dtype = short_name(norm.last_call.get("dtype", torch.float32))
        called = norm.shown_call(["x", "residual"] if add else ["x"])
        hint = call_hint(error, norm, device)
        raise UsageError(
            f"calling it as {called}, x of shape {shape} in {dtype}, failed:"
            f" {error!r}{hint}"
        ) from error
    if dim == 1:
        found = {"dim": "1 (channel-first)", **found}
    name = name or getattr(target, "__name__", repr(target))
    if norm.weightless:
        # A gain kept as a buffer: init fails it; the header names it rather than deny it.
        kept = f", its buffer {norm.buffer_gain} (see init)" if norm.buffer_gain else ""
        found = {
            "weight": f"no parameter of its own{kept} (checked with one applied after it)",
            **found,
        }
    if "form" in found:  # not an RMSNorm: one verdict that says what it is
        detail = found["form"]
        if add and norm.wrote_nothing and not writes_in_place(norm, device):
            # None returned, nothing written in place, even where a write would show
            detail += (
                " (--add: it returned None and wrote into neither x nor residual:"
                " return y, h, or write y into x and h into residual)"
            )
        elif add and "returns its input unchanged" in detail:
            # h = x, the residual zero
            detail += " (--add: is h returned first, or written into x? y comes first)"
        elif not add:
            detail += order_hint(norm)
        see = "math/#the-rmsnorm-definition"
        if add and "not the norm of h = x + residual" in detail:
            see = "kernel/#fused-with-the-residual-add"
        verdict = Verdict("form", False, detail, see)
        return Report(name, found, [verdict])
    if add:
        found = {"fused": "residual add (h = x + residual)", **found}
    verdicts = []
    for run in CHECKS + (ADD_CHECKS if add else []):
        try:
            verdicts.append(run(norm, found, device))
        except UsageError:  # found only now (an input written into by one dtype's path)
            raise
        except Exception as error:  # noqa: BLE001 (a crash in a check fails that check)
            # The name its verdict carries (check_add_sum: "add sum").
            short = run.__name__.removeprefix("check_").replace("_", " ")
            # Where: the last input the check gave the norm (the crash may be in its backward).
            at = norm.last_call.get("input")
            detail = cut(f"raised {error!r}", 300) + (
                f" (its last call: {at})" if at else ""
            )
            # Right on 2-D rows, where dim 1 is the last, wrong past them: channel-first?
            if norm.dim == -1 and shapes_broadcast_wrong(error):
                detail += channel_first_hint(norm, device)
            see = f"check/#check-{short.replace(' ', '-')}"  # its section
            verdicts.append(Verdict(short, False, detail, see))
    verdicts = blame_the_forward(blame_the_backward(blame_the_statistic(verdicts)))
    return Report(name, found, blame_the_zero_row(blame_the_eps(verdicts)))

def blame(verdicts, cause, blamed, link_it=False):
    """The verdicts, with each failure `blamed` picks told to read `cause` first where
    `cause` fails too (with link_it, linked to `cause`'s section, not its own)."""
    found = next((v for v in verdicts if v.check == cause), None)
    if found is None or found.passed is not False:
        return verdicts
    note = f"; {cause} fails too, a likely cause: read it first"

    def noted(v):
        see = found.see if link_it else v.see
        return Verdict(v.check, False, v.detail + note, see, v.refused)

    return [noted(v) if v.passed is False and blamed(v) else v for v in verdicts]

def blame_the_eps(verdicts):
    """forward's, gradients' and sizes' failures told to read eps first where it fails too
    (an ε added twice can fail all four): their links name other usual causes (the
    definition, a backward that forgets r)."""
    checks = ("forward", "gradients", "sizes")
    return blame(verdicts, "eps", lambda v: v.check in checks)

def blame_the_zero_row(verdicts):
    """half's failure told to read zero rows first, and linked there, where it is wrong on
    the all-zero row alone in every dtype it fails and zero rows fails too: a 0 / 0, in
    any dtype, not a missing upcast."""

    def on_the_zero_row_alone(v):
        wrong = v.detail.count(" wrong (")  # each dtype that fails
        alone = v.detail.count(f", on {ZERO_ROW}")  # the other rows come first if named
        noted = "fails too" in v.detail  # told already (gradients, eps)
        # Wrong in its output's dtype or without a gradient too: not the zero row alone.
        cast = re.search(r", not b?float16", v.detail) or NO_GRADIENT_THERE in v.detail
        return v.check == "half" and 0 < wrong == alone and not noted and not cast

    return blame(verdicts, "zero rows", on_the_zero_row_alone, link_it=True)

SERVED = "in eval mode under inference_mode"  # how forward, half and mixed name it

def blame_the_forward(verdicts):
    """Where forward fails in float32 served (eval mode under inference_mode: a running
    statistic, a cached gain), half's and mixed's failures served told to read it first,
    half's linked there where served inputs are all it gets wrong (not an upcast)."""

    def served_alone(v):
        wrong = v.detail.count(" wrong (")  # each dtype that fails
        return v.check == "half" and 0 < wrong == v.detail.count(f"{SERVED} only)")

    def served_too(v):
        return v.check == "mixed" and f"; {SERVED}" in v.detail

    forward = next((v for v in verdicts if v.check == "forward"), None)
    if forward is None or SERVED not in forward.detail:
        return verdicts
    verdicts = blame(verdicts, "forward", served_alone, link_it=True)
    return blame(verdicts, "forward", served_too)

def blame_the_backward(verdicts):
    """Where gradients fails, the failures in an input gradient alone told to read it
    first and linked to its section: half's (a backward that forgets r is wrong in every
    dtype, an upcast in float16 only) and forward's under autocast, read first of all.
    mixed's and dw's failures in the input gradient, and sizes' in either gradient, are
    told so too, their links kept (they may also judge the weight's). Where eps fails too,
    only half's: blame_the_eps notes forward's and sizes'."""
    eps_fails = any(v.check == "eps" and v.passed is False for v in verdicts)

    def in_the_input_gradient_alone(v):
        if v.check == "half":
            wrong = v.detail.count(" wrong (")  # each dtype that fails
            return 0 < wrong == v.detail.count(", input gradient only")
        autocast_only = v.see == "gradients/#the-derivation"
        return v.check == "forward" and autocast_only and not eps_fails

    def in_the_input_gradient_too(v):
        said = "input gradient" in v.detail or v.check == "sizes"  # sizes': dx or dw
        linked = v.see.startswith("gradients/")
        return v.check in ("mixed", "dw", "sizes") and said and linked and not eps_fails

    verdicts = blame(verdicts, "gradients", in_the_input_gradient_alone, link_it=True)
    return blame(verdicts, "gradients", in_the_input_gradient_too)

# What the half and gradients checks say when their 3-D inputs fail, shapes having found a
# statistic over more than the last dim, or over a fixed dim: the likely cause, not an
# upcast or a backward.
# Where half and gradients name inputs past 2-D rows: 3-D, and half's 4-D.
THREE_D = {
    "half": ("(1, tokens, features)", "(1, 1, tokens, features)"),
    "gradients": ("3-D:",),
}

def blame_the_statistic(verdicts):
    """The verdicts, with half's and gradients' failures on 3-D (and half's 4-D) inputs
    put down to shapes' finding, and half's link moved there when those are all it gets
    wrong."""
    shapes = next((v for v in verdicts if v.check == "shapes"), None)
    if shapes is None:
        return verdicts
    if STATISTIC_OVER_A_FIXED_DIM in shapes.detail:
        cause = "a statistic over a fixed dim"
    elif SIZE_OVER_MORE_DIMS in shapes.detail:
        cause = "a size that counts more than the last dim"
    elif STATISTIC_OVER_DIMS.split("{")[0] in shapes.detail:
        cause = "a statistic over more dims"
    else:
        return verdicts
    blamed = []
    for v in verdicts:
        if v.passed is False and any(m in v.detail for m in THREE_D.get(v.check, ())):
            wrong = v.detail.count(" wrong (")  # each dtype that fails
            only = v.check == "half" and wrong == v.detail.count("features) only)")
            note = f"; the failures past 2-D rows likely have shapes' cause: {cause}"
            v = Verdict(v.check, False, v.detail + note, shapes.see if only else v.see)
        blamed.append(v)
    return blamed
