import copy

import torch
from transformers import Qwen3NextConfig, Qwen3NextForCausalLM
from transformers.models.llama.modeling_llama import LlamaRMSNorm
from transformers.models.qwen3_next.modeling_qwen3_next import Qwen3NextRMSNorm

# A tiny Qwen3-Next with random weights, in fewer and smaller layers; its norms are named as
# in the released checkpoints. Its plain norms store w = gain - 1 (measured above); the
# gated norms of its linear-attention layers store the gain itself.
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
tokens = torch.randint(0, config.vocab_size, (1, 16))
with torch.no_grad():
    reference = model(tokens).logits

def engine_logits(state):
    """The logits of an engine whose norms all multiply by their weight: the model with
    each 1 + w norm replaced by a LlamaRMSNorm, loaded with `state`."""
    engine = copy.deepcopy(model)
    for name, module in list(engine.named_modules()):
        if isinstance(module, Qwen3NextRMSNorm):
            parent, _, child = name.rpartition(".")
            norm = LlamaRMSNorm(module.weight.shape[0], eps=module.eps)
            setattr(engine.get_submodule(parent), child, norm)
    engine.load_state_dict(state)
    with torch.no_grad():
        return engine(tokens).logits

state = model.state_dict()
# By class: 1 added, in float32, to the weight of each module of a class that stores w.
by_class = {
    f"{name}.weight"
    for name, module in model.named_modules()
    if isinstance(module, Qwen3NextRMSNorm)
}
converted = {k: v.float() + 1 if k in by_class else v for k, v in state.items()}
same = torch.equal(engine_logits(converted), reference)
print(f"by class: {len(by_class)} weights converted, the same logits: {same}")
#> by class: 11 weights converted, the same logits: True
# By name: every weight whose name ends in norm.weight, the gated norms' gains too.
by_name = {k for k in state if k.endswith("norm.weight")}
wrong = engine_logits({k: v + 1 if k in by_name else v for k, v in state.items()})
off = ((wrong - reference).abs().max() / reference.abs().max()).item()
print(f"by name: {len(by_name)} weights converted, logits off by up to {off:.0%}")
#> by name: 14 weights converted, logits off by up to 11%
