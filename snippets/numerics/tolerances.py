import torch
import torch.nn.functional as F

from snippets.numerics.conventions import EPS, cast_once, eps_outside, llama, ulps

torch.manual_seed(0)
n = 4096
x = torch.randn(64, n).bfloat16()
gain = (torch.rand(n) + 0.5).bfloat16()

def bfloat16_sum_of_squares(x, weight):
    # A kernel that adds the squares in bfloat16 (as Triton 3.9's tl.sum does when handed
    # bfloat16), in pairs, then pairs of pairs; everything else as (b).
    squares = x * x  # rounded to bfloat16
    while squares.shape[-1] > 1:
        squares = squares[..., 0::2] + squares[..., 1::2]
    rms = torch.rsqrt(squares.float() / x.shape[-1] + EPS)
    return (x.float() * rms * weight.float()).to(x.dtype)

def with_mean_square(x, weight, mean_square, eps=EPS):
    """(b) from a mean square computed another way."""
    return (x.float() * torch.rsqrt(mean_square + eps) * weight.float()).to(x.dtype)

def llama_with_mean_square(x, weight, mean_square):
    """(a) from a mean square computed another way: rounded, then times the weight."""
    return weight * (x.float() * torch.rsqrt(mean_square + EPS)).to(x.dtype)

def passes(actual, expected, tolerance):
    try:
        torch.testing.assert_close(actual, expected, atol=tolerance, rtol=tolerance)
        return "passes"
    except AssertionError:
        return "fails"

# A bfloat16 step is 2^-8 to 2^-7 of the value: rtol = 1e-2 is more than a step.
step = torch.finfo(torch.bfloat16).eps
print(f"rtol 1e-2 in bfloat16 steps: {1e-2 / step:.2f} to {2e-2 / step:.2f}")
#> rtol 1e-2 in bfloat16 steps: 1.28 to 2.56

reference = cast_once(x, gain)  # convention (b)
squares = x.float().pow(2)
# The squares added in another order (16 chunks, then their sums), as in another kernel.
other_order = squares.reshape(64, 16, -1).sum(-1).sum(-1, keepdim=True) / n
candidates = {
    "F.rms_norm (same convention)": F.rms_norm(x, (n,), gain, EPS),
    "(a) LLaMA": llama(x, gain),
    "(f) eps outside": eps_outside(x, gain),
    "squares added in bfloat16": bfloat16_sum_of_squares(x, gain),
    # (b) again, its squares added in another order: right.
    "(b), another summation order": with_mean_square(x, gain, other_order),
    "(b), mean over n - 1": with_mean_square(
        x, gain, squares.sum(-1, keepdim=True) / (n - 1)
    ),
    "(b), eps 1e-5, not 1e-6": with_mean_square(
        x, gain, squares.mean(-1, keepdim=True), eps=1e-5
    ),
}
table = [f"{'against (b)':<30}{'1e-2':>8}{'differ':>9}{'outputs':>9}{'max ulps':>10}"]
for name, out in candidates.items():
    distance = ulps(out, reference)
    differ = (distance > 0).float().mean()
    verdict = passes(out, reference, 1e-2)
    count = (distance > 0).sum()  # of 64 x 4096
    table.append(f"{name:<30}{verdict:>8}{differ:>9.1%}{count:>9}{distance.max():>10}")
print("\n".join(table))
"""
against (b)                       1e-2   differ  outputs  max ulps
F.rms_norm (same convention)    passes     0.0%        0         0
(a) LLaMA                       passes    26.0%    68169         1
(f) eps outside                 passes     0.0%       33         1
squares added in bfloat16       passes    19.0%    49726         1
(b), another summation order    passes     0.0%        1         1
(b), mean over n - 1            passes     2.2%     5876         1
(b), eps 1e-5, not 1e-6         passes     0.1%      238         1
"""

# The LLaMA order rounds twice, so the same change of order moves its outputs further.
distance = ulps(llama_with_mean_square(x, gain, other_order), llama(x, gain))
moved = (distance > 0).sum()
print(f"(a), another order, against (a): {moved} outputs, up to {distance.max()} ulps")
#> (a), another order, against (a): 16 outputs, up to 2 ulps

# A mean over n - 1 shrinks outputs by about 1/(2n): on an attention head's rows, more.
for head in (64, 128, 256):
    short, short_gain = x[:, :head], gain[:head]
    sum_of_squares = short.float().pow(2).sum(-1, keepdim=True)
    over_n_minus_1 = with_mean_square(short, short_gain, sum_of_squares / (head - 1))
    distance = ulps(over_n_minus_1, cast_once(short, short_gain))
    differ = (distance > 0).float().mean()
    print(f"n - 1, rows of {head}: {differ:.1%} differ, up to {distance.max()} ulps")
    #> n - 1, rows of 64: 100.0% differ, up to 2 ulps
    #> n - 1, rows of 128: 71.6% differ, up to 1 ulps
    #> n - 1, rows of 256: 36.4% differ, up to 1 ulps
