import torch
import transformers

# Tiny models on the meta device: the real classes, no weights, nothing downloaded.
tiny = {
    "hidden_size": 64,
    "num_hidden_layers": 1,
    "num_attention_heads": 4,
    "num_key_value_heads": 4,
    "head_dim": 16,
    "intermediate_size": 128,
    "vocab_size": 128,
    "eos_token_id": 0,
    "pad_token_id": 0,
}
# Gemma 4's last layer attends to every token, with heads of global_head_dim features.
gemma4 = {"layer_types": ["full_attention"], "global_head_dim": 16}
models = [  # transformers' classes: the model and its configuration
    ("LlamaModel", "LlamaConfig"),
    ("Gemma2Model", "Gemma2Config"),
    ("Gemma3TextModel", "Gemma3TextConfig"),
    ("Qwen2Model", "Qwen2Config"),
    ("Qwen3Model", "Qwen3Config"),
    ("Olmo2Model", "Olmo2Config"),
    ("Glm4Model", "Glm4Config"),
    ("Llama4TextModel", "Llama4TextConfig"),
    ("Gemma4TextModel", "Gemma4TextConfig"),
]

def is_norm(module):
    """A norm by its class (LlamaRMSNorm, Gemma3RMSNorm, Llama4TextL2Norm, ...), whatever
    the attribute holding it is called."""
    return type(module).__name__.endswith("Norm")

def run_and_record(model):
    """Run the model on meta tensors; return what each norm and sublayer of its one
    decoder layer received and returned."""
    seen = {}

    def record(module, args, kwargs, output, name):
        # The first call only: Llama 4's one qk_norm runs on the queries, then the keys.
        received = args[0] if args else kwargs["hidden_states"]
        returned = output[0] if isinstance(output, tuple) else output
        seen.setdefault(name, (received, returned))

    watched = dict(model.layers[0].named_modules())
    # Llama 4 calls its MLP feed_forward, and has one qk_norm for queries and keys.
    watched["mlp"] = watched.get("feed_forward", watched.get("mlp"))
    watched.setdefault("self_attn.q_norm", watched.get("self_attn.qk_norm"))
    watched.update(layer=model.layers[0], final_norm=model.norm)
    for name, module in watched.items():
        sublayer = name in ("self_attn", "self_attn.q_proj", "mlp", "layer")
        if module is not None and (sublayer or is_norm(module)):
            hook = lambda m, a, k, o, name=name: record(m, a, k, o, name)
            module.register_forward_hook(hook, with_kwargs=True)
    model(input_ids=torch.zeros(1, 5, dtype=torch.long, device="meta"))
    return seen

def placement(seen, sublayer, norms):
    # A norm before a sublayer returns exactly the sublayer's input; a norm after it
    # receives exactly the sublayer's output, before it is added to the residual stream.
    received, returned = seen[sublayer]
    before = any(seen[name][1] is received for name in norms)
    after = any(seen[name][0] is returned for name in norms)
    if before and after:
        return "both"
    return "before" if before else "after" if after else "none"

recorded = {}
table = [
    "model       attention MLP    Norm(x+F) final q_norm k_norm q_norm input  RoPE"
]
for model_name, config_name in models:
    extra = gemma4 if model_name.startswith("Gemma4") else {}
    config = getattr(transformers, config_name)(**tiny, **extra)
    with torch.device("meta"):
        model = getattr(transformers, model_name)(config)
    name = model_name.removesuffix("Model")
    seen = recorded[name] = run_and_record(model)
    # The decoder layer's own norms (not those inside attention, such as q_norm).
    norms = [n for n, child in model.layers[0].named_children() if is_norm(child)]
    # Post-norm in the original sense would make the layer's output a norm's output.
    layer_out = seen["layer"][1]
    sum_normed = any(seen[n][1] is layer_out for n in norms)
    # The final norm: applied to the last decoder layer's output (the base model's output,
    # which a causal language model's head reads).
    final = seen["final_norm"][0] is layer_out
    row = [name, placement(seen, "self_attn", norms), placement(seen, "mlp", norms)]
    row += [sum_normed, final]
    attention = model.layers[0].self_attn
    if "self_attn.q_norm" in seen:
        for norm in ("q_norm", "k_norm"):
            module = getattr(attention, norm, None) or attention.qk_norm
            weight = getattr(module, "weight", None)
            row += ["no w" if weight is None else tuple(weight.shape)]
        received = seen["self_attn.q_norm"][0]  # what q_norm normalizes
        row += [tuple(received.shape)]
        # Before RoPE, q_norm reads q_proj's output itself or a view of it (split into
        # heads); after RoPE, the rotated queries, a new tensor.
        projected = seen["self_attn.q_proj"][1]
        before_rope = projected is received or projected is received._base
        row += ["before" if before_rope else "after"]
    else:
        row += ["none"]
    widths = [11, 9, 6, 9, 5, 6, 6, 14, 0]
    table.append(
        " ".join(f"{value!s:<{width}}" for value, width in zip(row, widths)).rstrip()
    )
print("\n".join(table))
"""
model       attention MLP    Norm(x+F) final q_norm k_norm q_norm input  RoPE
Llama       before    before False     True  none
Gemma2      both      both   False     True  none
Gemma3Text  both      both   False     True  (16,)  (16,)  (1, 4, 5, 16)  before
Qwen2       before    before False     True  none
Qwen3       before    before False     True  (16,)  (16,)  (1, 5, 4, 16)  before
Olmo2       after     after  False     True  (64,)  (64,)  (1, 5, 64)     before
Glm4        both      both   False     True  none
Llama4Text  before    before False     True  no w   no w   (1, 5, 4, 16)  after
Gemma4Text  both      both   False     True  (16,)  (16,)  (1, 5, 4, 16)  before
"""

# The same name, different places: what post_attention_layernorm normalizes.
for name, seen in recorded.items():
    received, returned = seen["post_attention_layernorm"]
    if received is seen["self_attn"][1]:
        role = "after attention"
    elif returned is seen["mlp"][0]:
        role = "before the MLP"
    else:
        role = "something else"
    print(f"{name:<11} post_attention_layernorm is {role}")
    #> Llama       post_attention_layernorm is before the MLP
    #> Gemma2      post_attention_layernorm is after attention
    #> Gemma3Text  post_attention_layernorm is after attention
    #> Qwen2       post_attention_layernorm is before the MLP
    #> Qwen3       post_attention_layernorm is before the MLP
    #> Olmo2       post_attention_layernorm is after attention
    #> Glm4        post_attention_layernorm is before the MLP
    #> Llama4Text  post_attention_layernorm is before the MLP
    #> Gemma4Text  post_attention_layernorm is after attention

# Llama 4 rotates (RoPE) and so normalizes queries and keys where no_rope_layers holds 1.
llama4 = transformers.Llama4TextConfig(**tiny | {"num_hidden_layers": 8})
uses_rope = llama4.no_rope_layers
print(f"Llama 4, RoPE and QK-norm by layer (default pattern, 8 layers): {uses_rope}")
"""
Llama 4, RoPE and QK-norm by layer (default pattern, 8 layers): [1, 1, 1, 0, 1, 1, 1, 0]
"""
