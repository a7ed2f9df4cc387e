"""The --add mode: a residual add fused with the norm, y, h = f(x, residual, weight). With a
zero residual it is an RMSNorm, which every check of checks.py takes; these checks add the
sum it returns, which rounding of the sum its statistic reads, and gradients through both.
"""

import functools
from math import inf

import torch

from snippets.check.measure import (
    ROUNDED,
    gain,
    largest,
    of_gain,
    reference,
    rows,
    weight,
)
from snippets.check.report import (
    NO_AUTOGRAD,
    NO_WEIGHT_GRADIENT,
    REFUSALS,
    Verdict,
    said,
    short_name,
)
from snippets.check.target import (
    LARGE_BATCH,
    MANY_ROWS,
    N,
    WIDE,
    under_triton_interpreter,
)

SEE = "numerics/#rounding-conventions-in-production-code"

def relative_error(y, ref):
    """The largest row error of y against a float64 reference, relative to its row."""
    return ((y.double() - ref).abs().amax(-1) / ref.abs().amax(-1)).max().item()

def check_add(norm, found, device):
    """h is x + residual in the inputs' dtype, bit for bit, and y the norm of h against
    float64 (within 1e-5 in float32, 3 ulps where an input is bfloat16, whichever rounding
    of the sum its statistic reads): on rows at once in float32, bfloat16 and float16, the
    weight in the same dtype; then, with a float32 weight, on the paths a model reaches:
    one row (a decode step), 3-D bfloat16 (batch, tokens, features), a batch of many rows,
    a large batch of wide rows, a residual laid out column by column, a strided x,
    bfloat16 inputs beside the float32 weight and a float32 residual stream beside a
    bfloat16 sublayer output (h then their float32 sum), a batch of decode steps (batch,
    1, features) and as a model serves (eval mode under inference_mode), in float32, and
    in bfloat16 and float16 with the weight in them. A refusal is reported; a target that
    refuses every case is not judged."""
    wrong, refused, held, worst = [], [], [], 0.0
    emulated = under_triton_interpreter(norm)  # its bfloat16 rounding is not faithful
    inside = found["eps placement"] == "inside"

    def judge(name, added, x, residual, w):
        nonlocal worst
        try:
            y, h = added(x, residual, w)
        except REFUSALS as error:
            refused.append(f"refuses {name} ({said(error)})")
            return
        expected = x + residual  # in the dtype the two promote to
        # Their exact sum rounded once to x's dtype: a stream kept in x's dtype (vLLM's and
        # SGLang's forward_native), right where it is; a float32 stream loses its bits.
        once = h.dtype == x.dtype != expected.dtype
        got = short_name(h.dtype)
        if once and torch.equal(h, expected.to(x.dtype)):
            refused.append(
                f"keeps h in x's {got} {name} (their sum rounded once: a stream kept in"
                f" {got}, not judged; --strict fails it)"
            )
        elif h.dtype != expected.dtype:
            wrong.append(f"h is not x + residual {name}: it comes back {got}")
        elif not torch.equal(h, expected):
            # Say what came instead, where it is one of the inputs.
            given = "the residual given" if torch.equal(h, residual) else None
            given = "x itself" if torch.equal(h, x) else given
            what = f": it is {given}" if given else ""
            wrong.append(f"h is not x + residual {name}{what}")
        eps = found["eps"] or 0.0
        ref = reference(expected.double(), gain(found, w), eps, inside)
        error = relative_error(y, ref)
        halves = [t for t in (torch.bfloat16, torch.float16) if t in (x.dtype, y.dtype)]
        bound = 3 * torch.finfo(halves[0]).eps if halves else 1e-5
        if not error <= bound:
            of_x = reference(x.double(), gain(found, w), eps, inside)
            which = ": it is the norm of x" if relative_error(y, of_x) <= bound else ""
            wrong.append(f"y is not the norm of h {name} (error {error:.1e}){which}")
        worst = max(worst, error / bound)
        held.extend([] if once else [name])

    # In each dtype, the weight in it too, as in a model converted to it.
    dtypes = [torch.float32] + ([] if emulated else [torch.bfloat16, torch.float16])
    for dtype in dtypes:
        x = rows([0.1, 1.0, 3.0], device, dtype, seed=30)
        residual = rows([8.0, 1.0, 0.1], device, dtype, seed=31)
        w = weight(found, device, seed=32).to(dtype)
        as_model = None if dtype == torch.float32 else dtype
        short = short_name(dtype)
        added = lambda x, r, w, as_model=as_model: norm.added(x, r, w, dtype=as_model)
        judge(f"in {short}", added, x, residual, w)
    w = weight(found, device, seed=42)  # float32
    x = rows([0.5, 2.0, 5.0], device, seed=41)
    residual = rows([1.0, 4.0, 0.3], device, seed=43)

    def serving(x, residual, w, dtype=None):  # as a model serves: eval, inference_mode
        with norm.serving():
            return norm.added(x, residual, w, dtype=dtype)

    served_in = {}  # the cases served in half precision: the weight's dtype there
    cases = {  # (x, residual, the call at its width)
        "on one row": (x[2:3], residual[2:3], norm.added),
        "with a strided residual": (x, residual.t().contiguous().t(), norm.added),
        "with a strided x": (x.t().contiguous().t(), residual, norm.added),
        "in eval mode under inference_mode": (x, residual, serving),
        # A batch of tokens: a path taken from a few hundred rows on, every row compared.
        f"in a batch of {MANY_ROWS} rows": (
            rows([1.0] * MANY_ROWS, device, seed=54),
            rows([1.0] * MANY_ROWS, device, seed=55),
            norm.added,
        ),
    }
    if not norm.init:  # --init sets the arguments for 64 features
        # In bfloat16, as a model's prefill (float32 under the interpreter).
        big, dtype = [1.0] * LARGE_BATCH, dtypes[-1 if emulated else 1]
        cases[f"in a batch of {LARGE_BATCH} rows of {WIDE} features"] = (
            rows(big, device, dtype, seed=48, n=WIDE),
            rows(big, device, dtype, seed=49, n=WIDE),
            # Built when called: a width its constructor refuses is a refusal, as a call's.
            lambda x, r, w: norm.at_width(WIDE).added(x, r, w),
        )
    if not emulated:  # as in a model whose weights stay float32
        x, residual = (rows([0.5, 2.0, 5.0], device, torch.bfloat16, seed=44 + i)
                       for i in (0, 1))  # fmt: skip
        cases["in 3-D bfloat16"] = (x[None], residual[None], norm.added)
        steps = (x[:, None], residual[:, None])  # (batch, 1, features)
        cases["as a batch of decode steps"] = (*steps, norm.added)
        cases["with a float32 weight and bfloat16 inputs"] = (x, residual, norm.added)
        # A residual stream kept in float32 beside a bfloat16 sublayer output: rounded to
        # bfloat16 on the way, the stream would lose its bits at every layer.
        cases["with a float32 residual stream"] = (
            rows([0.5, 2.0, 5.0], device, torch.bfloat16, seed=46),
            rows([1.0, 4.0, 0.3], device, seed=47),
            norm.added,
        )
        # Served in half precision, the weight in it too, as vLLM and SGLang run a model
        # (above, served in float32).
        for half in (torch.bfloat16, torch.float16):
            x, residual = (rows([0.5, 2.0, 5.0], device, half, seed=60 + i)
                           for i in (0, 1))  # fmt: skip
            name = f"in {short_name(half)} as a model serves"
            in_half = functools.partial(serving, dtype=half)  # the model converted
            cases[name], served_in[name] = (x, residual, in_half), half
    for name, (x, residual, added) in cases.items():
        width_w = w if x.shape[-1] == N else weight(found, device, seed=42, n=WIDE)
        judge(name, added, x, residual, width_w.to(served_in.get(name, torch.float32)))
    detail = "; ".join(wrong) or (
        "h = x + residual bit for bit and y the norm of h (at most"
        f" {worst:.2g} of its bound) " + ", ".join(held)
    )
    refusals = list(refused)  # the target's; the interpreter's cases are not run
    if emulated:  # said, not left out silently
        refused.append("bfloat16 not run: Triton's interpreter emulates its rounding")
    see = "kernel/#fused-with-the-residual-add"
    if not held and not wrong:  # every case refused: nothing to judge
        return Verdict("add", None, "; ".join(refused), see, refusals)
    detail = "; ".join([detail, *refused])
    return Verdict("add", not wrong, detail, see, refusals)

