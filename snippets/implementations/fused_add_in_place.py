"""The inference engines' fused add and norm, in place, and the add then the norm."""

import numbers

import torch

from snippets.implementations.variants import rms_norm_llama
from snippets.numerics.conventions import ulps

def overlap(a, b):
    """Whether two tensors of one dtype share an element's memory: views side by side in
    one buffer do not."""
    if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr():
        return False
    # Mark a's elements in a map of the buffer, then look for b's among them.
    elements = a.untyped_storage().nbytes() // a.element_size()
    used = torch.zeros(elements, dtype=torch.bool)
    used.as_strided(a.shape, a.stride(), a.storage_offset()).fill_(True)
    return bool(used.as_strided(b.shape, b.stride(), b.storage_offset()).any())

def fused_add_rms_norm_(x, residual, weight, eps=1e-6):
    """As vLLM's fused_add_rms_norm(input, residual, weight, epsilon) does: residual
    becomes x + residual (rounded to its dtype), then x becomes RMSNorm(residual),
    both written in place. Returns nothing."""
    if x.shape != residual.shape or weight.shape != x.shape[-1:]:  # before any write
        raise ValueError(
            f"expected x and residual of one shape and weight of their last dimension;"
            f" got x {tuple(x.shape)}, residual {tuple(residual.shape)},"
            f" weight {tuple(weight.shape)}"
        )
    if not x.dtype == residual.dtype == weight.dtype:  # vLLM's kernel takes one dtype
        raise TypeError(
            f"expected x, residual and weight of one dtype; got {x.dtype},"
            f" {residual.dtype} and {weight.dtype}"
        )
    if not x.is_floating_point():
        raise TypeError(f"expected a floating-point dtype; got {x.dtype}")
    if overlap(x, residual):  # writing one would change the other
        raise ValueError("expected x and residual in separate memory; they overlap")
    # eps 0 turns zero rows into NaN, and eps is added in float32, where 1e-50 is 0;
    # True is an int to Python, not a number here
    float32 = torch.finfo(torch.float32)
    real = isinstance(eps, numbers.Real) and not isinstance(eps, bool)
    if not (real and float32.tiny <= eps <= float32.max):
        raise ValueError(f"expected eps to be a normal float32 number > 0; got {eps!r}")
    residual.add_(x)
    x.copy_(rms_norm_llama(residual, weight, eps))

torch.manual_seed(0)
n = 4096
x = torch.randn(64, n).to(torch.bfloat16)  # a sublayer's output
stream = (4 * torch.randn(64, n)).to(torch.bfloat16)  # the residual stream
weight = (1 + 0.1 * torch.randn(n)).to(torch.bfloat16)

# Unfused: a new tensor for the sum, another for the norm's output.
h = x + stream
y = rms_norm_llama(h, weight)

x_in, stream_in = x.clone(), stream.clone()  # the caller's tensors
fused_add_rms_norm_(x_in, stream_in, weight)
print(f"residual now holds x + residual: {torch.equal(stream_in, h)}")
#> residual now holds x + residual: True
print(f"x now holds the norm's output:   {torch.equal(x_in, y)}")
#> x now holds the norm's output:   True
print(f"x as it was before the call:     {torch.equal(x_in, x)}")
#> x as it was before the call:     False

# vLLM's forward_native (its PyTorch path) and FlashInfer's kernels add in float32 and
# normalize that unrounded sum; only the residual they store is rounded to bfloat16.
total = x.float() + stream.float()
normalized = total * torch.rsqrt(total.pow(2).mean(-1, keepdim=True) + 1e-6)
native = normalized.to(x.dtype) * weight  # x_hat rounded, then times the weight
flashinfer = (normalized * weight.float()).to(x.dtype)  # the weight in float32
paths = {"vLLM's forward_native": native, "FlashInfer's kernels": flashinfer}
for name, out in paths.items():
    distance = ulps(out, y)  # in bfloat16 steps
    share, most = (distance > 0).float().mean(), distance.max()
    print(f"as {name}: {share:.1%} of outputs differ, by up to {most} ulps")
    #> as vLLM's forward_native: 20.9% of outputs differ, by up to 2 ulps
    #> as FlashInfer's kernels: 33.8% of outputs differ, by up to 2 ulps
