"""The target: loaded from module:name or file.py:name, and called as norm(x, weight)
whatever its form (a module class, a function, with or without its own weight)."""

import contextlib
import copy
import functools
import importlib
import importlib.util
import inspect
import math
import os
import re
import sys
from pathlib import Path

import torch
from torch.func import functional_call

from snippets.check.report import WrongOutput

N = 64  # features per row: small enough for gradcheck, large enough for a mean
# A model's hidden size besides the checker's 64 features: a kernel may take another path
# for wide rows (one without the upcast).
WIDE = 4096
# Rows of WIDE features in the large batch: over 2**20 elements, as code that picks its
# path by the input's size may switch there.
LARGE_BATCH = 257
# Rows of N features in a batch of tokens: past a kernel's blocks of 256, 1024 or 4096
# rows, where code may take a path of its own from a few hundred rows on.
MANY_ROWS = 4097
# The names an eps goes by: PyTorch's `eps`, `epsilon` in code ported from Flax or Keras,
# and a configuration's `rms_norm_eps` (transformers), `norm_eps` (Meta's params.json),
# `layer_norm_epsilon` (T5's, Falcon's) or `layer_norm_eps` in code that takes it as it
# is named there; transformers' modules keep theirs as the attribute `variance_epsilon`.
EPS_ARGUMENTS = (
    "eps",
    "epsilon",
    "rms_norm_eps",
    "norm_eps",
    "layer_norm_epsilon",
    "layer_norm_eps",
)
EPS_ATTRIBUTES = (*EPS_ARGUMENTS, "variance_epsilon")
# A function's gain by the names it goes by: PyTorch's, Flax's and JAX ports', and papers'.
GAIN_ARGUMENTS = ("weight", "scale", "gamma")
# A function that takes its gain before x, f(w, x, eps), by the names each goes by there:
# called with x first, it would normalize the gain and scale x by it.
GAIN_FIRST = (*GAIN_ARGUMENTS, "w", "gain")  # not g, a gated norm's gate as often
INPUT_NAMES = ("x", "input", "inputs", "hidden_states", "hidden")
# A bias by the names it goes by: PyTorch's, Flax's (beta) and others' (b alone is taken for
# a module's gain where it has no other parameter).
BIAS_NAMES = ("bias", "beta", "b", "shift", "offset")

def unwrapped(obj):
    """The function a functools.partial wraps, however deeply: partial(f, offset=1.0) is f."""
    while isinstance(obj, functools.partial):
        obj = obj.func
    return obj

def name_of(obj) -> str:
    """A target's name for messages: a function's or a class's (a partial's function's),
    else its type's (a callable object)."""
    obj = unwrapped(obj)
    return getattr(obj, "__name__", None) or type(obj).__name__

def hides_its_names(takes) -> bool:
    """Whether a signature takes (*args, **kwargs), whose names the checker cannot read
    (an autograd Function's apply)."""
    hidden = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return any(parameter.kind in hidden for parameter in takes.values())

def images(rows: int) -> tuple[int, int]:
    """Rows as (images, positions each) for a channel-first target: as many images as the
    rows' smallest factor, so that a batch has both several images and several positions
    where it can (12 rows: 2 images of 6; 7 rows: 1 image of 7)."""
    batch = next((b for b in range(2, rows) if rows % b == 0), 1)
    return batch, rows // batch

class UsageError(Exception):
    """The target cannot be imported, built or called (exit status 2)."""

def _parameters(obj):
    """The parameters obj takes, read from its signature; a built-in whose signature
    Python cannot read (torch.rms_norm) is a usage error."""
    try:
        return inspect.signature(obj).parameters
    except (TypeError, ValueError) as error:
        raise UsageError(
            f"cannot read the parameters of {getattr(obj, '__name__', obj)} ({error}):"
            " wrap it in a Python function, such as def norm(x, weight, eps=1e-6): ..."
        ) from error

