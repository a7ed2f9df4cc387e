"""Every class named *RMSNorm in transformers' modeling files, and how each behaves, measured
on a hidden size of 64: which gain it makes of its stored weight, where eps goes, its
default eps, and where it rounds a bfloat16 input."""

import importlib
import inspect
import pkgutil

import torch
import torch.nn.functional as F
import transformers.models

HIDDEN = 64

def rms_norm_classes():
    """{name: class} for every *RMSNorm class defined in a modeling file; the number of
    modeling files; and {file: error} for those that fail to import (a missing package).
    """
    classes, failures, files = {}, {}, 0
    for model in pkgutil.iter_modules(transformers.models.__path__):
        if not model.ispkg:
            continue
        package = importlib.import_module(f"transformers.models.{model.name}")
        for file in pkgutil.iter_modules(package.__path__):
            if not file.name.startswith("modeling_"):
                continue
            files += 1
            try:
                module = importlib.import_module(f"{package.__name__}.{file.name}")
            except ImportError as error:
                failures[file.name] = error
                continue
            for name, cls in vars(module).items():
                if (
                    name.endswith("RMSNorm")
                    and getattr(cls, "__module__", "") == module.__name__
                ):
                    classes[name] = cls
    return classes, failures, files

def build(cls, eps=None):
    """cls(64), with eps passed under the class's own name for it; and its default eps."""
    parameters = inspect.signature(cls.__init__).parameters
    eps_name = next((name for name in parameters if "eps" in name), None)
    options = {eps_name: eps} if eps is not None and eps_name else {}
    default = parameters[eps_name].default if eps_name else None
    return cls(HIDDEN, **options), default

def gain_form(norm, default_eps):
    """'w' if a zero weight gives zeros, '1 + w' if it gives the plain normalized x."""
    x = torch.randn(4, HIDDEN)
    with torch.no_grad():
        norm.weight.zero_()
        out = norm(x)
    if torch.all(out == 0):
        return "w"
    if torch.allclose(out, F.rms_norm(x, (HIDDEN,), eps=default_eps), atol=1e-5):
        return "1 + w"
    return "other"

def eps_place(cls, gain):
    """A row of 0.1 at eps 0.01 and gain 1: 0.1 / sqrt(0.01 + 0.01) = 0.7071 with eps inside
    the root, 0.1 / (0.1 + 0.01) = 0.9091 with eps added to the RMS."""
    norm, _ = build(cls, eps=0.01)
    with torch.no_grad():
        norm.weight.fill_(1.0 if gain == "w" else 0.0)
        out = norm(torch.full((1, HIDDEN), 0.1))[0, 0].item()
    return {0.7071: "inside", 0.9091: "outside"}.get(round(out, 4), f"{out:.4f}")

def bfloat16_rounding(cls, gain, eps, weight_dtype=torch.bfloat16):
    """Which order of operations the output for a bfloat16 input equals, bit for bit, with
    the weight in weight_dtype: a model in bfloat16, or one whose weights stay float32.
    """
    norm = build(cls)[0].to(weight_dtype)
    x = torch.randn(64, HIDDEN).to(torch.bfloat16)
    with torch.no_grad():
        norm.weight.copy_((1.0 if gain == "w" else 0.0) + 0.1 * torch.randn(HIDDEN))
        out = norm(x)
    g = norm.weight.float() if gain == "w" else 1.0 + norm.weight.float()
    x_hat = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps)
    orders = {  # a product of a bfloat16 and a float32 tensor is float32
        "LLaMA: x-hat rounded, then the gain": g.to(weight_dtype) * x_hat.bfloat16(),
        "Gemma: the gain in float32, one rounding": (x_hat * g).bfloat16(),
        "no rounding": x_hat * g,
    }
    return next((name for name, y in orders.items() if torch.equal(out, y)), "other")

def behaviour(cls):
    """A line that says how the class behaves (gain, eps, default eps, bfloat16 rounding),
    or why it cannot be measured."""
    try:
        norm, default_eps = build(cls)
    except (AttributeError, TypeError) as error:  # it wants more than a hidden size
        return f"not measured: {cls.__name__}(64) raises {type(error).__name__}"
    weight = getattr(norm, "weight", None)
    if not isinstance(weight, torch.nn.Parameter) or weight.shape != (HIDDEN,):
        return "not measured: no learned weight of one gain per feature"
    if not isinstance(default_eps, float):
        return "not measured: no default eps"
    torch.manual_seed(0)
    gain = gain_form(norm, default_eps)
    place = eps_place(cls, gain)
    rounding = bfloat16_rounding(cls, gain, default_eps)
    # The same order with a float32 weight, or a class that casts by the weight's dtype.
    mixed = bfloat16_rounding(cls, gain, default_eps, torch.float32)
    if mixed != rounding:
        short = {
            name: name.split(":")[0] + "'s" for name in (rounding, mixed) if ":" in name
        }
        rounding = f"{short.get(rounding, rounding)}; float32 weight: {short.get(mixed, mixed)}"
    return f"{gain:<6}{place:<8}{default_eps:<9g}{rounding}"
