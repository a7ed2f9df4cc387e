import torch

# The page's first example: replace it with a script that prints what the page says.
x = torch.tensor([3.0, 4.0])
rms = x.pow(2).mean().sqrt()
print(f"the RMS of {x.tolist()} is {rms:.4f}")
#> the RMS of [3.0, 4.0] is 3.5355
