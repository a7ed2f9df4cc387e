import math

import numpy as np
import torch

# (a) Adam's 100 updates from 100 gradients, summed, and from the same gradients halved
# (the gradients at 2W of a scale-invariant W): the same, up to Adam's eps (1e-8).
torch.manual_seed(0)
gradients = torch.randn(100, 1000, dtype=torch.float64)

def adam_update(scale):
    p = torch.zeros(1000, dtype=torch.float64, requires_grad=True)
    adam = torch.optim.Adam([p], lr=1.0)
    for g in gradients:
        p.grad = scale * g
        adam.step()
    return p.detach()

full, halved = adam_update(1.0), adam_update(0.5)
change = ((halved - full).norm() / full.norm()).item()
print(f"gradients halved: the summed updates change by {change:.1e} of their length")
#> gradients halved: the summed updates change by 7.2e-08 of their length

# (b) LLaMA's settings (7B and 13B): peak lr 3e-4, weight decay 0.1, beta1 0.9.
lr, decay, beta1 = 3e-4, 0.1, 0.9
angle = math.sqrt(2 * lr * decay * (1 - beta1) / (1 + beta1))
print(f"equilibrium angle per step: {angle:.5f} rad, {math.degrees(angle):.3f} degrees")
#> equilibrium angle per step: 0.00178 rad, 0.102 degrees

# (c) N = |W|^2 follows N' = (1 - lr decay)^2 N + lr^2 s, s not depending on N: the gap to
# its fixed point shrinks by (1 - lr decay)^2 a step.
steps = -1 / (2 * math.log(1 - lr * decay))
print(f"steps for the gap to shrink to 1/e: {steps:.0f}")
#> steps for the gap to shrink to 1/e: 16666
print(f"1 / (2 lr decay) = {1 / (2 * lr * decay):.0f}")
#> 1 / (2 lr decay) = 16667
# The recursion itself, from N = 0 with s = 1 (s scales the fixed point, not the step).
shrink = (1 - lr * decay) ** 2
fixed = lr**2 / (1 - shrink)
norm_squared, step = 0.0, 0
while fixed - norm_squared > fixed / math.e:
    norm_squared, step = shrink * norm_squared + lr**2, step + 1
print(f"iterated from N = 0: the gap first falls to 1/e at step {step}")
#> iterated from N = 0: the gap first falls to 1/e at step 16667
print(f"steps in a trillion tokens at 4M tokens a batch: {1e12 / 4e6:.0f}")
#> steps in a trillion tokens at 4M tokens a batch: 250000

# (d) The recursion checked: AdamW (beta2 0.95, as LLaMA's) run on a W of 1000 entries
# whose gradients are random, orthogonal to W and scaled by 1 / |W|, as a norm after W
# makes them. Under the recursion, N k steps on is a N + b with a = (1 - lr decay)^(2k):
# a line fitted through the pairs (N now, N k steps on) gives the steps per factor e.
rng = np.random.default_rng(0)
beta2, steps, k = 0.95, 40_000, 5_000
w = rng.standard_normal(1000) * 1e-4
m, v = np.zeros_like(w), np.zeros_like(w)
norms_squared = np.empty(steps)
for t in range(1, steps + 1):
    g = rng.standard_normal(w.size)
    g -= (g @ w) / (w @ w) * w  # orthogonal to W
    g /= math.sqrt(w @ w)  # smaller as W grows
    m += (1 - beta1) * (g - m)  # Adam's running averages
    v += (1 - beta2) * (g * g - v)
    update = m / (1 - beta1**t) / (np.sqrt(v / (1 - beta2**t)) + 1e-8)
    w = (1 - lr * decay) * w - lr * update  # decoupled weight decay, then the step
    norms_squared[t - 1] = w @ w
a, _ = np.polyfit(norms_squared[:-k], norms_squared[k:], 1)
near = abs(-k / math.log(a) / 16666 - 1) < 0.03
print(f"simulated: the gap shrinks by e in 16666 steps, within 3%: {near}")
#> simulated: the gap shrinks by e in 16666 steps, within 3%: True
