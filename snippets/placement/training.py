import torch
from matplotlib.figure import Figure

from snippets.placement.plots import save_svgs
from snippets.placement.tiny_lm import PLACEMENTS, baseline_losses, train

# 4 layers, width 64, 4 heads; 200 steps of AdamW on batches of 16 windows, no warmup
# (but in the last runs, post-LN's); one seed at 0.001, where all three train, and two at
# 0.02, where they part.
seeds = {1e-3: [0], 2e-2: [0, 1]}
rates = list(seeds)
curves, held_out = {}, {}
for lr in rates:
    for placement in PLACEMENTS:
        for seed in seeds[lr]:
            losses, loss = train(placement, lr, seed=seed)
            curves[lr, placement, seed], held_out[lr, placement, seed] = losses, loss

unigram, bigram = baseline_losses()
print(f"held-out loss, unigram model (word frequencies only): {unigram:.2f}")
#> held-out loss, unigram model (word frequencies only): 3.04
print(f"held-out loss, bigram model (previous word only):     {bigram:.2f}")
#> held-out loss, bigram model (previous word only):     1.75

def where(loss):
    """Where a loss lands, for runs whose exact value is not reproducible."""
    if loss < bigram - 0.05:
        return "below bigram"
    if abs(loss - unigram) < 0.2:
        return "at unigram"
    return "above unigram" if loss > unigram else "in between"

for lr in rates:
    for placement in PLACEMENTS:
        losses = [held_out[lr, placement, seed] for seed in seeds[lr]]
        # At 0.001 training is smooth and the losses repeat to many digits. At 0.02 it
        # amplifies rounding: the second decimal can change with the CPU (the instructions
        # PyTorch's kernels use), so only where each loss lands is printed.
        shown = [f"{loss:.2f}" if lr == 1e-3 else where(loss) for loss in losses]
        named = " and ".join(map(str, seeds[lr]))
        named = f"seeds {named}" if len(losses) > 1 else f"seed {named}"
        print(f"lr {lr:<5g}  {placement:<11}  {named}: {', '.join(shown)}")
        #> lr 0.001  post-LN      seed 0: 1.60
        #> lr 0.001  pre-LN       seed 0: 1.60
        #> lr 0.001  pre-RMSNorm  seed 0: 1.59
        #> lr 0.02   post-LN      seeds 0 and 1: at unigram, at unigram
        #> lr 0.02   pre-LN       seeds 0 and 1: below bigram, below bigram
        #> lr 0.02   pre-RMSNorm  seeds 0 and 1: below bigram, below bigram

# Post-LN at 0.02 again, 200 steps as above, the learning rate raised linearly over the
# first 50. Its early steps repeat on any machine; once the rate nears 0.02 they do not.
warmed = {}  # drawn dash-dotted in the 0.02 panel
for seed in seeds[2e-2]:
    losses, loss = train("post-LN", 2e-2, seed=seed, warmup=50)
    warmed[seed] = losses
    means = torch.tensor(losses).unfold(0, 10, 10).mean(1)
    best, first = means.min().item(), 10 * means.argmin().item() + 1
    lowest = f"best 10 steps {best:.1f} at {first}-{first + 9}"
    print(f"warmup, seed {seed}: {lowest}, held out: {where(loss)}")
    #> warmup, seed 0: best 10 steps 1.9 at 21-30, held out: at unigram
    #> warmup, seed 1: best 10 steps 1.8 at 31-40, held out: at unigram

# Training loss, averaged over 10 steps, one line per run.
colors = dict(zip(PLACEMENTS, ["tab:red", "tab:green", "tab:blue"]))
steps = range(10, 201, 10)
# Drawn beside training losses, the baselines' held-out losses say which they are.
baselines = {
    "unigram model, held out": (unigram, ":"),
    "bigram model, held out": (bigram, "--"),
}

def training_figure(translate):
    fig = Figure(figsize=(8, 3.4), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for ax, lr in zip(axes, rates):
        for (rate, placement, seed), losses in curves.items():
            smooth = torch.tensor(losses).unfold(0, 10, 10).mean(1)
            label = placement if seed == 0 else None
            if rate == lr:
                ax.plot(steps, smooth, color=colors[placement], label=label)
        if lr == rates[-1]:
            for seed, losses in warmed.items():
                smooth = torch.tensor(losses).unfold(0, 10, 10).mean(1)
                label = translate("post-LN, 50 warmup steps") if seed == 0 else None
                color = colors["post-LN"]
                ax.plot(steps, smooth, color=color, linestyle="-.", label=label)
        for name, (loss, style) in baselines.items():
            ax.axhline(loss, color="gray", linestyle=style, label=translate(name))
        title = f"{translate('learning rate')} {lr:g}"
        ax.set(title=title, xlabel=translate("step"), ylim=(1.4, 4.0))
    axes[0].set_ylabel(translate("training loss"))
    # The legend in the 0.001 panel, above its curves: in the 0.02 panel it hid some.
    axes[0].legend(*axes[1].get_legend_handles_labels(), loc="upper right")
    return fig

# The labels of the Korean page's figure, by their English text.
KOREAN = {
    "unigram model, held out": "유니그램 모델(검증 손실)",
    "bigram model, held out": "바이그램 모델(검증 손실)",
    "learning rate": "학습률",
    "step": "스텝",
    "post-LN, 50 warmup steps": "post-LN, 워밍업 50스텝",
    "training loss": "학습 손실",
}
save_svgs(training_figure, "placement_training", KOREAN)
