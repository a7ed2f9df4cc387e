import torch

from snippets.math.summation import running_sum, tree_sum

torch.manual_seed(0)
x = torch.randn(4096)

print("dtype     running sum (error)   tree sum (error)    exact, rounded once")
#> dtype     running sum (error)   tree sum (error)    exact, rounded once
for dtype in [torch.float16, torch.bfloat16, torch.float32]:
    squares = x.to(dtype) ** 2  # squared in the row's dtype, as a kernel would
    # The exact sum of these same (rounded) squares: what is left is the adding's error.
    exact = squares.double().sum().item()
    totals = [running_sum(squares), tree_sum(squares), torch.tensor(exact).to(dtype)]
    cells = [
        f"{total.item():8.1f} ({total.item() / exact - 1:+.1e})" for total in totals
    ]
    print(f"{str(dtype)[6:]:<9}" + "   ".join(cells))
    #> float16    3736.0 (-7.6e-02)     4042.0 (+1.4e-04)     4042.0 (+1.4e-04)
    #> bfloat16   1960.0 (-5.2e-01)     4048.0 (+1.5e-03)     4048.0 (+1.5e-03)
    #> float32    4041.4 (+2.0e-07)     4041.4 (-4.6e-08)     4041.4 (+1.4e-08)

# Once the total is large, the distance between neighbouring numbers outgrows a square.
for dtype, total in [(torch.float16, 2048), (torch.bfloat16, 256)]:
    gap = total * torch.finfo(dtype).eps
    print(f"{str(dtype)[6:]} numbers from {total} on are {gap:.0f} apart")
    #> float16 numbers from 2048 on are 2 apart
    #> bfloat16 numbers from 256 on are 2 apart
print(f"squares below 1: {(x**2 < 1).float().mean():.1%}")
#> squares below 1: 68.7%

# PyTorch's reductions add half-precision values in float32 and round once at the end.
squares = x.half() ** 2
print("torch.sum in float16:", squares.sum().item())
#> torch.sum in float16: 4042.0
print(
    "equals the float32 sum rounded:",
    bool(squares.sum() == squares.float().sum().half()),
)
#> equals the float32 sum rounded: True
