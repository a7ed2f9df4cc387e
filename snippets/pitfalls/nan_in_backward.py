"""A NaN that only the backward pass makes, and autograd's anomaly mode finding it."""

import warnings

import torch

def rms_norm_eps_outside(x, weight, eps=1e-6):
    """The RMSNorm authors' form: eps added to the root of the mean square."""
    return weight * x / (x.pow(2).mean(-1, keepdim=True).sqrt() + eps)

torch.manual_seed(0)
x = torch.randn(3, 8)
x[2] = 0.0  # a padding row of zeros
x.requires_grad_()
weight = torch.ones(8)
loss = rms_norm_eps_outside(x, weight).pow(2).sum()
loss.backward()
print(f"loss {loss.item():.1f}, input gradient NaN: {x.grad.isnan().any().item()}")
#> loss 16.0, input gradient NaN: True

# Anomaly mode: backward raises at the first backward function that returns NaN, and warns
# with the traceback of the forward call that recorded it.
x.grad = None
with warnings.catch_warnings(record=True) as caught, torch.autograd.detect_anomaly():
    # Recorded, not printed: the traceback is read below.
    warnings.simplefilter("always")
    loss = rms_norm_eps_outside(x, weight).pow(2).sum()
    try:
        loss.backward()
    except RuntimeError as error:
        print(str(error).splitlines()[0])
        #> Function 'SqrtBackward0' returned nan values in its 0th output.
traceback = next(str(w.message) for w in caught if "forward call" in str(w.message))
forward_line = next(line.strip() for line in traceback.splitlines() if "sqrt" in line)
print("recorded by:", forward_line)
#> recorded by: return weight * x / (x.pow(2).mean(-1, keepdim=True).sqrt() + eps)
