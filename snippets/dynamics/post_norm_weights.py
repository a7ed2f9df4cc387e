import torch
from transformers import Olmo2Config, Olmo2ForCausalLM

# A tiny OLMo 2: an RMSNorm after each sublayer (and on queries and keys), in float64.
config = Olmo2Config(
    vocab_size=100,
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=4,
    rms_norm_eps=1e-6,  # OLMo 2's checkpoints
    bos_token_id=None,
    eos_token_id=None,
    pad_token_id=None,
)
torch.manual_seed(0)
tokens = torch.randint(100, (2, 16))

def model_with(eps):
    torch.manual_seed(0)  # the same initialization each time (std 0.02)
    model = Olmo2ForCausalLM(config).double().eval()
    for module in model.modules():
        if hasattr(module, "variance_epsilon"):
            module.variance_epsilon = eps
    return model

def logits_moved(name, eps):
    """How far tripling one weight matrix of layer 0 moves the logits."""
    model = model_with(eps)
    with torch.no_grad():
        before = model(tokens).logits
        model.get_submodule(f"model.layers.0.{name}").weight.mul_(3)
        return (model(tokens).logits - before).abs().max().item()

# The norms compute in float32 whatever the model's dtype: "unchanged" is to 1e-6.
table = [f"{'tripled':<17} {'eps -> 0: unchanged':<21} eps 1e-6: logits move by"]
for name in ["self_attn.v_proj", "self_attn.o_proj", "mlp.up_proj", "mlp.down_proj"]:
    still = logits_moved(name, eps=1e-30) < 1e-6
    table.append(f"{name:<17} {still!s:<21} {logits_moved(name, eps=1e-6):.2f}")
print("\n".join(table))
"""
tripled           eps -> 0: unchanged   eps 1e-6: logits move by
self_attn.v_proj  True                  0.35
self_attn.o_proj  True                  0.35
mlp.up_proj       True                  0.37
mlp.down_proj     True                  0.37
"""
print(f"{'mlp.gate_proj':<17} {logits_moved('mlp.gate_proj', 1e-30) < 1e-6}")
#> mlp.gate_proj     False

# Why eps matters at initialization: the mean square that reaches each norm after a
# sublayer (after attention, after the MLP).
model, seen = model_with(1e-6), []
layer = model.model.layers[0]
for norm in [layer.post_attention_layernorm, layer.post_feedforward_layernorm]:
    norm.register_forward_hook(
        lambda module, inputs, output: seen.append(inputs[0].pow(2).mean().item())
    )
with torch.no_grad():
    model(tokens)
sizes = ", ".join(f"{mean_square:.1e}" for mean_square in seen)
print(f"mean square at init into the norms after attention, MLP: {sizes}")
#> mean square at init into the norms after attention, MLP: 9.1e-08, 8.8e-08

# At OLMo 2 1B's width: one layer, in float32, fed embeddings of std 0.02 as the default
# initialization draws them (the MLP, which comes after this norm, kept small). At
# initialization attention averages the values of the positions it attends to, so the mean
# square falls with the position; the median over the positions is printed.
wide = Olmo2Config(**config.to_dict())
wide.hidden_size, wide.num_hidden_layers = 2048, 1
wide.num_attention_heads = wide.num_key_value_heads = 16
torch.manual_seed(0)
model, medians = Olmo2ForCausalLM(wide).eval(), []
model.model.layers[0].post_attention_layernorm.register_forward_hook(
    lambda module, inputs, output: medians.append(inputs[0].pow(2).mean(-1).median())
)
with torch.no_grad():
    for length in (16, 1024):
        model(inputs_embeds=0.02 * torch.randn(1, length, 2048))
short, long = (f"{median:.1e}" for median in medians)
print(f"width 2048: median {short} over 16 positions, {long} over 1024")
#> width 2048: median 5.8e-05 over 16 positions, 1.5e-06 over 1024
