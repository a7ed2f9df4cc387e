import torch

x = torch.tensor([2.0, 0.5, -1.0, 1.5])
eps = 1e-6

# RMSNorm, one step at a time (weight = 1).
squares = x.pow(2)
print(squares)
#> tensor([4.0000, 0.2500, 1.0000, 2.2500])
mean_square = squares.mean()
print(f"{mean_square:.4f}")
#> 1.8750
rms = torch.sqrt(mean_square + eps)
print(f"{rms:.4f}")
#> 1.3693
y = x / rms
print(y)
#> tensor([ 1.4606,  0.3651, -0.7303,  1.0954])

# The library gives the same numbers.
print(torch.nn.functional.rms_norm(x, (4,), eps=eps))
#> tensor([ 1.4606,  0.3651, -0.7303,  1.0954])
