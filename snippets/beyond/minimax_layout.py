import torch
import transformers

# A tiny MiniMax (transformers' MiniMaxModel, random weights), a layer of each attention
# type. Its three alpha factors default to 1; here they are DeepNorm's alpha, 2 layers.
alpha = (2 * 2) ** 0.25
sublayers = ["full_attn", "linear_attn", "mlp"]
factors = {f"{name}_alpha_factor": alpha for name in sublayers}
config = transformers.MiniMaxConfig(
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=4,
    head_dim=16,
    num_local_experts=2,
    vocab_size=128,
    block_size=4,
    **factors,
)
torch.manual_seed(0)
model = transformers.MiniMaxModel(config).eval()

seen = {}  # what each norm and sublayer received and returned

def record(module, args, output, name):
    returned = output[0] if isinstance(output, tuple) else output
    seen[name] = (args[0] if args else None, returned)

for name, module in model.named_modules():
    if name.endswith(("layernorm", "self_attn", "mlp")) or name == "norm":
        module.register_forward_hook(lambda m, a, o, name=name: record(m, a, o, name))
with torch.no_grad():
    model(input_ids=torch.arange(8).unsqueeze(0))

def sums(norm_before, sublayer, norm_after):
    """Whether the norm after a sublayer receives exactly alpha times the stream the
    sublayer read (the output of the norm before it) plus the sublayer's output."""
    stream, returned = seen[norm_before][1], seen[sublayer][1]
    return torch.equal(seen[norm_after][0], stream * alpha + returned)

for i, kind in enumerate(config.layer_types):
    layer = f"layers.{i}."
    last = i + 1 == config.num_hidden_layers
    after_mlp = "norm" if last else f"layers.{i + 1}.input_layernorm"
    before_mlp = layer + "post_attention_layernorm"
    attention = sums(layer + "input_layernorm", layer + "self_attn", before_mlp)
    mlp = sums(before_mlp, layer + "mlp", after_mlp)
    print(f"layer {i} ({kind}), Norm(alpha x + F(x)): attention {attention}, MLP {mlp}")
    #> layer 0 (full_attention), Norm(alpha x + F(x)): attention True, MLP True
    #> layer 1 (linear_attention), Norm(alpha x + F(x)): attention True, MLP True

# MiniMax-Text-01, as released: 80 layers, and alpha = (2N)^(1/4) for N = 80.
print(f"DeepNorm's alpha for 80 layers: {(2 * 80) ** 0.25:.4f}")
#> DeepNorm's alpha for 80 layers: 3.5566