class Subject:
    """The implementation under test, called as norm(x, weight) whatever its form."""

    eps_outside = False  # whether eps added to the RMS is the form intended (check())
    weightless = False  # a function f(x) with no gain of its own
    buffer_gain = None  # a buffer of shape (n,) in place of a gain parameter
    dim = -1  # the dimension it normalizes: -1, or 1 when channel-first (check())
    convention = None  # the rounding convention it was told to follow (check())
    called_as = "f(x, weight, eps=...)"  # a wrapper's signature, for a message

    def __init__(self, obj, eps=None, device="cpu", n=N, init=None, factory=False):
        self.target, self.given_eps, self.init, self.n = obj, eps, dict(init or {}), n
        self.device, self.declared_eps, self.factory = device, eps, factory
        self.last_call = {}  # the last input given, for a message should a call fail
        if isinstance(obj, (torch.jit.ScriptModule, torch.jit.ScriptFunction)):
            # torch.func cannot call a scripted or traced module with the checker's weight,
            # nor can Python read a scripted function's parameters: check the Python code.
            module = isinstance(obj, torch.jit.ScriptModule)
            compiled = obj.original_name if module else obj.name
            what = "class" if module else "function"
            raise UsageError(
                f"a TorchScript {'module' if module else 'function'} of {compiled}"
                f" (torch.jit.script or torch.jit.trace): check the Python {what}"
                f" {compiled} itself"
            )
        if isinstance(getattr(obj, "__self__", None), torch.nn.Module):
            # An instance's forward: its weight stays at the instance's width and dtype.
            made = type(obj.__self__).__name__
            raise UsageError(
                f"{name_of(obj)} of an instance of {made}: give the class, which is built"
                f" as {made}({n}), or a function that builds one, with --factory"
            )
        if isinstance(obj, torch.nn.Module):
            # Callable too, but an instance has its size and weight already: it is built
            # here, at each width the checks need.
            made = type(obj).__name__
            raise UsageError(
                f"an instance of {made}: give the class, which is built as {made}({n}),"
                " or a function that builds one, with --factory"
            )
        # A factory, f(n) returning a module (one built from a config object), is
        # built as a module class is.
        if factory or (inspect.isclass(obj) and issubclass(obj, torch.nn.Module)):
            takes = _parameters(obj)
            self.eps_argument = _eps_argument(obj, eps, takes)
            given = {self.eps_argument: eps} if eps is not None else {}
            kwargs = {**self.init, **given}
            # Built as Cls(n), unless its first argument is eps: a norm with no weight
            # may take no size (transformers' Llama4TextL2Norm(eps)).
            sized = next(iter(takes), None) not in EPS_ARGUMENTS
            try:
                self.module = obj(n, **kwargs) if sized else obj(**kwargs)
            except SystemExit as error:  # not a refusal of a width: no check can go on
                raise UsageError(
                    f"cannot build {name_of(obj)}({n}): it calls sys.exit({error.code!r})"
                    " when built: raise an error instead"
                ) from None
            except Exception as error:
                hint = _init_hint(error, takes, self.eps_argument)
                if factory and {"x", "weight", "hidden_states"} & set(takes):
                    hint = ": it takes the norm's inputs: if it is the norm, drop --factory"
                raise UsageError(
                    f"cannot build {name_of(obj)}({n}): {error}{hint}"
                ) from error
            if not isinstance(self.module, torch.nn.Module):
                made = type(self.module).__name__
                raise UsageError(f"--factory: {name_of(obj)}({n}) gave a {made}")
            self.module = self.module.to(device)
            self.weight_name, self.held = _gain(self.module, n, name_of(obj))
            self.weightless = self.weight_name is None
            if self.weightless:  # a gain kept as a buffer, which no optimizer trains?
                shaped = (k for k, b in self.module.named_buffers() if b.shape == (n,))
                self.buffer_gain = next(shaped, None)
            if self.declared_eps is None:
                self.declared_eps = _declared_eps(self.module)
            # Else the constructor's default, as a function's: kept under another name.
            default = getattr(takes.get(self.eps_argument), "default", None)
            if self.declared_eps is None and isinstance(default, float):
                self.declared_eps = default
        elif inspect.isclass(obj):  # callable too, but called with x it would build one
            raise UsageError(
                f"{name_of(obj)} is a class but not a torch.nn.Module subclass: give an"
                " nn.Module class, or a function"
            )
        elif callable(obj):
            if self.init:
                raise UsageError(f"--init: {name_of(obj)} is a function, not a class")
            self.module, self.function = None, obj
            self.takes = _parameters(obj)
            self.eps_argument = _eps_argument(obj, eps, self.takes)
            hint = _eps_hint(self.takes, self.eps_argument, eps)
            if hint:
                raise UsageError(f"{name_of(obj)} requires {self.eps_argument}{hint}")
            # A norm without a gain, f(x): checked as f(x) * weight, the weight applied to
            # its output as a model's next layer would.
            required = [
                name
                for name, p in self.takes.items()
                if p.default is inspect.Parameter.empty and name != self.eps_argument
            ]
            self.gain_argument = _gain_argument(self.takes)
            first, second = [*self.takes, None, None][:2]
            if not self.gain_argument and first in GAIN_FIRST and second in INPUT_NAMES:
                raise UsageError(
                    f"{name_of(obj)} takes its gain first, f({first}, {second}, ...), where"
                    " the checker passes x first: check it through a function"
                    f" {self.called_as} that passes them on"
                )
            self.weightless = len(required) == 1 and self.gain_argument is None
            default = getattr(self.takes.get(self.eps_argument), "default", None)
            if self.declared_eps is None and isinstance(default, float):
                self.declared_eps = default
        else:
            raise UsageError(f"{obj!r} is neither an nn.Module class nor a function")

    @contextlib.contextmanager
    def serving(self):
        """Calls made as a model serves: the module in eval mode, under inference_mode (a
        norm may take another path there, a fused kernel without autograd)."""
        training = self.module.training if self.module is not None else None
        if self.module is not None:
            self.module.eval()
        try:
            with torch.inference_mode():
                yield
        finally:
            if self.module is not None:
                self.module.train(training)

    def at_width(self, n):
        """The same target for rows of n features (a module class built again, Cls(n))."""
        return self._again(n, self.given_eps)

    def with_eps(self, eps):
        """The same target given another eps (built again, or called with it)."""
        return self._again(self.n, eps)

    def _again(self, n, eps):
        try:
            made = (self.target, eps, self.device, n, self.init, self.factory)
            other = type(self)(*made)
        except UsageError as error:
            if n == self.n or error.__cause__ is None:
                raise
            # Built at the checker's width, not at this one: the width is refused, as a
            # call's ValueError is (reported, not a usage error).
            cause = error.__cause__
            raise ValueError(f"cannot be built for {n} features: {cause}") from error
        other.eps_outside, other.dim = self.eps_outside, self.dim
        # One record: a crash at any width names the input it was given.
        other.last_call = self.last_call
        return other

    # --8<-- [start:call]
    def __call__(self, x, weight, dtype=None):
        """The target's output for x; x and the weight must come back as they went in:
        the checks reuse them, and measure against them."""
        before, weight_before = x.detach().clone(), weight.detach().clone()
        self.last_call["dtype"] = x.dtype
        shape = f"x of shape {tuple(x.shape)} in {x.dtype}"
        self.last_call["input"] = shape.replace("torch.", "")
        y, not_a_tensor = None, None
        try:
            y = self._at_dim(x, weight, dtype)
        except WrongOutput as error:  # no tensor: was the output written into x?
            not_a_tensor = error
        if not _same(x, before):
            # x.float() and x.to(torch.float32) are x itself for float32 input: an in-place
            # op after them writes into the caller's tensor there, and only there.
            why = (
                " (if it upcasts with x.float() or x.to(torch.float32) and then writes in"
                " place: for float32 input those return x itself)"
            )
            raise UsageError(
                f"it writes into its input x{why if x.dtype == torch.float32 else ''},"
                " which in a model is the residual stream:"
                " write the output to a new tensor (to check it anyway, check a"
                " function that calls it on x.clone(): the checks reuse x)"
            )
        if not_a_tensor is not None:
            raise not_a_tensor
        if not torch.equal(weight_before, weight):
            raise UsageError(
                "it writes into its weight on every call (a gain formed in place, as"
                " weight.data.add_(1) does?): form it in a new tensor, 1 + weight"
            )
        return y

    def _at_dim(self, x, weight, dtype=None):
        """The checks' inputs hold the features last; a channel-first target gets them
        at dim 1 of a 4-D tensor, (batch, channels, height, width), and its output back.
        Rows are positions of images, as in a model: (rows, C) comes as images(rows)
        images of their positions, (batch, C, height, 1), and (batch, tokens, C) as
        (batch, C, tokens, 1): a kernel wrong only past one position, or one image,
        shows."""
        if self.dim == -1:
            return _tensor_like(self._call(x, weight, dtype), x)
        one_row = x.dim() == 1
        rows = x[None] if one_row else x
        # Views: a strided input keeps its strides.
        spread = rows.unflatten(0, images(len(rows))) if rows.dim() == 2 else rows
        moved = spread.movedim(-1, 1)
        added = (None,) * (4 - moved.dim())
        four_d = moved[(..., *added)]
        # A contiguous input in (N, C, H, W) memory, as a channel-first model holds it.
        if x.is_contiguous():
            four_d = four_d.contiguous()
        y = _tensor_like(self._call(four_d, weight, dtype), four_d)
        y = y[(..., *(0 for _ in added))].movedim(1, -1)
        y = y.flatten(0, 1) if rows.dim() == 2 else y
        return y[0] if one_row else y

    def _held_at_zero(self, weight):
        """A module's biases, each at zero in its own shape and the weight's dtype."""
        return {
            name: torch.zeros_like(weight).reshape(shape)
            for name, shape in self.held.items()
        }

    def _call(self, x, weight, dtype=None):
        if self.module is not None:
            module = (
                self.module if dtype is None else copy.deepcopy(self.module).to(dtype)
            )
            held = self._held_at_zero(weight)
            if self.weightless:  # a bias held at zero too
                return functional_call(module, held, (x,)) * weight.to(x.dtype)
            return functional_call(module, {**held, self.weight_name: weight}, (x,))
        kwargs, eps = self._eps_arguments(place=2 - self.weightless)
        if self.weightless:
            return self.function(x, *eps, **kwargs) * weight.to(x.dtype)
        if "normalized_shape" in self.takes:  # torch.nn.functional.rms_norm's form
            kwargs["normalized_shape"] = tuple(weight.shape)
        if self.gain_argument:  # by name: scale=None names the gain too
            return self.function(x, **{self.gain_argument: weight}, **kwargs)
        # By name: f(x, w, bias=None, eps=1e-6) must not get eps as its bias.
        return self.function(x, weight, *eps, **kwargs)

    # --8<-- [end:call]

    def shown_call(self, inputs):
        """The call the checker makes, for a message: a module class's, built and then
        called, Cls(64, eps=1e-05)(x); a function's, eps as it is passed, norm(x, weight,
        eps=1e-06)."""
        if self.module is not None:
            built = [str(self.n), *(f"{k}={v!r}" for k, v in self.init.items())]
            if self.given_eps is not None:
                built.append(f"{self.eps_argument}={self.given_eps:g}")
            return f"{name_of(self.target)}({', '.join(built)})({', '.join(inputs)})"
        kwargs, eps = self._eps_arguments(place=2 - self.weightless)
        if self.gain_argument and not self.weightless:  # by name, as _call passes it
            return _shown([*inputs, *eps], {self.gain_argument: "weight", **kwargs})
        return _shown([*inputs, *([] if self.weightless else ["weight"]), *eps], kwargs)

    def _eps_arguments(self, place):
        """The declared eps as the call passes it: by name ({name: eps}, ()), or by
        position ({}, (eps,)) to f(x, weight, eps, /), eps at `place` in the signature,
        where nothing the checker does not pass comes before it."""
        if self.declared_eps is None or not self.eps_argument:
            return {}, ()
        if self.takes[self.eps_argument].kind is not inspect.Parameter.POSITIONAL_ONLY:
            return {self.eps_argument: self.declared_eps}, ()
        if list(self.takes).index(self.eps_argument) != place:
            raise UsageError(
                f"{name_of(self.function)} takes {self.eps_argument} by position only,"
                " after arguments the checker does not pass: check it through a function"
                " that passes it on, f(x, weight, eps=...)"
            )
        return {}, (self.declared_eps,)

