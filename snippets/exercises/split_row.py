import torch
import torch.nn.functional as F

row = torch.arange(1.0, 9.0, dtype=torch.float64)  # [1, 2, ..., 8]
slices = row.chunk(2)  # device 0 holds [1, 2, 3, 4], device 1 holds [5, 6, 7, 8]

# 1. Each device sums the squares of its slice; one all-reduce adds the sums.
sums = [part.pow(2).sum().item() for part in slices]
total = sum(sums)
print(f"sums of squares {sums[0]:.0f} and {sums[1]:.0f}, all-reduced {total:.0f}")
#> sums of squares 30 and 174, all-reduced 204

# 2. Divided by the whole row's n (8), not by a slice's width (4).
mean_square = total / row.numel()
first = F.rms_norm(row, (8,), eps=1e-12)[0].item()
print(f"mean square {mean_square}, RMS {mean_square**0.5:.4f}")
#> mean square 25.5, RMS 5.0498
print(f"first element {1 / mean_square**0.5:.4f} (F.rms_norm: {first:.4f})")
#> first element 0.1980 (F.rms_norm: 0.1980)

# 3. The first device alone, normalizing its slice by the slice's own RMS.
own_rms = slices[0].pow(2).mean().sqrt().item()
alone = F.rms_norm(slices[0], (4,), eps=1e-12)[0].item()
print(f"the slice's RMS {own_rms:.4f}, first element {alone:.4f}")
#> the slice's RMS 2.7386, first element 0.3651

# 4. The backward, with a gradient of 1 at every output: the shared term (1/n) sum g x_hat
# spans both slices, so the devices add their parts in a second all-reduce.
rms = mean_square**0.5
parts = [(part / rms).sum().item() for part in slices]  # g = 1, gain 1
shared = sum(parts) / row.numel()
print(f"parts {parts[0]:.4f} and {parts[1]:.4f}, shared term {shared:.4f}")
#> parts 1.9803 and 5.1488, shared term 0.8911
x = row.clone().requires_grad_()
F.rms_norm(x, (8,), eps=1e-12).sum().backward()
grad = (1 - (row[0] / rms).item() * shared) / rms
print(f"first element's gradient {grad:.4f} (autograd: {x.grad[0].item():.4f})")
#> first element's gradient 0.1631 (autograd: 0.1631)
alone = (1 - (row[0] / rms).item() * parts[0] / row.numel()) / rms
print(f"with device 0's part alone: {alone:.4f}")
#> with device 0's part alone: 0.1883
