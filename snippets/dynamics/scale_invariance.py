import torch
import torch.nn.functional as F

# A weight matrix W feeds an RMSNorm (eps = 0, so the invariance is exact); a fixed head
# and cross-entropy make a loss. Float64, so that rounding stays far below the checks.
torch.manual_seed(0)
x = torch.randn(256, 32, dtype=torch.float64)
labels = torch.randint(10, (256,))
head = torch.randn(10, 64, dtype=torch.float64) / 8
W0 = torch.randn(64, 32, dtype=torch.float64) / 32**0.5

def loss_and_grad(W):
    W = W.clone().requires_grad_()
    y = F.rms_norm(x @ W.T, (64,), eps=0.0)
    loss = F.cross_entropy(y @ head.T, labels)
    (grad,) = torch.autograd.grad(loss, W)
    return loss.item(), grad

loss, G = loss_and_grad(W0)
loss3, G3 = loss_and_grad(3 * W0)
print(f"loss at W: {loss:.6f}, at 3W: {loss3:.6f}")
#> loss at W: 2.632689, at 3W: 2.632689
cosine = (G * W0).sum() / (G.norm() * W0.norm())
print(f"cos(gradient, W) is below 1e-12: {cosine.abs().item() < 1e-12}")
#> cos(gradient, W) is below 1e-12: True
for c in [0.5, 2.0, 10.0]:
    ratio = loss_and_grad(c * W0)[1].norm() / G.norm()
    print(f"W -> {c:>4}W: |grad| ratio {ratio.item():.4f}, 1/c = {1 / c:.4f}")
    #> W ->  0.5W: |grad| ratio 2.0000, 1/c = 2.0000
    #> W ->  2.0W: |grad| ratio 0.5000, 1/c = 0.5000
    #> W -> 10.0W: |grad| ratio 0.1000, 1/c = 0.1000

# Plain SGD: the step -lr * G is orthogonal to W, so |W|^2 grows by exactly lr^2 |G|^2.
lr, W = 0.5, W0.clone()
table = ["step  |W|^2    growth   lr^2 |G|^2"]
for step in range(1, 4):
    _, G = loss_and_grad(W)
    W_next = W - lr * G
    growth = W_next.pow(2).sum() - W.pow(2).sum()
    predicted = lr**2 * G.pow(2).sum()
    table.append(f"{step:>4}  {W.pow(2).sum():.4f}  {growth:.6f}  {predicted:.6f}")
    W = W_next
print("\n".join(table))
"""
step  |W|^2    growth   lr^2 |G|^2
   1  64.3078  0.049132  0.049132
   2  64.3569  0.044154  0.044154
   3  64.4011  0.039508  0.039508
"""