def check_add_sum(norm, found, device):
    """Reported: in bfloat16, whether the statistic reads the sum rounded to bfloat16 (g2,
    the residual stream as stored) or kept in float32 (g1), with the output rounded as
    one of the conventions of its gain form."""
    if under_triton_interpreter(norm):  # bfloat16 emulated, not faithfully
        return Verdict("add sum", None, "not measured under Triton's interpreter", SEE)
    scales = [0.37, 0.81, 1.9, 3.3, 7.3, 13.0, 23.0, 57.0]
    x = rows(scales, device, torch.bfloat16, seed=33)
    residual = rows([8.0] * len(scales), device, torch.bfloat16, seed=34)
    w = weight(found, device, seed=35).bfloat16()
    try:
        y, _ = norm.added(x, residual, w, dtype=torch.bfloat16)
    except REFUSALS as error:  # reported, as the check is
        refused = f"refuses bfloat16 ({said(error)})"
        return Verdict("add sum", None, refused, SEE, [refused])
    eps, inside = found["eps"] or 0.0, found["eps placement"] != "outside"
    sums = {
        "(g2) the sum rounded to bfloat16": x + residual,
        "(g1) the sum kept in float32": x.float() + residual.float(),
    }
    unit = torch.ones(N, device=device, dtype=torch.float32)
    matches = [
        f"{words}, then {name}"
        for words, total in sums.items()
        for name in of_gain(found)
        if torch.equal(y, ROUNDED[name](reference(total, unit, eps, inside).float(), w))
    ]
    detail = (
        "its statistic reads " + matches[0]
        if matches
        else "matches neither (g1) nor (g2) in any rounding of its gain form"
    )
    return Verdict("add sum", None, detail, SEE)

