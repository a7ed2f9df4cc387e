import os

os.environ["KERAS_BACKEND"] = "jax"  # before Keras is imported

import keras
import torch
from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
from transformers.models.llama.modeling_llama import LlamaRMSNorm

class LlamaOrderRMSNorm(keras.layers.Layer):
    """transformers' LlamaRMSNorm as a Keras layer: normalize in float32, round to the
    input's dtype, then multiply by the gain (rounding again)."""

    def __init__(self, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.epsilon = epsilon

    def build(self, input_shape):
        self.scale = self.add_weight(shape=input_shape[-1:], initializer="ones")

    def call(self, x):  # x arrives in the policy's compute dtype
        h = keras.ops.cast(x, "float32")
        mean_square = keras.ops.mean(h * h, axis=-1, keepdims=True)
        h = h * keras.ops.rsqrt(mean_square + self.epsilon)
        return keras.ops.cast(h, x.dtype) * self.scale

def to_keras(t):  # NumPy has no bfloat16: through float32, which is exact
    return keras.ops.cast(t.float().numpy(), "bfloat16")

def to_torch(y):
    return torch.tensor(keras.ops.convert_to_numpy(keras.ops.cast(y, "float32")))

n, eps = 512, 1e-6
generator = torch.Generator().manual_seed(0)
x = (3 * torch.randn(64, n, generator=generator)).to(torch.bfloat16)
weight = (torch.rand(n, generator=generator) + 0.5).to(torch.bfloat16)
llama = LlamaRMSNorm(n, eps=eps).to(torch.bfloat16)
with torch.no_grad():
    llama.weight.copy_(weight)
    expected = llama(x)

# The float32 policy casts the input to float32 before call: x.dtype is float32 there,
# and the rounding between the two steps never happens.
for policy in ["float32", "bfloat16", "mixed_bfloat16"]:
    norm = LlamaOrderRMSNorm(eps, dtype=policy)
    norm.build((None, n))
    norm.scale.assign(weight.float().numpy())
    y = norm(to_keras(x))
    same = (to_torch(y).to(torch.bfloat16) == expected).float().mean()
    print(f"{policy:<14} -> {y.dtype}: equals LlamaRMSNorm's output in {same:.1%}")
    #> float32        -> float32: equals LlamaRMSNorm's output in 74.1%
    #> bfloat16       -> bfloat16: equals LlamaRMSNorm's output in 100.0%
    #> mixed_bfloat16 -> bfloat16: equals LlamaRMSNorm's output in 100.0%

# Gemma's 1 + w: added in float32 as GemmaRMSNorm adds it, the float32 policy, the
# output cast to bfloat16 once.
w = (0.1 * torch.randn(n, generator=generator)).to(torch.bfloat16)
gemma = GemmaRMSNorm(n, eps=eps).to(torch.bfloat16)
with torch.no_grad():
    gemma.weight.copy_(w)
    expected = gemma(x)
norm = keras.layers.RMSNormalization(epsilon=eps)
norm.build((None, n))
norm.scale.assign((1 + w.float()).numpy())
y = keras.ops.cast(norm(to_keras(x)), "bfloat16")
same = (to_torch(y).to(torch.bfloat16) == expected).float().mean()
print(f"1 + w in float32, output cast: equals GemmaRMSNorm's output in {same:.1%}")
#> 1 + w in float32, output cast: equals GemmaRMSNorm's output in 100.0%
