import torch
from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

class OneCast(Qwen3RMSNorm):
    """Qwen3RMSNorm with one change: the gain multiplies in float32, then one cast."""

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        h = hidden_states.to(torch.float32)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.variance_epsilon)
        return (self.weight * h).to(input_dtype)  # was: self.weight * h.to(input_dtype)

torch.manual_seed(0)
head_dim = 128
query = torch.randn(4096, head_dim).to(torch.bfloat16)  # a query projection's output
gain = 1 + 0.1 * torch.randn(head_dim)  # a float32 parameter, as in mixed precision

# The exact values, in float64, rounded once to bfloat16.
q64 = query.double()
exact = gain.double() * q64 / (q64.pow(2).mean(-1, keepdim=True) + 1e-6).sqrt()
rounded_once = exact.to(torch.bfloat16)

for norm_class in [Qwen3RMSNorm, OneCast]:
    norm = norm_class(head_dim, eps=1e-6)
    with torch.no_grad():
        norm.weight.copy_(gain)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = norm(query)
    # Cast to bfloat16, as autocast does before the next matrix multiplication: how
    # many values are off the exact value rounded once?
    wrong = (y.to(torch.bfloat16) != rounded_once).sum().item()
    share = f"{wrong} of {y.numel()} ({wrong / y.numel():.3%})"
    print(f"{norm_class.__name__:<12} returns {str(y.dtype)[6:]:<8} off: {share}")
    #> Qwen3RMSNorm returns float32  off: 135640 of 524288 (25.871%)
    #> OneCast      returns bfloat16 off: 1 of 524288 (0.000%)
