import torch
import torch.nn.functional as F

def split_norm(x, weight, shards, eps, shared):
    """RMSNorm of rows whose features are split across `shards` devices. With `shared`, the
    devices add up their sums of squares first (an all-reduce of one number per row)."""
    parts, gains = x.chunk(shards, dim=-1), weight.chunk(shards)
    if shared:
        sum_of_squares = sum(part.pow(2).sum(-1, keepdim=True) for part in parts)
        rms = (sum_of_squares / x.shape[-1] + eps).sqrt()  # the full n, not n / shards
        return torch.cat(
            [gain * part / rms for part, gain in zip(parts, gains)], dim=-1
        )
    # Each device alone: a norm in groups, another function.
    width = x.shape[-1] // shards
    return torch.cat(
        [F.rms_norm(p, (width,), g, eps=eps) for p, g in zip(parts, gains)], dim=-1
    )

torch.manual_seed(0)
rows, n, shards, eps = 8, 512, 4, 1e-6
normal = torch.randn(rows, n, dtype=torch.float64)
outlier = normal.clone()
outlier[:, 3] *= 30  # one large feature, on the first device
weight = torch.rand(n, dtype=torch.float64) + 0.5

for name, x in [("normal rows", normal), ("one large feature", outlier)]:
    full = F.rms_norm(x, (n,), weight, eps=eps)
    shared = torch.allclose(split_norm(x, weight, shards, eps, shared=True), full)
    alone = (split_norm(x, weight, shards, eps, shared=False) - full).abs().max()
    print(f"{name}: shared sums {shared}, each device alone off by up to {alone:.4f}")
    #> normal rows: shared sums True, each device alone off by up to 0.4594
    #> one large feature: shared sums True, each device alone off by up to 14.6699

# Split by rows instead (sequence parallel): the gain's gradient sums over rows, so the
# devices' partial sums must be added up before the optimizer step.
x_hat = normal / (normal.pow(2).mean(-1, keepdim=True) + eps).sqrt()
upstream = torch.randn_like(normal)
halves = (slice(0, rows // 2), slice(rows // 2, rows))  # two devices' rows
partial_sums = [(upstream[half] * x_hat[half]).sum(0) for half in halves]
print(torch.allclose(sum(partial_sums), (upstream * x_hat).sum(0)))
#> True
