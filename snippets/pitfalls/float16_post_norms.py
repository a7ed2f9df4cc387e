"""The stream divided by a constant in models whose stream adds what a norm after each
sublayer returns: Gemma 2 and 3 (a norm before and after each sublayer) and OLMo 2 (after
only, its sublayers reading the stream itself)."""

import copy

import torch
from torch import nn

from snippets.implementations.tiny_models import tiny

FAMILIES = ["gemma2", "gemma3_text", "olmo2"]
tokens = torch.tensor([[1, 2, 3, 4]])

def logits(model):
    with torch.no_grad():
        return model(tokens).logits.float()

def norms(model):
    return [module for module in model.modules() if "RMSNorm" in type(module).__name__]

def gain(norm):
    """The gain the norm applies: 1 + w in Gemma's norms, w in OLMo 2's."""
    return 1 + norm.weight if "Gemma" in type(norm).__name__ else norm.weight

def set_gain(norm, value):
    norm.weight.copy_(value - 1 if "Gemma" in type(norm).__name__ else value)

def divide_eps(norm, c):
    name = "eps" if hasattr(norm, "eps") else "variance_epsilon"
    setattr(norm, name, getattr(norm, name) / c**2)

@torch.no_grad()
def tiny_model(family, scale=1.0):
    """A tiny model, its head untied from the embedding (which is divided below), its
    gains drawn around 1 as trained ones are, and those of its first MLP's post norm times
    `scale`: at 1e5 the stream after it passes 65504."""
    model = tiny(family)
    model.lm_head.weight = nn.Parameter(model.model.embed_tokens.weight.clone())
    for norm in norms(model):
        set_gain(norm, 1 + 0.3 * torch.randn(norm.weight.shape))
    norm = model.model.layers[0].post_feedforward_layernorm
    set_gain(norm, scale * gain(norm))
    return model

@torch.no_grad()
def stream_divided(model, c=16):
    """Divide all the stream adds up by c: the embedding, and each post norm's output (its
    gain). A norm that reads the stream then takes ε / c²: Gemma's norms before each
    sublayer, and the final norm. OLMo 2's sublayers read the stream itself, so their
    queries, keys, values and up projections come out divided too, and the norms that read
    those take ε / c² (QK-norms, post norms); the gate goes through SiLU, which is not
    linear, so its projection is multiplied by c to give it what it had."""
    olmo = "Olmo2" in type(model).__name__
    model.model.embed_tokens.weight /= c
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

def in_float16(model, norm_weights_in_float32=True):
    """The model in float16. Gemma's (1 + w) / c is stored as w' = (1 + w) / c - 1, near -1,
    where float16 keeps fewer of its bits: the norms' weights stay in float32 (the norms
    compute in float32 and return float16)."""
    half = copy.deepcopy(model).half()
    if norm_weights_in_float32:
        for norm, kept in zip(norms(half), norms(model)):
            norm.weight = nn.Parameter(kept.weight.detach().clone())
    return half

def float16_error(family, scale, c, norm_weights_in_float32=True):
    """float16's largest difference from float32 in the logits, the stream divided by c."""
    model = tiny_model(family, scale)
    divided = stream_divided(tiny_model(family, scale), c)
    half = in_float16(divided, norm_weights_in_float32)
    return (logits(half) - logits(model)).abs().max()

def float32_difference(family):
    model = tiny_model(family, 1e5)
    return (logits(stream_divided(tiny_model(family, 1e5))) - logits(model)).abs().max()

differences = ", ".join(f"{f} {float32_difference(f):.2g}" for f in FAMILIES)
print(f"float32, stream / 16, largest difference: {differences}")
#> float32, stream / 16, largest difference: gemma2 2.4e-07, gemma3_text 3e-07, olmo2 0
lines = ["float16 against float32, largest difference in the logits:"]
lines.append(f"  {'':<13}{'gains x 1e5':<24}gains as drawn")
columns = ["as it is", "/ 16", "as it is", "/ 16", "/ 256"]
lines.append(f"  {'':<13}" + "".join(f"{name:<12}" for name in columns))
for family in FAMILIES:
    errors = [float16_error(family, 1e5, c) for c in (1, 16)]
    errors += [float16_error(family, 1.0, c) for c in (1, 16, 256)]
    lines.append(f"  {family:<13}" + "".join(f"{error:<12.2g}" for error in errors))
print("\n".join(line.rstrip() for line in lines))
"""
float16 against float32, largest difference in the logits:
               gains x 1e5             gains as drawn
               as it is    / 16        as it is    / 16        / 256
  gemma2       nan         0.00069     0.00072     0.00072     0.00067
  gemma3_text  nan         0.00063     0.00059     0.00059     0.00059
  olmo2        nan         0.0037      0.00055     0.001       0.011
"""
gemma = [float16_error(f, 1e5, 16, norm_weights_in_float32=False) for f in FAMILIES[:2]]
errors = ", ".join(f"{error:.2g}" for error in gemma)
print(f"Gemma 2 and 3, gains x 1e5, / 16, w' in float16: {errors}")
#> Gemma 2 and 3, gains x 1e5, / 16, w' in float16: 0.002, 0.0022

def small_values(model):
    """The share of the outputs of the layers' linear projections, in float32, that are
    under float16's smallest normal value, 6.1e-05: there float16 keeps fewer bits."""
    outputs = []

    def keep(module, args, out):
        outputs.append(out.flatten())

    for module in model.model.layers.modules():
        if isinstance(module, nn.Linear):
            module.register_forward_hook(keep)
    logits(model)
    values = torch.cat(outputs).abs()
    return (values < torch.finfo(torch.float16).tiny).float().mean().item()

shares = [small_values(stream_divided(tiny_model("olmo2"), c)) for c in (1, 16, 256)]
print("OLMo 2 as drawn, outputs of its projections under 6.1e-05:")
#> OLMo 2 as drawn, outputs of its projections under 6.1e-05:
print("  stream / 1, 16, 256: " + ", ".join(f"{share:.0%}" for share in shares))
#>   stream / 1, 16, 256: 30%, 43%, 65%
