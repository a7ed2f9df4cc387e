"""The norms under FSDP's mixed precision, on one CPU process. FSDP2's `fully_shard` with a
bfloat16 `param_dtype` casts every parameter, the norms' gains too, to bfloat16 for the
forward and backward passes, while the parameters it stores, and their gradients, stay
in the dtype they were given (float32 here, bfloat16 for a model loaded in it); a norm
given a policy of its own keeps its float32 gain. FSDP1 flattens the parameters it wraps
into 1-D ones."""

import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP1
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

from snippets.kernel_in_practice.bfloat16 import bfloat16_rounded

# One process and an in-memory store: no launcher, no network.
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
torch.manual_seed(0)
n = 256

class Block(torch.nn.Module):
    """An embedding, then a pre-norm sublayer added back into the residual stream."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(1000, n)
        self.norm = torch.nn.RMSNorm(n, eps=1e-6)
        self.linear = torch.nn.Linear(n, n)
        with torch.no_grad():
            self.norm.weight.add_(0.1 * torch.randn(n))  # a trained gain, not ones

    def forward(self, tokens):
        stream = self.embed(tokens)
        x = self.norm(stream)
        # As the forward pass sees them (the gain copied: FSDP frees it after the pass).
        self.seen = stream, self.norm.weight.detach().clone(), x
        return stream + self.linear(x)

def name(tensor):
    return str(tensor.dtype)[6:]

policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

def run(norm_policy=None):
    """A fresh block under the bfloat16 policy (its norm first under a policy of its
    own, if given), one forward and backward: the block, the float32 gain it stores, and
    the stream, norm input (after FSDP's cast), gain and norm output the pass saw."""
    block = Block()
    gain = block.norm.weight.detach().clone()
    if norm_policy:
        fully_shard(block.norm, mp_policy=norm_policy)
    fully_shard(block, mp_policy=policy)
    received = []
    block.norm.register_forward_pre_hook(lambda norm, args: received.append(args[0]))
    block(torch.randint(1000, (4096,))).float().square().mean().backward()
    stream, weight, x = block.seen
    return block, gain, stream, received[0], weight, x

def rounded_once(x, stream, g):
    """The share of the norm's outputs equal to their exact value in float64 with gain
    g, rounded once."""
    s = stream.double()
    rms = (s.pow(2).mean(-1, keepdim=True) + 1e-6).sqrt()
    return (x == bfloat16_rounded(g.double() * s / rms)).double().mean().item()

block, gain, stream, norm_input, weight, x = run()
print(f"stream {name(stream)}, norm input {name(norm_input)}, gain {name(weight)}")
#> stream bfloat16, norm input bfloat16, gain bfloat16
print("norm output", name(x))
#> norm output bfloat16
# With the gain the model stores (float32) and the gain the pass used (bfloat16).
for label, g in (("float32", gain), ("bfloat16", weight)):
    same = rounded_once(x, stream, g)
    print(f"outputs equal to the {label} gain's, rounded once: {same:.1%}")
    #> outputs equal to the float32 gain's, rounded once: 71.7%
    #> outputs equal to the bfloat16 gain's, rounded once: 100.0%

for key, p in block.named_parameters():
    print(f"stored {key:<13} {name(p)}, gradient {name(p.grad)}, dim() {p.dim()}")
    #> stored embed.weight  float32, gradient float32, dim() 2
    #> stored norm.weight   float32, gradient float32, dim() 1
    #> stored linear.weight float32, gradient float32, dim() 2
    #> stored linear.bias   float32, gradient float32, dim() 1

# A policy of its own for the norm: its input and gain in float32, its output rounded to
# bfloat16 for the layers after it.
own = MixedPrecisionPolicy(param_dtype=torch.float32, output_dtype=torch.bfloat16)
_, gain, stream, norm_input, weight, x = run(norm_policy=own)
print(f"stream {name(stream)}, norm input {name(norm_input)}, gain {name(weight)}")
#> stream bfloat16, norm input float32, gain float32
print("norm output", name(x))
#> norm output bfloat16
same = rounded_once(x, stream, gain)
print(f"outputs equal to the float32 gain's, rounded once: {same:.1%}")
#> outputs equal to the float32 gain's, rounded once: 100.0%

# FSDP stores each parameter in the dtype it was given: a model loaded in bfloat16 (as
# from_pretrained loads a bfloat16 checkpoint by default) keeps bfloat16 gains, and its
# optimizer steps them in bfloat16.
loaded = Block().bfloat16()
fully_shard(loaded, mp_policy=policy)
print("loaded in bfloat16: stored norm.weight", name(loaded.norm.weight))
#> loaded in bfloat16: stored norm.weight bfloat16

# FSDP1 (on one process it warns that it shards nothing) flattens what it wraps.
flat = FSDP1(Block(), use_orig_params=False, device_id=torch.device("cpu"))
print("FSDP1:", {k.split(".")[-1]: p.dim() for k, p in flat.named_parameters()})
#> FSDP1: {'_flat_param': 1}
dist.destroy_process_group()
