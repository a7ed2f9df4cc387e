import torch
import transformers as tf
from transformers.models.gemma.modeling_gemma import GemmaRMSNorm

# Qwen3 normalizes each query and key head over head_dim, before the rotary embedding.
config = tf.Qwen3Config(
    hidden_size=64,
    num_hidden_layers=1,
    num_attention_heads=4,
    num_key_value_heads=2,
    head_dim=16,
)
with torch.device("meta"):
    attention = tf.Qwen3Model(config).layers[0].self_attn
print(attention.q_norm.weight.shape, attention.k_norm.weight.shape)
#> torch.Size([16]) torch.Size([16])

# Gemma stores w, starting at zeros, and scales by (1 + w): a fresh norm is plain x_hat.
norm = GemmaRMSNorm(8, eps=1e-6)
x = torch.randn(3, 8)
print(norm.weight.detach())
#> tensor([0., 0., 0., 0., 0., 0., 0., 0.])
x_hat = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
print(torch.allclose(norm(x), x_hat))
#> True
