"""Seven ways to write RMSNorm. Each takes x (..., n) and a weight of shape (n,)."""

import torch
import torch.nn.functional as F

def rms_norm_scratch(x, weight, eps=1e-6):
    # The definition as written: square, mean, add eps, square root, divide.
    return weight * (x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps))

def rms_norm_rsqrt(x, weight, eps=1e-6):
    # One reciprocal square root and a multiply instead of sqrt and divide.
    return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))

def rms_norm_llama(x, weight, eps=1e-6):
    # LLaMA / Hugging Face: compute in float32, cast back to x's dtype, then scale.
    h = x.to(torch.float32)
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return weight * h.to(x.dtype)

def rms_norm_gemma(x, weight, eps=1e-6):
    # Gemma 1 to 3: weight starts at zeros, scales by 1 + weight; one cast, at the end.
    h = x.float()
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return (h * (1.0 + weight.float())).to(x.dtype)

def rms_norm_torch(x, weight, eps=1e-6):
    # PyTorch's own (torch.nn.RMSNorm calls this).
    return F.rms_norm(x, weight.shape, weight, eps)

def rms_norm_paper_code(x, weight, eps=1e-8):
    # The RMSNorm authors' PyTorch reference code: eps outside the square root.
    rms = x.norm(2, dim=-1, keepdim=True) * x.shape[-1] ** -0.5
    return weight * (x / (rms + eps))

def rms_norm_partial(x, weight, eps=1e-6, p=0.0625):
    # pRMSNorm: the statistic from the first p * n features only (the paper uses 6.25%).
    k = max(1, int(x.shape[-1] * p))
    mean_square = x[..., :k].pow(2).mean(-1, keepdim=True)
    return weight * (x / torch.sqrt(mean_square + eps))

VARIANTS = {
    "scratch": rms_norm_scratch,
    "rsqrt": rms_norm_rsqrt,
    "llama": rms_norm_llama,
    "gemma": rms_norm_gemma,
    "torch": rms_norm_torch,
    "paper code": rms_norm_paper_code,
    "partial": rms_norm_partial,
}
