import torch

from snippets.numerics.conventions import ulps

torch.manual_seed(0)
eps = 1e-6

def normalize(x, mean_square, gain):
    # Convention (b): times the gain in float32, rounded once to x's dtype.
    return (x.float() * torch.rsqrt(mean_square + eps) * gain.float()).to(x.dtype)

lines = [f"{'n':>5}{'dtype':>10}{'rows':>7}{'outputs differ':>26}{'max ulps':>10}"]
for n in (2880, 5376, 7168):  # the widths of GPT-OSS, Gemma 3 27B and DeepSeek-V3
    gain = (torch.rand(n) + 0.5).bfloat16()
    for dtype in (torch.float32, torch.bfloat16):
        x = torch.randn(1024, n).to(dtype)
        squares = x.float().pow(2)
        total = squares.sum(-1, keepdim=True)
        divided = total / n  # what torch.mean does on a CPU: the sum, then / n
        assert torch.equal(squares.mean(-1, keepdim=True), divided)
        multiplied = total * (1 / n)  # what its CUDA kernel does: times 1/n
        rows = (divided != multiplied).float().mean()
        distance = ulps(normalize(x, divided, gain), normalize(x, multiplied, gain))
        count, share = (distance > 0).sum().item(), (distance > 0).float().mean()
        name, most = str(dtype).removeprefix("torch."), distance.max().item()
        lines.append(
            f"{n:>5}{name:>10}{rows:>7.1%}{count:>14,} ({share:.1e}){most:>10}"
        )
print("\n".join(lines))
"""
    n     dtype   rows            outputs differ  max ulps
 2880   float32  29.9%       285,188 (9.7e-02)         4
 2880  bfloat16  30.3%             6 (2.0e-06)         1
 5376   float32  21.4%       347,644 (6.3e-02)         4
 5376  bfloat16  21.5%            10 (1.8e-06)         1
 7168   float32  59.6%     1,408,168 (1.9e-01)         4
 7168  bfloat16  58.3%            43 (5.9e-06)         1
"""
