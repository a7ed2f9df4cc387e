import torch

x = torch.tensor([2.0, 0.5, -1.0, 1.5])
eps = 1e-6

# LayerNorm on the same x (gamma = 1, beta = 0): center first, then scale.
mean = x.mean()
print(f"{mean:.4f}")
#> 0.7500
std = torch.sqrt((x - mean).pow(2).mean() + eps)
print(f"{std:.4f}")
#> 1.1456
y = (x - mean) / std
print(y)
#> tensor([ 1.0911, -0.2182, -1.5275,  0.6547])

print(torch.nn.functional.layer_norm(x, (4,), eps=eps))
#> tensor([ 1.0911, -0.2182, -1.5275,  0.6547])
