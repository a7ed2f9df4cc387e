import torch
import torch.nn.functional as F
from transformers import Gemma2Config, Gemma3TextConfig

# Gemma 2 caps its output logits too, cap * tanh(logits / cap); Gemma 3 caps neither.
for config in [Gemma2Config(), Gemma3TextConfig()]:
    caps = config.attn_logit_softcapping, config.final_logit_softcapping
    print(f"{type(config).__name__}: attention cap {caps[0]}, output cap {caps[1]}")
    #> Gemma2Config: attention cap 50.0, output cap 30.0
    #> Gemma3TextConfig: attention cap None, output cap None

# Cross-entropy ignores a constant added to every logit of a row, so log Z, the log of the
# softmax's denominator, can drift. PaLM's z-loss, 1e-4 (log Z)^2, pins it near 0.
torch.manual_seed(0)
logits, labels = torch.randn(4, 32), torch.randint(32, (4,))
for shift in [0.0, 50.0]:
    shifted = logits + shift
    z_loss = 1e-4 * shifted.logsumexp(-1).pow(2).mean()
    loss = F.cross_entropy(shifted, labels)
    print(f"logits + {shift:>4}: cross-entropy {loss:.4f}, z-loss {z_loss:.4f}")
    #> logits +  0.0: cross-entropy 4.1285, z-loss 0.0017
    #> logits + 50.0: cross-entropy 4.1285, z-loss 0.2925
