import torch
from transformers import (
    FalconConfig,
    FalconModel,
    Gemma2Config,
    Gemma2Model,
    Gemma3TextConfig,
    Gemma3TextModel,
    Olmo2Config,
    Olmo2Model,
    Qwen3Config,
    Qwen3Model,
)

# Tiny models on the meta device: the real classes, no weights, nothing downloaded.
tiny = {"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4}
models = [
    (Gemma2Model, Gemma2Config(**tiny, head_dim=16, num_key_value_heads=4)),
    (Gemma3TextModel, Gemma3TextConfig(**tiny, head_dim=16, num_key_value_heads=4)),
    (Qwen3Model, Qwen3Config(**tiny, head_dim=16, num_key_value_heads=4)),
    (Olmo2Model, Olmo2Config(**tiny, num_key_value_heads=4)),
    (FalconModel, FalconConfig(**tiny)),
]
for model_class, config in models:
    with torch.device("meta"):
        model = model_class(config)
    kinds = {type(module).__name__ for module in model.modules()}
    norms = ", ".join(sorted(kind for kind in kinds if "Norm" in kind))
    qk_norm = any(name.endswith("q_norm") for name, _ in model.named_modules())
    print(f"{model_class.__name__:<16} QK-norm: {qk_norm!s:<5} norms: {norms}")
    #> Gemma2Model      QK-norm: False norms: Gemma2RMSNorm
    #> Gemma3TextModel  QK-norm: True  norms: Gemma3RMSNorm
    #> Qwen3Model       QK-norm: True  norms: Qwen3RMSNorm
    #> Olmo2Model       QK-norm: True  norms: Olmo2RMSNorm
    #> FalconModel      QK-norm: False norms: LayerNorm
