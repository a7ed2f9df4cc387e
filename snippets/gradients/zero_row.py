import torch

x = torch.zeros(4, dtype=torch.float64, requires_grad=True)
weight = torch.ones(4, dtype=torch.float64)
eps = 1e-6

y = weight * x / torch.sqrt(x.pow(2).mean() + eps)
print(y.detach())
#> tensor([0., 0., 0., 0.], dtype=torch.float64)
y.sum().backward()
# At x = 0, r = sqrt(eps) and x_hat = 0, so dL/dx = weight * g / sqrt(eps).
print(x.grad)
#> tensor([1000., 1000., 1000., 1000.], dtype=torch.float64)

# A batch of a real row and an all-zero padding row, under two losses: one reads every
# row's output (g = 1 on the padding row), one leaves the padding row out (g = 0 there).
batch = torch.tensor([[0.5, -1.0, 2.0, 1.5], [0.0, 0.0, 0.0, 0.0]], dtype=torch.float64)
losses = {"reads every row": [1.0, 1.0], "leaves padding out": [1.0, 0.0]}
table = ["loss                dL/dx, padding row   dL/dgain"]
for name, read in losses.items():
    rows = batch.clone().requires_grad_()
    gain = torch.ones(4, dtype=torch.float64, requires_grad=True)
    out = gain * rows / torch.sqrt(rows.pow(2).mean(-1, keepdim=True) + eps)
    (out * torch.tensor(read, dtype=torch.float64)[:, None]).sum().backward()
    padding = " ".join(f"{value:g}" for value in rows.grad[1])
    gain_grad = " ".join(f"{value:.3g}" for value in gain.grad)
    table.append(f"{name:<18}  {padding:<19}  {gain_grad}")
for line in table:
    print(line)
    #> loss                dL/dx, padding row   dL/dgain
    #> reads every row     1000 1000 1000 1000  0.365 -0.73 1.46 1.1
    #> leaves padding out  0 0 0 0              0.365 -0.73 1.46 1.1