class AddSubject(Subject):
    """A residual add fused with the norm (--add): y, h = f(x, residual, weight[, eps]) with
    h = x + residual, or a module class whose forward(x, residual) returns them; a function
    that returns None writes in place, y into x and h into residual (vLLM's form). Called
    as norm(x, weight) it is f with a zero residual, returning y: an RMSNorm, which every
    check of a plain norm takes."""

    # Set once a call returned None and wrote into neither x nor residual: a return
    # forgotten, more likely than an in-place form (the form check's message says so).
    wrote_nothing = False
    called_as = "f(x, residual, weight, eps=...)"

    def _call(self, x, weight, dtype=None):
        return self.added(x, torch.zeros_like(x), weight, dtype)[0]

    def added(self, x, residual, weight, dtype=None):
        """(y, h) for x and residual; the caller's tensors stay as they were."""
        self.last_call["dtype"] = x.dtype
        dtypes = f"{x.dtype}, {residual.dtype}"
        shape = f"x and residual of shape {tuple(x.shape)}, in {dtypes}"
        self.last_call["input"] = shape.replace("torch.", "")
        x, residual = _copy_with_strides(x), _copy_with_strides(residual)
        clones = (x.grad_fn, residual.grad_fn)
        # Their values and versions: a write that leaves the values as they were (h into
        # x, the residual zero) still counts one.
        given = [(t.detach().clone(), _version(t)) for t in (x, residual)]
        if self.module is not None:
            module = self.module
            if dtype is not None:
                module = copy.deepcopy(module).to(dtype)
            held = self._held_at_zero(weight)
            if self.weightless:  # checked with the weight applied to its y
                out = functional_call(module, held, (x, residual))
                # Returned, or written in place: there, a y without a graph (written under
                # no_grad, as vLLM's kernels are) stays so, the weight's included.
                y, h = self._pair(out, x, residual, clones, given)
                in_place_only = out is None and not y.requires_grad
                w = weight.detach() if in_place_only else weight
                return y * w.to(y.dtype), h
            parameters = {**held, self.weight_name: weight}
            out = functional_call(module, parameters, (x, residual))
        else:
            args, kwargs = self._arguments(x, residual, weight)
            out = self.function(*args, **kwargs)
        return self._pair(out, x, residual, clones, given)

    def _arguments(self, x, residual, weight):
        """What a function is called with: f(x, residual, weight, eps) by position, or by
        name where it names residual and weight, as flash-attn's f(x, weight, residual)
        does (x by name too where one of them comes first: f(residual, x, weight))."""
        kwargs, eps = self._eps_arguments(place=3)
        only = inspect.Parameter.POSITIONAL_ONLY
        named = [self.takes.get(name) for name in ("residual", "weight")]
        if not all(p and p.kind is not only for p in named):
            return (x, residual, weight, *eps), kwargs
        kwargs = {"residual": residual, "weight": weight, **kwargs}
        if next(iter(self.takes)) in ("residual", "weight"):
            others = [n for n in self.takes if n not in ("residual", "weight")]
            return (), {others[0]: x, **kwargs}
        return (x,), kwargs

    def shown_call(self, inputs):
        """As Subject's, a function's arguments as _arguments passes them."""
        if self.module is not None:
            return super().shown_call(inputs)
        return _shown(*self._arguments("x", "residual", "weight"))

    def _pair(self, out, x, residual, clones, given):
        """(y, h) from what the target returned, or from x and residual written in place
        (`given`: their values and versions before the call)."""
        if out is None:  # written in place
            unwritten = [
                _same(t, before) and _version(t) == version
                for t, (before, version) in zip((x, residual), given)
            ]
            self.wrote_nothing |= x.numel() > 0 and all(unwritten)
            # A write that autograd did not record (an inference kernel, under no_grad or
            # without a backward) left the clones' graphs as they were: nothing flows back
            # through the norm, and the outputs say so.
            unrecorded = (x.grad_fn, residual.grad_fn) == clones != (None, None)
            return (x.detach(), residual.detach()) if unrecorded else (x, residual)
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            got = type(out).__name__
            if isinstance(out, (tuple, list)):  # (y, h, rstd): a statistic returned too
                got = f"a {got} of {len(out)}: check it through a function returning (y, h)"
            raise UsageError(f"--add: expected (y, h) or None (in place), got {got}")
        if not all(torch.is_tensor(t) for t in out):  # (y, None): the sum not returned
            got = ", ".join(type(t).__name__ for t in out)
            raise UsageError(
                f"--add: expected (y, h), two tensors, got ({got}): return the sum"
                " h = x + residual too"
            )
        return tuple(_tensor_like(t, x) for t in out)

