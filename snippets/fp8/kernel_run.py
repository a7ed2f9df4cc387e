import torch

from snippets.fp8.add_rms_norm_fp8 import add_rms_norm_fp8
from snippets.fp8.reference import add_rms_norm, quantize

# Four rows of 512 float16 features and their residual; the second row has one huge
# channel, as a massive activation.
device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
x = torch.randn(4, 512)
x[1, 3] = 1000.0
x, r = x.half().to(device), torch.randn(4, 512).half().to(device)
w = torch.ones(512, dtype=torch.float16, device=device)

lines = []
for group in [None, 128]:
    q, scales, h = add_rms_norm_fp8(x, r, w, eps=1e-6, group=group)
    h_reference, y = add_rms_norm(x, r, w)
    _, reference = quantize(y, group=group)
    largest = q.float().reshape(4, -1, group or 512).abs().amax(-1)
    row_1 = [f"{s:.3g}" for s in scales[1].reshape(-1).tolist()]
    agree = torch.equal(h, h_reference) and torch.allclose(
        scales, reference, rtol=3e-7, atol=0
    )
    saturated = bool((largest == 448).all())
    lines += [f"group {group}: row 1's scales {row_1}"]
    lines += [f"  h, scales as the reference's: {agree}, largest |q| 448: {saturated}"]
for line in lines:
    print(line)
    #> group None: row 1's scales ['0.0505']
    #>   h, scales as the reference's: True, largest |q| 448: True
    #> group 128: row 1's scales ['0.0505', '0.000217', '0.000177', '0.000215']
    #>   h, scales as the reference's: True, largest |q| 448: True
