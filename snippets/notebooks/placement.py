"""The "Pre-norm vs post-norm in practice" notebook's code: one section per code cell.

docs/en/notebooks/placement.md and its Korean twin include these sections; scripts/notebooks.py
turns each page into a notebook and runs it. The model and the training loop are the Placement
page's (snippets/placement/tiny_lm.py).
"""

# --8<-- [start:knobs]
LAYERS = 4  # transformer blocks; try 8 or 12
LEARNING_RATES = [1e-3, 2e-2]  # AdamW, constant, no warmup; try adding 1e-2
STEPS = 200  # batches of 32 windows of 32 words
SEED = 0  # the initialization and the batch order
# --8<-- [end:knobs]

# --8<-- [start:train]
from snippets.placement.tiny_lm import PLACEMENTS, baseline_losses, train

unigram, bigram = baseline_losses()
print(f"held-out loss of the unigram model: {unigram:.3f}, bigram model: {bigram:.3f}")
curves, held_out = {}, {}
for lr in LEARNING_RATES:
    for placement in PLACEMENTS:
        losses, loss = train(placement, lr, steps=STEPS, seed=SEED, layers=LAYERS)
        curves[lr, placement], held_out[lr, placement] = losses, loss
        print(f"lr {lr:<6g} {placement:<12} held-out loss {loss:.3f}")
# --8<-- [end:train]

# --8<-- [start:curves]
import matplotlib.pyplot as plt
import torch

# Training loss averaged over windows of 10 steps, one panel per learning rate.
window = 10
colors = dict(zip(PLACEMENTS, ["tab:red", "tab:green", "tab:blue"]))
fig, axes = plt.subplots(
    1,
    len(LEARNING_RATES),
    figsize=(10, 3.6),
    sharey=True,
    squeeze=False,
    layout="constrained",
)
for ax, lr in zip(axes[0], LEARNING_RATES):
    for placement in PLACEMENTS:
        smooth = torch.tensor(curves[lr, placement]).unfold(0, window, window).mean(1)
        steps = range(window, window * len(smooth) + 1, window)
        ax.plot(steps, smooth, color=colors[placement], label=placement)
    ax.axhline(unigram, color="gray", linestyle=":", label="unigram model")
    ax.axhline(bigram, color="gray", linestyle="--", label="bigram model")
    ax.set(title=f"{LAYERS} layers, learning rate {lr:g}", xlabel="step")
axes[0, 0].set_ylabel("training loss")
axes[0, -1].legend(fontsize="small")
plt.show()
# --8<-- [end:curves]