def _shown(args, kwargs) -> str:
    """A function's call as a message shows it, norm(x, weight, eps=1e-06): the inputs by
    their names, eps as the command line gives it."""

    def show(value):
        return f"{value:g}" if isinstance(value, float) else value

    shown = [*map(show, args), *(f"{k}={show(v)}" for k, v in kwargs.items())]
    return f"norm({', '.join(shown)})"

def _version(t):
    """t's version counter, which every write in place counts (a Python op's, not a
    kernel's through a pointer); None for a tensor made under inference_mode, which keeps
    none."""
    return None if t.is_inference() else t._version

def _same(t, before):
    """Whether t holds the values it held before, NaN where it held NaN."""
    return bool(((t == before) | (t.isnan() & before.isnan())).all())

def _copy_with_strides(t):
    """A copy of t laid out as t is, even a view that skips elements (clone would make
    that contiguous), at t's offset in storage of its own (a row cut from a batch starts
    past its storage's start): strided inputs and rows must reach the target as they
    are. Not a view itself: autograd records a write into it as into a tensor."""
    if 0 in t.stride():  # an expanded tensor: no copy can share its elements
        return t.clone()
    offset = t.storage_offset()
    span = sum((size - 1) * step for size, step in zip(t.shape, t.stride())) + 1
    size = offset + span * (t.numel() > 0)
    storage = torch.empty(size, dtype=t.dtype, device=t.device)
    copy = torch.empty(0, dtype=t.dtype, device=t.device)
    return copy.set_(storage.untyped_storage(), offset, t.size(), t.stride()).copy_(t)

