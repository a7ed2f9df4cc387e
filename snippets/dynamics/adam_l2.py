import torch

from snippets.dynamics.optimizer_runs import train

# torch.optim.Adam's weight_decay adds decay * W to the gradient before Adam rescales it
# (L2 regularization, coupled to the gradient); AdamW shrinks W outside the rescaling.
# Each on the loss and on 10 times the loss (L2 0.05 on the loss only, to compare): Adam's
# rescaling removes the factor 10 from the loss's gradient, not from its ratio to the L2.
runs = {}
for name, optimizer, decay, loss_scale in [
    ("AdamW, decay 0.5", torch.optim.AdamW, 0.5, 1),
    ("AdamW, decay 0.5", torch.optim.AdamW, 0.5, 10),
    ("Adam, L2 0.5", torch.optim.Adam, 0.5, 1),
    ("Adam, L2 0.5", torch.optim.Adam, 0.5, 10),
    ("Adam, L2 0.05", torch.optim.Adam, 0.05, 1),
]:
    runs[name, loss_scale] = train(
        optimizer, decay, steps=500, lr=0.01, loss_scale=loss_scale
    )
table = [f"{'steps 250 to 500:':<34} mean |W|  angle/step"]
for (name, loss_scale), (norms, angles) in runs.items():
    means = f"{sum(norms[250:]) / 251:5.2f}  {sum(angles[250:]) / 250:.4f}"
    table.append(f"{name + f', loss x{loss_scale}':<34} {means}")
print("\n".join(table))
"""
steps 250 to 500:                  mean |W|  angle/step
AdamW, decay 0.5, loss x1           4.95  0.0218
AdamW, decay 0.5, loss x10          4.95  0.0218
Adam, L2 0.5, loss x1               0.95  0.0888
Adam, L2 0.5, loss x10              2.16  0.0420
Adam, L2 0.05, loss x1              2.16  0.0420
"""

# Adam with L2 0.5 on 10 times the loss takes the steps of L2 0.05 on the loss itself:
# the same sum, divided by 10, which Adam's rescaling ignores (but for its eps).
ten_times, tenth = runs["Adam, L2 0.5", 10][0], runs["Adam, L2 0.05", 1][0]
gap = max(abs(a - b) / b for a, b in zip(ten_times, tenth))
print(f"L2 0.5 on 10x the loss, L2 0.05 on the loss: |W| within 1e-5: {gap < 1e-5}")
#> L2 0.5 on 10x the loss, L2 0.05 on the loss: |W| within 1e-5: True
