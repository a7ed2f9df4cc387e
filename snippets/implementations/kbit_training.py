"""What PEFT's prepare_model_for_kbit_training, QLoRA's step before LoRA, does to the
norms: it casts every float16 and bfloat16 parameter not stored in 4 bits to float32 and
freezes it. Here on a bfloat16 model with no 4-bit layer, so every parameter is cast."""

import torch
from peft import prepare_model_for_kbit_training

from snippets.implementations.tiny_models import tiny

model = tiny("llama").to(torch.bfloat16)
norms = [m for m in model.modules() if type(m).__name__.endswith("RMSNorm")]

def name(dtype):
    return str(dtype).removeprefix("torch.")

def state(model):
    """The gains' dtypes, whether any trains, what the first norm gets and returns."""
    seen = []

    def record(norm, args, out):
        seen.append(f"{name(args[0].dtype)} -> {name(out.dtype)}")

    hook = norms[0].register_forward_hook(record)
    model(torch.tensor([[1, 2, 3]]))
    hook.remove()
    dtypes = ", ".join({name(norm.weight.dtype) for norm in norms})
    training = any(norm.weight.requires_grad for norm in norms)
    return f"gains {dtypes}, trainable {training}, first norm {seen[0]}"

print("before:", state(model))
#> before: gains bfloat16, trainable True, first norm bfloat16 -> bfloat16
model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=False)
print("after: ", state(model))
#> after:  gains float32, trainable False, first norm float32 -> float32
# QLoRA's qlora.py, run with --bf16, then casts the embeddings back to bfloat16.
model.model.embed_tokens.to(torch.bfloat16)
print("then:  ", state(model))
#> then:   gains float32, trainable False, first norm bfloat16 -> float32
