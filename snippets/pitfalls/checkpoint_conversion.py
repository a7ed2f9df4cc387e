import copy
import re
from collections import Counter

import torch
from transformers import (
    Qwen3_5Config,
    Qwen3_5ForConditionalGeneration,
    Qwen3NextConfig,
    Qwen3NextForCausalLM,
)
from transformers.models.qwen3_next.modeling_qwen3_next import Qwen3NextRMSNorm

# A tiny Qwen3-Next with random weights, in fewer and smaller layers, in bfloat16 as the
# released checkpoints are; its norms are named as in them. Its plain norms store
# w = gain - 1 (measured above); the gated norms of its linear-attention layers store the
# gain itself.
config = Qwen3NextConfig(
    vocab_size=64,
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=4,
    num_attention_heads=4,
    num_key_value_heads=2,
    head_dim=16,
    linear_num_key_heads=2,
    linear_num_value_heads=4,
    linear_key_head_dim=16,
    linear_value_head_dim=16,
    num_experts=4,
    num_experts_per_tok=2,
    moe_intermediate_size=32,
    shared_expert_intermediate_size=32,
)
torch.manual_seed(0)
model = Qwen3NextForCausalLM(config).eval()
with torch.no_grad():  # stored gains away from their initial values, as after training
    for name, parameter in model.named_parameters():
        if name.endswith("norm.weight"):
            parameter.add_(0.1 * torch.randn_like(parameter))
model = model.bfloat16()
tokens = torch.randint(0, config.vocab_size, (1, 16))
with torch.no_grad():
    reference = model(tokens).logits

class EngineNorm(torch.nn.Module):
    """The engine's RMSNorm: it multiplies by its weight, kept in float32, and rounds the
    product once, as Qwen3NextRMSNorm does with 1 + w."""

    def __init__(self, size, eps):
        super().__init__()
        self.weight, self.eps = torch.nn.Parameter(torch.ones(size)), eps

    def forward(self, x):
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return (h * self.weight).to(x.dtype)

# The norms to convert: the modules of the class that stores w (for Qwen3.5, its own
# classes: Qwen3_5RMSNorm and Qwen3_5MoeRMSNorm). Their names, layer numbers left out,
# are the rule an engine's converter, which sees only names, can follow.
norms = [n for n, m in model.named_modules() if isinstance(m, Qwen3NextRMSNorm)]
left = [n for n, m in model.named_modules() if n.endswith("norm") and n not in norms]

def patterns(names):
    """Each name with its layer number left out, and how many modules have it."""
    return sorted(Counter(re.sub(r"\.\d+\.", ".N.", name) for name in names).items())

for kind, names in [("converted", norms), ("left", left)]:
    for pattern, count in patterns(names):
        print(f"{kind} ({count}): {pattern}")
        #> converted (4): model.layers.N.input_layernorm
        #> converted (4): model.layers.N.post_attention_layernorm
        #> converted (1): model.layers.N.self_attn.k_norm
        #> converted (1): model.layers.N.self_attn.q_norm
        #> converted (1): model.norm
        #> left (3): model.layers.N.linear_attn.norm

def engine_logits(state):
    """The logits of the engine: the model with those norms replaced by EngineNorm,
    loaded with `state`."""
    engine = copy.deepcopy(model)
    for name in norms:
        parent, _, child = name.rpartition(".")
        norm = model.get_submodule(name)
        setattr(
            engine.get_submodule(parent), child, EngineNorm(len(norm.weight), norm.eps)
        )
    engine.load_state_dict(state)  # each tensor in its parameter's dtype
    with torch.no_grad():
        return engine(tokens).logits

def compare(converted):
    """The engine's logits with `converted` loaded, against the model's own."""
    logits = engine_logits(converted)
    if torch.equal(logits, reference):
        return "the model's own logits, bit for bit"
    differ = (logits != reference).float().mean().item()
    largest = ((logits - reference).abs().max() / reference.abs().max()).item()
    return f"{differ:.0%} of logits differ, by up to {largest:.1%} of the largest"

state = model.state_dict()
convert = {f"{name}.weight" for name in norms}
# By class, 1 added in float32 and the gains kept in float32.
exact = {k: v.float() + 1 if k in convert else v for k, v in state.items()}
print(f"by class: {compare(exact)}")
#> by class: the model's own logits, bit for bit
# The same gains stored in bfloat16, as a converter keeping the checkpoint's dtype does.
rounded = {k: v.bfloat16() if k in convert else v for k, v in exact.items()}
print(f"by class, gains in bfloat16: {compare(rounded)}")
#> by class, gains in bfloat16: 73% of logits differ, by up to 3.0% of the largest
# By name: every weight whose name ends in norm.weight, the gated norms' gains too.
by_name = {k for k in state if k.endswith("norm.weight")}
named = {k: v.float() + 1 if k in by_name else v for k, v in state.items()}
print(f"by name: {compare(named)}")
#> by name: 98% of logits differ, by up to 11.4% of the largest

# Qwen3.5's image-and-text class, tiny and on the meta device (no weights): its norms by
# class. The decoder's names start with model.language_model, and the vision merger's
# norm, a LayerNorm that stores the gain itself, has a name ending in norm too.
text = {"vocab_size": 64, "hidden_size": 64, "intermediate_size": 128, "head_dim": 16}
text |= {"num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2}
vision = {"depth": 1, "hidden_size": 64, "intermediate_size": 128, "num_heads": 4}
with torch.device("meta"):
    image_and_text = Qwen3_5ForConditionalGeneration(
        Qwen3_5Config(text_config=text, vision_config=vision | {"out_hidden_size": 64})
    )
by_class = {}
for name, module in image_and_text.named_modules():
    if name.endswith("norm"):
        by_class.setdefault(type(module).__name__, []).append(name)
for kind, names in sorted(by_class.items()):
    for pattern, count in patterns(names):
        print(f"{kind} ({count}): {pattern}")
        #> LayerNorm (1): model.visual.merger.norm
        #> Qwen3_5RMSNorm (4): model.language_model.layers.N.input_layernorm
        #> Qwen3_5RMSNorm (4): model.language_model.layers.N.post_attention_layernorm
        #> Qwen3_5RMSNorm (1): model.language_model.layers.N.self_attn.k_norm
        #> Qwen3_5RMSNorm (1): model.language_model.layers.N.self_attn.q_norm
        #> Qwen3_5RMSNorm (1): model.language_model.norm
        #> Qwen3_5RMSNormGated (3): model.language_model.layers.N.linear_attn.norm
