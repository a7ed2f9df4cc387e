import torch
import torch.nn.functional as F

torch.manual_seed(0)
n = 512
y = F.rms_norm(torch.randn(1000, n) + 0.3, (n,))

# Every RMSNorm output row (weight 1, small eps) has mean(y^2) = 1. So its mean m and
# its sample standard deviation s are tied: s = sqrt(n / (n - 1) * (1 - m^2)).
m, s = y.mean(-1), y.std(-1)
print(torch.allclose(s, torch.sqrt(n / (n - 1) * (1 - m**2)), atol=1e-5))
#> True

# A published table paired mean 0.0001 with std 0.9999 for such rows. The tie allows
# only these, as a sample (n = 512) or a population standard deviation:
print(f"{(n / (n - 1) * (1 - 0.0001**2)) ** 0.5:.4f}, {(1 - 0.0001**2) ** 0.5:.4f}")
#> 1.0010, 1.0000
