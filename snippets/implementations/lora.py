"""The norms under LoRA with PEFT: the adapters go into the linear layers named, and every
other parameter, the norms' gains among them, is frozen; `modules_to_save` trains a copy of
each module whose name ends with one of its entries, which the adapter then stores as the
model stores it (Gemma's w, applied as 1 + w)."""

import torch
from peft import LoraConfig, get_peft_model, get_peft_model_state_dict

from snippets.implementations.tiny_models import tiny

def norms(model):
    return [m for m in model.modules() if type(m).__name__.endswith("RMSNorm")]

TARGETS = ["q_proj", "v_proj"]  # where LoRA puts its adapters here

for family in ["llama", "gemma3_text"]:
    counts = []
    # ["norm"] takes every module whose name ends so: q_norm, input_layernorm, ...
    for to_save in [None, ["norm"]]:
        config = LoraConfig(r=4, target_modules=TARGETS, modules_to_save=to_save)
        model = tiny(family)
        total = len(norms(model))
        model = get_peft_model(model, config)  # a trained copy beside each saved one
        training = sum(norm.weight.requires_grad for norm in norms(model))
        counts.append(f"{training} of {total}")
    # What the adapter's file holds for the gains it trained: their mean weight.
    adapter = get_peft_model_state_dict(model)
    saved = [w.mean() for k, w in adapter.items() if k.endswith("norm.weight")]
    alone, with_norm, mean = *counts, torch.stack(saved).mean().item()
    print(f"{family:<12} {alone} alone, {with_norm} with ['norm'], saved {mean:.1f}")
    #> llama        0 of 5 alone, 5 of 5 with ['norm'], saved 1.0
    #> gemma3_text  0 of 13 alone, 13 of 13 with ['norm'], saved 0.0

# On a bfloat16 or float16 model (float16: a GPU without bfloat16), PEFT makes the adapters
# float32 but leaves the norms' trained copies in the model's dtype; GradScaler will not
# unscale float16's gradients.
config = LoraConfig(r=4, target_modules=TARGETS, modules_to_save=["norm"])
for dtype in (torch.bfloat16, torch.float16):
    model = get_peft_model(tiny("llama").to(dtype), config)
    trained = {
        ("adapters" if "lora_" in name else "norms"): str(p.dtype)[6:]  # no "torch."
        for name, p in model.named_parameters()
        if p.requires_grad
    }
    print(f"{str(dtype)[6:]} model, trained:", trained)
    #> bfloat16 model, trained: {'adapters': 'float32', 'norms': 'bfloat16'}
    #> float16 model, trained: {'adapters': 'float32', 'norms': 'float16'}
# The float16 model, the loop's last, under GradScaler.
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad])
scaler = torch.amp.GradScaler("cpu")
scaler.scale(model(torch.tensor([[1, 2, 3]])).logits.float().sum()).backward()
try:
    scaler.step(optimizer)
except ValueError as error:
    print("GradScaler:", error)
    #> GradScaler: Attempting to unscale FP16 gradients.