def _tensor_like(y, x):
    """y, if it is a tensor of x's shape, as a norm's output is."""
    if isinstance(y, tuple):  # (y, rstd), (y, sum): what each item is, for the hint
        items = [tuple(t.shape) if torch.is_tensor(t) else type(t).__name__ for t in y]
        raise WrongOutput(
            f"it returned a tuple of {len(y)} ({', '.join(map(str, items))}) for x of"
            f" {tuple(x.shape)}, not a tensor"
        )
    if not isinstance(y, torch.Tensor):
        raise WrongOutput(f"it returned {type(y).__name__}, not a tensor")
    if y.shape != x.shape:
        raise WrongOutput(
            f"it returned shape {tuple(y.shape)} for x of {tuple(x.shape)}"
        )
    return y

def _gain(module, n, name):
    """The name of a module's gain, its parameter of shape (n,) named weight (or scale,
    gamma, g), else its only one not named as a bias (b alone is taken for a gain); and
    the parameters of n values named as a bias, by their shapes, held at zero. None for a
    module with no parameter, only scalars (a scalar gain, kept as built) or only a bias
    (a norm without a gain, then a bias): it is checked as f(x) is, with a weight applied
    after it."""
    lazy = [k for k, p in module.named_parameters() if torch.nn.parameter.is_lazy(p)]
    if lazy:  # its shape raises until a first forward materializes it
        raise UsageError(
            f"its parameter {lazy[0]} is uninitialized (a lazy module): check it with"
            " --factory, through a function f(n) that builds it and runs one forward on"
            " rows of n features"
        )
    shaped = [k for k, p in module.named_parameters() if p.shape == (n,)]
    named = ("weight", "scale", "gamma", "g")

    def last(key):
        return key.split(".")[-1]

    gains = [k for k in shaped if last(k) in named]
    gains = gains or [k for k in shaped if last(k) not in BIAS_NAMES]
    bias_shapes = {
        k: p.shape
        for k, p in module.named_parameters()
        if last(k) in BIAS_NAMES and p.numel() == n and k not in gains
    }
    others = [
        (k, tuple(p.shape))
        for k, p in module.named_parameters()
        if p.numel() > 1 and k not in bias_shapes
    ]
    lone_b = [k for k, shape in bias_shapes.items() if last(k) == "b" and shape == (n,)]
    if not gains and not others and len(bias_shapes) == len(lone_b) == 1:
        gains = lone_b  # b alone: taken for the gain
        del bias_shapes[lone_b[0]]
    if not gains and len(others) == 1 and math.prod(others[0][1]) == n:
        [(k, shape)] = others  # the gain in another shape: (1, n), (n, 1)
        raise UsageError(
            f"{name}({n}): its gain {k} has shape {shape}, not ({n},): the checker passes"
            f" a gain of {n} values; check it through a function of (x, weight) that"
            " reshapes the weight as the module does"
        )
    if len(gains) > 1 or (not gains and others):
        found = ", ".join(gains) or ", ".join(f"{k} {s}" for k, s in others)
        raise UsageError(
            f"{name}({n}): no single gain of shape ({n},) among its parameters ({found}):"
            " check it through a function of (x, weight) that applies the others"
        )
    gain = gains[0] if gains else None
    # Held at zero, a second gain (w * w2) would zero the output: say so instead.
    unknown = [k for k in shaped if k != gain and k not in bias_shapes]
    if unknown:
        raise UsageError(
            f"{name}({n}): besides its gain {gain}, parameters of shape ({n},) not named"
            f" as a bias ({', '.join(BIAS_NAMES)}): {', '.join(unknown)}; the checker applies"
            " one gain and holds a bias at zero: check it through a function of (x,"
            " weight) that applies the others"
        )
    return gain, bias_shapes

