import jax
import jax.numpy as jnp
import numpy as np
import torch
import torch.nn.functional as F
from flax import linen, nnx

from snippets.kernel_in_practice.bfloat16 import bfloat16_rounded

n = 512
norm = nnx.RMSNorm(n, rngs=nnx.Rngs(0))
gain_is_ones = bool((norm.scale[...] == 1).all())
print("eps:", norm.epsilon, "| gain named scale, all ones:", gain_is_ones)
#> eps: 1e-06 | gain named scale, all ones: True

# eps inside the root: a row of 1e-3 has a mean square of 1e-6, as large as eps.
row = float(norm(jnp.full((1, n), 1e-3))[0, 0])
inside, outside = 1e-3 / (1e-6 + 1e-6) ** 0.5, 1e-3 / (1e-3 + 1e-6)
print(f"row of 1e-3 -> {row:.4f} (eps inside: {inside:.4f}, outside: {outside:.4f})")
#> row of 1e-3 -> 0.7071 (eps inside: 0.7071, outside: 0.9990)

# A gain from a PyTorch checkpoint: its weight becomes Flax's scale.
generator = torch.Generator().manual_seed(0)
x = 3 * torch.randn(64, n, generator=generator)
weight = torch.rand(n, generator=generator) + 0.5
norm.scale[...] = jnp.asarray(weight.numpy())
flax_y = np.asarray(norm(jnp.asarray(x.numpy())))
torch_y = F.rms_norm(x, (n,), weight, eps=1e-6).numpy()
ulps = np.abs(flax_y - torch_y) / np.spacing(np.abs(torch_y))  # units in the last place
# The exact count can differ from one CPU to another, so the check is a tolerance.
within = bool(ulps.max() <= 16)
print("float32: within 16 units in the last place of F.rms_norm:", within)
#> float32: within 16 units in the last place of F.rms_norm: True

# A row's bits depend on its batch's shape: XLA compiles each shape on its own, whether
# JAX runs the norm op by op or jax.jit compiles it whole.
jitted = jax.jit(lambda rows: norm(rows))
for name, run in [("op by op", norm), ("jitted", jitted)]:
    among = np.asarray(run(jnp.asarray(x.repeat(64, 1).numpy())))[:64]  # 4096 rows
    alone = np.concatenate([np.asarray(run(jnp.asarray(r[None].numpy()))) for r in x])
    print(
        f"{name}, rows alone and among 4096, same bits:", bool((alone == among).all())
    )
    #> op by op, rows alone and among 4096, same bits: False
    #> jitted, rows alone and among 4096, same bits: False

# flax.linen's RMSNorm, given the same scale, computes the same.
params = {"params": {"scale": jnp.asarray(weight.numpy())}}
linen_y = np.asarray(linen.RMSNorm().apply(params, jnp.asarray(x.numpy())))
print("flax.linen gives the same output:", bool((linen_y == flax_y).all()))
#> flax.linen gives the same output: True

# bfloat16 in: without dtype, the output takes the type promoted with the float32 scale.
x16 = x.to(torch.bfloat16)
x16_jax = jnp.asarray(x16.float().numpy(), dtype=jnp.bfloat16)
print("bfloat16 in, dtype=None ->", norm(x16_jax).dtype)
#> bfloat16 in, dtype=None -> float32
norm16 = nnx.RMSNorm(n, dtype=jnp.bfloat16, rngs=nnx.Rngs(0))
norm16.scale[...] = jnp.asarray(weight.numpy())
y16 = norm16(x16_jax)
print("dtype=jnp.bfloat16 ->", y16.dtype)
#> dtype=jnp.bfloat16 -> bfloat16
# A checkpoint's bfloat16 gain, assigned, takes the parameter's dtype: param_dtype's.
scale16 = jnp.asarray(weight.numpy()).astype(jnp.bfloat16)
kept = []
for param_dtype in [jnp.float32, jnp.bfloat16]:
    loaded = nnx.RMSNorm(n, param_dtype=param_dtype, rngs=nnx.Rngs(0))
    loaded.scale[...] = scale16
    kept.append(f"{jnp.dtype(param_dtype).name} -> {loaded.scale[...].dtype}")
print("a bfloat16 scale assigned, by param_dtype:", ", ".join(kept))
#> a bfloat16 scale assigned, by param_dtype: float32 -> float32, bfloat16 -> bfloat16

def as_torch(y):
    return torch.tensor(np.array(y, dtype=np.float32)).to(torch.bfloat16)

def exact(gain):
    """The float64 value of the bfloat16 inputs and this gain, rounded once."""
    return bfloat16_rounded(F.rms_norm(x16.double(), (n,), gain.double(), eps=1e-6))

# flax.nnx rounds the float32 scale to bfloat16 first (so F.rms_norm gets a bfloat16
# weight here); flax.linen multiplies by the float32 scale and rounds only the output.
weight16 = weight.to(torch.bfloat16)
outputs = {
    "flax.nnx": (as_torch(y16), weight16),
    "F.rms_norm": (F.rms_norm(x16, (n,), weight16, eps=1e-6), weight16),
    "flax.linen": (
        as_torch(linen.RMSNorm(dtype=jnp.bfloat16).apply(params, x16_jax)),
        weight,
    ),
}
for name, (y, gain) in outputs.items():
    same = (y == exact(gain)).float().mean()
    gain_dtype = str(gain.dtype)[6:]  # torch.float32 -> float32
    print(
        f"{name:<10} equals the exact value ({gain_dtype} gain) rounded once: {same:.1%}"
    )
    #> flax.nnx   equals the exact value (bfloat16 gain) rounded once: 100.0%
    #> F.rms_norm equals the exact value (bfloat16 gain) rounded once: 100.0%
    #> flax.linen equals the exact value (float32 gain) rounded once: 100.0%
linen_nnx = (outputs["flax.linen"][0] == outputs["flax.nnx"][0]).float().mean()
print(f"flax.linen and flax.nnx agree on {linen_nnx:.1%} of the elements")
#> flax.linen and flax.nnx agree on 72.8% of the elements
