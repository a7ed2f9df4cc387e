import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(8, 64)
eps = 1e-5

centered = x - x.mean(dim=-1, keepdim=True)
# Same eps in both: for zero-mean rows the variance is the mean square.
rms_out = F.rms_norm(centered, (64,), eps=eps)
ln_out = F.layer_norm(centered, (64,), eps=eps)
print(torch.allclose(rms_out, ln_out, atol=1e-6))
#> True

# Without centering they differ.
print(torch.allclose(F.rms_norm(x, (64,), eps=eps), F.layer_norm(x, (64,), eps=eps)))
#> False
