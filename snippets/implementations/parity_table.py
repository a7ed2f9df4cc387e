import torch

from snippets.implementations.variants import VARIANTS, rms_norm_scratch

# Exact answers: each formula in float64. The llama and gemma variants cast to float32
# inside, so their float64 answer comes from the plain definition (gemma scales by 1 + w).
EXACT = {
    **VARIANTS,
    "llama": rms_norm_scratch,
    "gemma": lambda x, weight: rms_norm_scratch(x, 1.0 + weight),
}

torch.manual_seed(0)
x64 = torch.randn(16, 4096, dtype=torch.float64)
weight = torch.rand(4096) + 0.5  # float32, as in a model kept in full precision
# In float32 the error's last digit depends on the order a CPU sums a row in (its vector
# width): that column shows a bound for any machine, two roundings (epsilon 1.19e-07).
FLOAT32_BOUND = 2e-07

dtypes = [torch.float32, torch.float16, torch.bfloat16]
table = [f"{'variant':<11}" + "".join(f"{str(d)[6:]:>20}" for d in dtypes)]
for name, norm in VARIANTS.items():
    cells = []
    for dtype in dtypes:
        x = x64.to(dtype)
        # Same (rounded) input in float64: what is left is the arithmetic's own error.
        exact = EXACT[name](x.double(), weight.double())
        out = norm(x, weight)
        # Largest error, relative to the largest output (the gemma weight 1 + w is larger).
        error = ((out.double() - exact).abs().max() / exact.abs().max()).item()
        bounded = dtype == torch.float32 and error < FLOAT32_BOUND
        shown = f"< {FLOAT32_BOUND:.0e}" if bounded else f"{error:.1e}"
        cells.append(f"{shown} {str(out.dtype)[6:]:>9}")
    table.append(f"{name:<11}" + "".join(f"{cell:>20}" for cell in cells))
print("\n".join(table))
"""
variant                 float32             float16            bfloat16
scratch       < 2e-07   float32   5.7e-04   float32   5.1e-03   float32
rsqrt         < 2e-07   float32   6.8e-04   float32   5.2e-03   float32
llama         < 2e-07   float32   4.2e-04   float32   2.4e-03   float32
gemma         < 2e-07   float32   3.6e-04   float16   3.1e-03  bfloat16
torch         < 2e-07   float32   3.2e-04   float16   2.6e-03  bfloat16
paper code    < 2e-07   float32   5.7e-04   float32   4.8e-03   float32
partial       < 2e-07   float32   5.6e-04   float32   4.0e-03   float32
"""
