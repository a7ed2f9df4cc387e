import torch

from snippets.numerics.conventions import ulps

torch.manual_seed(0)
eps = 1e-6

def running_total(squares):
    """Each row's squares added left to right into one float32 total, as a loop does."""
    total = torch.zeros(len(squares), 1)
    for column in squares.T:
        total = total + column[:, None]
    return total

def normalize(x, mean_square, gain):
    # Convention (b): times the gain in float32, rounded once to x's dtype.
    return (x.float() * torch.rsqrt(mean_square + eps) * gain.float()).to(x.dtype)

lines = [
    f"{'n':>5}{'dtype':>10}{'change':>17}{'rows':>7}{'outputs differ':>26}{'max ulps':>10}"
]
for n in (2880, 5376, 7168):  # the widths of GPT-OSS, Gemma 3 27B and DeepSeek-V3
    gain = (torch.rand(n) + 0.5).bfloat16()
    for dtype in (torch.float32, torch.bfloat16):
        x = torch.randn(1024, n).to(dtype)
        squares = x.float().pow(2)
        total = squares.sum(-1, keepdim=True)
        divided = total / n  # what torch.mean does on a CPU: the sum, then / n
        assert torch.equal(squares.mean(-1, keepdim=True), divided)
        ours = normalize(x, divided, gain)
        changes = {
            "/ n to * (1/n)": total * (1 / n),  # what its CUDA kernel does: times 1/n
            # The same sum in another order (8 chunks, then their sums), as another
            # kernel's reduction adds: no convention changes.
            "summation order": squares.reshape(1024, 8, -1).sum(-1).sum(-1, True) / n,
            # A loop over the row into one total (a thread or a warp walking the row).
            "running total": running_total(squares) / n,
        }
        for change, mean_square in changes.items():
            rows = (divided != mean_square).float().mean()
            distance = ulps(ours, normalize(x, mean_square, gain))
            count, share = (distance > 0).sum().item(), (distance > 0).float().mean()
            name, most = str(dtype).removeprefix("torch."), distance.max().item()
            lines.append(
                f"{n:>5}{name:>10}{change:>17}{rows:>7.1%}{count:>14,} ({share:.1e})"
                f"{most:>10}"
            )
print("\n".join(lines))
"""
    n     dtype           change   rows            outputs differ  max ulps
 2880   float32   / n to * (1/n)  29.9%       285,188 (9.7e-02)         4
 2880   float32  summation order  47.8%       648,105 (2.2e-01)         4
 2880   float32    running total  94.8%     2,554,482 (8.7e-01)        23
 2880  bfloat16   / n to * (1/n)  30.3%             6 (2.0e-06)         1
 2880  bfloat16  summation order  48.9%            17 (5.8e-06)         1
 2880  bfloat16    running total 100.0%         1,057 (3.6e-04)         1
 5376   float32   / n to * (1/n)  21.4%       347,644 (6.3e-02)         4
 5376   float32  summation order  46.5%     1,100,915 (2.0e-01)         4
 5376   float32    running total  97.0%     5,073,934 (9.2e-01)        32
 5376  bfloat16   / n to * (1/n)  21.5%            10 (1.8e-06)         1
 5376  bfloat16  summation order  47.7%            27 (4.9e-06)         1
 5376  bfloat16    running total 100.0%         2,505 (4.6e-04)         1
 7168   float32   / n to * (1/n)  59.6%     1,408,168 (1.9e-01)         4
 7168   float32  summation order  48.4%     1,385,020 (1.9e-01)         4
 7168   float32    running total  96.6%     6,725,933 (9.2e-01)        43
 7168  bfloat16   / n to * (1/n)  58.3%            43 (5.9e-06)         1
 7168  bfloat16  summation order  44.8%            23 (3.1e-06)         1
 7168  bfloat16    running total 100.0%         4,179 (5.7e-04)         1
"""
