import math

import torch
from matplotlib.figure import Figure
from matplotlib.ticker import LogLocator, NullFormatter

from snippets.placement.plots import save_svgs
from snippets.placement.stack import layer_statistics

# 48 residual MLP blocks of width 256 at initialization, 5 seeds for each placement.
seeds, depth = range(5), 48
runs = {
    p: [layer_statistics(p, seed, depth=depth) for seed in seeds]
    for p in ["post", "pre"]
}
stats = {
    p: {key: torch.stack([run[key] for run in r]) for key in r[0]}
    for p, r in runs.items()
}

print("mean of 5 seeds at layers 1, 24, 48, and the ratio layer 48 / layer 1")
#> mean of 5 seeds at layers 1, 24, 48, and the ratio layer 48 / layer 1
rows = [
    ("post", "weight_grad"),
    ("pre", "weight_grad"),
    ("post", "input_grad"),
    ("pre", "input_grad"),
    ("post", "stream_rms"),
    ("pre", "stream_rms"),
]
for placement, key in rows:
    mean = stats[placement][key].mean(0)
    values = " ".join(f"{value:>6.3g}" for value in (mean[0], mean[23], mean[-1]))
    ratio = mean[-1] / mean[0]
    print(f"{placement + '-norm':<9} {key:<11} {values}  ratio {ratio:.3g}")
    #> post-norm weight_grad   2.19   3.09   4.67  ratio 2.13
    #> pre-norm  weight_grad   2.31    1.1  0.851  ratio 0.368
    #> post-norm input_grad   0.176  0.173  0.179  ratio 1.02
    #> pre-norm  input_grad   0.186 0.0643 0.0455  ratio 0.245
    #> post-norm stream_rms   0.999      1      1  ratio 1
    #> pre-norm  stream_rms   0.999   2.86   3.95  ratio 3.95
top = stats["post"]["weight_grad"].mean(0)[-1] / stats["pre"]["weight_grad"].mean(0)[-1]
print(f"layer 48 weight gradient, post-norm / pre-norm: {top:.3g}")
#> layer 48 weight gradient, post-norm / pre-norm: 5.49

# Xiong et al. (2020): at initialization their bounds on the gradient of the last
# MLP's second weight matrix differ between post-norm and pre-norm by a factor of
# sqrt(L). That matrix here: the last block's second linear layer, mean of 5 seeds, at
# 48 blocks and on shallower stacks; last, each seed's own ratio divided by
# sqrt(depth), its smallest and largest.
def last_layer(depth):
    """The last block's second weight gradient in each seed: post-norm's, pre-norm's."""
    return [
        torch.stack(
            [
                layer_statistics(p, s, depth=depth)["second_weight_grad"][-1]
                for s in seeds
            ]
        )
        for p in ["post", "pre"]
    ]

table = ["depth   post    pre  post/pre  sqrt(depth)  ratio/sqrt(depth)  single seeds"]
lasts = {depth: last_layer(depth) for depth in [6, 12, 24]}
lasts[48] = [stats[p]["second_weight_grad"][:, -1] for p in ["post", "pre"]]
for depth, (post, pre) in lasts.items():
    root, ratio = math.sqrt(depth), post.mean() / pre.mean()
    seed = post / pre / root
    spread = f"{seed.min():.2f} to {seed.max():.2f}"
    cells = f"{post.mean():>6.3g} {pre.mean():>6.3g} {ratio:>9.3g} {root:>12.3g}"
    table.append(f"{depth:>5} {cells} {ratio / root:>18.2f}  {spread}")
print("\n".join(table))
"""
depth   post    pre  post/pre  sqrt(depth)  ratio/sqrt(depth)  single seeds
    6   3.22   1.95      1.65         2.45               0.67  0.61 to 0.73
   12   3.46   1.45      2.38         3.46               0.69  0.56 to 0.85
   24   4.62   1.23      3.74          4.9               0.76  0.55 to 1.09
   48   4.99  0.994      5.02         6.93               0.72  0.52 to 1.09
"""

# Plots: the mean over seeds as a line, the range over seeds as a band.
layers = torch.arange(1, depth + 1)

def draw(ax, placement, key, label, color):
    values = stats[placement][key]
    ax.plot(layers, values.mean(0), color=color, label=label)
    low, high = values.min(0).values, values.max(0).values
    ax.fill_between(layers, low, high, color=color, alpha=0.2, linewidth=0)

def gradients_figure(translate):
    fig = Figure(figsize=(8, 3.2), layout="constrained")
    titles = {"weight_grad": "first linear layer", "input_grad": "block input"}
    for ax, (key, title) in zip(fig.subplots(1, 2), titles.items()):
        draw(ax, "post", key, "post-norm", "tab:red")
        draw(ax, "pre", key, "pre-norm", "tab:blue")
        ax.set(title=translate(title), xlabel=translate("layer"), yscale="log")
        ax.set_ylabel(translate("gradient norm (log scale)"))
        # Ticks at 1, 2, 5, 10, ...
        ax.yaxis.set_major_locator(LogLocator(subs=(1, 2, 5)))
        ax.yaxis.set_major_formatter("{x:g}")
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.legend()
    return fig

def stream_figure(translate):
    fig = Figure(figsize=(8, 3.2), layout="constrained")  # as wide as the gradients
    ax = fig.subplots()
    draw(ax, "pre", "stream_rms", "pre-norm", "tab:blue")
    draw(ax, "post", "stream_rms", "post-norm", "tab:red")
    title = translate("RMS of each block's input")
    ax.set(title=title, xlabel=translate("layer"), ylim=(0, None))
    ax.legend()
    return fig

# The labels of the Korean page's figures, by their English text.
KOREAN = {
    "first linear layer": "첫 번째 선형 층",
    "layer": "층",
    "gradient norm (log scale)": "그래디언트 노름(로그 스케일)",
    "block input": "블록 입력",
    "RMS of each block's input": "각 블록 입력의 RMS",
}
save_svgs(gradients_figure, "placement_gradients", KOREAN)
save_svgs(stream_figure, "placement_stream_rms", KOREAN)
