"""What PEFT's prepare_model_for_kbit_training, QLoRA's step before LoRA, does to the norms:
it casts every float16 and bfloat16 parameter that is not stored in 4 bits to float32 and
freezes it. Here on a bfloat16 model with no 4-bit layer, so every parameter is cast."""

import torch
from peft import prepare_model_for_kbit_training
from transformers import AutoConfig, AutoModelForCausalLM

SIZES = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2}
HEADS = {"num_attention_heads": 4, "num_key_value_heads": 2}
config = AutoConfig.for_model("llama", vocab_size=100, **SIZES, **HEADS)
model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
norms = [m for m in model.modules() if type(m).__name__.endswith("RMSNorm")]

def state(model):
    """The norms' gain dtypes, whether any gain trains, and the first norm's output."""
    seen = []
    hook = norms[0].register_forward_hook(lambda m, i, out: seen.append(out.dtype))
    model(torch.tensor([[1, 2, 3]]))
    hook.remove()
    dtypes = {str(norm.weight.dtype) for norm in norms}
    training = any(norm.weight.requires_grad for norm in norms)
    return f"gains {dtypes}, training {training}, first norm returns {seen[0]}"

print("before:", state(model))
#> before: gains {'torch.bfloat16'}, training True, first norm returns torch.bfloat16
model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=False)
print("after: ", state(model))
#> after:  gains {'torch.float32'}, training False, first norm returns torch.float32
