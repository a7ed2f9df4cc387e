import torch

x = torch.tensor([2.0, 0.5, -1.0, 1.5], dtype=torch.float64)
grad_out = torch.tensor([0.1, -0.2, 0.3, -0.1], dtype=torch.float64)
gain = torch.ones(4, dtype=torch.float64, requires_grad=True)

y = torch.nn.functional.rms_norm(x, (4,), gain, eps=1e-6)
y.backward(grad_out)
print(", ".join(f"{v:.4f}" for v in gain.grad))
#> 0.1461, -0.0730, -0.2191, -0.1095
