import jax
import jax.numpy as jnp
import numpy as np
import torch
from flax import linen, nnx
from transformers.models.gemma.modeling_gemma import GemmaRMSNorm

n, eps = 512, 1e-6
generator = torch.Generator().manual_seed(0)
x = (3 * torch.randn(64, n, generator=generator)).to(torch.bfloat16)
w = (0.1 * torch.randn(n, generator=generator)).to(torch.bfloat16)  # applied as 1 + w
gemma = GemmaRMSNorm(n, eps=eps).to(torch.bfloat16)
with torch.no_grad():
    gemma.weight.copy_(w)
    expected = gemma(x)

# Converted: the gain itself, 1 + w added in float32, as Gemma adds it.
scale = jnp.asarray((1 + w.float()).numpy())
x_jax = jnp.asarray(x.float().numpy(), dtype=jnp.bfloat16)  # exact, through float32
nnx_norm = nnx.RMSNorm(n, epsilon=eps, dtype=jnp.bfloat16, rngs=nnx.Rngs(0))
nnx_norm.scale[...] = scale
linen_norm = linen.RMSNorm(epsilon=eps, dtype=jnp.bfloat16)
# promote_dtype (Flax 0.12.1 on) rounds the scale to dtype; one that casts nothing keeps it.
nnx_kept = nnx.RMSNorm(
    n, epsilon=eps, dtype=jnp.bfloat16, promote_dtype=lambda arrays, dtype: arrays,
    rngs=nnx.Rngs(0),
)  # fmt: skip
nnx_kept.scale[...] = scale
# With the default dtype=None, flax.nnx keeps the float32 scale and returns float32.
nnx_float32 = nnx.RMSNorm(n, epsilon=eps, rngs=nnx.Rngs(0))
nnx_float32.scale[...] = scale

def gemma_jax(x, w):
    """Gemma's own JAX norm (gemma/gm/nn/_layers.py): no upcast, 1 + w in w's dtype."""
    mean_square = jnp.mean(jnp.square(x), axis=-1, keepdims=True)
    return x * jax.lax.rsqrt(mean_square + 1e-6) * (1 + w)

# Its w as a bfloat16 checkpoint loads it, and in float32, as its param is initialized.
gemma_bfloat16 = gemma_jax(x_jax, jnp.asarray(w.float().numpy(), dtype=jnp.bfloat16))
gemma_float32 = gemma_jax(x_jax, jnp.asarray(w.float().numpy()))
print("Gemma's JAX norm returns", gemma_bfloat16.dtype, "and", gemma_float32.dtype)
#> Gemma's JAX norm returns bfloat16 and float32
outputs = {
    "flax.linen, dtype=bfloat16": linen_norm.apply({"params": {"scale": scale}}, x_jax),
    "flax.nnx, dtype=bfloat16": nnx_norm(x_jax),  # rounds the scale to bfloat16 first
    "flax.nnx, scale not promoted": nnx_kept(x_jax),
    "flax.nnx, float32 out, cast": nnx_float32(x_jax).astype(jnp.bfloat16),
    "Gemma's JAX, bfloat16 w": gemma_bfloat16,
    "Gemma's JAX, float32 w, cast": gemma_float32.astype(jnp.bfloat16),
}
for name, y in outputs.items():
    y = torch.tensor(np.array(y, dtype=np.float32)).to(torch.bfloat16)
    same = (y == expected).float().mean()
    print(f"{name:<28} equals GemmaRMSNorm's output: {same:.1%}")
    #> flax.linen, dtype=bfloat16   equals GemmaRMSNorm's output: 100.0%
    #> flax.nnx, dtype=bfloat16     equals GemmaRMSNorm's output: 74.0%
    #> flax.nnx, scale not promoted equals GemmaRMSNorm's output: 100.0%
    #> flax.nnx, float32 out, cast  equals GemmaRMSNorm's output: 100.0%
    #> Gemma's JAX, bfloat16 w      equals GemmaRMSNorm's output: 56.8%
    #> Gemma's JAX, float32 w, cast equals GemmaRMSNorm's output: 63.4%

# The three that match, over a batch of 8192 more rows compiled by jax.jit: XLA computes
# the statistic its own way, so a rare element rounds otherwise than in GemmaRMSNorm
# (how many can change with the CPU).
many = (3 * torch.randn(8192, n, generator=generator)).to(torch.bfloat16)
with torch.no_grad():
    expected = gemma(many)
many_jax = jnp.asarray(many.float().numpy(), dtype=jnp.bfloat16)
params = {"params": {"scale": scale}}
recipes = {
    "flax.linen, dtype=bfloat16": lambda x: linen_norm.apply(params, x),
    "flax.nnx, scale not promoted": lambda x: nnx_kept(x),
    "flax.nnx, float32 out, cast": lambda x: nnx_float32(x).astype(jnp.bfloat16),
}
for name, recipe in recipes.items():
    y = torch.tensor(np.array(jax.jit(recipe)(many_jax), dtype=np.float32))
    same = y.to(torch.bfloat16) == expected
    share, every = same.float().mean(), bool(same.all())
    print(f"{name:<28} equal in {share:.1%}, in every element: {every}")
    #> flax.linen, dtype=bfloat16   equal in 100.0%, in every element: False
    #> flax.nnx, scale not promoted equal in 100.0%, in every element: False
    #> flax.nnx, float32 out, cast  equal in 100.0%, in every element: False
