import torch
import torch.nn.functional as F

from snippets.implementations.variants import rms_norm_paper_code

def eps_twice(x, weight, eps=1e-6):
    # Seen in published code: eps inside the root, and again outside it.
    return weight * x / (torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps) + eps)

torch.manual_seed(0)
direction = torch.randn(4096, dtype=torch.float64)
direction = direction / direction.pow(2).mean().sqrt()  # RMS exactly 1
weight = torch.ones(4096, dtype=torch.float64)

for rms in [1.0, 1e-3]:
    x = rms * direction
    right = F.rms_norm(x, (4096,), weight, eps=1e-6)  # eps inside, once
    for name, wrong in [("outside", rms_norm_paper_code), ("twice", eps_twice)]:
        off = ((wrong(x, weight, eps=1e-6) - right).norm() / right.norm()).item()
        print(f"RMS {rms:g}, eps {name}: {off:.1e} away from eps inside")
        #> RMS 1, eps outside: 5.0e-07 away from eps inside
        #> RMS 1, eps twice: 1.0e-06 away from eps inside
        #> RMS 0.001, eps outside: 4.1e-01 away from eps inside
        #> RMS 0.001, eps twice: 7.1e-04 away from eps inside
