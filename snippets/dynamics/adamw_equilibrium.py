import math

import torch

from snippets.dynamics.optimizer_runs import plot_runs, train
from snippets.placement.plots import save_svgs

# The model and data of the SGD runs above (optimizer_runs.py). Two steps from W and two
# from 3W (the head starts at zero, so the first step moves only the head): at 3W the
# gradient is 3 times smaller. SGD's step shrinks with it; Adam's does not.
for optimizer, lr in [(torch.optim.SGD, 0.5), (torch.optim.AdamW, 0.01)]:
    at_W = train(optimizer, 0.0, steps=2, lr=lr)[1][1]
    at_3W = train(optimizer, 0.0, steps=2, init_scale=3.0, lr=lr)[1][1]
    name, ratio = optimizer.__name__, at_W / at_3W
    print(f"{name:<5} step 2 turns W {at_W:.5f}, 3W {at_3W:.5f}: {ratio:.2f}x")
    #> SGD   step 2 turns W 0.00819, 3W 0.00091: 9.00x
    #> AdamW step 2 turns W 0.04240, 3W 0.01414: 3.00x

# Adam's eps is added to the RMS of each coordinate's gradients. Once it is not small next
# to them, the step shrinks with the gradient again, as SGD's does (default eps: 1e-8).
for eps in [1e-3, 1.0]:
    at_W = train(torch.optim.AdamW, 0.0, steps=2, lr=0.01, eps=eps)[1][1]
    at_3W = train(torch.optim.AdamW, 0.0, steps=2, init_scale=3.0, lr=0.01, eps=eps)[1][
        1
    ]
    print(f"AdamW, eps {eps:g}: W turns {at_W / at_3W:.2f}x as far as 3W")
    #> AdamW, eps 0.001: W turns 5.89x as far as 3W
    #> AdamW, eps 1: W turns 9.00x as far as 3W

# AdamW, lr 0.01, decay 0.5 on W (lr * decay = 0.005, as in the SGD run), 4000 steps:
# the default momentum beta1 = 0.9 without and with decay, and no momentum with decay.
lr, decay, C = 0.01, 0.5, 64 * 32  # C: the coordinates of W
updates = []  # beta1 = 0: Adam's update u, where W after = (1 - lr decay) W - lr u

def record(before, after):
    """|u|^2 / C, and u's component along W (which shrinks W, as decay does)."""
    u = ((1 - lr * decay) * before - after) / lr
    along = (u * before).sum().item() / before.norm().item()
    updates.append([u.pow(2).sum().item() / C, along])

runs = {
    "no weight decay": train(torch.optim.AdamW, 0.0, steps=4000, lr=lr),
    "weight decay 0.5": train(torch.optim.AdamW, decay, steps=4000, lr=lr),
    "weight decay 0.5, β₁ = 0": train(
        torch.optim.AdamW, decay, steps=4000, lr=lr, betas=(0.0, 0.999), seen=record
    ),
}
table = [f"{'':21} |W| at 0   1000   2000   4000   last 1000: mean |W|  angle/step"]
for name, (norms, angles) in runs.items():
    shown = f"{norms[0]:5.2f}  {norms[1000]:5.2f}  {norms[2000]:5.2f}  {norms[-1]:5.2f}"
    means = f"{sum(norms[-1000:]) / 1000:19.2f}  {sum(angles[-1000:]) / 1000:10.4f}"
    table.append(f"{name:<25} {shown}   {means}")
print("\n".join(table))
"""
                      |W| at 0   1000   2000   4000   last 1000: mean |W|  angle/step
no weight decay            7.94  15.29  19.60  26.52                 24.93      0.0032
weight decay 0.5           7.94   4.46   4.00   4.00                  3.99      0.0251
weight decay 0.5, β₁ = 0   7.94   4.68   4.07   4.01                  4.04      0.1088
"""

# With beta1 = 0.9 the norm has settled by step 2000; the angle per step, in either run,
# has not.
table = ["angle/step with decay, steps 1001-2000, 2001-3000, 3001-4000:"]
for beta1, name in [(0.9, "weight decay 0.5"), (0.0, "weight decay 0.5, β₁ = 0")]:
    turned = runs[name][1]  # turned[i]: the angle of step i + 1
    thirds = "  ".join(
        f"{sum(turned[s:s + 1000]) / 1000:.4f}" for s in (1000, 2000, 3000)
    )
    table.append(f"  beta1 = {beta1}: {thirds}")
