import math

import torch

def qk_logit(q, k, gain_q, gain_k):
    """An attention logit after QK-norm (eps -> 0): each of q and k divided by its RMS
    over the head's d features and multiplied by its gain, then q . k / sqrt(d)."""
    q_hat = q / q.pow(2).mean(-1, keepdim=True).sqrt()
    k_hat = k / k.pow(2).mean(-1, keepdim=True).sqrt()
    return (gain_q * q_hat * gain_k * k_hat).sum(-1) / math.sqrt(q.shape[-1])

torch.manual_seed(0)
d = 128
ones = torch.ones(d, dtype=torch.float64)
q = torch.randn(d, dtype=torch.float64)
print(f"sqrt(d) = {math.sqrt(d):.4f}")
#> sqrt(d) = 11.3137
# 1. Unit gains: a key pointing the query's way reaches the bound, whatever its length.
along, against = qk_logit(q, 3 * q, ones, ones), qk_logit(q, -q, ones, ones)
print(f"k = 3q: {along:.4f}, k = -q: {against:.4f}")
#> k = 3q: 11.3137, k = -q: -11.3137
# Random queries and keys stay far below it: their logits spread about as N(0, 1).
pairs = torch.randn(2, 100_000, d, dtype=torch.float64)
logits = qk_logit(pairs[0], pairs[1], ones, ones)
largest, spread = logits.abs().max(), logits.std()
print(f"100000 random pairs: largest |s| {largest:.2f}, std {spread:.2f}")
#> 100000 random pairs: largest |s| 4.42, std 1.00

# 2. Gains: the bound is sqrt(d) times the largest gain_q[i] * gain_k[i], reached
# by q and k that are one-hot on that feature (RMSNorm makes them sqrt(d) there).
gain_q = 1 + torch.rand(d, dtype=torch.float64)
gain_k = 1 + torch.rand(d, dtype=torch.float64)
product, i = (gain_q * gain_k).max(0)
one_hot = torch.zeros(d, dtype=torch.float64)
one_hot[i] = 1.0
reached = qk_logit(one_hot, one_hot, gain_q, gain_k)
print(f"bound {math.sqrt(d) * product:.4f}, one-hot q and k: {reached:.4f}")
#> bound 44.6786, one-hot q and k: 44.6786
loose = math.sqrt(d) * gain_q.max() * gain_k.max()  # the largest gains, on two features
print(f"sqrt(d) max|gain_q| max|gain_k| = {loose:.4f}")
#> sqrt(d) max|gain_q| max|gain_k| = 44.9252
# Each query's largest logit, from its own key: the query scaled feature by feature by
# gain_q * gain_k (the direction that maximizes s). Well above sqrt(d), the bound of
# unit gains, yet within this one.
best = qk_logit(pairs[0], pairs[0] * gain_q * gain_k, gain_q, gain_k).max()
within = bool(best <= math.sqrt(d) * product)
print(f"best keys of 100000 random queries: largest {best:.2f}, within: {within}")
#> best keys of 100000 random queries: largest 30.25, within: True

# 3. One gain g for every feature of q and of k: a query's logits lie within
# +-g^2 sqrt(d), reached by k = q and k = -q, so two of them differ by 30 (softmax then
# gives one key e^30, about 1e13, times the other's weight) once
g = math.sqrt(15 / math.sqrt(d))
gains = g * ones
gap = qk_logit(q, q, gains, gains) - qk_logit(q, -q, gains, gains)
print(f"g = {g:.2f}: the logits of k = q and k = -q differ by {gap:.1f}")
#> g = 1.15: the logits of k = q and k = -q differ by 30.0
# Unit gains already allow 2 sqrt(d): the bound caps how far the logits spread, not
# whether attention settles on one key.
unit_gap = qk_logit(q, q, ones, ones) - qk_logit(q, -q, ones, ones)
print(f"g = 1: they differ by {unit_gap:.1f}")
#> g = 1: they differ by 22.6