def _declared_eps(module) -> float | None:
    """The eps a module declares: an attribute by one of EPS_ATTRIBUTES on it, else on
    the modules it holds (a wrapper's base_layer) and its configuration object (config,
    cfg, args), where those give one value."""
    for name in EPS_ATTRIBUTES:
        if isinstance(getattr(module, name, None), float):
            return getattr(module, name)
    held = [m for _, m in module.named_modules()][1:]
    held += [v for k, v in vars(module).items() if k in ("config", "cfg", "args")]
    found = {
        getattr(holder, name)
        for holder in held
        for name in EPS_ATTRIBUTES
        if isinstance(getattr(holder, name, None), float)
    }
    return found.pop() if len(found) == 1 else None

def _eps_hint(takes, eps_argument, eps) -> str:
    """What to pass when the target requires an eps and none was given."""
    argument = takes.get(eps_argument)
    required = getattr(argument, "default", None) is inspect.Parameter.empty
    return ": pass it with --eps VALUE" if required and eps is None else ""

def _init_hint(error, takes, eps_argument) -> str:
    """What to pass when a constructor lacks arguments beyond the size: every missing one,
    or a builder function for a class built from a configuration object or a shape."""
    # Its first argument read as a shape, tuple(normalized_shape) as LayerNorm's takes:
    # the size given there.
    named_config = next(iter(takes), None) in ("config", "cfg")
    # tuple(n), torch.ones(*n) and len(n), as Python words each on an int.
    as_shape = ("'int' object is not iterable", "must be an iterable, not int")
    as_shape += ("object of type 'int' has no len()",)
    if any(words in str(error) for words in as_shape) and not named_config:
        return (
            ": it may take a shape such as (n,), where the checker passes the size n:"
            " pass a function f(n) that builds it, with --factory"
        )
    # Its first argument named as a configuration, or read as one: the size given there.
    if named_config or "'int' object" in str(error):
        return (
            ": it is built from a configuration object: pass a function f(n) that"
            " builds it, with --factory"
        )
    if "positional argument" in str(error) and "were given" in str(error):
        return (
            ": it takes no size: pass a function f(n) that builds it for n features,"
            " with --factory"
        )
    missing = re.findall(r"'(\w+)'", str(error)) if "required" in str(error) else []
    options = " ".join(
        "--eps VALUE" if name == eps_argument else f"--init {name}=VALUE"
        for name in missing
    )
    return f": pass {options}" if missing else ""

