import torch
from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
from transformers.models.llama.modeling_llama import LlamaRMSNorm
from transformers.models.olmo2.modeling_olmo2 import Olmo2RMSNorm
from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

from snippets.implementations.variants import (
    rms_norm_gemma,
    rms_norm_llama,
    rms_norm_scratch,
)

torch.manual_seed(0)
x = torch.randn(64, 4096).bfloat16()
# Weights in bfloat16, as in bfloat16 inference.
gain = (torch.rand(4096) + 0.5).bfloat16()
exact = rms_norm_scratch(x.double(), gain.double())  # the definition, in float64

def error(out):
    return (out.double() - exact).abs().mean().item()

# LLaMA: round h to bfloat16, then multiply by the weight and round again.
print(f"cast, then multiply: {error(rms_norm_llama(x, gain)):.2e}")
#> cast, then multiply: 1.51e-03
# Gemma-style order with a plain weight (1 + w with w = gain - 1): multiply in float32,
# round once.
print(f"multiply, then cast: {error(rms_norm_gemma(x, gain.float() - 1)):.2e}")
#> multiply, then cast: 1.12e-03

# A float32 weight with bfloat16 input: the LLaMA form silently returns float32.
print(rms_norm_llama(x, gain.float()).dtype)
#> torch.float32

# transformers' classes differ in this: a fresh norm (float32 weight), bfloat16 input.
for cls in [LlamaRMSNorm, Qwen3RMSNorm, Olmo2RMSNorm, GemmaRMSNorm]:
    print(f"{cls.__name__}: {cls(4096, eps=1e-6)(x).dtype}")
    #> LlamaRMSNorm: torch.float32
    #> Qwen3RMSNorm: torch.float32
    #> Olmo2RMSNorm: torch.bfloat16
    #> GemmaRMSNorm: torch.bfloat16
