import jax
import jax.numpy as jnp
import numpy as np
import torch
from flax import nnx
from transformers.models.llama.modeling_llama import LlamaRMSNorm

def llama_rms_norm(x, weight, eps):
    """transformers' LlamaRMSNorm in JAX: normalize in float32, round to x's dtype, then
    multiply by the weight (rounding again)."""
    h = x.astype(jnp.float32)
    h = h * jax.lax.rsqrt(jnp.mean(h * h, axis=-1, keepdims=True) + eps)
    # A fusion may keep float32 where the code rounds (XLA's "excess precision"):
    # reduce_precision makes the rounding to x's dtype happen on every device.
    finfo = jnp.finfo(x.dtype)
    h = jax.lax.reduce_precision(h, finfo.nexp, finfo.nmant)
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
