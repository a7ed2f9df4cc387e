import torch

from snippets.implementations.rms_norm_module import RMSNorm

torch.manual_seed(0)
norm = RMSNorm(8)
print(norm)
#> RMSNorm((8,), eps=1e-06, elementwise_affine=True)

# All-zero rows give zeros, not NaN; float16 rows with |x| >= 256 keep their answer.
x = torch.stack([torch.zeros(8), torch.full((8,), 300.0), torch.randn(8)]).half()
with torch.no_grad():
    y = norm(x)
print(y[0])
#> tensor([0., 0., 0., 0., 0., 0., 0., 0.], dtype=torch.float16)
print(y[1])
#> tensor([1., 1., 1., 1., 1., 1., 1., 1.], dtype=torch.float16)
# An inf or a NaN stays in its row, as in torch's: NaN at the inf and 0 beside it; all NaN.
rows = torch.tensor([[float("inf"), 1.0, 2.0, 3.0], [float("nan"), 1.0, 2.0, 3.0]])
ours, torchs = RMSNorm(4)(rows), torch.nn.RMSNorm(4, eps=1e-6)(rows)
print(ours.tolist(), "torch's:", torch.allclose(ours, torchs, equal_nan=True))
#> [[nan, 0.0, 0.0, 0.0], [nan, nan, nan, nan]] torch's: True
# A row whose sum of squares passes float32's largest gives zeros, as torch's does.
huge = torch.tensor([[1e20, 1.0, 2.0, 3.0]])
with torch.no_grad():
    print(RMSNorm(4)(huge).tolist(), torch.nn.RMSNorm(4, eps=1e-6)(huge).tolist())
    #> [[0.0, 0.0, 0.0, 0.0]] [[0.0, 0.0, 0.0, 0.0]]

# Several trailing dimensions, like torch.nn.RMSNorm: one statistic per (4, 8) block.
block = RMSNorm((4, 8))
with torch.no_grad():
    z = block(torch.randn(2, 4, 8) * 5)
print(z.pow(2).mean(dim=(-2, -1)))
#> tensor([1.0000, 1.0000])

# Bad input gets an error that says what was expected and what came.
errors = []
for bad in [
    lambda: norm(torch.randn(2, 7)),
    lambda: norm(torch.ones(2, 8, dtype=torch.int64)),
    lambda: norm(torch.ones(2, 8).to(torch.float8_e4m3fn)),
    lambda: RMSNorm(8, eps=0.0),
    lambda: RMSNorm(8, eps=float("nan")),
]:
    try:
        bad()
    except (TypeError, ValueError) as error:
        errors.append(f"{type(error).__name__}: {error}")
print("\n".join(errors))
"""
ValueError: x must end in the dimensions (8,), got a tensor of shape (2, 7)
TypeError: x must be a float16, bfloat16, float32 or float64 tensor, got dtype torch.int64
TypeError: x must be a float16, bfloat16, float32 or float64 tensor, got dtype torch.float8_e4m3fn
ValueError: eps must be a normal float32 number > 0, got 0.0
ValueError: eps must be a normal float32 number > 0, got nan
"""
