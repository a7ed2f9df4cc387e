import torch
from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
from transformers.models.llama.modeling_llama import LlamaRMSNorm
from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

from snippets.implementations.variants import rms_norm_gemma, rms_norm_llama

torch.manual_seed(0)
for dtype in [torch.float32, torch.bfloat16]:
    x = torch.randn(8, 256).to(dtype)
    for cls, ours in [
        (LlamaRMSNorm, rms_norm_llama),
        (Qwen3RMSNorm, rms_norm_llama),
        (GemmaRMSNorm, rms_norm_gemma),
    ]:
        theirs = cls(256, eps=1e-6)
        with torch.no_grad():
            theirs.weight.normal_(std=0.1)  # trained-looking weights, not the init
            same = torch.equal(theirs(x), ours(x, theirs.weight))
        print(f"{cls.__name__:<13} {str(dtype)[6:]:<9} identical: {same}")
        #> LlamaRMSNorm  float32   identical: True
        #> Qwen3RMSNorm  float32   identical: True
        #> GemmaRMSNorm  float32   identical: True
        #> LlamaRMSNorm  bfloat16  identical: True
        #> Qwen3RMSNorm  bfloat16  identical: True
        #> GemmaRMSNorm  bfloat16  identical: True
