"""The Training dynamics page's optimizer runs: W (64 x 32) -> RMSNorm (eps = 0, so the
loss ignores |W|) -> a linear head, on teacher labels of which 30% are redrawn at random
(so the gradient never vanishes), trained by any torch.optim optimizer. Float64. And the
figure of a set of runs."""

import math

import torch
import torch.nn.functional as F
from matplotlib.figure import Figure

from snippets.placement.tiny_lm import one_thread

generator = torch.Generator().manual_seed(0)
x = torch.randn(4096, 32, dtype=torch.float64, generator=generator)
labels = (x @ torch.randn(32, 10, dtype=torch.float64, generator=generator)).argmax(1)
redrawn = torch.rand(4096, generator=generator) < 0.3
labels[redrawn] = torch.randint(10, (int(redrawn.sum()),), generator=generator)

@one_thread()
def train(
    optimizer, weight_decay, steps, init_scale=1.0, loss_scale=1.0, seen=None, **options
):
    """Batch 64, weight decay on W only, the loss multiplied by loss_scale. Returns |W|
    before each step and after the last, and the angle each step turns W by (radians).
    seen(before, after), if given, is called with W before and after each step."""
    generator = torch.Generator().manual_seed(1)
    W = torch.randn(64, 32, dtype=torch.float64, generator=generator) / 32**0.5
    W = (init_scale * W).requires_grad_()
    head = torch.zeros(10, 64, dtype=torch.float64, requires_grad=True)
    groups = [{"params": [W], "weight_decay": weight_decay}, {"params": [head]}]
    opt = optimizer(groups, weight_decay=0.0, **options)
    norms, angles = [W.norm().item()], []
    for _ in range(steps):
        batch = torch.randint(4096, (64,), generator=generator)
        y = F.rms_norm(x[batch] @ W.T, (64,), eps=0.0)
        opt.zero_grad()
        (loss_scale * F.cross_entropy(y @ head.T, labels[batch])).backward()
        before = W.detach().clone()
        opt.step()
        with torch.no_grad():
            # 2 asin(|u - v| / 2) between unit vectors: the acos of their cosine loses
            # digits when the angle is tiny (about 1e-7 rad at Adam's eps = 1).
            apart = (W / W.norm() - before / before.norm()).norm().item()
            angles.append(2 * math.asin(apart / 2))
            norms.append(W.norm().item())
            if seen is not None:
                seen(before, W.detach())
    return norms, angles

def plot_runs(runs, predictions):
    """draw(translate), for save_svgs: |W| at left; at right the angle per step on a log
    scale, with a line at each predicted angle. runs: {label: (norms, angles)};
    predictions: {label: angle}."""

    def draw(translate):
        fig = Figure(figsize=(8, 3.2), layout="constrained")
        left, right = fig.subplots(1, 2)
        colors = ["tab:red", "tab:blue", "tab:green"]
        for (name, (norms, angles)), color in zip(runs.items(), colors):
            left.plot(range(len(norms)), norms, color=color, label=translate(name))
            # From step 2: the head starts at zero, so step 1 turns W by 0 (off a log scale).
            right.plot(
                range(2, len(angles) + 1), angles[1:], color=color, linewidth=0.8
            )
        for (name, angle), style in zip(predictions.items(), ["--", ":"]):
            right.axhline(angle, color="black", linestyle=style, label=name)
        highest = max(max(norms) for norms, _ in runs.values())
        left.set(title="‖W‖", ylim=(0, 1.35 * highest))  # room for the legend
        right.set(title=translate("angle moved per step"), yscale="log")
        right.set_ylabel(translate("radians (log scale)"))
        right.set_ylim(top=6 * max(predictions.values()))  # room for the legend
        for ax in (left, right):
            ax.set(xlabel=translate("step"))
        left.legend(loc="upper left")
        right.legend(loc="upper right")
        return fig

    return draw
