"""What the checker measures before it judges: the target's form, its gain and eps, and its
rounding convention in bfloat16; the inputs it measures on, and the float64 reference.
"""

import functools
import math

import torch

from snippets.check.report import short_name
from snippets.check.target import (
    N,
    AddSubject,
    Subject,
    UsageError,
    under_triton_interpreter,
)
from snippets.kernel_in_practice.bfloat16 import bfloat16_rounded
from snippets.numerics.conventions import ulps

# --8<-- [start:eps_rows]
def eps_rows(declared, outside=False) -> torch.Tensor:
    """The RMS of the rows that measure eps: 1e-4 and 3e-4, where a usual eps (1e-8 and
    up) is not small against the mean square, or, for a smaller declared eps, sqrt(eps)
    and 3 sqrt(eps), which keep it so however small it is (a margin: float32's rounding of
    the mean square blurs eps only well below 1e-8). An eps told to be outside the root is
    added to the RMS itself: rows of RMS eps and 3 eps (at most 1e-4 and 3e-4) measure it
    best."""
    if outside and declared:
        return torch.tensor([1.0, 3.0], dtype=torch.float64) * min(1e-4, declared)
    unit = min(1e-4, math.sqrt(declared)) if declared else 1e-4
    return torch.tensor([1.0, 3.0], dtype=torch.float64) * unit

# --8<-- [end:eps_rows]

def rows(scales, device, dtype=torch.float32, seed=0, n=N):
    """One row of n features per scale, each with that RMS (exact in float64, to rounding
    after a cast): a new tensor on every call."""
    x = unit_rows(len(scales), n, seed) * torch.tensor(scales).double()[:, None]
    return x.to(device=device, dtype=dtype)

