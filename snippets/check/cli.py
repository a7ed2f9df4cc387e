import contextlib
import io
import os
import tempfile
from pathlib import Path

from snippets.check.__main__ import main

# An RMSNorm as it is often written from memory: no float32 upcast.
MY_NORM = """
import torch

class MyRMSNorm(torch.nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
"""

# What `python check_rmsnorm.py my_norm.py:MyRMSNorm` prints, run from a folder that holds
# my_norm.py, and the exit status it returns.
with tempfile.TemporaryDirectory() as folder:
    Path(folder, "my_norm.py").write_text(MY_NORM)
    here = os.getcwd()
    os.chdir(folder)
    report = io.StringIO()
    with contextlib.redirect_stdout(report):
        status = main(["my_norm.py:MyRMSNorm"])
    os.chdir(here)
print(report.getvalue().rstrip())
"""
my_norm.py:MyRMSNorm: gain w, eps 1e-06, eps placement inside, rounding none
  pass  forward     float32 rows of RMS 1e-2 to 1e2: largest error 8.0e-08
  pass  eps         eps 1e-06 inside the square root (rows of RMS 0.0001, 0.0003)
  FAIL  half        float16 wrong (error 1024.0 ulp, out float16, on the row of RMS 300 and the row with an outlier channel, of 64 and 4096 features, where values square to more than float16's largest, 65504); bfloat16 ok (error 1.1 ulp, out bfloat16); rows of RMS 1 and 300 and one with an outlier channel, of 64 and 4096 features
                  see https://rmsnorm-reference.github.io/pitfalls/#no-float32-upcast
  pass  mixed       float32 weight, bfloat16 input: error 0.2 bfloat16 ulp, out float32
  info  rounding    float32 differs on 35% of outputs, by up to 2 ulps; llama differs on 45% of outputs, by up to 2 ulps; 65% correctly rounded
  pass  zero rows   all-zero row: zeros out, finite gradients, as the formula's
  pass  gradients   input and weight against float64 autograd: errors 6.2e-08, 8.3e-08; 3-D: 6.2e-08, 8.3e-08; 3-D, strided upstream gradient: 6.2e-08, 4.2e-08; after a second forward: 6.2e-08, 8.3e-08; gradcheck in float64 passes
  pass  dw          over 4097 bfloat16 rows: error under 1 ulp of the largest entry
  pass  shapes      1-D, 3-D and 4-D inputs agree; rows independent
  pass  sizes       rows of 769 and 3584 features: forward and input gradient as float64's
  pass  strides     strided rows and a transposed batch: the output of contiguous copies
  info  batch       the same bits alone and in batches of 7, 256 and 4097 rows
  pass  init        fresh weight: 0 of 64 entries differ from 1
  info  agreement   torch.nn.RMSNorm float32 differs; torch.nn.RMSNorm bfloat16 differs; LlamaRMSNorm float32 differs; LlamaRMSNorm bfloat16 differs
"""
print("exit status:", status)
#> exit status: 1
