import torch
from transformers import Qwen3Config, Qwen3ForCausalLM

# Values from each model's published config.json.
SHARED = {"num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936}
QWEN3 = {
    "Qwen3-0.6B": Qwen3Config(
        hidden_size=1024, intermediate_size=3072, num_hidden_layers=28,
        num_attention_heads=16, tie_word_embeddings=True, **SHARED,
    ),
    "Qwen3-8B": Qwen3Config(
        hidden_size=4096, intermediate_size=12288, num_hidden_layers=36,
        num_attention_heads=32, tie_word_embeddings=False, **SHARED,
    ),
}  # fmt: skip
# Per token, a norm does about 4 operations per value (square, add up, scale, weight);
# the whole forward pass does about 2 per parameter (a multiply and an add).
for name, config in QWEN3.items():
    with torch.device("meta"):  # shapes only: no memory, no weights
        model = Qwen3ForCausalLM(config)
    total = sum(p.numel() for p in model.parameters())
    layer = model.model.layers[0]
    qk = layer.self_attn.q_norm.weight.numel() + layer.self_attn.k_norm.weight.numel()
    # Values each token sends through QK-norm in one layer: one row per query and key head.
    heads = config.num_attention_heads + config.num_key_value_heads
    values = heads * config.head_dim
    flops = config.num_hidden_layers * 4 * values / (2 * total)
    params = qk * config.num_hidden_layers
    others = 2 * config.hidden_size  # the layer's norms before attention and the MLP
    share = f"{params:,} params ({params / total:.4%})"
    print(f"{name}: {share}, {flops:.4%} of the arithmetic")
    #> Qwen3-0.6B: 7,168 params (0.0012%), 0.0289% of the arithmetic
    #> Qwen3-8B: 9,216 params (0.0001%), 0.0045% of the arithmetic
    print(f"  values per token and layer: {values:,}, the other two norms {others:,}")
    #>   values per token and layer: 3,072, the other two norms 2,048
    #>   values per token and layer: 5,120, the other two norms 8,192
