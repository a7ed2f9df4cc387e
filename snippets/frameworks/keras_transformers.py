import os

os.environ["KERAS_BACKEND"] = "jax"  # before Keras is imported

import jax
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
        if x.dtype == "bfloat16":  # rounded here, so that a compiled batch keeps it
            h = jax.lax.reduce_precision(h, exponent_bits=8, mantissa_bits=7)
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
llama_layers = {}
for policy in ["float32", "bfloat16", "mixed_bfloat16"]:
    norm = llama_layers[policy] = LlamaOrderRMSNorm(eps, dtype=policy)
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

# The three that match, over a batch of 8192 more rows through a model's predict, which
# compiles it on JAX: XLA computes the statistic its own way, so a rare element rounds
# otherwise than in transformers (how many can change with the CPU).
many = (3 * torch.randn(8192, n, generator=generator)).to(torch.bfloat16)
with torch.no_grad():
    expected = [llama(many)] * 2 + [gemma(many)]
inputs = keras.Input((n,), dtype="bfloat16")
outputs = [
    llama_layers["bfloat16"](inputs),
    llama_layers["mixed_bfloat16"](inputs),
    keras.ops.cast(norm(inputs), "bfloat16"),
]
outputs = [keras.ops.cast(y, "float32") for y in outputs]  # exact, for NumPy
model = keras.Model(inputs, outputs)
predicted = model.predict(to_keras(many), batch_size=8192, verbose=0)
names = ["LLaMA's, bfloat16", "LLaMA's, mixed_bfloat16", "Gemma's, float32, cast"]
for name, y, module_output in zip(names, predicted, expected):
    same = torch.tensor(y).to(torch.bfloat16) == module_output
    share, every = same.float().mean(), bool(same.all())
    print(f"{name:<23} equal in {share:.1%}, in every element: {every}")
    #> LLaMA's, bfloat16       equal in 100.0%, in every element: False
    #> LLaMA's, mixed_bfloat16 equal in 100.0%, in every element: False
    #> Gemma's, float32, cast  equal in 100.0%, in every element: False
