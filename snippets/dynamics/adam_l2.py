import torch

from snippets.dynamics.optimizer_runs import train

# torch.optim.Adam's weight_decay adds decay * W to the gradient before Adam rescales it
# (L2 regularization, coupled to the gradient); AdamW shrinks W outside the rescaling.
# Each runs on the loss and on 10 times the loss: Adam's rescaling removes the factor 10
# from the loss's gradient, but not from its ratio to the L2 term added to it.
runs = {}
for name, optimizer, decay in [
    ("AdamW, decay 0.5", torch.optim.AdamW, 0.5),
    ("Adam, L2 0.5", torch.optim.Adam, 0.5),
    ("Adam, L2 0.05", torch.optim.Adam, 0.05),
]:
    for loss_scale in [1, 10]:
        runs[name, loss_scale] = train(
            optimizer, decay, steps=1000, lr=0.01, loss_scale=loss_scale
        )
print(f"{'steps 500 to 1000:':<34} mean |W|  angle/step")
#> steps 500 to 1000:                 mean |W|  angle/step
for (name, loss_scale), (norms, angles) in runs.items():
    means = f"{sum(norms[500:]) / 501:5.2f}  {sum(angles[500:]) / 500:.4f}"
    print(f"{name + f', loss x{loss_scale}':<34} {means}")
    #> AdamW, decay 0.5, loss x1           4.54  0.0225
    #> AdamW, decay 0.5, loss x10          4.54  0.0225
    #> Adam, L2 0.5, loss x1               0.95  0.0926
    #> Adam, L2 0.5, loss x10              2.08  0.0431
    #> Adam, L2 0.05, loss x1              2.08  0.0431
    #> Adam, L2 0.05, loss x10             4.72  0.0187

# Adam with L2 0.5 on 10 times the loss takes the steps of L2 0.05 on the loss itself:
# the same sum, divided by 10, which Adam's rescaling ignores (but for its eps).
ten_times, tenth = runs["Adam, L2 0.5", 10][0], runs["Adam, L2 0.05", 1][0]
gap = max(abs(a - b) / b for a, b in zip(ten_times, tenth))
print(f"L2 0.5 on 10x the loss, L2 0.05 on the loss: |W| within 1e-5: {gap < 1e-5}")
#> L2 0.5 on 10x the loss, L2 0.05 on the loss: |W| within 1e-5: True
