"""The "Pre-norm vs post-norm in practice" notebook's code: one section per code cell.

docs/en/notebooks/placement.md and its Korean twin include these sections; scripts/notebooks.py
turns each page into a notebook and runs it. The model and the training loop are the Placement
page's (snippets/placement/tiny_lm.py).
"""

# --8<-- [start:knobs]
LAYERS = 4  # transformer blocks; try 8 or 12
LEARNING_RATES = [1e-3, 2e-2]  # AdamW, constant after warmup; try [1e-3, 1e-2, 2e-2]
WARMUP = 0  # steps raising the learning rate linearly to its value; try 50, STEPS 100
# Batches of 16 windows of 32 words (the Placement page trains for 200); a multiple of 10,
# as the plot averages 10 steps at a time.
STEPS = 60
SEED = 0  # the initialization and the batch order
LANGUAGE = "en"  # the figures' labels: "en" or "ko" (Korean: NanumGothic font)
# --8<-- [end:knobs]

# --8<-- [start:train]
from snippets.placement.tiny_lm import PLACEMENTS, baseline_losses, train

unigram, bigram = baseline_losses()
print(f"held-out loss of the unigram model: {unigram:.3f}, bigram model: {bigram:.3f}")
curves, held_out = {}, {}
for lr in LEARNING_RATES:
    for placement in PLACEMENTS:
        losses, loss = train(
            placement, lr, steps=STEPS, seed=SEED, layers=LAYERS, warmup=WARMUP
        )
        curves[lr, placement], held_out[lr, placement] = losses, loss
        print(f"lr {lr:<6g} {placement:<12} held-out loss {loss:.3f}")
# --8<-- [end:train]

# --8<-- [start:curves]
import matplotlib.pyplot as plt
import torch

TEXT = {
    "en": {
        "title": "{layers} layers, learning rate {lr:g}",
        "step": "step",
        "loss": "training loss",
        "unigram": "unigram model (held-out)",
        "bigram": "bigram model (held-out)",
    },
    "ko": {
        "title": "{layers}층, 학습률 {lr:g}",
        "step": "스텝",
        "loss": "학습 손실",
        "unigram": "유니그램 모델(검증 손실)",
        "bigram": "바이그램 모델(검증 손실)",
    },
}[LANGUAGE]
# Hangul from NanumGothic, everything else from matplotlib's own DejaVu Sans.
fonts = ["DejaVu Sans", "NanumGothic"] if LANGUAGE == "ko" else ["DejaVu Sans"]
plt.rcParams["font.family"] = fonts

# Training loss averaged over windows of 10 steps, one panel per learning rate.
window = 10
# pre-LN wide and pale under pre-RMSNorm's thin line: where the two agree, both stay visible;
# post-LN dash-dotted over both, which at a small learning rate it nearly coincides with.
STYLES = {
    "post-LN": {"color": "tab:red", "linestyle": "-.", "zorder": 3},
    "pre-LN": {"color": "tab:green", "linewidth": 5, "alpha": 0.5},
    "pre-RMSNorm": {"color": "tab:blue", "linewidth": 1.5},
}
fig, axes = plt.subplots(
    1,
    len(LEARNING_RATES),
    figsize=(8, 3.4),  # about the page's width: its text not shrunk
    sharey=True,
    squeeze=False,
    layout="constrained",
)
for ax, lr in zip(axes[0], LEARNING_RATES):
    for placement in PLACEMENTS:
        smooth = torch.tensor(curves[lr, placement]).unfold(0, window, window).mean(1)
        steps = range(window, window * len(smooth) + 1, window)
        ax.plot(steps, smooth, label=placement, **STYLES[placement])
    ax.axhline(unigram, color="gray", linestyle=":", label=TEXT["unigram"])
    ax.axhline(bigram, color="gray", linestyle="--", label=TEXT["bigram"])
    ax.set(title=TEXT["title"].format(layers=LAYERS, lr=lr), xlabel=TEXT["step"])
axes[0, 0].set_ylabel(TEXT["loss"])
axes[0, -1].legend()
plt.show()
# --8<-- [end:curves]
