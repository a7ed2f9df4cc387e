"""Before running a model in float16: the largest value each norm receives, measured in a
float32 run, against float16's largest value. Here the first MLP's output is scaled up, as
a model with large activations would have it."""

import torch

from snippets.implementations.tiny_models import tiny

model = tiny("llama")
# The first MLP's output times 1e7, in every dtype the model runs in.
model.model.layers[0].mlp.register_forward_hook(lambda module, args, out: out * 1e7)

largest = {}  # each norm's largest input magnitude

def record(name):
    def hook(module, args, output):
        largest[name] = max(largest.get(name, 0.0), args[0].abs().max().item())

    return hook

norms = {n: m for n, m in model.named_modules() if type(m).__name__.endswith("RMSNorm")}
hooks = [norm.register_forward_hook(record(name)) for name, norm in norms.items()]
tokens = torch.tensor([[1, 2, 3, 4]])
model(tokens)
for hook in hooks:
    hook.remove()
limit = torch.finfo(torch.float16).max
lines = [
    f"{name:<40}{value:>9.3g}  {'over' if value > limit else 'fits'}"
    for name, value in largest.items()
]
print("\n".join(lines))
"""
model.layers.0.input_layernorm              0.057  fits
model.layers.0.post_attention_layernorm     0.084  fits
model.layers.1.input_layernorm           8.91e+04  over
model.layers.1.post_attention_layernorm  8.91e+04  over
model.norm                               8.91e+04  over
"""
# Where it first goes wrong: each module's output checked as the float16 model runs.
# "inf" and "NaN": the first module, in the order they run, whose output holds it.
first = {}

def watch(name):
    def hook(module, args, output):
        output = output[0] if isinstance(output, tuple) else output
        if isinstance(output, torch.Tensor):
            if output.isinf().any():
                first.setdefault("inf", name)
            if output.isnan().any():
                first.setdefault("NaN", name)

    return hook

hooks = [m.register_forward_hook(watch(name)) for name, m in model.named_modules()]
logits = model.half()(tokens).logits
for hook in hooks:
    hook.remove()
print(
    f"the same model in float16: {logits.isnan().float().mean():.0%} of logits are NaN"
)
#> the same model in float16: 100% of logits are NaN
print("first inf:", first["inf"], "| first NaN:", first["NaN"])
#> first inf: model.layers.0.mlp | first NaN: model.layers.1.input_layernorm
