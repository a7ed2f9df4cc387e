"""Which PyTorch operations an eager RMSNorm runs, on the CPU, as the profiler records them."""

import torch
from torch.profiler import profile

from snippets.implementations.variants import rms_norm_llama, rms_norm_torch

# Calls that only pass the work on to other operations: look inside them.
DISPATCH_ONLY = {"aten::rms_norm", "aten::_fused_rms_norm"}

def operations(events):
    """The operations a call ran, outermost first, opening dispatch-only calls."""
    names = []
    for event in events:
        if event.name in DISPATCH_ONLY:
            names += operations(event.cpu_children)
        else:
            names.append(event.name.removeprefix("aten::"))
    return names

x = torch.randn(64, 1024).to(torch.bfloat16)
weight = torch.ones(1024, dtype=torch.bfloat16)
module = torch.nn.RMSNorm(1024, eps=1e-6, dtype=torch.bfloat16)
for name, norm in [
    ("Hugging Face", lambda: rms_norm_llama(x, weight)),
    ("F.rms_norm", lambda: rms_norm_torch(x, weight)),
    ("torch.nn.RMSNorm", lambda: module(x)),
]:
    with profile() as prof:
        norm()
    top = [event for event in prof.events() if event.cpu_parent is None]
    ran = operations(top)
    print(f"{name:<16} {len(ran)} ops: {', '.join(ran)}")
    #> Hugging Face     8 ops: to, pow, mean, add, rsqrt, mul, to, mul
    #> F.rms_norm       8 ops: to, pow, mean, add_, rsqrt, mul, mul, type_as
    #> torch.nn.RMSNorm 8 ops: to, pow, mean, add_, rsqrt, mul, mul, type_as