def add_gradient_errors(norm, found, device, dy, dh, stream=None, seen=None):
    """Errors of the gradients of x, residual and the weight against float64 autograd,
    with dy and dh arriving at y and h, in their dtype (inf for one that does not reach
    its input; an output cut from the graph, h.detach(), drops its part; dh None: h
    unused); None when no gradient flows. `stream`: the residual's dtype where it is
    not x's (a float32 residual stream beside bfloat16 x, the weight in float32, as
    autocast runs a model), dy and dh then in their outputs' dtypes; `seen` gets h's
    dtype, and whether the weight got no gradient at all."""
    dtype, m = dy.dtype, len(dy)
    x_scales, residual_scales = [0.1, 1.0, 10.0], [1.0, 3.0, 8.0]
    if m != 3:  # a batch of tokens, as many rows as dy has
        x_scales, residual_scales = [1.0] * m, [3.0] * m
    x = rows(x_scales, device, dtype, seed=36).requires_grad_()
    residual = rows(residual_scales, device, stream or dtype, seed=37).requires_grad_()
    w = weight(found, device, seed=38).to(stream or dtype).requires_grad_()
    as_model = None if dtype == torch.float32 or stream else dtype
    y, h = norm.added(x, residual, w, dtype=as_model)
    if stream is not None:
        dy, dh = dy.to(y.dtype), dh.to(h.dtype)
    if seen is not None:
        seen["h"] = h.dtype
    given = [(y, dy), (h, dh)] if dh is not None else [(y, dy)]
    reached = [(out, grad) for out, grad in given if out.requires_grad]
    if not reached:
        return None
    # Copies (strided as dy and dh are): a backward may write into them to save memory.
    torch.autograd.backward(*zip(*((out, grad.clone()) for out, grad in reached)))
    if seen is not None:
        seen["weight cut"] = w.grad is None
    ours = [x.detach().double(), residual.detach().double(), w.detach().double()]
    x64, r64, w64 = (t.requires_grad_() for t in ours)
    h64 = x64 + r64
    inside = found["eps placement"] == "inside"
    y64 = reference(h64, gain(found, w64), found["eps"] or 0.0, inside)
    refs = [(y64, dy), (h64, dh)] if dh is not None else [(y64, dy)]
    torch.autograd.backward(*zip(*((out, grad.double()) for out, grad in refs)))
    return [
        ((a.double() - b).abs().max() / b.abs().max()).item() if a is not None else inf
        for a, b in ((x.grad, x64.grad), (residual.grad, r64.grad), (w.grad, w64.grad))
    ]

