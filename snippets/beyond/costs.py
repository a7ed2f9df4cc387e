from collections import Counter

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from transformers import DoryConfig

from snippets.beyond.norms import DyT, deepnorm_constants
from snippets.beyond.stack import NGPT_RATE, VARIANTS, Block

class CountOperations(TorchDispatchMode):
    """Count the PyTorch operations that run, by name."""

    def __init__(self):
        super().__init__()
        self.counts = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts[func.overloadpacket.__name__] += 1
        return func(*args, **(kwargs or {}))

# F itself: two matrix products (addmm, with their transposes t) and the ReLU.
sublayer = {"addmm", "t", "relu"}
# A reduction sums over the width, per token; every other operation is elementwise
# (the residual addition included).
reductions = {"mean", "sum", "linalg_vector_norm"}
width = 128
print(f"one block (one sublayer) of width {width}, besides F:")
#> one block (one sublayer) of width 128, besides F:
table = ["variant       reductions  elementwise  parameters"]
for variant in VARIANTS:
    block, x = Block(width, variant, alpha=2.0), torch.randn(4, width)
    with torch.no_grad(), CountOperations() as count:
        block(x)
    reduce = sum(n for op, n in count.counts.items() if op in reductions)
    other = sum(n for op, n in count.counts.items() if op not in sublayer | reductions)
    parameters = sum(
        p.numel() for name, p in block.named_parameters() if not name.startswith("fc")
    )
    table.append(f"{variant:<12} {reduce:>11} {other:>12} {parameters:>11}")
print("\n".join(table))
"""
variant       reductions  elementwise  parameters
pre-norm               1            6         128
post-norm              1            6         128
DeepNorm               1            7         128
Peri-LN                2           11         256
nGPT                   2            5         128
DyT                    0            5         257
"""

for layers in [4, 24]:
    alpha, beta = deepnorm_constants(layers)
    print(f"DeepNorm, {layers:>2} layers: alpha = {alpha:.4g}, beta = {beta:.4g}")
    #> DeepNorm,  4 layers: alpha = 1.682, beta = 0.4204
    #> DeepNorm, 24 layers: alpha = 2.632, beta = 0.2686
print(f"initial alpha: DyT {DyT(width).alpha.item()}, nGPT {NGPT_RATE}")
#> initial alpha: DyT 0.5, nGPT 0.05
print("transformers' Dory starts its nGPT rate at", DoryConfig().ngpt_alpha_init)
#> transformers' Dory starts its nGPT rate at 0.05
