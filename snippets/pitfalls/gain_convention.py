import torch
from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
from transformers.models.gemma2.modeling_gemma2 import Gemma2RMSNorm
from transformers.models.gemma3.modeling_gemma3 import Gemma3RMSNorm
from transformers.models.gemma3n.modeling_gemma3n import Gemma3nRMSNorm
from transformers.models.gemma4.modeling_gemma4 import Gemma4RMSNorm
from transformers.models.llama.modeling_llama import LlamaRMSNorm
from transformers.models.qwen3_5.modeling_qwen3_5 import Qwen3_5RMSNorm
from transformers.models.qwen3_next.modeling_qwen3_next import Qwen3NextRMSNorm
from transformers.models.recurrent_gemma.modeling_recurrent_gemma import (
    RecurrentGemmaRMSNorm,
)
from transformers.models.t5gemma.modeling_t5gemma import T5GemmaRMSNorm
from transformers.models.vaultgemma.modeling_vaultgemma import VaultGemmaRMSNorm

torch.manual_seed(0)
n = 2048
x = torch.randn(4, n)

# Which gain each class applies: with a stored weight of zeros, w gives zeros,
# 1 + w gives the plain normalized x.
for cls in [
    LlamaRMSNorm,
    GemmaRMSNorm,
    Gemma2RMSNorm,
    Gemma3RMSNorm,
    RecurrentGemmaRMSNorm,
    T5GemmaRMSNorm,
    VaultGemmaRMSNorm,
    Gemma3nRMSNorm,
    Gemma4RMSNorm,
    Qwen3NextRMSNorm,
    Qwen3_5RMSNorm,
]:
    norm = cls(n, eps=1e-6)
    torch.nn.init.zeros_(norm.weight)
    gain = "w" if norm(x).abs().max() == 0 else "1 + w"
    print(f"{cls.__name__}: gain {gain}")
    #> LlamaRMSNorm: gain w
    #> GemmaRMSNorm: gain 1 + w
    #> Gemma2RMSNorm: gain 1 + w
    #> Gemma3RMSNorm: gain 1 + w
    #> RecurrentGemmaRMSNorm: gain 1 + w
    #> T5GemmaRMSNorm: gain 1 + w
    #> VaultGemmaRMSNorm: gain 1 + w
    #> Gemma3nRMSNorm: gain w
    #> Gemma4RMSNorm: gain w
    #> Qwen3NextRMSNorm: gain 1 + w
    #> Qwen3_5RMSNorm: gain 1 + w

def size_ratio(output, reference):
    return (output.norm() / reference.norm()).item()

# A stand-in for a Gemma norm: stored values w = gain - 1 drawn around 0.
gemma = GemmaRMSNorm(n, eps=1e-6)
torch.nn.init.normal_(gemma.weight, std=0.1)
reference = gemma(x)

# The same names and shapes, so a LLaMA-style norm loads it without a word...
llama = LlamaRMSNorm(n, eps=1e-6)
print(llama.load_state_dict(gemma.state_dict()))
#> <All keys matched successfully>
# ...and multiplies by w instead of 1 + w.
print(f"+1 missing: output size x {size_ratio(llama(x), reference):.4f}")
#> +1 missing: output size x 0.1005

# A file whose converter already added 1, read by a 1 + w class, adds it twice.
twice = GemmaRMSNorm(n, eps=1e-6)
twice.load_state_dict({"weight": gemma.weight + 1})
print(f"+1 twice: output size x {size_ratio(twice(x), reference):.4f}")
#> +1 twice: output size x 1.9962

# The fix: add 1 once (or subtract it, the other way), in float32.
with torch.no_grad():
    llama.weight.copy_(gemma.weight + 1)
print(f"converted in float32, the same output: {torch.equal(llama(x), reference)}")
#> converted in float32, the same output: True

# Gemma adds the 1 in float32 at every call; a gain stored in bfloat16 is rounded.
w_bf16 = gemma.weight.detach().bfloat16()
rounded = (w_bf16 + 1).float()  # 1 + w stored in bfloat16
exact = w_bf16.float() + 1  # 1 + w as Gemma's forward computes it
changed = (rounded != exact).float().mean()
largest = ((rounded - exact).abs() / exact).max()
print(f"1 + w in bfloat16: {changed:.1%} of gains change, by up to {largest:.2%}")
#> 1 + w in bfloat16: 91.7% of gains change, by up to 0.39%
