import torch

x = torch.tensor([2.0, 0.5, -1.0, 1.5], dtype=torch.float64)
grad_out = torch.tensor([0.2, 0.1, -0.1, 0.3], dtype=torch.float64)

def gain_gradient(gain):
    gain = gain.clone().requires_grad_()
    y = torch.nn.functional.rms_norm(x, (4,), gain, eps=1e-6)
    y.backward(grad_out)
    return gain.grad

gradient = gain_gradient(torch.tensor([1.0, 2.0, 1.0, 0.5], dtype=torch.float64))
print(", ".join(f"{v:.4f}" for v in gradient))
#> 0.2921, 0.0365, 0.0730, 0.3286
ones = gain_gradient(torch.ones(4, dtype=torch.float64))
print(f"the same with a gain of ones: {torch.equal(gradient, ones)}")
#> the same with a gain of ones: True
