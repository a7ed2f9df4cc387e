import torch
from torch import nn
from transformers.models.gpt_oss.modeling_gpt_oss import eager_attention_forward

class OneHead(nn.Module):
    """What gpt-oss's attention function reads from its module: a learned sink logit per
    head (here one head) and the number of query heads per key head (here 1)."""

    num_key_value_groups = 1

    def __init__(self):
        super().__init__()
        self.sinks = nn.Parameter(torch.zeros(1))

torch.manual_seed(0)
query = torch.randn(1, 1, 1, 16)  # batch, heads, positions, head dim
keys, values = torch.randn(1, 1, 8, 16), torch.randn(1, 1, 8, 16)
head = OneHead().eval()

# The sink logit joins the 8 attention logits in the softmax and is dropped after it, so the
# weights on the tokens sum to less than 1 and the head's output shrinks with them.
for sink in [-30.0, 0.0, 3.0, 6.0]:
    head.sinks.data.fill_(sink)
    output, weights = eager_attention_forward(head, query, keys, values, None, 16**-0.5)
    rms = output.pow(2).mean().sqrt()
    print(
        f"sink logit {sink:>5}: weight on the tokens {weights.sum():.3f}, output RMS {rms:.3f}"
    )
    #> sink logit -30.0: weight on the tokens 1.000, output RMS 0.526
    #> sink logit   0.0: weight on the tokens 0.933, output RMS 0.491
    #> sink logit   3.0: weight on the tokens 0.411, output RMS 0.216
    #> sink logit   6.0: weight on the tokens 0.034, output RMS 0.018
