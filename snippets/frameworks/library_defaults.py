import os

os.environ["KERAS_BACKEND"] = "jax"  # read when keras is imported

import haiku as hk
import jax
import jax.numpy as jnp
import keras
import mlx.nn
import numpy as np
import torch
from flax import linen, nnx
from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
from transformers.models.llama.modeling_llama import LlamaRMSNorm

n = 8

def start(gain):
    """What a freshly built gain holds."""
    if isinstance(gain, torch.Tensor):
        gain = gain.detach()
    gain = np.asarray(gain, dtype=np.float32)
    return "ones" if np.all(gain == 1) else "zeros" if np.all(gain == 0) else "other"

def haiku_norm(x):
    """Haiku builds its modules inside a transformed function: read them there."""
    norm = hk.RMSNorm(axis=-1)
    return norm(x), norm.eps

torch_norm, llama, gemma = torch.nn.RMSNorm(n), LlamaRMSNorm(n), GemmaRMSNorm(n)
flax_nnx = nnx.RMSNorm(n, rngs=nnx.Rngs(0))
flax_linen = linen.RMSNorm()
linen_scale = flax_linen.init(jax.random.key(0), jnp.ones((1, n)))["params"]["scale"]
mlx_norm = mlx.nn.RMSNorm(n)
keras_norm = keras.layers.RMSNormalization()
keras_norm.build((None, n))
keras_scale = keras_norm.scale.value
haiku = hk.without_apply_rng(hk.transform(haiku_norm))
haiku_params = haiku.init(None, jnp.ones((1, n)))
haiku_eps = haiku.apply(haiku_params, jnp.ones((1, n)))[1]
# name: (default eps, the gain's name, the gain as built)
rows = {
    "torch.nn.RMSNorm": (torch_norm.eps, "weight", torch_norm.weight),
    "LlamaRMSNorm (transformers)": (llama.variance_epsilon, "weight", llama.weight),
    "GemmaRMSNorm (transformers)": (gemma.eps, "weight", gemma.weight),
    "flax.nnx.RMSNorm": (flax_nnx.epsilon, "scale", flax_nnx.scale[...]),
    "flax.linen.RMSNorm": (flax_linen.epsilon, "scale", linen_scale),
    "haiku.RMSNorm": (haiku_eps, "scale", haiku_params["rms_norm"]["scale"]),
    "mlx.nn.RMSNorm": (mlx_norm.eps, "weight", mlx_norm.weight),
    "keras.layers.RMSNormalization": (keras_norm.epsilon, "scale", keras_scale),
}
table = [f"{'':30} {'default eps':<12} {'gain':<7} starts at"]
for name, (eps, gain_name, gain) in rows.items():
    table.append(f"{name:<30} {eps!s:<12} {gain_name:<7} {start(gain)}")
print("\n".join(table))
"""
                               default eps  gain    starts at
torch.nn.RMSNorm               None         weight  ones
LlamaRMSNorm (transformers)    1e-06        weight  ones
GemmaRMSNorm (transformers)    1e-06        weight  zeros
flax.nnx.RMSNorm               1e-06        scale   ones
flax.linen.RMSNorm             1e-06        scale   ones
haiku.RMSNorm                  1e-05        scale   ones
mlx.nn.RMSNorm                 1e-05        weight  ones
keras.layers.RMSNormalization  1e-06        scale   ones
"""
print("keras.ops.rms_normalization's default eps:", keras.config.epsilon())
#> keras.ops.rms_normalization's default eps: 1e-07
# torch's None means the machine epsilon of the type it computes in: float32's for
# float32, bfloat16 and float16 inputs.
print(f"torch's None in float32: {torch.finfo(torch.float32).eps:.3g}")
#> torch's None in float32: 1.19e-07
