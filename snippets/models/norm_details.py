import torch
import transformers as tf
from transformers.modeling_layers import MtpModel
from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3RMSNorm
from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
from transformers.models.t5.modeling_t5 import T5LayerNorm

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

# T5's norm is RMSNorm under another name: one weight, no bias, no mean subtracted.
t5_norm = T5LayerNorm(8, eps=1e-6)
print(list(t5_norm.state_dict()))
#> ['weight']
x = torch.randn(3, 8) + 5.0  # a mean that LayerNorm would remove and RMSNorm keeps
rms_normalized = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
print(torch.allclose(t5_norm(x), rms_normalized))
#> True
# Its mean of squares is taken in float32: float16 inputs of 300 square to 90000, past
# float16's largest value, 65504, yet the float16 norm returns 1, not 0.
x16 = torch.full((1, 8), 300.0, dtype=torch.float16)
print(t5_norm.half()(x16).detach())
#> tensor([[1., 1., 1., 1., 1., 1., 1., 1.]], dtype=torch.float16)
print(x16 * torch.rsqrt(x16.pow(2).mean(-1, keepdim=True) + 1e-6))  # all in float16
#> tensor([[0., 0., 0., 0., 0., 0., 0., 0.]], dtype=torch.float16)

# DeepSeek-V3's attention (multi-head latent attention) normalizes two latents: the token
# is projected down to a query latent and a key-value latent, each goes through an RMSNorm
# and is then projected up to the heads (the key's 64-dimension rotary part skips its norm). The
# default config has DeepSeek-V3's layer sizes; one layer, on the meta device.
with torch.device("meta"):
    layer = tf.DeepseekV3Model(tf.DeepseekV3Config(num_hidden_layers=1)).layers[0]
for name, norm in layer.named_modules():
    if isinstance(norm, DeepseekV3RMSNorm):
        width, eps = norm.weight.shape[0], norm.variance_epsilon
        print(f"{name:<26} {width:>5}  eps {eps:g}")
        #> self_attn.q_a_layernorm     1536  eps 1e-06
        #> self_attn.kv_a_layernorm     512  eps 1e-06
        #> input_layernorm             7168  eps 1e-06
        #> post_attention_layernorm    7168  eps 1e-06

# The checkpoint holds one layer more, model.layers.61, for multi-token prediction: the
# main model skips its weights when loading; generate(use_mtp=True) builds it as MtpModel.
config = tf.DeepseekV3Config()
print(f"layers {config.num_hidden_layers} + {config.num_nextn_predict_layers} MTP")
#> layers 61 + 1 MTP
with torch.device("meta"):
    main = tf.DeepseekV3ForCausalLM(tf.DeepseekV3Config(num_hidden_layers=1))
    mtp = MtpModel(main, config.num_nextn_predict_layers).layers[0]
names = [n for n, m in mtp.named_modules() if isinstance(m, DeepseekV3RMSNorm)]
own = [name for name in names if not name.startswith("mtp_block.")]
print(f"MTP layer: {', '.join(own)}, and {len(names) - len(own)} in its decoder layer")
#> MTP layer: enorm, hnorm, post_norm, and 4 in its decoder layer
