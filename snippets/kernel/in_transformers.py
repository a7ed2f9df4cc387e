import copy

import torch
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.models.llama.modeling_llama import LlamaRMSNorm

from snippets.kernel.rms_norm_triton import rms_norm_triton

# On a CPU, run with TRITON_INTERPRET=1: Triton's interpreter then runs the kernels.
device = "cuda" if torch.cuda.is_available() else "cpu"

class TritonRMSNorm(torch.nn.Module):
    """Takes a LlamaRMSNorm's place: the same weight (the same parameter, under the same
    name, so checkpoints and the optimizer see no change) and the same eps."""

    def __init__(self, norm: LlamaRMSNorm):
        super().__init__()
        self.weight, self.eps = norm.weight, norm.variance_epsilon

    def forward(self, x):
        return rms_norm_triton(x, self.weight, eps=self.eps)  # LLaMA's w, offset 0

def use_triton_norms(model: torch.nn.Module) -> int:
    """Replace every LlamaRMSNorm in the model by a TritonRMSNorm; return how many."""
    replaced = 0
    for parent in list(model.modules()):
        for name, child in parent.named_children():
            if isinstance(child, LlamaRMSNorm):
                setattr(parent, name, TritonRMSNorm(child))
                replaced += 1
    return replaced

torch.manual_seed(0)
config = LlamaConfig(
    hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
    num_key_value_heads=2, vocab_size=128, rms_norm_eps=1e-5,
)  # fmt: skip
reference = LlamaForCausalLM(config).to(device)
with torch.no_grad():  # gains away from their initial ones, so that they matter
    for module in reference.modules():
        if isinstance(module, LlamaRMSNorm):
            module.weight.uniform_(0.5, 1.5)
model = copy.deepcopy(reference)
print("norms replaced:", use_triton_norms(model), "(2 per layer and the final one)")
#> norms replaced: 5 (2 per layer and the final one)
same = model.state_dict().keys() == reference.state_dict().keys()
print("same state dict keys:", same)
#> same state dict keys: True

tokens = torch.randint(config.vocab_size, (2, 16), device=device)
outputs = {}
for name, each in [("transformers", reference), ("Triton", model)]:
    result = each(tokens, labels=tokens)
    result.loss.backward()
    outputs[name] = result
print(f"loss: {outputs['transformers'].loss:.6f} and {outputs['Triton'].loss:.6f}")
#> loss: 4.851727 and 4.851727
logits = (outputs["transformers"].logits - outputs["Triton"].logits).abs().max()
print(f"largest logit difference: {logits:.1e}")
#> largest logit difference: 1.8e-07
ours = dict(model.named_parameters())
gradients = max(
    (ours[name].grad - theirs.grad).abs().max().item()
    for name, theirs in reference.named_parameters()
)
print(f"largest gradient difference over every parameter: {gradients:.1e}")
#> largest gradient difference over every parameter: 4.8e-08