print("\n".join(table))
"""
angle/step with decay, steps 1001-2000, 2001-3000, 3001-4000:
  beta1 = 0.9: 0.0231  0.0244  0.0251
  beta1 = 0.0: 0.0995  0.1075  0.1088
"""

# The approach's pace: v, Adam's running mean of squared gradients, spans about
# 1 / (1 - beta2) steps, 1000 by default, and lags the gradients' growth as |W| falls.
# LLaMA's beta2 = 0.95 spans about 20.
short_v = train(torch.optim.AdamW, decay, steps=1000, lr=lr, betas=(0.9, 0.95))[0]
for name, norms in [
    ("beta2 0.999", runs["weight decay 0.5"][0]),
    ("beta2 0.95", short_v),
]:
    shown = "  ".join(f"{norms[step]:.2f}" for step in (300, 500, 1000))
    print(f"{name}, decay 0.5: |W| at steps 300, 500, 1000: {shown}")
    #> beta2 0.999, decay 0.5: |W| at steps 300, 500, 1000: 5.11  4.72  4.46
    #> beta2 0.95, decay 0.5: |W| at steps 300, 500, 1000: 4.66  4.32  4.33

# Where decay balances the steps, if successive gradients are uncorrelated.
predictions = {}
for beta1, label in [(0.9, "√(2ηλ (1 − β₁) / (1 + β₁))"), (0.0, "√(2ηλ)")]:
    predicted = math.sqrt(2 * lr * decay * (1 - beta1) / (1 + beta1))
    predictions[label] = predicted
    print(f"beta1 = {beta1}: predicted angle/step {predicted:.4f}")
    #> beta1 = 0.9: predicted angle/step 0.0229
    #> beta1 = 0.0: predicted angle/step 0.1000

# Momentum's share of the turn: the two runs' ratio, against sqrt((1 + 0.9) / (1 - 0.9)).
turns = sum(runs["weight decay 0.5, β₁ = 0"][1][-1000:])
turns /= sum(runs["weight decay 0.5"][1][-1000:])
print(f"turn without momentum / with: {turns:.2f}, predicted {math.sqrt(19):.2f}")
#> turn without momentum / with: 4.33, predicted 4.36

# And the norm: with no momentum, each coordinate of Adam's step has an RMS near 1, so a
# step adds about lr^2 C to |W|^2, and decay takes 2 lr decay |W|^2.
predicted = math.sqrt(lr * C / (2 * decay))
print(f"predicted |W| at equilibrium: sqrt(lr C / (2 decay)) = {predicted:.2f}")
#> predicted |W| at equilibrium: sqrt(lr C / (2 decay)) = 4.53

# Toward a fixed balance, decay shrinks the gap in |W|^2 by (1 - lr decay)^2 a step.
steps = 1 / (2 * lr * decay)
print(f"the gap falls to 1/e in about 1 / (2 lr decay) = {steps:.0f} steps")
#> the gap falls to 1/e in about 1 / (2 lr decay) = 100 steps

# Over steps 3001 to 4000 (beta1 = 0) neither assumption holds exactly: |u|^2 / C is below 1
# and u has a component along W. With both measured, |W'| = |W| on average where
# (1 - (1 - lr decay)^2) |W|^2 + 2 lr (1 - lr decay) along |W| - lr^2 size C = 0.
size, along = torch.tensor(updates[-1000:]).mean(0).tolist()
a, b = 1 - (1 - lr * decay) ** 2, 2 * lr * (1 - lr * decay) * along
balanced = (-b + math.sqrt(b * b + 4 * a * lr**2 * size * C)) / (2 * a)
print(f"|u|^2 / C {size:.3f}, u along W {along:.2f}: balanced |W| {balanced:.2f}")
#> |u|^2 / C 0.947, u along W 0.39: balanced |W| 4.03

# The labels of the Korean page's figure, by their English text.
KOREAN = {
    "no weight decay": "가중치 감쇠 없음",
    "weight decay 0.5": "가중치 감쇠 0.5",
    "weight decay 0.5, β₁ = 0": "가중치 감쇠 0.5, β₁ = 0",
    "angle moved per step": "스텝당 회전 각도",
    "radians (log scale)": "라디안(로그 스케일)",
    "step": "스텝",
}
save_svgs(plot_runs(runs, predictions), "dynamics_adamw", KOREAN)
