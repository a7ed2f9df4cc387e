import math

import torch

from snippets.dynamics.optimizer_runs import plot_runs, train
from snippets.placement.plots import save_svgs

# W (64 x 32) -> RMSNorm -> a linear head, on teacher labels of which 30% are redrawn at
# random (optimizer_runs.py), trained with torch.optim.SGD: without and with decay on W.
lr, decay = 0.5, 0.01
runs = {
    "no weight decay": train(torch.optim.SGD, 0.0, steps=1000, lr=lr),
    "weight decay 0.01": train(torch.optim.SGD, decay, steps=1000, lr=lr),
}
# One step's angle is noisy: the angle columns average 50 steps, 51-100 and 951-1000.
table = [
    "                   |W| at step 0   100   1000   angle/step, steps 51-100  951-1000"
]
for name, (norms, angles) in runs.items():
    shown = f"{norms[0]:6.2f} {norms[100]:6.2f} {norms[-1]:6.2f}"
    early, late = sum(angles[50:100]) / 50, sum(angles[-50:]) / 50
    table.append(
        f"{name:<18}       {shown}                   {early:.4f}    {late:.4f}"
    )
print("\n".join(table))
"""
                   |W| at step 0   100   1000   angle/step, steps 51-100  951-1000
no weight decay            7.94   8.35  10.64                   0.0333    0.0187
weight decay 0.01          7.94   5.50   4.04                   0.0608    0.1002
"""
mean_angle = sum(runs["weight decay 0.01"][1][-200:]) / 200
print(f"weight decay, mean angle/step over the last 200 steps: {mean_angle:.4f}")
#> weight decay, mean angle/step over the last 200 steps: 0.1002
print(f"arccos(1 - lr * decay) = {math.acos(1 - lr * decay):.4f}")
#> arccos(1 - lr * decay) = 0.1000

predicted = {"arccos(1 − ηλ)": math.acos(1 - lr * decay)}
# The labels of the Korean page's figure, by their English text.
KOREAN = {
    "no weight decay": "가중치 감쇠 없음",
    "weight decay 0.01": "가중치 감쇠 0.01",
    "angle moved per step": "스텝당 회전 각도",
    "radians (log scale)": "라디안(로그 스케일)",
    "step": "스텝",
}
save_svgs(plot_runs(runs, predicted), "dynamics_norm_growth", KOREAN)
