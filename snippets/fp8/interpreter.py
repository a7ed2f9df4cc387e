import os

import torch
import triton
import triton.language as tl

# Triton's interpreter on the CPU, wherever this runs (read as each kernel is defined).
os.environ["TRITON_INTERPRET"] = "1"

@triton.jit
def to_e4m3(X, Q):
    # Eight float32 values converted to e4m3 by a store, as the kernel stores its output.
    offsets = tl.arange(0, 8)
    tl.store(Q + offsets, tl.load(X + offsets).to(Q.dtype.element_ty))

values = torch.tensor(
    [31.13, 1.0625, 0.0013, float("nan"), 0.0153, 470, float("inf"), 1e6]
)
interpreted = torch.empty(8, dtype=torch.float8_e4m3fn)
to_e4m3[(1,)](values, interpreted)
print("interpreter:", interpreted.float().tolist())
#> interpreter: [16.0, 1.125, 0.0, 384.0, 0.0078125, nan, 256.0, nan]
print("PyTorch:    ", values.to(torch.float8_e4m3fn).float().tolist())
#> PyTorch:     [32.0, 1.0, 0.001953125, nan, 0.015625, 448.0, 448.0, 448.0]
