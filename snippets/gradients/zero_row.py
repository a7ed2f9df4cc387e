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
# With another gain and upstream gradient: weight * g / sqrt(eps), element by element.
x.grad = None
gain = torch.tensor([0.5, 1.5, 2.0, 0.7], dtype=torch.float64)
g = torch.tensor([0.1, -0.2, 0.3, -0.1], dtype=torch.float64)
(gain * x / torch.sqrt(x.pow(2).mean() + eps)).backward(g)
print(x.grad.tolist(), torch.allclose(x.grad, gain * g / eps**0.5))
#> [50.0, -300.0, 600.0, -70.0] True
# A floor on the mean square, max(m, eps), instead of eps added: the same at x = 0.
x.grad = None
(gain * x / torch.sqrt(x.pow(2).mean().clamp(min=eps))).backward(g)
print(x.grad.tolist())
#> [50.0, -300.0, 600.0, -70.0]

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

# What produced the padding row gets its 1000 * g, unless it passes no gradient on: a mask
# that zeroed the row, or nn.Embedding, which gives its padding_idx row none.
hidden = torch.randn(2, 4, dtype=torch.float64, requires_grad=True)
masked = hidden * torch.tensor([[1.0], [0.0]], dtype=torch.float64)
embedding = torch.nn.Embedding(3, 4, padding_idx=0, dtype=torch.float64)
embedded = embedding(torch.tensor([1, 0]))  # token 0 is padding: an all-zero row
for rows in (masked, embedded):  # a loss that reads every row: g = 1
    (rows / torch.sqrt(rows.pow(2).mean(-1, keepdim=True) + eps)).sum().backward()
print(f"to the masked row:      {hidden.grad[1].tolist()}")
#> to the masked row:      [0.0, 0.0, 0.0, 0.0]
print(f"to the padding_idx row: {embedding.weight.grad[0].tolist()}")
#> to the padding_idx row: [0.0, 0.0, 0.0, 0.0]
