import torch
import torch.nn.functional as F

x = torch.tensor([-2.0, 1.0, 0.0, 3.0], dtype=torch.float64)
print(f"mean square = {x.pow(2).mean():.1f}, RMS = {x.pow(2).mean().sqrt():.5f}")
#> mean square = 3.5, RMS = 1.87083
print(", ".join(f"{v:.5f}" for v in F.rms_norm(x, (4,), eps=0.0)))
#> -1.06904, 0.53452, 0.00000, 1.60357
print(f"mean = {x.mean():.5f}, variance = {x.var(unbiased=False):.5f}")
#> mean = 0.50000, variance = 3.25000
print(", ".join(f"{v:.5f}" for v in F.layer_norm(x, (4,), eps=0.0)))
#> -1.38675, 0.27735, -0.27735, 1.38675
