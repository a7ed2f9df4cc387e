import jax
import jax.numpy as jnp
import numpy as np
import torch
from transformers.models.llama.modeling_llama import LlamaRMSNorm

def llama_rms_norm(x, weight, eps):
    """The port: transformers' LlamaRMSNorm in JAX (the order of the block above)."""
    h = x.astype(jnp.float32)
    h = h * jax.lax.rsqrt(jnp.mean(h * h, axis=-1, keepdims=True) + eps)
    return weight * h.astype(x.dtype)

# JAX computes float64 as float32 unless jax_enable_x64 is set.
JAX_DTYPES = {torch.float32: jnp.float32, torch.float64: jnp.float32,
              torch.bfloat16: jnp.bfloat16, torch.float16: jnp.float16}  # fmt: skip
TORCH_DTYPES = {jnp.dtype(jnp.float32): torch.float32,
                jnp.dtype(jnp.bfloat16): torch.bfloat16,
                jnp.dtype(jnp.float16): torch.float16}  # fmt: skip

def to_jax(t):
    # NumPy has no bfloat16: through float32, which holds every bfloat16 and float16 value.
    return jnp.asarray(t.detach().cpu().float().numpy(), dtype=JAX_DTYPES[t.dtype])

def norm(x, weight, eps=1e-6):
    """The port as a function of PyTorch tensors, the form the checker takes: the data
    goes in, the output comes back in the dtype JAX gave it (no autograd through it)."""
    y = llama_rms_norm(to_jax(x), to_jax(weight), eps)
    out = torch.from_numpy(np.array(y.astype(jnp.float32)))  # a copy: writable
    return out.to(device=x.device, dtype=TORCH_DTYPES[y.dtype])

n = 512
generator = torch.Generator().manual_seed(0)
x = (3 * torch.randn(64, n, generator=generator)).to(torch.bfloat16)
lines = []
for weight_dtype in (torch.bfloat16, torch.float32):
    llama = LlamaRMSNorm(n, eps=1e-6).to(weight_dtype)
    with torch.no_grad():
        llama.weight.uniform_(0.5, 1.5, generator=generator)
        expected, got = llama(x), norm(x, llama.weight)
    same = (got == expected).float().mean()
    lines.append(
        f"{weight_dtype} weight: out {got.dtype}, as LlamaRMSNorm's: {same:.1%}"
    )
print("\n".join(lines))
"""
torch.bfloat16 weight: out torch.bfloat16, as LlamaRMSNorm's: 100.0%
torch.float32 weight: out torch.float32, as LlamaRMSNorm's: 100.0%
"""
