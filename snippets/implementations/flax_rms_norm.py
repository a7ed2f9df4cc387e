import jax.numpy as jnp
import numpy as np
import torch
import torch.nn.functional as F
from flax import linen, nnx

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
print(
    f"float32: differs from F.rms_norm by at most {ulps.max():.0f} units in the last place"
)
#> float32: differs from F.rms_norm by at most 5 units in the last place
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
flax16 = torch.tensor(np.array(y16, dtype=np.float32)).to(torch.bfloat16)
torch16 = F.rms_norm(x16, (n,), weight.to(torch.bfloat16), eps=1e-6)
# The float64 value of the same bfloat16 inputs, rounded once to bfloat16.
exact = F.rms_norm(x16.double(), (n,), weight.to(torch.bfloat16).double(), eps=1e-6)
exact = exact.to(torch.bfloat16)
print(f"dtype=jnp.bfloat16 -> {y16.dtype}")
#> dtype=jnp.bfloat16 -> bfloat16
for name, y in [("Flax", flax16), ("F.rms_norm", torch16)]:
    print(
        f"{name} equals the exact value rounded once: {(y == exact).float().mean():.1%}"
    )
    #> Flax equals the exact value rounded once: 100.0%
    #> F.rms_norm equals the exact value rounded once: 100.0%
