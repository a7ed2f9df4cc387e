import torch
import torch.nn.functional as F

def split_norm(x, weight, shards, eps, all_reduce):
    """RMSNorm of rows whose features are split across `shards` devices. With `all_reduce`,
    the devices first add up their sums of squares (one number per row and device)."""
    parts, gains = x.chunk(shards, dim=-1), weight.chunk(shards)
    if all_reduce:
        sum_of_squares = sum(part.pow(2).sum(-1, keepdim=True) for part in parts)
        rms = (
            sum_of_squares / x.shape[-1] + eps
        ).sqrt()  # the full n, not a slice's width
        return torch.cat(
            [gain * part / rms for part, gain in zip(parts, gains)], dim=-1
        )
    # Each device alone: a norm in groups, another function.
    return torch.cat(
        [
            F.rms_norm(part, part.shape[-1:], gain, eps=eps)
            for part, gain in zip(parts, gains)
        ],
        dim=-1,
    )

def split_input_gradient(x, weight, upstream, shards, eps, all_reduce):
    """The input gradient of rows split as above: each device's slice of
    (gain * g - x_hat * s) / r, where s = (1/n) sum_j gain_j g_j x_hat_j spans every feature,
    so in the backward a second all-reduce adds the devices' parts of s."""
    n, parts = x.shape[-1], x.chunk(shards, dim=-1)
    gains, grads = weight.chunk(shards), upstream.chunk(shards, dim=-1)
    r = (sum(part.pow(2).sum(-1, keepdim=True) for part in parts) / n + eps).sqrt()
    shares = [
        (gain * g * part / r).sum(-1, keepdim=True) / n
        for part, gain, g in zip(parts, gains, grads)
    ]
    total = sum(shares)  # the backward's all-reduce
    return torch.cat(
        [
            (gain * g - part / r * (total if all_reduce else share)) / r
            for part, gain, g, share in zip(parts, gains, grads, shares)
        ],
        dim=-1,
    )

def gain_gradient(x, weight, eps, upstream):
    """The gain's gradient, by autograd, for rows x and the gradient arriving from above."""
    gain = weight.clone().requires_grad_()
    F.rms_norm(x, x.shape[-1:], gain, eps=eps).backward(upstream)
    return gain.grad

torch.manual_seed(0)
rows, n, shards, eps = 8, 512, 4, 1e-6
normal = torch.randn(rows, n, dtype=torch.float64)
outlier = normal.clone()
outlier[:, 3] *= 30  # one feature multiplied by 30, on the first device
weight = torch.rand(n, dtype=torch.float64) + 0.5

for name, x in [("normal rows", normal), ("one feature x 30", outlier)]:
    full = F.rms_norm(x, (n,), weight, eps=eps)
    matches = torch.allclose(split_norm(x, weight, shards, eps, all_reduce=True), full)
    alone = (split_norm(x, weight, shards, eps, all_reduce=False) - full).abs().max()
    print(
        f"{name}: all-reduce matches {matches}, devices alone off by up to {alone:.4f}"
    )
    #> normal rows: all-reduce matches True, devices alone off by up to 0.4594
    #> one feature x 30: all-reduce matches True, devices alone off by up to 14.6699

# The backward of the same split: autograd's input gradient of the whole rows against each
# device's slice, with and without the backward's all-reduce.
upstream = torch.randn_like(normal)
x = normal.clone().requires_grad_()
F.rms_norm(x, (n,), weight, eps=eps).backward(upstream)
reduced = split_input_gradient(normal, weight, upstream, shards, eps, all_reduce=True)
alone = split_input_gradient(normal, weight, upstream, shards, eps, all_reduce=False)
matches, off = torch.allclose(reduced, x.grad), (alone - x.grad).abs().max()
print(f"input gradient: all-reduce matches {matches}, devices alone off by {off:.4f}")
#> input gradient: all-reduce matches True, devices alone off by 0.2362

# Split by rows instead (sequence parallelism): each device runs its own backward, and the
# gain's gradient is the sum of the devices' gradients, not any one of them.
halves = (slice(0, rows // 2), slice(rows // 2, rows))  # two devices' rows
partial = [gain_gradient(normal[h], weight, eps, upstream[h]) for h in halves]
print(torch.allclose(sum(partial), gain_gradient(normal, weight, eps, upstream)))
#> True
