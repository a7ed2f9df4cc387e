import torch
import torch.nn.functional as F
from torch import nn

from snippets.placement.tiny_lm import one_thread

class Norm(nn.Module):
    """RMSNorm with a LLaMA-style gain (weight starts at 1, output x_hat * weight) or a
    Gemma-style one (weight starts at 0, output x_hat * (1 + weight))."""

    def __init__(self, n, style):
        super().__init__()
        self.style = style
        self.weight = nn.Parameter(
            torch.ones(n) if style == "llama" else torch.zeros(n)
        )

    def gain(self):
        return self.weight if self.style == "llama" else 1 + self.weight

    def forward(self, x):
        return F.rms_norm(x, x.shape[-1:], eps=1e-6) * self.gain()

class Model(nn.Module):
    # The head reads only the first 16 of the norm's 32 channels, so the gains of the
    # other 16 get a gradient of zero: only weight decay moves them.
    def __init__(self, style):
        super().__init__()
        self.W = nn.Linear(32, 32, bias=False)
        self.norm = Norm(32, style)
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        return self.head(self.norm(self.W(x))[:, :16])

def param_groups(model, decay, gains_too):
    """nanoGPT's rule: tensors with two or more dimensions are decayed, the others
    (biases, norm gains) are not; gains_too=True decays the norm's gains as well (the
    head's bias still not), so that only the gains differ between the runs."""
    params = list(model.parameters())
    gain = model.norm.weight
    decays = [p.dim() >= 2 or (gains_too and p is gain) for p in params]
    decayed = [p for p, d in zip(params, decays) if d]
    rest = [p for p, d in zip(params, decays) if not d]
    return [
        {"params": decayed, "weight_decay": decay},
        {"params": rest, "weight_decay": 0.0},
    ]

@one_thread()
def train(style, gains_too, lr=0.01, decay=0.1, steps=1000):
    torch.manual_seed(0)
    x = torch.randn(4096, 32)
    teacher = torch.randn(32, 10)
    labels = (x @ teacher).argmax(1)
    model = Model(style)
    optimizer = torch.optim.AdamW(param_groups(model, decay, gains_too), lr=lr)
    for _ in range(steps):
        batch = torch.randint(4096, (64,))
        loss = F.cross_entropy(model(x[batch]), labels[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    # Held-out rows, labeled by the same teacher.
    test = torch.randn(8192, 32)
    with torch.no_grad():
        test_loss = F.cross_entropy(model(test), (test @ teacher).argmax(1)).item()
    return model.norm.gain().detach(), test_loss

groups = param_groups(Model("llama"), 0.1, gains_too=False)
shapes = [[tuple(p.shape) for p in group["params"]] for group in groups]
print(f"nanoGPT's rule, decayed: {shapes[0]}, not decayed: {shapes[1]}")
#> nanoGPT's rule, decayed: [(32, 32), (10, 16)], not decayed: [(32,), (10,)]

# AdamW, lr 0.01, weight decay 0.1, 1000 steps.
table = ["gain style  gains decayed  mean gain: read   unread  held-out loss"]
for style, gains_too in [("llama", False), ("llama", True), ("gemma", True)]:
    gain, loss = train(style, gains_too)
    read, unread = gain[:16].mean().item(), gain[16:].mean().item()
    table.append(
        f"{style:<10}  {gains_too!s:<13}  {read:>15.3f}  {unread:>7.3f}  {loss:>13.4f}"
    )
print("\n".join(table))
"""
gain style  gains decayed  mean gain: read   unread  held-out loss
llama       False                    2.538    1.000         0.2687
llama       True                     1.660    0.368         0.2794
gemma       True                     2.024    1.000         0.2726
"""
print(f"(1 - lr * decay)^1000 = {(1 - 0.01 * 0.1) ** 1000:.3f}")
#> (1 - lr * decay)^1000 = 0.368

# A pretraining run's scale: lr 3e-4 and weight decay 0.1 over 100000 steps, constant or
# cosine to zero: what is left of a gain that only decay moves.
steps = torch.arange(100_000, dtype=torch.float64)
cosine = 3e-4 * 0.5 * (1 + torch.cos(torch.pi * steps / len(steps)))
constant = (1 - 3e-4 * 0.1) ** len(steps)
print(f"constant lr: {constant:.4f}, cosine: {(1 - cosine * 0.1).prod().item():.4f}")
#> constant lr: 0.0498, cosine: 0.2231
