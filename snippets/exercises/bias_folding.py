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
# The norm is odd, so a bias-free layer's outputs for x and -x sum to zero, whatever its
# weights; with beta they sum to 2 W beta, which is not zero.
no_bias = nn.Linear(16, 8, bias=False, dtype=torch.float64)

def layer(x, beta=0):
    return no_bias(F.rms_norm(x, (16,)) + beta)

without, with_beta = layer(x) + layer(-x), layer(x, beta) + layer(-x, beta)
largest = without.abs().max().item()
print(f"outputs for x and -x summed, without beta: largest entry {largest}")
#> outputs for x and -x summed, without beta: largest entry 0.0
twice = torch.allclose(with_beta, 2 * no_bias(beta))  # broadcast over the rows
zero = with_beta.abs().max().item() == 0
print(f"with beta: the sum is 2 W beta {twice}, the sum is zero {zero}")
#> with beta: the sum is 2 W beta True, the sum is zero False