def add_grads_beside_a_float32_stream(norm, found, device, dy, dh, detail, refusals):
    """A float32 residual stream beside bfloat16 x, as autocast keeps it: the gradients
    within bfloat16's bound; then with dh alone (dy zero), where the stream's gradient is
    dh itself and stays float32 (rounded to x's dtype it loses its bits at every layer, as
    the add check fails in the forward), within 1e-4. With dy too, the norm's part may
    come back through a rounding the forward makes (LLaMA's x / RMS in x's dtype). A norm
    that keeps h in x's dtype, as vLLM's forward_native does (the add check reports it),
    passes dh through bfloat16: bfloat16's bound then. The detail, and whether the
    gradients are right (True where the mix is refused, a refusal added)."""
    mixed, seen = "a float32 residual stream beside bfloat16 x", {}
    try:
        errors = add_gradient_errors(
            norm, found, device, dy.bfloat16(), dh, stream=torch.float32, seen=seen
        )
    except REFUSALS as error:
        refusals.append(f"refuses {mixed} ({said(error)})")
        return f"{detail}; {refusals[-1]}", True
    # The stream's error (x's is dh rounded to bfloat16; the weight gets none).
    no_dy = torch.zeros_like(dy).bfloat16()
    alone = add_gradient_errors(norm, found, device, no_dy, dh, stream=torch.float32)[1]
    stream_bound = 1e-4 if seen["h"] == torch.float32 else 0.1
    right = largest(errors) < 0.1 and alone < stream_bound  # a NaN fails
    said_errors = ", ".join(f"{e:.1e}" for e in errors)
    return (
        f"{detail}; {mixed} (bound 0.1): {said_errors}, the stream's from dh alone"
        f" (bound {stream_bound:g}): {alone:.1e}"
    ), right

def check_add_grads(norm, found, device):
    """Gradients of x, residual and the weight, with gradients arriving at both outputs
    (y feeds the next sublayer, h the residual stream), against float64 autograd; then at
    y alone (h unused, as after the last layer); then with both arriving as views laid
    out column by column, and on a batch of 4097 rows (a clear refusal of either is
    reported); then in bfloat16, within a tenth of each gradient's largest entry (a
    dropped term is off by more; rounding, by some ulps); and with a float32 residual
    stream beside bfloat16 x, its gradient from dh alone within 1e-4 (a clear refusal of
    the mixed dtypes is reported)."""
    see = "kernel/#fused-with-the-residual-add"
    dy, dh = rows([1.0] * 3, device, seed=39), rows([1.0] * 3, device, seed=40)
    seen = {}
    errors = add_gradient_errors(norm, found, device, dy, dh, seen=seen)
    if errors is None:
        return Verdict("add grads", None, NO_AUTOGRAD, see)
    ok = largest(errors) < 1e-4
    detail = (
        "gradients of x, the residual and the weight against float64 autograd, each"
        " relative to its largest entry (bound 1e-4): "
        + ", ".join(f"{e:.1e}" for e in errors)
    )
    # Its inf no formula's error: said, and linked, as dw says it.
    if seen["weight cut"]:
        detail = f"{NO_WEIGHT_GRADIENT} {detail[0].upper()}{detail[1:]}"
        see = "gradients/#a-custom-autograd-function"
    # A gradient at y alone, h unused (the last layer's): a backward that takes the
    # missing dh to mean no gradient for the stream drops the residual's.
    errors = add_gradient_errors(norm, found, device, dy, None)
    if errors is not None:
        ok &= largest(errors) < 1e-4
        detail += "; dy alone (h unused): " + ", ".join(f"{e:.1e}" for e in errors)
    strided = [g.t().contiguous().t() for g in (dy, dh)]
    refusals = []
    try:
        errors = add_gradient_errors(norm, found, device, *strided)
    except REFUSALS as error:
        refusals.append(f"refuses strided dy and dh ({said(error)})")
        detail += f"; {refusals[-1]}"
    else:
        ok &= largest(errors) < 1e-4
        detail += "; strided dy and dh: " + ", ".join(f"{e:.1e}" for e in errors)
    # A batch of tokens: a path taken from a few hundred rows on may drop dh there alone.
    many = [rows([1.0] * MANY_ROWS, device, seed=seed) for seed in (56, 57)]
    try:
        errors = add_gradient_errors(norm, found, device, *many)
    except REFUSALS as error:  # a limit on rows
        refusals.append(f"refuses {MANY_ROWS} rows ({said(error)})")
        detail += f"; {refusals[-1]}"
    else:
        ok &= largest(errors) < 1e-4
        detail += f"; {MANY_ROWS} rows: " + ", ".join(f"{e:.1e}" for e in errors)
    if not under_triton_interpreter(norm):  # its bfloat16 rounding is not faithful
        errors = add_gradient_errors(norm, found, device, dy.bfloat16(), dh.bfloat16())
        ok &= largest(errors) < 0.1
        detail += "; in bfloat16 (bound 0.1): " + ", ".join(f"{e:.1e}" for e in errors)
        detail, right = add_grads_beside_a_float32_stream(
            norm, found, device, dy, dh, detail, refusals
        )
        ok &= right
    return Verdict("add grads", ok, detail, see, refusals)

ADD_CHECKS = [check_add, check_add_sum, check_add_grads]
