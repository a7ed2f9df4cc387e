import torch
import torch.nn.functional as F

# A published table: RMSNorm (weight 1, eps 1e-6) applied to 32 rows of 512 features
# drawn after torch.manual_seed(42), in this order; mean and standard deviation of the
# input and of the output, each over all its values (the sample std, torch's default).
PUBLISHED = {  # case: (input mean, input std, output mean, output std)
    "normal": (0.00, 1.00, 0.0001, 0.9999),
    "shifted": (5.02, 1.00, 0.9802, 0.1951),
    "scaled": (0.02, 10.01, 0.0002, 1.0000),
    "skewed": (1.64, 2.14, 0.5673, 0.7407),
}

torch.manual_seed(42)
inputs = {
    "normal": torch.randn(32, 512),
    "shifted": torch.randn(32, 512) + 5.0,
    "scaled": torch.randn(32, 512) * 10.0,
    "skewed": torch.randn(32, 512).exp(),
}

def stats(x):
    y = F.rms_norm(x, (512,), eps=1e-6)
    return x.mean().item(), x.std().item(), y.mean().item(), y.std().item()

table = ["case     input mean/std: table, re-run    output mean/std: table, re-run"]
for case, x in inputs.items():
    ours, theirs = stats(x), PUBLISHED[case]
    input_pairs = f"{theirs[0]:.2f}/{theirs[1]:.2f}, {ours[0]:.2f}/{ours[1]:.2f}"
    output_pairs = f"{theirs[2]:.4f}/{theirs[3]:.4f}, {ours[2]:.4f}/{ours[3]:.4f}"
    table.append(f"{case:<8} {input_pairs:<32} {output_pairs}")
print("\n".join(table))
"""
case     input mean/std: table, re-run    output mean/std: table, re-run
normal   0.00/1.00, 0.01/1.00             0.0001/0.9999, 0.0093/1.0000
shifted  5.02/1.00, 5.00/1.00             0.9802/0.1951, 0.9804/0.1968
scaled   0.02/10.01, 0.01/10.13           0.0002/1.0000, 0.0013/1.0000
skewed   1.64/2.14, 1.65/2.19             0.5673/0.7407, 0.6106/0.7920
"""

# With weight 1 each output row has mean square m / (m + eps), about 1, so over all the
# output's values mean^2 + variance (the population's, std^2 (N - 1) / N) is about 1,
# whatever the input: a check any table of RMSNorm's output must pass. The table's
# figures, rounded to four decimals, were at most 0.00005 smaller than the true ones.
table = ["case     output mean^2 + variance: table (largest it allows), re-run"]
for case, x in inputs.items():
    (*_, mean, std), theirs = stats(x), PUBLISHED[case]
    kept = (x.numel() - 1) / x.numel()
    published = theirs[2] ** 2 + theirs[3] ** 2 * kept
    largest = (abs(theirs[2]) + 5e-5) ** 2 + (theirs[3] + 5e-5) ** 2 * kept
    rerun = mean**2 + std**2 * kept
    table.append(f"{case:<8} {published:.4f} ({largest:.4f}), {rerun:.4f}")
print("\n".join(table))
"""
case     output mean^2 + variance: table (largest it allows), re-run
normal   0.9997 (0.9998), 1.0000
shifted  0.9989 (0.9990), 1.0000
scaled   0.9999 (1.0000), 1.0000
skewed   0.8704 (0.8706), 1.0000
"""