@functools.lru_cache(maxsize=64)
def unit_rows(count, n, seed) -> torch.Tensor:
    """count random rows of n features, each of RMS 1, in float64; never written to.
    Kept: drawing them took half of a check's time, and tests check many norms."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(count, n, generator=g, dtype=torch.float64)
    return x / x.pow(2).mean(-1, keepdim=True).sqrt()

def largest(errors, default=-math.inf):
    """The largest error, or NaN if any is NaN: max() skips a NaN that is not first (no
    number compares above it), and a NaN compared with a bound is never past it."""
    return max(errors, key=lambda e: math.inf if math.isnan(e) else e, default=default)

def reference(x, gain, eps, inside=True):
    """Float64 RMSNorm of the detected conventions."""
    x = x.double()
    mean_square = x.pow(2).mean(-1, keepdim=True)
    scale = 1 / (mean_square + eps).sqrt() if inside else 1 / (mean_square.sqrt() + eps)
    return gain.double() * x * scale

def not_rms_norm(norm, neutral, device) -> str | None:
    """What the target computes instead of x / RMS(x) over the whole row, in words, or None
    for an RMSNorm. Rows of RMS about 101 and 91 (a usual eps negligible; a declared one
    is taken in, in the form told), shifted by 30 to means of about 17 and 45, so that the
    RMS, the standard deviation and its unbiased form all differ."""
    x = rows([100.0, 80.0], device) + 30.0
    out = norm(x, neutral)
    y, x = out.double(), x.double()
    eps, inside = norm.declared_eps or 0.0, not norm.eps_outside
    right = reference(x, torch.ones_like(x[0]), eps, inside)
    if torch.allclose(y, right, rtol=1e-4):
        return None
    # x / RMS, rounded to a narrower dtype than float32's: a cast to a fixed dtype.
    if out.dtype in (torch.float16, torch.bfloat16) and torch.allclose(
        y, right, rtol=torch.finfo(out.dtype).eps
    ):
        short = short_name(out.dtype)
        return (
            f"returns {short} for float32 input (x / RMS rounded to {short}): a layer"
            " returns its input's dtype (a cast to a fixed dtype?)"
        )
    if not out.is_floating_point() or out.element_size() == 1:  # int8, float8
        short = short_name(out.dtype)
        return (
            f"returns {short} for float32 input: a layer returns its input's dtype (a"
            " quantized output? check the norm before it is quantized)"
        )
    centred = x - x.mean(-1, keepdim=True)
    if torch.allclose(
        y, centred / centred.pow(2).mean(-1, keepdim=True).sqrt(), rtol=1e-3
    ):
        return "subtracts the mean and divides by the standard deviation: a LayerNorm"
    scale = y / x  # one number per row for a norm that only rescales whole rows
    for size in [s for s in range(2, N + 1) if N % s == 0][::-1]:  # 1: any output
        groups = scale.reshape(len(x), -1, size)
        if torch.allclose(groups, groups[..., :1], rtol=1e-4):
            break
    else:
        # Every output a value of a narrower dtype, x / RMS to its precision: computed
        # there and cast back (a cast to a fixed dtype and back).
        # bfloat16 first: its values are float16's too.
        for narrow in (torch.bfloat16, torch.float16):
            rounded = torch.equal(out.to(narrow).to(out.dtype), out)
            if rounded and torch.allclose(y, right, rtol=4 * torch.finfo(narrow).eps):
                short = short_name(narrow)
                return (
                    f"returns x / RMS to {short}'s precision, every output a {short}"
                    f" value: computed in {short} for float32 input (a cast to a fixed"
                    " dtype and back?)"
                )
        # x / RMS of x rounded first: its input, or a sum with a residual, in bfloat16.
        for narrow in (torch.bfloat16, torch.float16):
            of_rounded = reference(x.to(narrow), torch.ones_like(x[0]), eps, inside)
            if torch.allclose(y, of_rounded, rtol=1e-4):
                short = short_name(narrow)
                return (
                    f"normalizes x rounded to {short} first, not x: its input (or a sum"
                    f" with a residual) cast to {short} for float32 input"
                )
        return (
            "does not scale each row by one number (a statistic over another dim, or"
            " a term added to the output?)"
        )
    if size < N:
        grouped = x.reshape(len(x), -1, size)
        rms = grouped.pow(2).mean(-1, keepdim=True).sqrt()
        if torch.allclose(y, (grouped / rms).reshape(x.shape), rtol=1e-3):
            return f"normalizes groups of {size} features apart: a grouped RMSNorm"
        return f"scales groups of {size} features by one number each, not by 1 / RMS"
    whole = x.pow(2).mean().sqrt()
    # Channel-first, the two rows are two positions of one image: (1, C, 2, 1).
    pooled = (
        "one RMS over an image's channels and positions, not one per position"
        if norm.dim == 1
        else "one RMS of the whole tensor, not one per row"
    )
    statistics = {
        pooled: whole.expand(len(x)),
        "the unbiased standard deviation (x.std())": x.std(-1),
        "the standard deviation": x.std(-1, correction=0),
        "the RMS with n - 1 in the mean": (x.pow(2).sum(-1) / (N - 1)).sqrt(),
        "the L2 norm (the sum of the squares, not their mean)": x.pow(2).sum(-1).sqrt(),
        "the mean of |x| (not the root of the mean of the squares)": x.abs().mean(-1),
    }
    for words, statistic in statistics.items():
        if torch.allclose(scale[:, 0], 1 / statistic, rtol=1e-3):
            return f"divides x by {words}, not by the RMS"
    if not y.any():  # a weight of ones given, zeros out
        if isinstance(norm, AddSubject):  # called with a zero residual: is y its norm?
            rows_in = x.to(device=device, dtype=torch.float32)
            y_of, _ = norm.added(torch.zeros_like(rows_in), rows_in, neutral)
            if y_of.any():
                return (
                    "returns zeros for nonzero x with a zero residual, not with x as the"
                    " residual: y is not the norm of h = x + residual (it normalizes the"
                    " residual alone?)"
                )
        small = x / 1000  # squares far from any dtype's largest value
        if norm(small.to(device=device, dtype=torch.float32), neutral).any():
            return (
                "returns zeros for these rows (RMS about 100) but not for the same rows"
                " divided by 1000: its statistic overflows (x**2 computed in float16?)"
            )
        return (
            "returns zeros for nonzero rows with a weight of ones: the weight given is"
            " not the one applied (one kept from an earlier call?)"
        )
    rms = x.pow(2).mean(-1).sqrt()
    times = " and ".join(f"{t:.6g} / RMS" for t in (scale[:, 0] * rms).tolist())
    on = " and ".join(f"{r:.3g}" for r in rms.tolist())
    return f"scales each row by a number other than 1 / RMS: by {times} on rows of RMS {on}"

IGNORED = (
    "with weight 0 and with weight 1 it returns x / RMS: the weight given is not applied"
    " (ignored, or one kept from an earlier call?)"
)

def with_zero_weight(y, x) -> str:
    """What came back with weight 0, where a gain w gives 0 and a gain 1 + w x / RMS."""
    expected = "where a gain w gives 0 and a gain 1 + w gives x / RMS"
    if not y.isfinite().all():
        return f"with weight 0 its output holds NaN or inf, {expected}"
    if torch.equal(y, x.double()):
        return f"with weight 0 it returns its input unchanged, {expected}"
    return "with weight 0 its output is neither 0 (a gain w) nor x / RMS (a gain 1 + w)"

def conventions(norm: Subject, device) -> dict:
    """The gain form and eps (value, and inside or outside the root), measured."""
    x = rows([100.0, 100.0], device)  # RMS 100: any plausible eps is negligible here
    zeros = torch.zeros(N, device=device, dtype=torch.float32)
    y = norm(x, zeros).double()
    if y.abs().max() == 0:
        gain = "w"
    elif torch.allclose(y, reference(x, zeros + 1, 0.0), rtol=1e-3):
        gain = "1 + w"
        # A gain 1 + w doubles the output at weight 1; code that never applies its weight
        # gives x / RMS at any weight, which a weight of 0 alone would read as 1 + w.
        at_one = norm(x, zeros + 1).double()
        if torch.allclose(at_one, y, rtol=1e-3):
            return {"gain": "none", "form": IGNORED}
        # And 2 x / RMS at weight 1; exp(w) gives x / RMS at 0 too (a gain kept as its log).
        ratio = (at_one.norm() / y.norm()).item()
        if not torch.allclose(at_one, 2 * y, rtol=1e-3):
            raise UsageError(
                "with weight 0 it returns x / RMS, as a gain 1 + w does, but with weight 1"
                f" it scales x / RMS by {ratio:.4g}, not 2: its parameter is neither the"
                " gain nor the gain minus 1 (a gain kept as its log, exp(w), or a"
                " parametrization?): check it through a function f(x, weight) that sets"
                " its parameter from the gain"
            )
    else:  # neither: if weight 0 gives a known normalization (a LayerNorm), say so
        other = not_rms_norm(norm, zeros, device) or "scales"
        if not other.startswith(("scales", "does not scale")):
            return {"gain": "1 + w", "form": other}
        return {"gain": "neither w nor 1 + w", "form": with_zero_weight(y, x)}
    neutral = neutral_weight(gain, device)
    other = not_rms_norm(norm, neutral, device)
    if other:
        return {"gain": gain, "form": other}
    declared = norm.declared_eps
    r = eps_rows(declared, norm.eps_outside)
    ratio = scales(norm, neutral, r.tolist())
    inside, outside = 1 / ratio**2 - r**2, 1 / ratio - r
    found = {
        "gain": gain,
        "eps": None,
        "eps placement": "neither inside nor outside alone",
    }
    # The right form gives the same eps at both RMS values, to float32's error (0.3% for
    # eps 1e-8 outside the root). The wrong form's two values differ, by a factor of about 3
    # for an eps well below the rows' mean square, though for an eps of 1e-3 inside the root
    # the outside estimates agree to under 1% too: the form whose two values agree more
    # closely is the one, if they agree to 1%.
    estimates = {"inside": inside, "outside": outside}
    spread = {
        where: ((eps[0] - eps[1]).abs() / eps.max()).item() if eps.min() > 0 else 1.0
        for where, eps in estimates.items()
    }
    where = min(spread, key=spread.get)
    eps = estimates[where].mean().item()
    # A floor, max(mean square, eps), reads as eps inside the root on rows whose mean square
    # is far below it (1e-5 - 1e-8 and 1e-5 - 9e-8 agree to 0.8%); on rows whose mean
    # square is eps and 9 eps it reads as almost none, where eps inside still reads as eps.
    if spread[where] <= 1e-2 and (where != "inside" or inside_at(norm, neutral, eps)):
        found["eps"], found["eps placement"] = eps, where
    elif (inside.abs() <= 1e-3 * r**2).all():
        # No eps at all at these rows: x / RMS(x) exactly, as F.normalize(x) * sqrt(n) gives
        # where its clamp on the norm does not act; the zero rows check tells a clamp (zeros)
        # from no eps (0 / 0).
        found["eps"], found["eps placement"] = 0.0, "none added (a clamp, or no eps)"
    # Measured to about 1e-5 of its value in float32; an eps added twice is 2e-3 off.
    if found["eps"] and declared and abs(found["eps"] - declared) <= 1e-4 * declared:
        found["eps"] = declared  # the measurement agrees: the exact value
    found["rounding"] = rounding(norm, found, device)["convention"]
    return found

def neutral_weight(gain, device, n=N) -> torch.Tensor:
    """The weight that makes the gain 1: ones where it is w, zeros where it is 1 + w."""
    fill = torch.ones if gain == "w" else torch.zeros
    return fill(n, device=device, dtype=torch.float32)

def scales(norm, neutral, rms) -> torch.Tensor:
    """What the norm, its gain 1, multiplies rows of these RMS values by: a number a row
    (float64, on the CPU)."""
    x = rows(list(rms), neutral.device)
    return (norm(x, neutral).double() / x.double()).mean(-1).cpu()

def where_eps_shows(eps) -> list:
    """The RMS of rows of mean square eps and 9 eps, where eps inside the root divides the
    output by sqrt(2) and sqrt(10 / 9)."""
    return [math.sqrt(eps), 3 * math.sqrt(eps)]

def inside_at(norm, neutral, eps) -> bool:
    """Whether rows of mean square eps and 9 eps give back eps, within 1%, as eps inside
    the root does at any mean square."""
    r = torch.tensor(where_eps_shows(eps), dtype=torch.float64)
    ratio = scales(norm, neutral, r.tolist())
    return bool(((1 / ratio**2 - r**2 - eps).abs() <= 1e-2 * eps).all())

# --8<-- [start:rounding]
# The rounding conventions of the Numerics page, by the names --convention takes and the
# page's letters: where each rounds to bfloat16 before its output. Transformer Engine's
# zero-centred gamma, (e), gives the bits of (c); (f) is (b) with eps outside the root.
CONVENTIONS = {
    "llama": "(a) x / RMS rounded to bfloat16, then times w (Hugging Face LLaMA)",
    "float32": "(b) float32 throughout, one rounding (F.rms_norm, Transformer Engine)",
    "gemma": "(c) 1 + w formed in float32, one rounding (Gemma)",
    "gemma-bf16": "(d) 1 + w rounded to bfloat16 first, then one rounding",
}
# Each convention's bfloat16 output from x / RMS in float32 and the bfloat16 weight.
ROUNDED = {
    "llama": lambda normalized, w: w * normalized.bfloat16(),
    "float32": lambda normalized, w: (w.float() * normalized).bfloat16(),
    "gemma": lambda normalized, w: ((1 + w.float()) * normalized).bfloat16(),
    "gemma-bf16": lambda normalized, w: ((1 + w).float() * normalized).bfloat16(),
}

def of_gain(found) -> list:
    """The conventions of the target's gain form."""
    return ["llama", "float32"] if found["gain"] == "w" else ["gemma", "gemma-bf16"]

