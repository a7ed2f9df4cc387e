import torch

def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """y = weight * x / sqrt(mean(x^2) + eps) over the last dimension."""
    # eps goes inside the square root, as in torch.nn.RMSNorm, LLaMA and Hugging Face.
    # The formula only: float16 input needs the statistic in float32 (Pitfalls), which
    # this leaves out, so the site's checker fails it.
    rms = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)
    return weight * (x / rms)

torch.manual_seed(0)
x = torch.randn(3, 16, dtype=torch.float64)
x[2] *= 1e-3  # a row of RMS near sqrt(eps), where the place of eps matters
weight = torch.rand(16, dtype=torch.float64) + 0.5

reference = torch.nn.functional.rms_norm(x, (16,), weight, eps=1e-6)
print(torch.allclose(rms_norm(x, weight), reference, rtol=1e-12, atol=0))
#> True

# A fresh torch.nn.RMSNorm (its gain at ones): the output rows' RMS.
fresh = torch.nn.RMSNorm(16, eps=1e-6, dtype=torch.float64)
print([round(r, 4) for r in fresh(x).detach().pow(2).mean(-1).sqrt().tolist()])
#> [1.0, 1.0, 0.6854]
