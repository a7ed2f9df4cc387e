import torch
from transformers import LlamaForCausalLM

from snippets.models.configs import LLAMA_2_7B

with torch.device("meta"):  # built from the published configuration, without weights
    model = LlamaForCausalLM(LLAMA_2_7B)

norms = [m for m in model.modules() if type(m).__name__ == "LlamaRMSNorm"]
in_blocks = sum(m.weight.numel() for m in norms if m is not model.model.norm)
total_norm = sum(m.weight.numel() for m in norms)
total = sum(p.numel() for p in model.parameters())
print(
    f"{len(norms)} norms: {in_blocks:,} in the blocks + {model.model.norm.weight.numel():,}"
)
#> 65 norms: 262,144 in the blocks + 4,096
print(f"{total_norm:,} of {total:,} parameters ({total_norm / total:.4%})")
#> 266,240 of 6,738,415,616 parameters (0.0040%)
