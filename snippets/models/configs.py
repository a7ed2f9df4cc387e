"""Published configurations of a few models, as transformers config objects (no weights)."""

from transformers import LlamaConfig

# The fields of each model's published config.json that set its shapes and ε; the rest
# (max_position_embeddings among them: 2048 here, 4096 in LLaMA-2) are LlamaConfig's defaults.
LLAMA_2_7B = LlamaConfig(
    hidden_size=4096,
    intermediate_size=11008,
    num_hidden_layers=32,
    num_attention_heads=32,
    num_key_value_heads=32,
    vocab_size=32000,
    rms_norm_eps=1e-5,
)
LLAMA_2_70B = LlamaConfig(
    hidden_size=8192,
    intermediate_size=28672,
    num_hidden_layers=80,
    num_attention_heads=64,
    num_key_value_heads=8,
    vocab_size=32000,
    rms_norm_eps=1e-5,
)
