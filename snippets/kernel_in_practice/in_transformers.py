"""The Kernel page's kernel in place of transformers' LlamaRMSNorm, in a model already built
(tests/test_kernel.py runs a LlamaForCausalLM with it)."""

import torch
from transformers.models.llama.modeling_llama import LlamaRMSNorm

from snippets.kernel.rms_norm_triton import rms_norm_triton

# --8<-- [start:replace]
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

# --8<-- [end:replace]
