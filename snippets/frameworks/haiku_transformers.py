import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import torch
from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
from transformers.models.llama.modeling_llama import LlamaRMSNorm

# transformers' cast orders with Haiku, which computes in its input's dtype: the input
# cast to float32 first. LLaMA's rounds x̂ to the input's dtype before the weight
# (reduce_precision rounds it in bfloat16, so that a compiled batch keeps the rounding,
# as in JAX's recipe); Gemma's forms 1 + w in float32 as the scale and rounds the output
# once.
def llama_order(x, weight):
    normalize = hk.RMSNorm(axis=-1, eps=1e-6, create_scale=False)  # no gain
    x_hat = normalize(x.astype(jnp.float32))
    if x.dtype == jnp.bfloat16:
        x_hat = jax.lax.reduce_precision(x_hat, exponent_bits=8, mantissa_bits=7)
    return weight * x_hat.astype(x.dtype)

def gemma_order(x):
    return hk.RMSNorm(axis=-1, eps=1e-6)(x.astype(jnp.float32)).astype(x.dtype)

def to_jax(t):  # bfloat16 to JAX: NumPy has none, so through float32, which is exact
    return jnp.asarray(t.float().numpy()).astype(jnp.bfloat16)

n = 512
generator = torch.Generator().manual_seed(0)
x = (3 * torch.randn(64, n, generator=generator)).to(torch.bfloat16)
weight = (torch.rand(n, generator=generator) + 0.5).to(torch.bfloat16)
w = (0.1 * torch.randn(n, generator=generator)).to(torch.bfloat16)  # Gemma's stored w
llama = LlamaRMSNorm(n, eps=1e-6).to(torch.bfloat16)
gemma = GemmaRMSNorm(n, eps=1e-6).to(torch.bfloat16)
with torch.no_grad():
    llama.weight.copy_(weight)
    gemma.weight.copy_(w)
    expected = {"LlamaRMSNorm": llama(x), "GemmaRMSNorm": gemma(x)}

gain = {"rms_norm": {"scale": 1.0 + jnp.asarray(w.float().numpy())}}  # float32
ports = {
    "LlamaRMSNorm": (hk.transform(llama_order).apply, {}, (to_jax(x), to_jax(weight))),
    "GemmaRMSNorm": (hk.transform(gemma_order).apply, gain, (to_jax(x),)),
}
for name, (apply, params, inputs) in ports.items():
    same = []
    for run in [apply, jax.jit(apply)]:  # op by op, then compiled
        y = run(params, None, *inputs)
        y = torch.tensor(np.array(y.astype(jnp.float32))).to(torch.bfloat16)
        same.append((y == expected[name]).float().mean())
    print(f"{name}'s order: equal in {same[0]:.1%} op by op, {same[1]:.1%} jitted")
    #> LlamaRMSNorm's order: equal in 100.0% op by op, 100.0% jitted
    #> GemmaRMSNorm's order: equal in 100.0% op by op, 100.0% jitted

# Over a batch of 8192 more rows, compiled by jax.jit: XLA computes the statistic its
# own way, so a rare element rounds otherwise than in transformers (how many can change
# with the CPU).
many = (3 * torch.randn(8192, n, generator=generator)).to(torch.bfloat16)
with torch.no_grad():
    expected = {"LlamaRMSNorm": llama(many), "GemmaRMSNorm": gemma(many)}
inputs = {
    "LlamaRMSNorm": (to_jax(many), to_jax(weight)),
    "GemmaRMSNorm": [to_jax(many)],
}
for name, (apply, params, _) in ports.items():
    y = jax.jit(apply)(params, None, *inputs[name])
    y = torch.tensor(np.array(y.astype(jnp.float32))).to(torch.bfloat16)
    same = y == expected[name]
    share, every = same.float().mean(), bool(same.all())
    print(f"{name}'s order, jitted: equal in {share:.1%}, in every element: {every}")
    #> LlamaRMSNorm's order, jitted: equal in 100.0%, in every element: False
    #> GemmaRMSNorm's order, jitted: equal in 100.0%, in every element: False