def _gain_argument(takes) -> str | None:
    """The argument a function takes its gain by, passed by name: `weight` wherever it is;
    `scale` or `gamma` as the second argument, required or None by default (a Flax port's
    optional gain), not a number (a multiplier); none of them positional-only (then the
    weight goes second, by position)."""
    weight = takes.get("weight")
    if weight is not None and weight.kind is not inspect.Parameter.POSITIONAL_ONLY:
        return "weight"
    for p in list(takes.values())[1:2]:  # the second argument, if any
        no_number = p.default is inspect.Parameter.empty or p.default is None
        by_name = p.kind is not inspect.Parameter.POSITIONAL_ONLY
        if p.name in GAIN_ARGUMENTS and no_number and by_name:
            return p.name
    return None

def _eps_argument(obj, eps, takes) -> str | None:
    """The name of the argument the target takes its eps by, if any: the one it
    requires, if it takes both."""
    names = [name for name in EPS_ARGUMENTS if name in takes]
    required = [n for n in names if takes[n].default is inspect.Parameter.empty]
    name = (required or names or [None])[0]
    # A constructor Cls(n, **kwargs), as config-style classes take their options: eps=.
    keywords = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in takes.values())
    if eps is not None and name is None and keywords and inspect.isclass(obj):
        return "eps"
    # A declared eps that the target never receives would blame the target for it.
    if eps is not None and name is None and hides_its_names(takes):
        raise UsageError(
            f"--eps {eps:g}: {name_of(obj)} takes (*args, **kwargs), whose names the"
            " checker cannot read (an autograd Function's apply?): check it through a"
            " function f(x, weight, eps=...) that passes eps on"
        )
    # A module taking eps in forward(x, eps=...): the checker calls forward(x) alone.
    forward = getattr(obj, "forward", None) if inspect.isclass(obj) else None
    per_call = _parameters(forward) if eps is not None and callable(forward) else {}
    in_forward = [n for n in EPS_ARGUMENTS if n in per_call]
    if name is None and in_forward:
        default = per_call[in_forward[0]].default
        todo = (
            "check it through a function f(x, weight, eps=...) that passes it on"
            if default is inspect.Parameter.empty
            else f"drop --eps, and the checks use forward's default, {default!r}"
        )
        raise UsageError(
            f"--eps {eps:g}: {name_of(obj)} takes {in_forward[0]} in forward, not when"
            f" built, and the checker calls forward(x) alone: {todo}"
        )
    if eps is not None and name is None:
        raise UsageError(
            f"--eps {eps:g}: {name_of(obj)} takes no argument named"
            f" {', '.join(EPS_ARGUMENTS[:-1])} or {EPS_ARGUMENTS[-1]} to pass it to:"
            " drop --eps, and compare the eps the report measures with your model's"
        )
    return name

# Triton's interpreter converts float32 to bfloat16 by truncating, which errs by up to one
# ulp where rounding errs by half: there a bfloat16 error within twice a check's bound may
# be the interpreter's (not judged), and one past it is the target's (failed).
TRUNCATION = 2

