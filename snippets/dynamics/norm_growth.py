import math

import torch
import torch.nn.functional as F
from matplotlib.figure import Figure

from snippets.placement.plots import save_svgs
from snippets.placement.tiny_lm import one_thread

# A teacher labels random inputs; 30% of the labels are then redrawn at random, so the
# gradient never vanishes. The student: W (64 x 32) -> RMSNorm -> a linear head. Float64.
torch.manual_seed(0)
x = torch.randn(4096, 32, dtype=torch.float64)
labels = (x @ torch.randn(32, 10, dtype=torch.float64)).argmax(1)
noisy = torch.rand(4096) < 0.3
labels[noisy] = torch.randint(10, (int(noisy.sum()),))

@one_thread()
def train(weight_decay, lr=0.5, steps=1000):
    """Plain SGD, batch 64; weight decay on W only. Per step: |W| and the angle W moves."""
    generator = torch.Generator().manual_seed(1)
    W = torch.randn(64, 32, dtype=torch.float64, generator=generator) / 32**0.5
    head = torch.zeros(10, 64, dtype=torch.float64)
    W.requires_grad_(), head.requires_grad_()
    norms, angles = [W.norm().item()], []
    for _ in range(steps):
        batch = torch.randint(4096, (64,), generator=generator)
        y = F.rms_norm(x[batch] @ W.T, (64,), eps=0.0)
        loss = F.cross_entropy(y @ head.T, labels[batch])
        grad_W, grad_head = torch.autograd.grad(loss, (W, head))
        with torch.no_grad():
            new = W - lr * (grad_W + weight_decay * W)  # torch.optim.SGD's update
            cosine = (new * W).sum() / (new.norm() * W.norm())
            angles.append(math.acos(min(cosine.item(), 1.0)))
            W.copy_(new)
            head -= lr * grad_head
            norms.append(W.norm().item())
    return norms, angles

lr, decay = 0.5, 0.01
runs = {"no weight decay": train(0.0), "weight decay 0.01": train(decay)}
print("                   |W| at step 0   100   1000   angle/step at 100   1000")
#>                    |W| at step 0   100   1000   angle/step at 100   1000
for name, (norms, angles) in runs.items():
    shown = f"{norms[0]:6.2f} {norms[100]:6.2f} {norms[-1]:6.2f}"
    print(f"{name:<18}       {shown}        {angles[99]:.4f}  {angles[-1]:.4f}")
    #> no weight decay            7.94   8.35  10.64        0.0334  0.0192
    #> weight decay 0.01          7.94   5.50   4.04        0.0709  0.1057
mean_angle = sum(runs["weight decay 0.01"][1][-200:]) / 200
print(f"weight decay, mean angle/step over the last 200 steps: {mean_angle:.4f}")
#> weight decay, mean angle/step over the last 200 steps: 0.1002
print(f"arccos(1 - lr * decay) = {math.acos(1 - lr * decay):.4f}")
#> arccos(1 - lr * decay) = 0.1000

def draw(translate):
    fig = Figure(figsize=(8, 3.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    for (name, (norms, angles)), color in zip(runs.items(), ["tab:red", "tab:blue"]):
        left.plot(range(len(norms)), norms, color=color, label=translate(name))
        right.plot(
            range(1, len(angles) + 1),
            angles,
            color=color,
            label=translate(name),
            linewidth=0.8,
        )
    right.axhline(
        math.acos(1 - lr * decay), color="black", linestyle="--", label="arccos(1 - ηλ)"
    )
    left.set(title="|W|", ylim=(0, None))
    right.set(title=translate("angle moved per step (radians)"), yscale="log")
    for ax in (left, right):
        ax.set(xlabel=translate("step"))
        ax.legend()
    return fig

save_svgs(draw, "dynamics_norm_growth")
