import torch

def trained_gain(stored, dtype, offset=0.0, steps=1000, lr=3e-4):
    """AdamW on a gain whose gradient asks it to grow at every step; the gain it reaches.
    `stored` is the parameter's starting value, `offset` what the norm adds to it."""
    parameter = torch.nn.Parameter(torch.full((1024,), stored, dtype=dtype))
    optimizer = torch.optim.AdamW([parameter], lr=lr, weight_decay=0.0)
    for _ in range(steps):
        parameter.grad = torch.full_like(parameter, -1.0)
        optimizer.step()  # each step moves the parameter by about lr
    return (offset + parameter.float()).mean().item()

# bfloat16 keeps 8 significant bits: above 1 its values are 2^-7 apart (2^-8 below).
print(f"bfloat16 step above 1: {torch.finfo(torch.bfloat16).eps}")
#> bfloat16 step above 1: 0.0078125
print(f"1 + 3e-4 in bfloat16: {torch.tensor(1 + 3e-4, dtype=torch.bfloat16).item()}")
#> 1 + 3e-4 in bfloat16: 1.0
# float16 keeps 11: 2^-10 apart above 1, still more than twice the step.
print(f"float16 step above 1: {torch.finfo(torch.float16).eps}")
#> float16 step above 1: 0.0009765625
print(f"1 + 3e-4 in float16: {torch.tensor(1 + 3e-4, dtype=torch.float16).item()}")
#> 1 + 3e-4 in float16: 1.0

# 1000 steps of 3e-4: the gain should reach 1.3.
for dtype, stored, offset, label in [
    (torch.float32, 1.0, 0.0, "float32"),
    (torch.bfloat16, 1.0, 0.0, "bfloat16, the gain stored"),
    (torch.bfloat16, 0.0, 1.0, "bfloat16, w = gain - 1 stored"),
    (torch.float16, 1.0, 0.0, "float16, the gain stored"),
]:
    print(f"{label}: {trained_gain(stored, dtype, offset):.4f}")
    #> float32: 1.3000
    #> bfloat16, the gain stored: 1.0000
    #> bfloat16, w = gain - 1 stored: 1.1250
    #> float16, the gain stored: 1.0000
