import torch

torch.manual_seed(0)
# Four token vectors of hidden size 8: different scales, all shifted by 3.0.
x = torch.randn(4, 8) * torch.tensor([[0.1], [1.0], [10.0], [100.0]]) + 3.0

norm = torch.nn.RMSNorm(8, eps=1e-6)  # weight starts at ones
with torch.no_grad():
    y = norm(x)

# Every row now has root mean square 1, whatever its scale (each RMS >> sqrt(eps)) ...
print(y.pow(2).mean(dim=-1).sqrt())
#> tensor([1.0000, 1.0000, 1.0000, 1.0000])
# ... but its mean is not 0: RMSNorm rescales, it does not re-center. Each row's mean
# comes out as its mean over its RMS: near 1 for the first row, whose values are all
# close to 3.0, below 1 for the others, where 8 random values' own mean counts too.
print(y.mean(dim=-1))
#> tensor([0.9995, 0.9754, 0.1292, 0.4594])
