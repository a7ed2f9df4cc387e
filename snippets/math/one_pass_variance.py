import torch

from snippets.math.summation import tree_sum

torch.manual_seed(0)
noise = torch.randn(4096)
n = noise.numel()

# Errors relative to float64: the variance computed two ways, and the mean square.
print(f"{'row mean':<9}{'one pass':>13}{'two passes':>13}{'mean square':>13}")
#> row mean      one pass   two passes  mean square
for offset in [0, 10, 100, 1000]:
    x = offset + noise  # float32, spread 1 around the offset
    mean = tree_sum(x) / n
    mean_square = tree_sum(x * x) / n  # RMSNorm's whole statistic
    one_pass = mean_square - mean**2  # E[x^2] - E[x]^2: two large numbers, nearly equal
    two_passes = tree_sum((x - mean) ** 2) / n  # subtract the mean first
    x64 = x.double()
    exact_variance = (x64 - x64.mean()).pow(2).mean()
    exact_mean_square = x64.pow(2).mean()
    errors = [
        (one_pass / exact_variance - 1).item(),
        (two_passes / exact_variance - 1).item(),
        (mean_square / exact_mean_square - 1).item(),
    ]
    print(f"{offset:<9}" + "".join(f"{error:+13.1e}" for error in errors))
    #> 0             -4.5e-08     -4.5e-08     -4.5e-08
    #> 10            -7.7e-07     -4.1e-08     +2.7e-08
    #> 100           +7.5e-04     +6.3e-08     -3.8e-09
    #> 1000          -5.0e-02     -7.7e-09     +2.4e-08
