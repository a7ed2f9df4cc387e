import torch

def layer_norm(x: torch.Tensor, gamma, beta, eps: float = 1e-5) -> torch.Tensor:
    """y = gamma * (x - mean) / sqrt(var + eps) + beta over the last dimension."""
    mean = x.mean(dim=-1, keepdim=True)
    # The population variance (divide by n), not the sample variance (n - 1).
    var = (x - mean).pow(2).mean(dim=-1, keepdim=True)
    return gamma * (x - mean) / torch.sqrt(var + eps) + beta

torch.manual_seed(0)
x = torch.randn(3, 16)
gamma, beta = torch.rand(16) + 0.5, torch.randn(16)

reference = torch.nn.functional.layer_norm(x, (16,), gamma, beta, eps=1e-5)
print(torch.allclose(layer_norm(x, gamma, beta), reference, rtol=1e-5, atol=1e-6))
#> True
