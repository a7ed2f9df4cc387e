import torch
from transformers import LlamaConfig, LlamaForCausalLM

# LLaMA-2-7B's published configuration; built on the meta device, so no weights are needed.
config = LlamaConfig(
    hidden_size=4096,
    intermediate_size=11008,
    num_hidden_layers=32,
    num_attention_heads=32,
    num_key_value_heads=32,
    vocab_size=32000,
    rms_norm_eps=1e-5,
)
with torch.device("meta"):
    model = LlamaForCausalLM(config)

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
