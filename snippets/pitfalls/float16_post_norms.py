"""The stream divided by a constant in models whose stream adds what a norm after each
sublayer returns: Gemma 2 and 3 (a norm before and after each sublayer) and OLMo 2 (after
only, its sublayers reading the stream itself)."""

import copy
import math

import torch
from torch import nn

from snippets.implementations.tiny_models import tiny

FAMILIES = ["gemma2", "gemma3_text", "olmo2"]
tokens = torch.tensor([[2, 3, 4, 5]])  # no padding token (0 in Gemma, 1 in OLMo 2)

def logits(model):
    with torch.no_grad():
        return model(tokens).logits.float()

def norms(model):
    return [module for module in model.modules() if "RMSNorm" in type(module).__name__]

def gain(norm):
    """The gain the norm applies: 1 + weight in Gemma's norms, the weight in OLMo 2's."""
    return 1 + norm.weight if "Gemma" in type(norm).__name__ else norm.weight

def set_gain(norm, value):
    norm.weight.copy_(value - 1 if "Gemma" in type(norm).__name__ else value)

def divide_eps(norm, c):
    name = "eps" if hasattr(norm, "eps") else "variance_epsilon"
    setattr(norm, name, getattr(norm, name) / c**2)

@torch.no_grad()
def tiny_model(family, large=None):
    """A tiny model with weights of standard deviation 1 / sqrt(fan-in), so that its
    activations are near 1, and gains drawn around 1. `large` makes values pass
    65504: "gains" multiplies the first MLP's post norm's gains by 1e5 (the stream after
    it overflows), "up" the first MLP's up projection (inside the MLP)."""
    model = tiny(family)
    # An embedding's weight is (vocabulary, width): its rows are drawn at 1 / sqrt(width).
    for module in model.modules():
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=module.weight.shape[1] ** -0.5)
    for norm in norms(model):
        set_gain(norm, 1 + 0.3 * torch.randn(norm.weight.shape))
    first = model.model.layers[0]
    if large == "gains":
        post = first.post_feedforward_layernorm
        set_gain(post, 1e5 * gain(post))
    if large == "up":
        first.mlp.up_proj.weight *= 1e5
    return model

@torch.no_grad()
def stream_divided(model, c=16):
    """Divide all the stream adds up by c: the embedding (Gemma's through its scale, a
    buffer, so the head tied to it is not divided) and each post norm's output (its gain).
    A norm that reads the stream then takes ε / c²: Gemma's norms before each sublayer,
    and the final norm. OLMo 2 has no norm before its sublayers, which read the stream
    itself: their queries, keys, values and up projections come out divided, and the
    norms that read those take ε / c² (QK-norms, post norms); the gate goes through SiLU,
    which is not linear, so its projection is multiplied by c to give it what it had."""
    olmo = "Olmo2" in type(model).__name__
    embedding = model.model.embed_tokens
    if olmo:
        embedding.weight /= c
    else:
        embedding.embed_scale /= c
    divide_eps(model.model.norm, c)
    for layer in model.model.layers:
        post = [layer.post_attention_layernorm, layer.post_feedforward_layernorm]
        for norm in post:
            set_gain(norm, gain(norm) / c)
        if olmo:
            layer.mlp.gate_proj.weight *= c
            for norm in [layer.self_attn.q_norm, layer.self_attn.k_norm, *post]:
                divide_eps(norm, c)
        else:
            divide_eps(layer.input_layernorm, c)
            divide_eps(layer.pre_feedforward_layernorm, c)
    return model

@torch.no_grad()
def up_divided(model, c=16):
    """Divide each MLP's up projection by c: its output is divided, which the post norm
    after it cannot see but for its ε, divided by c²."""
    for layer in model.model.layers:
        layer.mlp.up_proj.weight /= c
        divide_eps(layer.post_feedforward_layernorm, c)
    return model

def in_float16(model, norm_weights_in_float32=True):
    """The model in float16. Gemma's gain (1 + w) / c is stored as w' = (1 + w) / c - 1,
    near -1, where float16 keeps fewer of its bits: the norms' weights stay in float32
    (the norms compute in float32 and return float16)."""
    half = copy.deepcopy(model).half()
    if norm_weights_in_float32:
        for norm, kept in zip(norms(half), norms(model)):
            norm.weight = nn.Parameter(kept.weight.detach().clone())
    return half

