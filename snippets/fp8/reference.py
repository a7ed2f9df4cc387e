"""The residual add, RMSNorm and FP8 quantization of its output, in plain PyTorch: the
reference the Triton kernel (add_rms_norm_fp8.py) is tested against."""

import torch

E4M3 = torch.float8_e4m3fn
E4M3_MAX = torch.finfo(E4M3).max  # 448.0: larger values saturate to it
# The smallest scale: an all-zero row gets a finite scale (and q = 0), not 0 / 0.
MIN_SCALE = 1.0 / (E4M3_MAX * 512.0)

def add_rms_norm(x, residual, weight, eps=1e-6):
    """h = x + residual, rounded to x's dtype (the residual stream), and y = RMSNorm(h) in
    float32: the quantization reads y unrounded, so it is rounded once, to FP8."""
    h = x + residual
    hf = h.float()
    rstd = 1.0 / torch.sqrt(hf.pow(2).mean(-1, keepdim=True) + eps)
    return h, hf * rstd * weight.float()

def quantize(y, group=None, scale=None):
    """FP8 e4m3 of float32 y and its scales, y ≈ q * scale.

    scale given: static, one scale for the whole tensor, chosen in advance (calibration).
    Otherwise dynamic: one scale per row (group=None) or per `group` features of a row,
    the largest magnitude there mapped to 448.
    """
    if scale is not None:
        scales = torch.tensor(scale, dtype=torch.float32)
        return (y / scales).clamp(-E4M3_MAX, E4M3_MAX).to(E4M3), scales
    size = group or y.shape[-1]
    groups = y.reshape(*y.shape[:-1], y.shape[-1] // size, size)
    scales = (groups.abs().amax(-1, keepdim=True) / E4M3_MAX).clamp(min=MIN_SCALE)
    q = (groups / scales).clamp(-E4M3_MAX, E4M3_MAX).to(E4M3)
    scales = scales.squeeze(-1)
    return q.reshape(y.shape), scales if group else scales.squeeze(-1)

def dequantize(q, scales, group=None):
    """q * scale in float32: what the next matmul's FP8 inputs stand for."""
    if scales.dim() == 0:
        return q.float() * scales
    size = group or q.shape[-1]
    groups = q.float().reshape(*q.shape[:-1], q.shape[-1] // size, size)
    per_group = scales if group else scales.unsqueeze(-1)
    return (groups * per_group.unsqueeze(-1)).reshape(q.shape)
