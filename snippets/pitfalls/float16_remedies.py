"""Ways to run the headroom snippet's model in float16: clamp the stream, as transformers'
T5 layers do, or divide the whole stream by a constant, which pre-norm RMSNorm cannot see:
at each sublayer's output projection, or at the projection its output is linear in."""

import math

import torch

from snippets.implementations.tiny_models import tiny

def large_output():
    """The headroom snippet's model: its first MLP's output times 1e7."""
    model = tiny("llama")
    model.model.layers[0].mlp.register_forward_hook(lambda module, args, out: out * 1e7)
    return model

def large_inside():
    """Its first MLP's up projection times 1e6: the down projection's input passes 65504."""
    model = tiny("llama")
    up = model.model.layers[0].mlp.up_proj
    up.register_forward_hook(lambda module, args, out: out * 1e6)
    return model

tokens = torch.tensor([[1, 2, 3, 4]])

def logits(model):
    with torch.no_grad():
        return model(tokens).logits.float()

def clamped(model):
    """T5's rule: clamp to 1000 below float16's largest value once the stream holds an inf,
    else to the largest value. T5 clamps after each sublayer's residual add; here after each
    layer's, where this model's stream overflows."""

    def clamp(layer, args, out):
        top = torch.finfo(out.dtype).max
        limit = top - 1000 if out.isinf().any() else top
        return out.clamp(-limit, limit)

    for layer in model.model.layers:
        layer.register_forward_hook(clamp)
    return model

OUTPUTS = ["self_attn.o_proj", "mlp.down_proj"]  # what each sublayer adds to the stream
# Attention's output is linear in V, and a gated MLP's in its up projection (LLaMA's
# projections have no biases; a bias would be divided with its weight).
VALUES = ["self_attn.v_proj", "mlp.up_proj"]

def stream_divided(model, projections, c=16, divide_eps=True):
    """Divide all the stream adds up (the embedding and each sublayer's output, here by
    dividing `projections`) by c, a power of two, so every norm sees x / c; ε / c² then
    makes it return what it returned for x: sqrt(mean(x²) / c² + ε / c²) is
    sqrt(mean(x²) + ε) / c."""
    with torch.no_grad():
        model.model.embed_tokens.weight /= c
        for layer in model.model.layers:
            for name in projections:
                layer.get_submodule(name).weight /= c
    if divide_eps:
        for module in model.modules():
            if type(module).__name__ == "LlamaRMSNorm":
                module.variance_epsilon /= c**2
    return model

# Inside the MLP only: the stream after it stays in float16's range.
model, sizes = large_inside(), {}

def record(name):
    def hook(module, args, out=None):  # a forward hook, or a pre-hook (no output)
        sizes[name] = (args[0] if out is None else out).abs().max().item()

    return hook

mlp = model.model.layers[0].mlp
mlp.up_proj.register_forward_hook(record("up projection"))
mlp.down_proj.register_forward_pre_hook(record("down projection's input"))
model.model.layers[0].register_forward_hook(record("stream"))
logits(model)
print("float32: " + ", ".join(f"{name} {size:.2g}" for name, size in sizes.items()))
#> float32: up projection 4.5e+05, down projection's input 7.2e+04, stream 8.9e+03

models = {"large MLP output": large_output, "large inside the MLP": large_inside}
references = {name: logits(model()) for name, model in models.items()}
largest = max(reference.abs().max() for reference in references.values())
print(f"float32 logits, largest size: {largest:.2f}")
#> float32 logits, largest size: 0.59
for name, model in models.items():
    same = [
        torch.equal(logits(stream_divided(model(), divided)), references[name])
        for divided in (OUTPUTS, VALUES)
    ]
    print(f"float32, {name}: both divisions by 16 give the same logits: {all(same)}")
    #> float32, large MLP output: both divisions by 16 give the same logits: True
    #> float32, large inside the MLP: both divisions by 16 give the same logits: True
model, reference = large_output, references["large MLP output"]
kept_eps = logits(stream_divided(model(), OUTPUTS, divide_eps=False)) - reference
print(f"float32, stream / 16, ε kept: largest difference {kept_eps.abs().max():.2g}")
#> float32, stream / 16, ε kept: largest difference 0.079
remedies = {
    "as it is": lambda model: model,
    "clamped as T5 does": clamped,
    "outputs / 16, ε / 256": lambda model: stream_divided(model, OUTPUTS),
    "values / 16, ε / 256": lambda model: stream_divided(model, VALUES),
}
# The yardstick: float16's own error on the same model without the large activations.
# Errors this small differ by up to a fifth with the CPU's float16 matmul, so they are
# given in steps coarser than that: a power of ten, or a multiple of the yardstick.
yardstick = (logits(tiny("llama").half()) - logits(tiny("llama"))).abs().max()
power = 10 ** math.ceil(math.log10(yardstick))
print(f"float16, no large activations: largest difference under {power:g}")
#> float16, no large activations: largest difference under 0.001

def against_yardstick(error):
    if error.isnan():
        return "nan"
    if error <= 2 * yardstick:
        return "at most 2x"
    return f"over {10 ** math.floor(math.log10(error / yardstick))}x"

lines = ["float16 against float32, largest difference in the logits, against that:"]
lines.append(f"  {'':<23}" + "".join(f"{name:<22}" for name in models))
for remedy, apply in remedies.items():
    errors = [
        (logits(apply(model()).half()) - references[name]).abs().max()
        for name, model in models.items()
    ]
    cells = [f"{against_yardstick(error):<22}" for error in errors]
    lines.append(f"  {remedy:<23}" + "".join(cells))
print("\n".join(line.rstrip() for line in lines))
"""
float16 against float32, largest difference in the logits, against that:
                         large MLP output      large inside the MLP
  as it is               nan                   nan
  clamped as T5 does     over 100x             nan
  outputs / 16, ε / 256  at most 2x            nan
  values / 16, ε / 256   at most 2x            at most 2x
"""
