import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import torch
import torch.nn.functional as F

from snippets.kernel_in_practice.bfloat16 import bfloat16_rounded

n = 512

def rms_norm(x):
    """Haiku builds its modules inside a transformed function; axis has no default."""
    norm = hk.RMSNorm(axis=-1)
    return norm(x), norm.eps

norm = hk.without_apply_rng(hk.transform(rms_norm))
params = norm.init(None, jnp.ones((1, n)))
eps = norm.apply(params, jnp.ones((1, n)))[1]
print("eps:", eps, "| scale all ones:", bool(jnp.all(params["rms_norm"]["scale"] == 1)))
#> eps: 1e-05 | scale all ones: True

# eps inside the root: a row of 1e-3 has a mean square of 1e-6, a tenth of eps.
row = norm.apply(params, jnp.full((1, n), 1e-3))[0][0, 0].item()
inside, outside = 1e-3 / (1e-6 + 1e-5) ** 0.5, 1e-3 / (1e-3 + 1e-5)
print(f"row of 1e-3 -> {row:.4f} (eps inside: {inside:.4f}, outside: {outside:.4f})")
#> row of 1e-3 -> 0.3015 (eps inside: 0.3015, outside: 0.9901)

# A PyTorch weight loaded as scale, and the same eps.
generator = torch.Generator().manual_seed(0)
x = 3 * torch.randn(64, n, generator=generator)
weight = torch.rand(n, generator=generator) + 0.5
params = {"rms_norm": {"scale": jnp.asarray(weight.numpy())}}
haiku_y = np.array(norm.apply(params, jnp.asarray(x.numpy()))[0])
torch_y = F.rms_norm(x, (n,), weight, eps=1e-5).numpy()
# The difference in units in the last place (ulps).
ulps = np.abs(haiku_y - torch_y) / np.spacing(np.abs(torch_y))
# The exact count can differ from one CPU to another, so the check is a tolerance.
within = bool(ulps.max() <= 16)
print("float32: within 16 units in the last place of F.rms_norm:", within)
#> float32: within 16 units in the last place of F.rms_norm: True

# Haiku computes the statistic in the input's dtype and creates the scale in the dtype
# of the input it is initialized with; the products take the dtype JAX promotes to.
x16 = x.to(torch.bfloat16)
x16_jax = jnp.asarray(x16.float().numpy()).astype(jnp.bfloat16)
print(
    "scale from a bfloat16 input:", norm.init(None, x16_jax)["rms_norm"]["scale"].dtype
)
#> scale from a bfloat16 input: bfloat16
print("bfloat16 input, float32 scale ->", norm.apply(params, x16_jax)[0].dtype)
#> bfloat16 input, float32 scale -> float32

# The share of its outputs, run op by op and compiled with jax.jit (XLA fuses the steps),
# that equal the exact value rounded once, and every step rounded to bfloat16: x * x, the
# mean (JAX sums in float32, then rounds), plus eps, the root, x * scale, the product.
weight16 = weight.to(torch.bfloat16)
scale16 = jnp.asarray(weight16.float().numpy()).astype(jnp.bfloat16)
params16 = {"rms_norm": {"scale": scale16}}
exact = bfloat16_rounded(F.rms_norm(x16.double(), (n,), weight16.double(), eps=1e-5))
mean_square = (x16 * x16).float().mean(-1, keepdim=True).to(torch.bfloat16)
every_step = (x16 * weight16) * torch.rsqrt(mean_square + 1e-5)
for how, apply in [("op by op", norm.apply), ("jax.jit", jax.jit(norm.apply))]:
    y16 = apply(params16, x16_jax)[0]
    haiku16 = torch.tensor(np.array(y16.astype(jnp.float32))).to(torch.bfloat16)
    once = (haiku16 == exact).float().mean()
    steps = (haiku16 == every_step).float().mean()
    print(f"{how:<8} -> {y16.dtype}: rounded once {once:.1%}, every step {steps:.1%}")
    #> op by op -> bfloat16: rounded once 62.6%, every step 100.0%
    #> jax.jit  -> bfloat16: rounded once 62.7%, every step 97.0%
