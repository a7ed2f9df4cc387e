import jax
import jax.numpy as jnp
import numpy as np
import torch
from flax import nnx
from transformers.models.llama.modeling_llama import LlamaRMSNorm

def llama_rms_norm(x, weight, eps, guard=True):
    """transformers' LlamaRMSNorm in JAX: normalize in float32, round to x's dtype, then
    multiply by the weight (rounding again)."""
    h = x.astype(jnp.float32)
    h = h * jax.lax.rsqrt(jnp.mean(h * h, axis=-1, keepdims=True) + eps)
    # A fusion may keep float32 where the cast below rounds (XLA's "excess precision"):
    # reduce_precision rounds h to bfloat16 itself, and a compiled batch keeps that (the
    # last table below). Not in float16: it flushes values below its smallest normal.
    if guard and x.dtype == jnp.bfloat16:
        h = jax.lax.reduce_precision(h, exponent_bits=8, mantissa_bits=7)
    return weight * h.astype(x.dtype)

def to_jax(t):  # NumPy has no bfloat16: through float32, which is exact
    return jnp.asarray(t.float().numpy(), dtype=jnp.bfloat16)

def to_torch(y):
    return torch.tensor(np.array(y, dtype=np.float32)).to(torch.bfloat16)

n, eps = 512, 1e-5
generator = torch.Generator().manual_seed(0)
x = (3 * torch.randn(64, n, generator=generator)).to(torch.bfloat16)
weight = (torch.rand(n, generator=generator) + 0.5).to(torch.bfloat16)
llama = LlamaRMSNorm(n, eps=eps).to(torch.bfloat16)
with torch.no_grad():
    llama.weight.copy_(weight)
    expected = llama(x)

flax_norm = nnx.RMSNorm(n, epsilon=eps, dtype=jnp.bfloat16, rngs=nnx.Rngs(0))
flax_norm.scale[...] = to_jax(weight)
outputs = {
    "flax.nnx, bfloat16": flax_norm(to_jax(x)),
    "LLaMA's order, jitted": jax.jit(llama_rms_norm)(to_jax(x), to_jax(weight), eps),
}
for name, y in outputs.items():
    same = (to_torch(y) == expected).float().mean()
    print(f"{name:<22} equals LlamaRMSNorm's bfloat16 output: {same:.1%}")
    #> flax.nnx, bfloat16     equals LlamaRMSNorm's bfloat16 output: 74.1%
    #> LLaMA's order, jitted  equals LlamaRMSNorm's bfloat16 output: 100.0%

# A batch of 8192 rows, compiled: without the guard the compiled code skips the
# rounding of x̂, as the last column shows (the share equal to the weight times x̂ never
# rounded, rounded once). With it, a rare element still rounds otherwise: XLA computes
# the statistic its own way (how many can change with the CPU).
many = (3 * torch.randn(8192, n, generator=generator)).to(torch.bfloat16)
with torch.no_grad():
    expected = llama(many)
h = many.float()
x_hat = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
never_rounded = (weight.float() * x_hat).to(torch.bfloat16)
compiled = jax.jit(llama_rms_norm, static_argnames="guard")
table = ["8192 rows, jitted | equals LlamaRMSNorm's | in every element | x̂ unrounded"]
for name, guard in [("reduce_precision", True), ("without it", False)]:
    y = to_torch(compiled(to_jax(many), to_jax(weight), eps, guard=guard))
    same = y == expected
    share, every = same.float().mean(), str(bool(same.all()))
    unrounded = (y == never_rounded).float().mean()
    table.append(f"{name:<17} | {share:>21.1%} | {every:<16} | {unrounded:.1%}")
print("\n".join(table))
"""
8192 rows, jitted | equals LlamaRMSNorm's | in every element | x̂ unrounded
reduce_precision  |                100.0% | False            | 74.0%
without it        |                 74.0% | False            | 100.0%
"""

# In float16, reduce_precision flushes a subnormal value that a cast keeps.
small = jnp.float32(3e-5)
flushed = jax.lax.reduce_precision(small, exponent_bits=5, mantissa_bits=10)
cast = small.astype(jnp.float16)
print(f"3e-05 in float16: cast {cast:.3g}, reduce_precision {flushed:g}")
#> 3e-05 in float16: cast 3e-05, reduce_precision 0
