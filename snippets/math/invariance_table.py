import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(8, 16, dtype=torch.float64)  # 8 cases (rows) of 16 inputs
W = torch.randn(32, 16, dtype=torch.float64)  # a layer of 32 units
v = torch.randn(1, 16, dtype=torch.float64)

def first_times_3(n):
    """A column that scales the first row of what it multiplies by 3, the rest by 1."""
    return torch.tensor([3.0] + [1.0] * (n - 1), dtype=torch.float64)[:, None]

def invariant(norm, x_changed, W_changed):
    """Whether the norm of the summed inputs x W^T, case by case, eps = 0, is unchanged."""
    before = norm(x @ W.T, (32,), eps=0.0)
    after = norm(x_changed @ W_changed.T, (32,), eps=0.0)
    return "yes" if torch.allclose(after, before) else "no"

# The changes of Table 1 of Zhang and Sennrich (2019), with the table's verdicts for
# LayerNorm and RMSNorm; re-centering W adds one vector to every row of W.
changes = {
    "weight matrix re-scaling": (x, 3 * W, "yes yes"),
    "weight matrix re-centering": (x, W + v, "yes no"),
    "weight vector re-scaling": (x, first_times_3(32) * W, "no no"),
    "dataset re-scaling": (3 * x, W, "yes yes"),
    "dataset re-centering": (x + v, W, "no no"),
    "single case re-scaling": (first_times_3(8) * x, W, "yes yes"),
}
table = [f"{'':26} LayerNorm RMSNorm  (the paper's)"]
for change, (x_new, W_new, paper) in changes.items():
    layer, rms = (invariant(f, x_new, W_new) for f in (F.layer_norm, F.rms_norm))
    table.append(f"{change:26} {layer:>9} {rms:>7}  ({paper})")
print("\n".join(table))
"""
                           LayerNorm RMSNorm  (the paper's)
weight matrix re-scaling         yes     yes  (yes yes)
weight matrix re-centering       yes      no  (yes no)
weight vector re-scaling          no      no  (no no)
dataset re-scaling               yes     yes  (yes yes)
dataset re-centering              no      no  (no no)
single case re-scaling           yes     yes  (yes yes)
"""
