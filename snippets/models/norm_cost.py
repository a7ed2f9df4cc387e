import torch
from transformers import LlamaForCausalLM

from snippets.models.configs import LLAMA_2_7B, LLAMA_2_70B

# Per token, a norm does about 4 operations per feature (square, add up, scale, weight);
# the whole forward pass does about 2 per parameter (a multiply and an add).
for name, config in [("LLaMA-2-7B", LLAMA_2_7B), ("LLaMA-2-70B", LLAMA_2_70B)]:
    with torch.device("meta"):  # shapes only: no memory, no weights
        model = LlamaForCausalLM(config)
    norms = [m for m in model.modules() if type(m).__name__ == "LlamaRMSNorm"]
    norm_params = sum(m.weight.numel() for m in norms)
    total = sum(p.numel() for p in model.parameters())
    flops_share = len(norms) * 4 * config.hidden_size / (2 * total)
    share = f"{norm_params:,} params ({norm_params / total:.4%})"
    print(f"{name}: {len(norms)} norms, {share}, {flops_share:.4%} of the arithmetic")
    #> LLaMA-2-7B: 65 norms, 266,240 params (0.0040%), 0.0079% of the arithmetic
    #> LLaMA-2-70B: 161 norms, 1,318,912 params (0.0019%), 0.0038% of the arithmetic
