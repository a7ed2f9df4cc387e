import os

os.environ["KERAS_BACKEND"] = "jax"  # before Keras is imported

import haiku as hk
import jax
import jax.numpy as jnp
import keras
import mlx.core as mx
import numpy as np
import torch
import torch.nn.functional as F
from flax import linen, nnx

n, eps = 512, 1e-6
generator = torch.Generator().manual_seed(0)
x = 3 * torch.randn(64, n, generator=generator)
weight = torch.rand(n, generator=generator) + 0.5
upstream = torch.randn(64, n, generator=generator)  # the gradient arriving at y

# PyTorch's gradients of sum(y * upstream), the reference.
x_torch, w_torch = x.clone().requires_grad_(), weight.clone().requires_grad_()
(F.rms_norm(x_torch, (n,), w_torch, eps=eps) * upstream).sum().backward()
expected = (x_torch.grad.numpy(), w_torch.grad.numpy())

def nnx_norm(x_, scale):
    norm = nnx.RMSNorm(n, epsilon=eps, rngs=nnx.Rngs(0))
    norm.scale[...] = scale
    return norm(x_)

def haiku_norm(x_, scale):
    apply = hk.without_apply_rng(hk.transform(lambda x_: hk.RMSNorm(-1, eps=eps)(x_)))
    return apply.apply({"rms_norm": {"scale": scale}}, x_)

norms = {  # each f(x, gain) -> y in JAX
    "flax.nnx": nnx_norm,
    "flax.linen": lambda x_, s: linen.RMSNorm(eps).apply({"params": {"scale": s}}, x_),
    "Keras op": lambda x_, s: keras.ops.rms_normalization(x_, s, epsilon=eps),
    "Haiku": haiku_norm,
}

def jax_grads(norm):
    loss = lambda x_, s: (norm(x_, s) * jnp.asarray(upstream.numpy())).sum()
    return jax.grad(loss, argnums=(0, 1))(jnp.asarray(x.numpy()), weight.numpy())

def mlx_grads():
    def loss(x_, w_):
        return (mx.fast.rms_norm(x_, w_, eps) * mx.array(upstream.numpy())).sum()

    return mx.grad(loss, argnums=(0, 1))(mx.array(x.numpy()), mx.array(weight.numpy()))

# Each gradient's largest difference from PyTorch's, over PyTorch's largest entry (the
# exact figure changes from one CPU to another, so the check is a tolerance).
grads = {name: jax_grads(norm) for name, norm in norms.items()} | {"MLX": mlx_grads()}
for name, (dx, dw) in grads.items():
    errors = [
        np.abs(np.asarray(ours) - theirs).max() / np.abs(theirs).max()
        for ours, theirs in zip((dx, dw), expected)
    ]
    close = max(errors) < 1e-6
    print(f"{name:<10} gradients within 1e-6 of PyTorch's largest entry: {close}")
    #> flax.nnx   gradients within 1e-6 of PyTorch's largest entry: True
    #> flax.linen gradients within 1e-6 of PyTorch's largest entry: True
    #> Keras op   gradients within 1e-6 of PyTorch's largest entry: True
    #> Haiku      gradients within 1e-6 of PyTorch's largest entry: True
    #> MLX        gradients within 1e-6 of PyTorch's largest entry: True
