import torch
from torch import fx

def layer_norm(x, eps=1e-6):
    mean = x.mean(-1, keepdim=True)
    var = (x - mean).pow(2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps)

def rms_norm(x, eps=1e-6):
    return x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)

# Both are O(n) per row; they differ in how many reductions (passes over the row) they need.
for norm in [layer_norm, rms_norm]:
    graph = fx.symbolic_trace(norm).graph
    reductions = sum(node.target == "mean" for node in graph.nodes)
    print(f"{norm.__name__}: {reductions} reduction(s) over the row")
    #> layer_norm: 2 reduction(s) over the row
    #> rms_norm: 1 reduction(s) over the row
