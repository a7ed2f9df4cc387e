import os
import warnings

# Keras 3 picks its backend when it is imported; on "torch" this layer calls F.rms_norm.
os.environ["KERAS_BACKEND"] = "jax"

import keras
import numpy as np
import torch
import torch.nn.functional as F

from snippets.kernel_in_practice.bfloat16 import bfloat16_rounded

n = 512
norm = keras.layers.RMSNormalization()
norm.build((None, n))
scale = np.asarray(norm.scale.value)
print("eps:", norm.epsilon, "| scale all ones:", bool(np.all(scale == 1)))
#> eps: 1e-06 | scale all ones: True
print("keras.ops.rms_normalization's default eps:", keras.config.epsilon())
#> keras.ops.rms_normalization's default eps: 1e-07

# eps inside the root: a row of 1e-3 has a mean square of 1e-6, as large as eps.
row = keras.ops.convert_to_numpy(norm(np.full((1, n), 1e-3, "float32")))[0, 0]
inside, outside = 1e-3 / (1e-6 + 1e-6) ** 0.5, 1e-3 / (1e-3 + 1e-6)
print(f"row of 1e-3 -> {row:.4f} (eps inside: {inside:.4f}, outside: {outside:.4f})")
#> row of 1e-3 -> 0.7071 (eps inside: 0.7071, outside: 0.9990)

# A PyTorch weight loaded as scale, float32.
generator = torch.Generator().manual_seed(0)
x = 3 * torch.randn(64, n, generator=generator)
weight = torch.rand(n, generator=generator) + 0.5
norm.scale.assign(weight.numpy())
keras_y = keras.ops.convert_to_numpy(norm(x.numpy()))
torch_y = F.rms_norm(x, (n,), weight, eps=1e-6).numpy()
# Differences in units in the last place (the float32 spacing at each value).
ulps = np.abs(keras_y - torch_y) / np.spacing(np.abs(torch_y))
# The exact count can differ from one CPU to another, so the check is a tolerance.
within = bool(ulps.max() <= 16)
print("float32: within 16 units in the last place of F.rms_norm:", within)
#> float32: within 16 units in the last place of F.rms_norm: True

# bfloat16 in, under the default policy (float32): the layer casts the input to float32.
x16 = x.to(torch.bfloat16)
print("bfloat16 in ->", norm(keras.ops.cast(x16.float().numpy(), "bfloat16")).dtype)
#> bfloat16 in -> float32

# The "mixed_bfloat16" policy keeps scale in float32 with bfloat16 as the compute dtype: a
# call sees scale rounded to bfloat16, and the op computes in float32 and rounds once.
mixed = keras.layers.RMSNormalization(dtype="mixed_bfloat16")
mixed.build((None, n))
mixed.scale.assign(weight.numpy())
y16 = mixed(x16.float().numpy())
print("mixed_bfloat16 ->", y16.dtype, "| scale stored as", mixed.scale.dtype)
#> mixed_bfloat16 -> bfloat16 | scale stored as float32
y16 = torch.tensor(keras.ops.convert_to_numpy(keras.ops.cast(y16, "float32")))
for name, gain in [("bfloat16", weight.to(torch.bfloat16)), ("float32", weight)]:
    exact = bfloat16_rounded(F.rms_norm(x16.double(), (n,), gain.double(), eps=1e-6))
    share = (y16 == exact).float().mean()
    print(f"{name} gain: equals the exact value rounded once in {share:.1%}")
    #> bfloat16 gain: equals the exact value rounded once in 100.0%
    #> float32 gain: equals the exact value rounded once in 72.8%

# Another layer, not this norm: LayerNormalization(rms_scaling=True) divides x, not
# centred, by its standard deviation (the mean is not removed), and names its gain gamma.
shifted = x + 2  # rows whose mean is about 2, as a residual stream's can be
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    trap = keras.layers.LayerNormalization(rms_scaling=True, epsilon=1e-6)
    trap.build((None, n))
    trap_y = keras.ops.convert_to_numpy(trap(shifted.numpy()))
print("warns it is deprecated:", any("deprecated" in str(w.message) for w in caught))
#> warns it is deprecated: True
print("its gain:", [variable.name for variable in trap.weights])
#> its gain: ['gamma']
print("its default epsilon:", keras.layers.LayerNormalization().epsilon)
#> its default epsilon: 0.001
gap = np.abs(trap_y - F.rms_norm(shifted, (n,), eps=1e-6).numpy()).max()
print(f"rows of mean 2: up to {gap:.2f} from F.rms_norm")
#> rows of mean 2: up to 0.88 from F.rms_norm
by_std = shifted / (shifted.var(-1, correction=0, keepdim=True) + 1e-6).sqrt()
print("x / its standard deviation:", np.allclose(trap_y, by_std.numpy(), atol=1e-5))
#> x / its standard deviation: True