def rounding(norm, found, device) -> dict:
    """The target's bfloat16 output against each convention of its gain form, as the share
    of outputs that differ and the most ulps they differ by, and its share of correctly
    rounded outputs (the float64 value rounded once); `convention`: the one whose bits it
    gives, or "none"."""
    scales = [0.37, 0.81, 1.9, 3.3, 7.3, 13.0, 23.0, 57.0]  # not 1: x / rms must round
    x, w = rows(scales, device, torch.bfloat16), weight(found, device, 9).bfloat16()
    y = norm(x, w, dtype=torch.bfloat16)
    if y.dtype != torch.bfloat16:
        return {"convention": f"not compared: {y.dtype} out for bfloat16 in"}
    if under_triton_interpreter(norm):  # bfloat16 emulated, not faithfully
        return {"convention": "not measured under Triton's interpreter"}
    eps, inside = found["eps"] or 0.0, found["eps placement"] != "outside"
    unit = torch.ones(N, device=device, dtype=torch.float32)
    normalized = reference(x, unit, eps, inside).float()  # x / RMS in float32
    names, measured = of_gain(found), {}
    for name in names:
        distance = ulps(y, ROUNDED[name](normalized, w))
        measured[name] = ((distance > 0).double().mean().item(), distance.max().item())
    exact = bfloat16_rounded(reference(x, gain(found, w), eps, inside))  # rounded once
    same = [name for name in names if measured[name][0] == 0]
    return {
        "convention": same[0] if same else "none",
        "distances": measured,
        "correctly rounded": (ulps(y, exact) == 0).double().mean().item(),
    }

# --8<-- [end:rounding]

def weight(found, device, seed, n=N):
    """A random weight in the implementation's convention, its gain near 1."""
    w = 0.1 * torch.randn(
        n, generator=torch.Generator().manual_seed(seed), dtype=torch.float32
    )
    return (w + (1.0 if found["gain"] == "w" else 0.0)).to(device)

def gain(found, w):
    return w if found["gain"] == "w" else 1 + w.double()
