import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile

from snippets.implementations.variants import rms_norm_llama, rms_norm_rsqrt

# Bookkeeping the profiler also records: allocations, views, type queries.
BOOKKEEPING = {"aten::empty", "aten::empty_strided", "aten::view", "aten::result_type"}
CASTS = {"aten::to", "aten::type_as"}  # they work only when they copy

def does_work(event):
    if event.name in BOOKKEEPING:
        return False
    return event.name not in CASTS or any(map(does_work, event.cpu_children))

def operations(events):
    """The ops a call runs, and the calls it entered that only hand over to one op."""
    entered, working = [], [event for event in events if does_work(event)]
    while len(working) == 1 and any(map(does_work, working[0].cpu_children)):
        entered.append(working[0])
        working = [event for event in working[0].cpu_children if does_work(event)]
    return entered, working

def short(events):
    return [event.name.removeprefix("aten::") for event in events]

# A speed figure belongs to an implementation (the RMSNorm paper's 7% to 64% lower running
# times are those of its own 2019 models and frameworks); what a form costs starts with
# the operations it runs.
torch.manual_seed(0)
x = torch.randn(8, 2048)
weight = torch.ones(2048)
x_bf16, weight_bf16 = x.bfloat16(), weight.bfloat16()
rms_norm, layer_norm = nn.RMSNorm(2048, eps=1e-6), nn.LayerNorm(2048)
forms = {
    "eager": lambda: rms_norm_rsqrt(x, weight),  # x * rsqrt(mean(x^2) + eps) * weight
    "Hugging Face, bf16": lambda: rms_norm_llama(x_bf16, weight_bf16),
    "nn.RMSNorm": lambda: rms_norm(x),
    "nn.LayerNorm": lambda: layer_norm(x),
}
calls = {}
for name, form in forms.items():
    profiler = profile(activities=[ProfilerActivity.CPU], record_shapes=True)
    with torch.no_grad(), profiler:
        form()
    entered, ops = operations([e for e in profiler.events() if e.cpu_parent is None])
    calls[name] = entered
    # x-sized: ops with an input as large as x, which read that much from memory.
    passes = sum(list(x.shape) in op.input_shapes for op in ops)
    counts = f"{len(ops)} op(s) ({passes} x-sized)"
    print(f"{name}: {counts}: {', '.join(short(ops))}")
    #> eager: 6 op(s) (4 x-sized): pow, mean, add, rsqrt, mul, mul
    #> Hugging Face, bf16: 8 op(s) (6 x-sized): to, pow, mean, add, rsqrt, mul, to, mul
    #> nn.RMSNorm: 6 op(s) (4 x-sized): pow, mean, add_, rsqrt, mul, mul
    #> nn.LayerNorm: 1 op(s) (1 x-sized): native_layer_norm
for name, entered in calls.items():
    if entered:
        print(f"{name} calls {' > '.join(short(entered))}")
        #> nn.RMSNorm calls rms_norm > _fused_rms_norm
        #> nn.LayerNorm calls layer_norm