def difference(family, large, remedy, float16=True, **options):
    """The largest difference in the logits from the model's own in float32, the remedied
    model run in float16 (options: in_float16's) or, float16=False, in float32."""
    reference = logits(tiny_model(family, large))
    changed = remedy(tiny_model(family, large))
    if float16:
        changed = in_float16(changed, **options)
    return (logits(changed) - reference).abs().max()

def as_it_is(model):
    return model

# Differences this small change in their last digits with the CPU's matmul kernels: they
# are given as the power of ten they stay under, or against the model's own as drawn.
def under(error):
    return "0" if error == 0 else f"under {10 ** math.ceil(math.log10(error)):g}"

def against(error, as_drawn):
    return "nan" if error.isnan() else "at most 2x" if error <= 2 * as_drawn else "more"

lines = ["float32, largest difference in the logits:"]
for name, large, remedy in [
    ("stream", "gains", stream_divided),
    ("up", "up", up_divided),
]:
    moved = [difference(f, large, remedy, float16=False) for f in FAMILIES]
    moved = ", ".join(f"{f} {under(error)}" for f, error in zip(FAMILIES, moved))
    lines.append(f"  {name} / 16: {moved}")
print("\n".join(lines))
"""
float32, largest difference in the logits:
  stream / 16: gemma2 under 1e-05, gemma3_text under 1e-05, olmo2 0
  up / 16: gemma2 0, gemma3_text 0, olmo2 0
"""
runs = {
    "gains x 1e5": [("as it is", as_it_is), ("stream / 16", stream_divided)],
    "up_proj x 1e5": [("as it is", as_it_is), ("up / 16", up_divided)],
}
lines = ["float16 against float32, largest difference in the logits, against as drawn:"]
lines.append(f"  {'':<13}" + "as drawn    " + "".join(f"{large:<24}" for large in runs))
names = [name for remedies in runs.values() for name, _ in remedies]
lines.append(f"  {'':<25}" + "".join(f"{name:<12}" for name in names))
for family in FAMILIES:
    as_drawn = difference(family, None, as_it_is)
    cells = [
        difference(family, large.split()[0].removesuffix("_proj"), remedy)
        for large, remedies in runs.items()
        for _, remedy in remedies
    ]
    cells = [against(error, as_drawn) for error in cells]
    row = f"{under(as_drawn):<12}" + "".join(f"{cell:<12}" for cell in cells)
    lines.append(f"  {family:<13}{row}")
print("\n".join(line.rstrip() for line in lines))
"""
float16 against float32, largest difference in the logits, against as drawn:
               as drawn    gains x 1e5             up_proj x 1e5
                           as it is    stream / 16 as it is    up / 16
  gemma2       under 0.01  nan         at most 2x  nan         at most 2x
  gemma3_text  under 0.01  nan         at most 2x  nan         at most 2x
  olmo2        under 0.01  nan         nan         nan         at most 2x
"""
gemma = [
    difference(f, "gains", stream_divided, norm_weights_in_float32=False)
    for f in FAMILIES[:2]
]
errors = ", ".join(f"{error:.2g}" for error in gemma)
print(f"Gemma 2 and 3, gains x 1e5, stream / 16, w' in float16: {errors}")
#> Gemma 2 and 3, gains x 1e5, stream / 16, w' in float16: 0.0088, 0.0097
kept = [difference(f, "gains", stream_divided) for f in FAMILIES[:2]]
times = ", ".join(f"{error / float32:.1f}" for error, float32 in zip(gemma, kept))
print(f"  times the difference with w' kept in float32: {times}")
#>   times the difference with w' kept in float32: 2.2, 3.1

def gate_peak(model):
    """The largest value OLMo 2's gate projections give, in float32."""
    peaks = []
    for layer in model.model.layers:
        gate = layer.mlp.gate_proj
        gate.register_forward_hook(lambda m, args, out: peaks.append(out.abs().max()))
    logits(model)
    return max(peaks)

peaks = [gate_peak(tiny_model("olmo2", "gains"))]
peaks.append(gate_peak(stream_divided(tiny_model("olmo2", "gains"))))
print(
    f"OLMo 2, gains x 1e5, largest gate value: {peaks[0]:.2g}, stream / 16: {peaks[1]:.2g}"
)
#> OLMo 2, gains x 1e5, largest gate value: 2.8e+05, stream / 16: 2.8e+05
