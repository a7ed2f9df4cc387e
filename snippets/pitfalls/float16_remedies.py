"""Two ways to run the headroom snippet's model in float16: clamp the stream, as transformers'
T5 layers do, or divide the whole stream by a constant, which pre-norm RMSNorm cannot see.
"""

import torch

from snippets.implementations.tiny_models import tiny

def large_activations():
    """The headroom snippet's model: its first MLP's output times 1e7."""
    model = tiny("llama")
    model.model.layers[0].mlp.register_forward_hook(lambda module, args, out: out * 1e7)
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

def stream_divided(model, c=16, divide_eps=True):
    """Divide all the stream adds up (the embedding and each sublayer's output projection)
    by c, a power of two, so every norm sees x / c; ε / c² then makes it return exactly
    what it returned for x: sqrt(mean(x²) / c² + ε / c²) is sqrt(mean(x²) + ε) / c."""
    with torch.no_grad():
        model.model.embed_tokens.weight /= c
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight /= c
            layer.mlp.down_proj.weight /= c
    if divide_eps:
        for module in model.modules():
            if type(module).__name__ == "LlamaRMSNorm":
                module.variance_epsilon /= c**2
    return model

reference = logits(large_activations())
print(f"float32 logits, largest size: {reference.abs().max():.2f}")
#> float32 logits, largest size: 0.59
same = torch.equal(logits(stream_divided(large_activations())), reference)
print(f"float32, stream / 16: logits equal bit for bit: {same}")
#> float32, stream / 16: logits equal bit for bit: True
kept_eps = logits(stream_divided(large_activations(), divide_eps=False)) - reference
print(f"float32, stream / 16, ε kept: largest difference {kept_eps.abs().max():.2g}")
#> float32, stream / 16, ε kept: largest difference 0.079
runs = {
    "as it is": large_activations(),
    "clamped as T5 does": clamped(large_activations()),
    "stream / 16, ε / 256": stream_divided(large_activations()),
}
lines = ["float16 against float32, largest difference in the logits:"]
for name, model in runs.items():
    lines.append(f"  {name:<22}{(logits(model.half()) - reference).abs().max():.2g}")
# The yardstick: float16's own error on the same model without the large activations.
plain = tiny("llama")
error = (logits(tiny("llama").half()) - logits(plain)).abs().max()
lines.append(f"  {'no large activations':<22}{error:.2g}")
print("\n".join(lines))
"""
float16 against float32, largest difference in the logits:
  as it is              nan
  clamped as T5 does    0.048
  stream / 16, ε / 256  0.00053
  no large activations  0.00034
"""
