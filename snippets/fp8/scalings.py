import torch

from snippets.fp8.reference import (
    MIN_SCALE,
    add_rms_norm,
    dequantize,
    quantize,
)

# Llama-sized rows (4096 features) of a residual stream, with two outlier channels of a
# given size in every row (massive activations sit at a few tokens); the norm's gain is 1.
torch.manual_seed(0)
OUTLIERS = [1415, 2533]
ordinary = torch.ones(4096, dtype=torch.bool)
ordinary[OUTLIERS] = False

def normalized(outlier):
    """y = RMSNorm(h) in float32 for 64 rows of h whose two outlier channels hold `outlier`."""
    h = torch.randn(64, 4096)
    h[:, OUTLIERS] = outlier
    h = h.to(torch.bfloat16)
    return add_rms_norm(h, torch.zeros_like(h), torch.ones(4096))[1]

def error(approx, exact, channels):
    """RMS error over the RMS of the exact values, in the given channels."""
    diff = (approx - exact)[:, channels]
    return (diff.pow(2).mean() / exact[:, channels].pow(2).mean()).sqrt().item()

# The error of the ordinary channels, and the share of their FP8 values per token that
# fall below e4m3's smallest normal value (2**-6), where fewer bits are left, or to 0.
print("outlier: bfloat16 y, FP8 per token, per group of 128; per token below normal, 0")
#> outlier: bfloat16 y, FP8 per token, per group of 128; per token below normal, 0
for outlier in [0.0, 100.0, 1e4, 1e5]:
    y = normalized(outlier)
    q, scales = quantize(y)
    per_token = dequantize(q, scales)
    per_group = dequantize(*quantize(y, group=128), group=128)
    kinds = [y.bfloat16().float(), per_token, per_group]
    errors = ", ".join(f"{error(e, y, ordinary):.4f}" for e in kinds)
    below = (q[:, ordinary].float().abs() < 2**-6).float().mean().item()
    zero = (q[:, ordinary].float() == 0).float().mean().item()
    print(f"{outlier:g}: {errors}; {below:.1%}, {zero:.1%}")
    #> 0: 0.0016, 0.0265, 0.0257; 0.0%, 0.0%
    #> 100: 0.0017, 0.0266, 0.0258; 0.3%, 0.0%
    #> 10000: 0.0017, 0.0270, 0.0258; 25.6%, 1.7%
    #> 100000: 0.0016, 0.1258, 0.0404; 99.9%, 17.4%

# A static scale comes from a calibration batch of other rows: one without the outliers
# sets it too low, and the outlier channels saturate at 448 times it.
y = normalized(100.0)
calibrations = {"without outliers": normalized(0.0)}
# Drawn aside: the rows drawn below stay the same as without this batch.
with torch.random.fork_rng():
    calibrations["with outliers"] = normalized(100.0)
print("static scale, calibrated: error of the outliers, of the rest")
#> static scale, calibrated: error of the outliers, of the rest
for name, batch in calibrations.items():
    static = dequantize(*quantize(y, scale=(batch.abs().max() / 448).item()))
    errors = [error(static, y, channels) for channels in (OUTLIERS, ordinary)]
    print(f"{name}: {errors[0]:.4f}, {errors[1]:.4f}")
    #> without outliers: 0.8901, 0.0265
    #> with outliers: 0.0039, 0.0265

# Microscaling (MX, as MXFP8): a scale per 32 features, stored as a power of two. The
# OCP spec's rule, 2**(floor(log2(amax)) - 8), leaves amax / scale in [256, 512): values
# above 448 saturate. Rounding amax / 448 up to a power of two instead never saturates.
def mx(y, round_up):
    """FP8 of y with a power-of-two scale per 32 features, dequantized, and the share of
    values saturated at 448."""
    blocks = y.reshape(*y.shape[:-1], -1, 32)
    amax = blocks.abs().amax(-1, keepdim=True).clamp(min=2.0**-100)  # not 0
    # Exponents read exactly with frexp (its mantissa is in [0.5, 1)), not from log2.
    if round_up:  # the power of two at or above amax / 448
        mantissa, exponent = torch.frexp(amax / 448)
        power = exponent - (mantissa == 0.5).int()
    else:  # floor(log2(amax)) - 8, as 448 = 1.75 * 2**8
        power = torch.frexp(amax)[1] - 1 - 8
    scale = torch.exp2(power.float())
    q = (blocks / scale).clamp(-448, 448).to(torch.float8_e4m3fn)
    saturated = ((blocks / scale).abs() > 448).float().mean().item()
    return (q.float() * scale).reshape(y.shape), saturated

