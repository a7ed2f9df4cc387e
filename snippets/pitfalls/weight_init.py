import torch
from torch import nn

torch.manual_seed(0)
weight = torch.empty(4096)
nn.init.trunc_normal_(weight)  # seen in published code: gains from N(0, 1), cut at +-2
print(f"negative gains: {(weight < 0).float().mean():.1%}")
#> negative gains: 50.7%
print(f"mean |gain|: {weight.abs().mean():.3f}")
#> mean |gain|: 0.709

# A loop that draws every parameter as a linear layer's weights, N(0, 0.02), takes the
# gains with them; choose what to draw by module type instead.
model = nn.Sequential(nn.Linear(4096, 4096), nn.RMSNorm(4096))
for p in model.parameters():
    nn.init.normal_(p, std=0.02)
print(f"after the loop, mean |gain|: {model[1].weight.abs().mean():.4f}")
#> after the loop, mean |gain|: 0.0158
for m in model.modules():
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, std=0.02)
    elif isinstance(m, nn.RMSNorm):
        nn.init.ones_(m.weight)
print(f"by module type, mean |gain|: {model[1].weight.abs().mean():.4f}")
#> by module type, mean |gain|: 1.0000

# RMSNorm starts as the identity on the unit-RMS sphere (up to 1 / sqrt(1 + eps)) only with
# gains of one.
print(torch.equal(nn.RMSNorm(4096).weight.detach(), torch.ones(4096)))
#> True
