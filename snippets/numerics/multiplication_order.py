import torch

from snippets.numerics.conventions import ulps

torch.manual_seed(0)
eps = 1e-6

# Convention (b) three ways: float32 throughout, one rounding to bfloat16, and only the order
# of the two multiplications changed. Each product rounds to float32, so the orders can
# differ in float32's last bit, and that bit sometimes decides the bfloat16 rounding.
orders = {
    "(x r) w": lambda x, r, w: (x * r) * w,  # transformers' Gemma and OLMo 2 order
    "x (r w)": lambda x, r, w: x * (r * w),
    "(x w) r": lambda x, r, w: (x * w) * r,
}
lines = [f"{'n':>5}{'order':>10}{'outputs differ from (x r) w':>30}{'max ulps':>10}"]
for n in (2880, 5376, 7168):  # the widths of GPT-OSS, Gemma 3 27B and DeepSeek-V3
    w = (torch.rand(n) + 0.5).bfloat16().float()
    x = torch.randn(1024, n).bfloat16().float()
    r = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)  # the page's r^-1
    out = {name: order(x, r, w).bfloat16() for name, order in orders.items()}
    for name in ("x (r w)", "(x w) r"):
        distance = ulps(out[name], out["(x r) w"])
        count, share = (distance > 0).sum().item(), (distance > 0).float().mean()
        most = distance.max().item()
        lines.append(f"{n:>5}{name:>10}{count:>18,} ({share:.1e}){most:>10}")
print("\n".join(lines))
"""
    n     order   outputs differ from (x r) w  max ulps
 2880   x (r w)                16 (5.4e-06)         1
 2880   (x w) r                18 (6.1e-06)         1
 5376   x (r w)                25 (4.5e-06)         1
 5376   (x w) r                15 (2.7e-06)         1
 7168   x (r w)                21 (2.9e-06)         1
 7168   (x w) r                20 (2.7e-06)         1
"""
