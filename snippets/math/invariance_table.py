import torch
import torch.nn.functional as F

torch.manual_seed(0)
cases, features, units = 8, 16, 32
x = torch.randn(cases, features, dtype=torch.float64)
W = torch.randn(units, features, dtype=torch.float64)

# Both norms act on the summed inputs a = x W^T of one layer, each case (row) alone.
# eps = 0, so that "invariant" means exactly the same output.
norms = {
    "LayerNorm": lambda a: F.layer_norm(a, (units,), eps=0.0),
    "RMSNorm": lambda a: F.rms_norm(a, (units,), eps=0.0),
}

one_row = torch.ones(units, 1, dtype=torch.float64)
first_unit = torch.ones(units, 1, dtype=torch.float64)
first_unit[0] = 3.0
first_case = torch.ones(cases, 1, dtype=torch.float64)
first_case[0] = 3.0
# Each change to the weights or the data, as in Table 1 of Zhang and Sennrich (2019).
changes = {
    "weight matrix re-scaling": (x, 3.0 * W),
    "weight matrix re-centering": (x, W + one_row * torch.randn(1, features)),
    "weight vector re-scaling": (x, first_unit * W),
    "dataset re-scaling": (3.0 * x, W),
    "dataset re-centering": (x + torch.randn(1, features), W),
    "single case re-scaling": (first_case * x, W),
}
# The paper's table, in the same order (True = invariant).
paper = {
    "LayerNorm": [True, True, False, True, False, True],
    "RMSNorm": [True, False, False, True, False, True],
}

print(f"{'':27} {'LayerNorm':>9} {'RMSNorm':>9}")
#>                             LayerNorm   RMSNorm
measured = {name: [] for name in norms}
for change, (x_changed, W_changed) in changes.items():
    row = f"{change:27}"
    for name, norm in norms.items():
        invariant = torch.allclose(norm(x_changed @ W_changed.T), norm(x @ W.T))
        measured[name].append(invariant)
        row += f" {'yes' if invariant else 'no':>9}"
    print(row)
    #> weight matrix re-scaling          yes       yes
    #> weight matrix re-centering        yes        no
    #> weight vector re-scaling           no        no
    #> dataset re-scaling                yes       yes
    #> dataset re-centering               no        no
    #> single case re-scaling            yes       yes
print("the paper's rows:", measured == paper)
#> the paper's rows: True
