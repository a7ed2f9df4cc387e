import numpy as np
import torch

from snippets.implementations.rms_norm_module import rms_norm
from snippets.kernel_in_practice.bfloat16 import bfloat16_rounded, bfloat16_truncated
from snippets.kernel.rms_norm_triton import rms_norm_triton

# On a CPU, run with TRITON_INTERPRET=1: Triton's interpreter then runs the kernels.
device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
n = 1000  # not a power of two: the kernels mask the last 24 lanes of a 1024-wide block
x = (torch.randn(8, n, device=device) * 4).to(torch.bfloat16)
dy = torch.randn(8, n, device=device).to(torch.bfloat16)

def same(a, b):
    """How many elements of a equal those of b."""
    return (a == b).sum().item()

def error(a, exact):
    """Relative error of a against the exact (float64) values."""
    return ((a.double() - exact).norm() / exact.norm()).item()

# Columns: how many elements equal the exact values rounded to bfloat16 two ways, then the
# relative error of the kernel's output and of those two roundings of the exact values.
print("                  equal to exact in bf16      relative error")
#>                   equal to exact in bf16      relative error
print("         elements   rounded  truncated     kernel  rounded  truncated")
#>          elements   rounded  truncated     kernel  rounded  truncated
for name, offset, weight in [
    ("LLaMA", 0.0, torch.rand(n, device=device) + 0.5),  # scales by w
    ("Gemma", 1.0, torch.randn(n, device=device) * 0.1),  # scales by 1 + w
]:
    w = weight.to(torch.bfloat16)
    xs, ws = x.clone().requires_grad_(), w.clone().requires_grad_()
    y = rms_norm_triton(xs, ws, eps=1e-6, offset=offset)
    y.backward(dy)
    # The exact values: the same formula on the same bfloat16 inputs, in float64.
    x64, w64 = x.double().requires_grad_(), w.double().requires_grad_()
    y64 = rms_norm(x64, n, offset + w64, eps=1e-6)
    y64.backward(dy.double())
    for label, ours, exact in [
        ("y", y, y64.detach()),
        ("dx", xs.grad, x64.grad),
        ("dw", ws.grad, w64.grad),
    ]:
        # Rounded to nearest, as a GPU stores bfloat16; truncated toward zero, as Triton's
        # interpreter does.
        rounded, truncated = bfloat16_rounded(exact), bfloat16_truncated(exact)
        counts = [ours.numel(), same(ours, rounded), same(ours, truncated)]
        errors = [error(t, exact) for t in (ours, rounded, truncated)]
        cells = [f"{c:>{width}}" for c, width in zip(counts, (8, 10, 11))]
        cells += [f"{e:>{width}.1e}" for e, width in zip(errors, (11, 9, 11))]
        print(f"{name} {label:<3}{''.join(cells)}")
        #> LLaMA y      8000      3988       7999    3.3e-03  1.7e-03    3.3e-03
        #> LLaMA dx     8000      3947       8000    3.3e-03  1.7e-03    3.3e-03
        #> LLaMA dw     1000      1000        499    1.6e-03  1.6e-03    3.4e-03
        #> Gemma y      8000      3983       8000    3.3e-03  1.7e-03    3.3e-03
        #> Gemma dx     8000      4070       8000    3.3e-03  1.6e-03    3.3e-03
        #> Gemma dw     1000      1000        499    1.6e-03  1.6e-03    3.4e-03

# float16, which the interpreter converts to by rounding, as a GPU does: the kernel's y and
# dx equal the exact values rounded once to float16 (NumPy's cast: PyTorch's goes through
# float32, rounding twice) almost everywhere.
xs = x.to(torch.float16).requires_grad_()
w = (torch.rand(n, device=device) + 0.5).to(torch.float16)
y = rms_norm_triton(xs, w, eps=1e-6)
y.backward(dy.to(torch.float16))
x64 = xs.detach().double().requires_grad_()
y64 = rms_norm(x64, n, w.double(), eps=1e-6)
y64.backward(dy.double())
for label, ours, exact in [("y", y, y64.detach()), ("dx", xs.grad, x64.grad)]:
    once = torch.from_numpy(exact.cpu().numpy().astype(np.float16)).to(device)
    rounded = same(ours, once)
    print(f"float16 {label}: {rounded} of {ours.numel()} equal to exact, rounded")
    #> float16 y: 7999 of 8000 equal to exact, rounded
    #> float16 dx: 7996 of 8000 equal to exact, rounded
