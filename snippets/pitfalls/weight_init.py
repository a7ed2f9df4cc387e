import torch
from torch import nn

torch.manual_seed(0)
weight = torch.empty(4096)
nn.init.trunc_normal_(weight)  # seen in published code: gains from N(0, 1), cut at +-2
print(f"negative gains: {(weight < 0).float().mean():.1%}")
#> negative gains: 50.7%
print(f"mean |gain|: {weight.abs().mean():.3f}")
#> mean |gain|: 0.709

# RMSNorm starts as the identity on the unit-RMS sphere (up to 1 / sqrt(1 + eps)) only with
# gains of one.
print(torch.equal(nn.RMSNorm(4096).weight.detach(), torch.ones(4096)))
#> True