def under_triton_interpreter(norm) -> bool:
    """Whether the target is Triton code run by Triton's interpreter (TRITON_INTERPRET=1):
    its module uses Triton, or the module of a name its code reads does (a wrapper around
    kernels defined elsewhere)."""
    if os.environ.get("TRITON_INTERPRET") != "1":
        return False
    target = norm.module if norm.module is not None else norm.function
    target = unwrapped(target)  # partial(rms_norm_triton, offset=1.0)
    target = inspect.unwrap(target) if callable(target) else target
    held = vars(norm.module).values() if norm.module is not None else []
    kernels = [v for v in held if callable(v) and not isinstance(v, torch.nn.Module)]
    if any(under_triton_module(value) for value in kernels):
        return True  # a module that calls a kernel it holds, self.fn = rms_norm_triton
    module = inspect.getmodule(target)
    if module is None:
        return False
    # The modules of the names the target's own code reads: a wrapper's kernels' module.
    code = getattr(getattr(target, "forward", target), "__code__", None)
    read = [vars(module).get(name) for name in code.co_names] if code else []
    sources = [inspect.getmodule(value) for value in read if value is not None]
    return any(
        from_triton(value)
        for source in [module, *filter(None, sources)]
        for value in vars(source).values()
    )

def under_triton_module(value) -> bool:
    """Whether a value held by a module comes from a module that uses Triton."""
    source = inspect.getmodule(unwrapped(value))
    return source is not None and any(from_triton(v) for v in vars(source).values())

def from_triton(value) -> bool:
    """Whether a module-level value is Triton's: the module itself, or one of its objects
    (a kernel made by triton.jit is an object of a Triton class)."""
    names = [getattr(value, "__name__", None), getattr(value, "__module__", None)]
    names.append(type(value).__module__)
    return any(isinstance(n, str) and n.split(".")[0] == "triton" for n in names)

def load(target: str):
    """`module:name` or `path/to/file.py:name`, importable from the working directory; the
    name may be dotted, `Norms.rms`, for a static or class method or a nested class."""
    where, _, name = target.rpartition(":")
    if not where and name.endswith(".py"):  # a file without the name: list what it has
        where, name = name, ""
    if not where or (not name and not where.endswith(".py")):
        raise UsageError(f"TARGET must be module:name or file.py:name, got {target!r}")
    if where.endswith(".py") and not Path(where).is_file():
        raise UsageError(
            f"cannot import {target}: no file {where} (a path from {Path.cwd()})"
        )
    try:
        if where.endswith(".py"):
            # Its folder first on the path, as `python file.py` has it: a file that imports
            # a module beside it loads from any working directory.
            sys.path.insert(0, str(Path(where).resolve().parent))
            spec = importlib.util.spec_from_file_location(Path(where).stem, where)
            module = importlib.util.module_from_spec(spec)
            # Registered before it runs, as an import would: a @dataclass under
            # `from __future__ import annotations` looks its module up in sys.modules.
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
        else:
            sys.path.insert(0, "")
            module = importlib.import_module(where)
    except SystemExit as error:  # a script's code run at import: not a pass (status 0)
        raise UsageError(
            f"cannot import {target}: it calls sys.exit({error.code!r}) when imported"
            " (code outside if __name__ == '__main__'?)"
        ) from error
    except Exception as error:  # whatever the import raises: exit status 2
        missing = isinstance(error, ModuleNotFoundError)
        hint = ": give the file instead, path/to/file.py:name, or run from its folder"
        hint = hint if missing and error.name == where.split(".")[0] else ""
        shown = repr(error)
        if isinstance(error, SyntaxError):  # its repr is a tuple of where
            shown = f"SyntaxError in {error.filename}, line {error.lineno}: {error.msg}"
        raise UsageError(f"cannot import {target}: {shown}{hint}") from error
    name, *inner = name.split(".")
    if not hasattr(module, name):
        # What the file defines, as a guess at the name meant (a typo, another case).
        own = sorted(
            key
            for key, value in vars(module).items()
            if callable(value)
            and getattr(value, "__module__", None) == module.__name__
            and not key.startswith("_")
        )
        more = f" and {len(own) - 12} more" if len(own) > 12 else ""
        defined = f"; it defines {', '.join(own[:12])}{more}" if own else ""
        if not name:
            raise UsageError(
                f"TARGET must be file.py:name, got {target!r}: add the class or function"
                f" to check after a colon{defined}"
            )
        raise UsageError(f"cannot import {target}: {where} has no {name!r}{defined}")
    found = getattr(module, name)
    for part in inner:
        if not hasattr(found, part):
            raise UsageError(f"cannot import {target}: {name} has no {part!r}")
        found, name = getattr(found, part), f"{name}.{part}"
    return found
