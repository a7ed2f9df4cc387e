import contextlib
import copy

import torch
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.models.llama.modeling_llama import LlamaRMSNorm

from snippets.kernel.rms_norm_triton import rms_norm_triton

class TritonRMSNorm(torch.nn.Module):
    """Takes a LlamaRMSNorm's place: the same weight (the same parameter, under the same
    name, so checkpoints and the optimizer see no change) and the same eps."""

    def __init__(self, norm: LlamaRMSNorm):
        super().__init__()
        self.weight, self.eps = norm.weight, norm.variance_epsilon

    def forward(self, x):
        # Triton launches on the current device; on a model spread over GPUs, make it x's.
        on_x = torch.cuda.device(x.device) if x.is_cuda else contextlib.nullcontext()
        with on_x:
            return rms_norm_triton(x, self.weight, eps=self.eps)  # LLaMA's w, offset 0

def use_triton_norms(model: torch.nn.Module, norm_class=LlamaRMSNorm) -> int:
    """Replace every norm_class in the model by a TritonRMSNorm; return how many (0: the
    model's norms are of another class). Qwen3RMSNorm and MistralRMSNorm, for example,
    are copies of LlamaRMSNorm under their own names: pass the model's own class."""
    replaced = 0
    for parent in list(model.modules()):
        for name, child in parent.named_children():
            if isinstance(child, norm_class):
                setattr(parent, name, TritonRMSNorm(child))
                replaced += 1
    return replaced

# A tiny Llama built as usual, and a copy of it with the kernel in place of its norms.
# On a CPU, run with TRITON_INTERPRET=1: Triton's interpreter then runs the kernels.
device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
config = LlamaConfig(
    vocab_size=100,
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
)
model = LlamaForCausalLM(config).to(device)
# Gains away from their initial ones, which would hide a replacement that dropped the weight.
with torch.no_grad():
    for module in model.modules():
        if isinstance(module, LlamaRMSNorm):
            module.weight.uniform_(0.5, 1.5)
patched = copy.deepcopy(model)
print("norms replaced:", use_triton_norms(patched))
#> norms replaced: 5
print("same parameter names:", list(patched.state_dict()) == list(model.state_dict()))
#> same parameter names: True
tokens = torch.randint(config.vocab_size, (2, 16), device=device)
with torch.no_grad():
    ours, theirs = patched(tokens).logits, model(tokens).logits
print("same logits within 1e-6:", torch.allclose(ours, theirs, rtol=0, atol=1e-6))
#> same logits within 1e-6: True
