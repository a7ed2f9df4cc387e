import torch
import torch.nn.functional as F

for dtype in [torch.float32, torch.float16, torch.bfloat16]:
    print(f"{str(dtype)[6:]:<9} machine epsilon {torch.finfo(dtype).eps:.3g}")
    #> float32   machine epsilon 1.19e-07
    #> float16   machine epsilon 0.000977
    #> bfloat16  machine epsilon 0.00781

# A row whose mean square (9e-08) is below every epsilon in play, float32's the nearest.
for dtype in [torch.float16, torch.bfloat16]:
    x = torch.full((8,), 3e-4, dtype=dtype)
    values = [
        F.rms_norm(x, (8,), eps=eps)[0].item()
        for eps in [None, torch.finfo(torch.float32).eps, torch.finfo(dtype).eps]
    ]
    print(
        str(dtype)[6:], "eps=None, float32 eps, own eps:", [f"{v:.4f}" for v in values]
    )
    #> float16 eps=None, float32 eps, own eps: ['0.6558', '0.6558', '0.0096']
    #> bfloat16 eps=None, float32 eps, own eps: ['0.6562', '0.6562', '0.0034']

# A float64 row computes in float64 and takes float64's epsilon (2.2e-16), not float32's.
x = torch.full((8,), 1e-8, dtype=torch.float64)  # mean square 1e-16
values = [
    F.rms_norm(x, (8,), eps=eps)[0].item()
    for eps in [None, torch.finfo(torch.float32).eps, torch.finfo(torch.float64).eps]
]
print("float64 eps=None, float32 eps, own eps:", [f"{v:.4f}" for v in values])
#> float64 eps=None, float32 eps, own eps: ['0.5572', '0.0000', '0.5572']
