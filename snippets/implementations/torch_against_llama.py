import torch
from transformers.models.llama.modeling_llama import LlamaRMSNorm

from snippets.numerics.conventions import ulps

torch.manual_seed(0)
x = torch.randn(64, 4096) * 3
for dtype in [torch.float32, torch.bfloat16]:
    # The model loaded in one dtype: the input and both norms' weights in it.
    llama = LlamaRMSNorm(4096, eps=1e-5).to(dtype)
    ours = torch.nn.RMSNorm(4096, eps=1e-5).to(dtype)
    with torch.no_grad():
        llama.weight.normal_(1.0, 0.1)  # trained-looking weights, not the init
        ours.weight.copy_(llama.weight)
        a, b = llama(x.to(dtype)), ours(x.to(dtype))
    differ = (a != b).float().mean().item()
    steps = ulps(a, b).max().item()
    print(f"{str(dtype)[6:]:<9} {differ:.1%} of outputs differ, by up to {steps} ulp")
    #> float32   0.0% of outputs differ, by up to 0 ulp
    #> bfloat16  25.0% of outputs differ, by up to 1 ulp

# Parameters kept in float32, input in bfloat16 (no autocast): the output dtypes differ.
llama, ours = LlamaRMSNorm(4096, eps=1e-5), torch.nn.RMSNorm(4096, eps=1e-5)
with torch.no_grad():
    a, b = llama(x.to(torch.bfloat16)), ours(x.to(torch.bfloat16))
print(f"LlamaRMSNorm returns {a.dtype}, torch.nn.RMSNorm {b.dtype}")
#> LlamaRMSNorm returns torch.float32, torch.nn.RMSNorm torch.bfloat16
