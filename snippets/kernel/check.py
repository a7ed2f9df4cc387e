import torch

from snippets.implementations.rms_norm_module import rms_norm
from snippets.kernel.rms_norm_triton import rms_norm_triton

# On a CPU, run with TRITON_INTERPRET=1: Triton's interpreter then runs the kernels.
device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
n = 1000  # not a power of two: the kernels mask the last 24 lanes of a 1024-wide block
x = (torch.randn(8, n, device=device) * 4).to(torch.bfloat16)
dy = torch.randn(8, n, device=device).to(torch.bfloat16)

for name, offset, weight in [
    ("LLaMA, w", 0.0, torch.rand(n, device=device) + 0.5),
    ("Gemma, 1 + w", 1.0, torch.randn(n, device=device) * 0.1),
]:
    w = weight.to(torch.bfloat16)
    xs, ws = x.clone().requires_grad_(), w.clone().requires_grad_()
    y = rms_norm_triton(xs, ws, eps=1e-6, offset=offset)
    y.backward(dy)
    # The reference: the same formula on the same rounded inputs, in float64.
    x64, w64 = x.double().requires_grad_(), w.double().requires_grad_()
    y64 = rms_norm(x64, n, offset + w64, eps=1e-6)
    y64.backward(dy.double())
    errors = [
        ((a.double() - b).norm() / b.norm()).item()
        for a, b in [(y, y64), (xs.grad, x64.grad), (ws.grad, w64.grad)]
    ]
    shown = ", ".join(f"{e:.1e}" for e in errors)
    print(f"{name:<12} relative error of y, dx, dw: {shown}")
    #> LLaMA, w     relative error of y, dx, dw: 3.3e-03, 3.3e-03, 1.6e-03
    #> Gemma, 1 + w relative error of y, dx, dw: 3.3e-03, 3.3e-03, 1.6e-03
