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
# the whole forward pass does about 2 per parameter (a multiply and an add). Values: those
# a token sends through QK-norm in one layer (a row per query and key head), and through
# the layer's two other norms (before attention and the MLP).
table = ["model       QK-norm params   arithmetic  QK-norm values  other norms' values"]
for name, config in QWEN3.items():
    with torch.device("meta"):  # shapes only: no memory, no weights
        model = Qwen3ForCausalLM(config)
    total = sum(p.numel() for p in model.parameters())
    attention = model.model.layers[0].self_attn
    qk = sum(norm.weight.numel() for norm in (attention.q_norm, attention.k_norm))
    params = config.num_hidden_layers * qk
    heads = config.num_attention_heads + config.num_key_value_heads
    values = heads * config.head_dim
    flops = config.num_hidden_layers * 4 * values / (2 * total)
    share = f"{params:,} ({params / total:.4%})"
    others = 2 * config.hidden_size
    table.append(
        f"{name:<10}  {share:<15}  {flops:>10.4%}  {values:>14,}  {others:>19,}"
    )
print("\n".join(table))
"""
model       QK-norm params   arithmetic  QK-norm values  other norms' values
Qwen3-0.6B  7,168 (0.0012%)     0.0289%           3,072                2,048
Qwen3-8B    9,216 (0.0001%)     0.0045%           5,120                8,192
"""