print("outlier: MX, the spec's rule (saturated), rounded up; a float32 scale per 32")
#> outlier: MX, the spec's rule (saturated), rounded up; a float32 scale per 32
for outlier in [0.0, 100.0, 1e4, 1e5]:
    y = normalized(outlier)
    (spec, saturated), (rounded_up, _) = mx(y, False), mx(y, True)
    per_32 = dequantize(*quantize(y, group=32), group=32)
    errors = [error(e, y, ordinary) for e in (spec, rounded_up, per_32)]
    print(
        f"{outlier:g}: {errors[0]:.4f} ({saturated:.1%}), {errors[1]:.4f}; {errors[2]:.4f}"
    )
    #> 0: 0.0292 (0.8%), 0.0265; 0.0239
    #> 100: 0.0310 (1.1%), 0.0265; 0.0240
    #> 10000: 0.0286 (0.4%), 0.0266; 0.0240
    #> 100000: 0.0351 (0.9%), 0.0325; 0.0304

# At 100000 the ordinary values in a group that holds an outlier get its scale, as with a
# scale per token. The other groups' values are so small (under 1/512) that most of their
# scales are the quantizer's floor, MIN_SCALE = 1 / (448 * 512), not their largest over 448.
# Without the floor: y times 2**20 lifts every group's largest value above it, and the
# values and scales that come out equal y's unfloored ones times 2**20 (powers of two).
y = normalized(1e5)
print(
    "100000: ordinary values beside an outlier (error), the rest; floored; unfloored rest"
)
#> 100000: ordinary values beside an outlier (error), the rest; floored; unfloored rest
for group in (128, 32):
    q, scales = quantize(y, group=group)
    approx = dequantize(q, scales, group=group)
    with_outlier = torch.zeros(4096, dtype=torch.bool)
    for channel in OUTLIERS:
        start = channel // group * group
        with_outlier[start : start + group] = True
    shared, rest = with_outlier & ordinary, ~with_outlier
    floored = (scales == MIN_SCALE).float().mean()
    unfloored = dequantize(*quantize(y * 2.0**20, group=group), group=group) / 2.0**20
    beside = f"{shared.sum() / ordinary.sum():.1%} ({error(approx, y, shared):.4f})"
    rests = (
        f"{error(approx, y, rest):.4f}; {floored:.1%}; {error(unfloored, y, rest):.4f}"
    )
    print(f"per {group}: {beside}, {rests}")
    #> per 128: 6.2% (0.1258), 0.0265; 93.5%; 0.0258
    #> per 32: 1.5% (0.1240), 0.0265; 98.4%; 0.0240

# What the next matmul sees: y @ W.T for a random W. The outliers' part of the product,
# kept nearly exact by every scaling, dwarfs the rest, so the error is small next to the
# whole product; next to what the ordinary channels add, it is their own error.
W = torch.randn(1024, 4096)

def product_error(approx, exact, against):
    """RMS error of approx @ W.T over the RMS of against @ W.T."""
    diff, out = (approx - exact) @ W.T, against @ W.T
    return (diff.pow(2).mean() / out.pow(2).mean()).sqrt().item()

print("outlier: y @ W.T error per token, per group of 128, of the whole; of the rest")
#> outlier: y @ W.T error per token, per group of 128, of the whole; of the rest
for outlier in [1e4, 1e5]:
    y = normalized(outlier)
    ways = [dequantize(*quantize(y)), dequantize(*quantize(y, group=128), group=128)]
    errors = [product_error(a, y, part) for part in (y, y * ordinary) for a in ways]
    print(
        f"{outlier:g}: {errors[0]:.1e}, {errors[1]:.1e}; {errors[2]:.3f}, {errors[3]:.3f}"
    )
    #> 10000: 1.2e-04, 1.1e-04; 0.027, 0.026
    #> 100000: 5.5e-05, 1.8e-05; 0.125, 0.041
