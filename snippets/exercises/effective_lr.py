import torch
import torch.nn.functional as F

# W feeds an RMSNorm (eps = 0). One SGD step from W and from 2W, same lr: how far does the
# direction of W turn? The step is orthogonal to W, so tan(angle) = lr |grad| / |W|.
torch.manual_seed(0)
x, labels = torch.randn(256, 32, dtype=torch.float64), torch.randint(10, (256,))
head = torch.randn(10, 64, dtype=torch.float64) / 8
W = torch.randn(64, 32, dtype=torch.float64) / 32**0.5

def angle_of_step(W, lr=0.1):
    W = W.clone().requires_grad_()
    loss = F.cross_entropy(F.rms_norm(x @ W.T, (64,), eps=0.0) @ head.T, labels)
    (grad,) = torch.autograd.grad(loss, W)
    new = W.detach() - lr * grad
    return torch.arccos((new * W).sum() / (new.norm() * W.norm())).item()

ratio = angle_of_step(2 * W) / angle_of_step(W)
print(f"angle moved from 2W / angle moved from W: {ratio:.4f}")
#> angle moved from 2W / angle moved from W: 0.2500
