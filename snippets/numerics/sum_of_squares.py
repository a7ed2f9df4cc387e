import math

import ml_dtypes
import numpy as np

# Unit roundoff u: the largest relative error of one rounding to each dtype.
DTYPES = {"float32": (np.float32, 2.0**-24), "bfloat16": (ml_dtypes.bfloat16, 2.0**-8)}
ROWS = 256  # rows per width: each statistic below is over these rows
rng = np.random.default_rng(0)
# bfloat16 input rows, the same for both dtypes of the total.
inputs = {
    n: rng.standard_normal((ROWS, n), dtype=np.float32).astype(ml_dtypes.bfloat16)
    for n in [256, 1024, 4096, 16384, 65536]
}

def running_total(squares):
    """Left to right into one total, each addition rounded to the squares' dtype."""
    return np.add.accumulate(squares, axis=1)[:, -1]  # accumulate: strictly in order

def tree_total(squares):
    """Pairs, then pairs of pairs, as Triton 3.9's tl.sum adds (PyTorch's reductions do not)."""
    while squares.shape[1] > 1:
        squares = squares[:, 0::2] + squares[:, 1::2]  # each sum rounded to the dtype
    return squares[:, 0]

def gamma(k, u):
    """Higham's gamma_k = k u / (1 - k u), the worst case of k roundings in a row;
    it bounds nothing once k u >= 1."""
    return k * u / (1 - k * u) if k * u < 1 else math.inf

def cell(value):
    if isinstance(value, str):  # a count of rows and the side they lean to
        return f"{value:>9}"
    return f"{value:9.1e}" if value < math.inf else f"{'none':>9}"

columns = ["median", "max", "one sign", "median", "max"]  # running, then tree
columns += ["gamma_N", "gamma_tr", "sqrt(N)u"]  # bounds
table = []
for name, (dtype, u) in DTYPES.items():
    table.append(f"{name} totals, relative error of the mean square over {ROWS} rows:")
    table.append(f"{'N':>6}{'running':>27}{'tree':>18}{'bounds, rule of thumb':>27}")
    table.append(f"{'':6}" + "".join(f"{column:>9}" for column in columns))
    for n, x in inputs.items():
        squares = x.astype(np.float32) ** 2  # exact: a bf16 square fits in float32
        exact = squares.sum(axis=1, dtype=np.float64)
        # Squares rounded to the dtype the total is kept in, then added in that dtype.
        squares = squares.astype(dtype)
        running, tree = (
            total(squares).astype(np.float64) / exact - 1
            for total in (running_total, tree_total)
        )
        # How many of the rows' running-total errors share the commoner sign, and which
        # side of the exact sum that is: random roundings would split them about evenly.
        low, high = np.sum(running < 0), np.sum(running > 0)
        same_sign = f"{low} low" if low > high else f"{high} high"
        stats = [np.median(abs(running)), np.max(abs(running))]
        stats += [same_sign, np.median(abs(tree)), np.max(abs(tree))]
        # Worst cases of the inner product x . x: N roundings in a row for the running
        # total, ceil(log2(N)) + 1 for the tree; sqrt(N) u, the typical size of random ones.
        bounds = [gamma(n, u), gamma(math.ceil(math.log2(n)) + 1, u), math.sqrt(n) * u]
        table.append(f"{n:6}" + "".join(cell(value) for value in stats + bounds))
for line in table:
    print(line)
    #> float32 totals, relative error of the mean square over 256 rows:
    #>      N                    running              tree      bounds, rule of thumb
    #>          median      max one sign   median      max  gamma_N gamma_tr sqrt(N)u
    #>    256  2.3e-07  8.2e-07  251 low  2.6e-08  1.4e-07  1.5e-05  5.4e-07  9.5e-07
    #>   1024  1.4e-06  2.6e-06  256 low  2.9e-08  1.3e-07  6.1e-05  6.6e-07  1.9e-06
    #>   4096  3.8e-06  5.9e-06  256 low  2.5e-08  1.5e-07  2.4e-04  7.7e-07  3.8e-06
    #>  16384  6.7e-06  1.2e-05 256 high  3.0e-08  1.4e-07  9.8e-04  8.9e-07  7.6e-06
    #>  65536  4.8e-05  5.6e-05 256 high  2.7e-08  1.2e-07  3.9e-03  1.0e-06  1.5e-05
    #> bfloat16 totals, relative error of the mean square over 256 rows:
    #>      N                    running              tree      bounds, rule of thumb
    #>          median      max one sign   median      max  gamma_N gamma_tr sqrt(N)u
    #>    256  2.9e-02  6.4e-02  254 low  1.9e-03  7.9e-03     none  3.6e-02  6.2e-02
    #>   1024  1.8e-01  2.3e-01  256 low  1.8e-03  8.2e-03     none  4.5e-02  1.2e-01
    #>   4096  5.0e-01  5.5e-01  256 low  1.8e-03  9.8e-03     none  5.3e-02  2.5e-01
    #>  16384  8.2e-01  8.4e-01  256 low  1.8e-03  8.0e-03     none  6.2e-02  5.0e-01
    #>  65536  9.4e-01  9.4e-01  256 low  1.9e-03  8.6e-03     none  7.1e-02  1.0e+00
