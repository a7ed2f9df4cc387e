import math

import torch
from transformers.models.gemma3.modeling_gemma3 import Gemma3TextScaledWordEmbedding

from snippets.models.checkpoints import MODELS

# Gemma multiplies its token embeddings by sqrt(hidden_size) before the first layer, with
# the scale cast to the embedding's dtype at each call: in bfloat16, a rounded root.
print("Gemma 3's embedding scale, as transformers applies it in bfloat16:")
#> Gemma 3's embedding scale, as transformers applies it in bfloat16:
for family, model_type, size, hidden, eps in MODELS:
    if family != "Gemma 3":
        continue
    embedding = Gemma3TextScaledWordEmbedding(1, hidden, 0, embed_scale=hidden**0.5)
    embedding = embedding.bfloat16()
    with torch.no_grad():
        embedding.weight.fill_(1.0)  # the output is then the scale applied
    applied = embedding(torch.tensor([0]))[0, 0].item()
    root = math.sqrt(hidden)
    change = applied / root - 1
    print(f"{size:>5}: sqrt({hidden}) = {root:.4f}, applied {applied} ({change:+.2%})")
    #>  270M: sqrt(640) = 25.2982, applied 25.25 (-0.19%)
    #>    1B: sqrt(1152) = 33.9411, applied 34.0 (+0.17%)
    #>    4B: sqrt(2560) = 50.5964, applied 50.5 (-0.19%)
    #>   12B: sqrt(3840) = 61.9677, applied 62.0 (+0.05%)
    #>   27B: sqrt(5376) = 73.3212, applied 73.5 (+0.24%)
