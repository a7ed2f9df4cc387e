import copy
import textwrap

import torch
import transformers as tf

# A tiny model of each family, built from transformers' own classes: 4 query heads
# sharing 2 key-value heads (grouped-query attention, as most released models use), so a
# norm's width tells a norm per head (the class's head_dim) from one over a projection.
TINY = {"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4}
TINY |= {"num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 128}
TINY |= {"eos_token_id": 0, "pad_token_id": 0}
TINY |= {"rms_norm_eps": 1e-3}  # an eps no class has by default, to see who reads it
MODEL_TYPES = ["llama", "mistral", "qwen3", "gemma2", "gemma3_text", "olmo2"]
MODEL_TYPES += ["deepseek_v3", "gpt_oss"]
# DeepSeek-V3's attention (multi-head latent attention) has no key-value heads to share.
OWN = {"deepseek_v3": {"num_key_value_heads": 4}}

def eps_of(norm):
    return getattr(norm, "variance_epsilon", getattr(norm, "eps", None))

def convention(norm):
    """How the norm applies its weight w in bfloat16, found bit for bit: its gain (w or
    1 + w), and whether it rounds x / RMS before multiplying (LLaMA's order) or once."""
    norm = copy.deepcopy(norm).bfloat16()
    torch.manual_seed(0)
    with torch.no_grad():
        norm.weight.copy_(1 + 0.2 * torch.randn(norm.weight.shape))
        x = torch.randn(64, norm.weight.shape[-1]).bfloat16()
        output = norm(x)
    mean_square = x.float().pow(2).mean(-1, keepdim=True)
    unit = x.float() * torch.rsqrt(mean_square + eps_of(norm))
    w = norm.weight.float()
    for name, gain in [("w", w), ("1 + w", 1 + w)]:
        if torch.equal(output, (unit * gain).bfloat16()):
            return f"gain {name}, multiplies in float32, rounds once"
        if torch.equal(output, unit.bfloat16() * gain.bfloat16()):
            return f"gain {name}, rounds, then multiplies (LLaMA's order)"
    return "neither order"

def norms_in_call_order(model):
    """The first decoder layer's norms in the order its forward calls them, then the
    final norm: (name, module) pairs."""
    called, hooks = [], []
    layer = [(f"layers.0.{name}", m) for name, m in model.layers[0].named_modules()]
    for name, module in [*layer, ("norm", model.norm)]:
        if "Norm" in type(module).__name__:
            hook = lambda module, args, output, name=name: called.append((name, module))
            hooks.append(module.register_forward_hook(hook))
    model(input_ids=torch.zeros(1, 4, dtype=torch.long))
    for handle in hooks:  # later calls of the norms are not the layer's
        handle.remove()
    return called

cards = []  # two lines or more per model
for model_type in MODEL_TYPES:
    config = tf.AutoConfig.for_model(model_type, **TINY | OWN.get(model_type, {}))
    torch.manual_seed(0)
    called = norms_in_call_order(tf.AutoModel.from_config(config))
    parts = []
    for name, norm in called:
        width, eps = norm.weight.shape[-1], eps_of(norm)
        fixed = "" if eps == config.rms_norm_eps else f", eps {eps:g} fixed"
        # A no-break space in each part: a line breaks only between norms.
        parts.append(f"{name.removeprefix('layers.0.')}\xa0({width}{fixed})")
    # Each norm's class and convention, once per kind: one kind in each model here.
    kinds = {f"{type(norm).__name__}, {convention(norm)}" for _, norm in called}
    head = f"{model_type}: {'; '.join(sorted(kinds))}"
    order = textwrap.fill(" > ".join(parts), 76, initial_indent="  ")
    cards.append(head + "\n" + order.replace("\xa0", " ").replace("\n", "\n  "))
print("\n".join(cards))
"""
llama: LlamaRMSNorm, gain w, rounds, then multiplies (LLaMA's order)
  input_layernorm (64) > post_attention_layernorm (64) > norm (64)
mistral: MistralRMSNorm, gain w, rounds, then multiplies (LLaMA's order)
  input_layernorm (64) > post_attention_layernorm (64) > norm (64)
qwen3: Qwen3RMSNorm, gain w, rounds, then multiplies (LLaMA's order)
  input_layernorm (64) > self_attn.q_norm (128) > self_attn.k_norm (128) >
  post_attention_layernorm (64) > norm (64)
gemma2: Gemma2RMSNorm, gain 1 + w, multiplies in float32, rounds once
  input_layernorm (64) > post_attention_layernorm (64) >
  pre_feedforward_layernorm (64) > post_feedforward_layernorm (64) > norm (64)
gemma3_text: Gemma3RMSNorm, gain 1 + w, multiplies in float32, rounds once
  input_layernorm (64) > self_attn.q_norm (256) > self_attn.k_norm (256) >
  post_attention_layernorm (64) > pre_feedforward_layernorm (64) >
  post_feedforward_layernorm (64) > norm (64)
olmo2: Olmo2RMSNorm, gain w, multiplies in float32, rounds once
  self_attn.q_norm (64) > self_attn.k_norm (32) >
  post_attention_layernorm (64) > post_feedforward_layernorm (64) > norm (64)
deepseek_v3: DeepseekV3RMSNorm, gain w, rounds, then multiplies (LLaMA's order)
  input_layernorm (64) > self_attn.q_a_layernorm (1536, eps 1e-06 fixed) >
  self_attn.kv_a_layernorm (512, eps 1e-06 fixed) >
  post_attention_layernorm (64) > norm (64)
gpt_oss: GptOssRMSNorm, gain w, multiplies in float32, rounds once
  input_layernorm (64) > post_attention_layernorm (64) > norm (64)
"""
