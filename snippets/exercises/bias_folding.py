import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
x = torch.randn(3, 16, dtype=torch.float64)
beta = torch.randn(16, dtype=torch.float64)
linear = nn.Linear(16, 8, dtype=torch.float64)  # has its own bias

# Adding beta after the norm, then a Linear with a bias ...
with_beta = linear(F.rms_norm(x, (16,)) + beta)
# ... is the same as no beta and a Linear whose bias absorbed W @ beta.
folded = nn.Linear(16, 8, dtype=torch.float64)
with torch.no_grad():
    folded.weight.copy_(linear.weight)
    folded.bias.copy_(linear.bias + linear.weight @ beta)
print(torch.allclose(with_beta, folded(F.rms_norm(x, (16,)))))
#> True

# With no bias in the next layer (LLaMA's projections have none), beta cannot be folded.
no_bias = nn.Linear(16, 8, bias=False, dtype=torch.float64)
print(
    torch.allclose(no_bias(F.rms_norm(x, (16,)) + beta), no_bias(F.rms_norm(x, (16,))))
)
#> False
