"""One gain, two ways to store it: the gain itself, or the gain minus one."""

import torch

from snippets.implementations.variants import rms_norm_gemma, rms_norm_llama

torch.manual_seed(0)
n = 64
x = torch.randn(8, n)
gain = 0.5 + torch.rand(n)  # a gain as LLaMA's weight stores it, in [0.5, 1.5)

# Zero-centred: Gemma's (1 + weight) and Transformer Engine's zero_centered_gamma
# store w = gain - 1 (exact in float32 for a gain in [0.5, 2]) and scale by 1 + w.
w = gain - 1
print(f"1 + (gain - 1) == gain: {torch.equal(1 + w, gain)}")
#> 1 + (gain - 1) == gain: True
same = torch.equal(rms_norm_llama(x, gain), rms_norm_gemma(x, w))
print(f"same output, float32:   {same}")
#> same output, float32:   True

# A new zero-centred norm stores zeros: a gain of 1, as a new LLaMA norm's ones.
fresh = rms_norm_gemma(x, torch.zeros(n))
same = torch.equal(fresh, rms_norm_llama(x, torch.ones(n)))
print(f"zeros act as ones:      {same}")
#> zeros act as ones:      True
