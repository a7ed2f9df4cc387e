import torch

def eps_inside(x: torch.Tensor, eps: float) -> torch.Tensor:
    # torch.nn.RMSNorm, LLaMA and Hugging Face: x / sqrt(mean(x^2) + eps)
    return x / torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)

def eps_outside(x: torch.Tensor, eps: float) -> torch.Tensor:
    # The RMSNorm authors' PyTorch form: x / (sqrt(mean(x^2)) + eps), the root taken
    # there through x.norm: the same output, another gradient at an all-zero row (see below).
    return x / (x.pow(2).mean(dim=-1, keepdim=True).sqrt() + eps)

torch.manual_seed(0)
direction = torch.randn(4096, dtype=torch.float64)
direction = direction / direction.pow(2).mean().sqrt()  # RMS exactly 1

eps = 1e-6
for rms in [1.0, 1e-3]:
    x = rms * direction
    # With eps = 0 both forms return `direction`; measure how far each falls short.
    inside = eps_inside(x, eps).norm() / direction.norm()
    outside = eps_outside(x, eps).norm() / direction.norm()
    apart = (outside / inside - 1).abs()  # relative to eps inside, the usual form
    sizes = f"eps inside keeps {inside:.4f}, eps outside {outside:.4f}"
    print(f"RMS {rms:g}: {sizes}; apart {apart:.1e} ({apart:.1%})")
    #> RMS 1: eps inside keeps 1.0000, eps outside 1.0000; apart 5.0e-07 (0.0%)
    #> RMS 0.001: eps inside keeps 0.7071, eps outside 0.9990; apart 4.1e-01 (41.3%)
