import torch
from matplotlib.figure import Figure
from matplotlib.ticker import LogLocator, NullFormatter

from snippets.beyond.stack import VARIANTS, layer_statistics
from snippets.placement.plots import save_svgs
from snippets.placement.tiny_lm import one_thread

# 48 residual MLP blocks of width 128 at initialization, 3 seeds for each variant.
seeds, depth = range(3), 48
with one_thread():
    runs = {
        v: [layer_statistics(v, seed, depth=depth) for seed in seeds] for v in VARIANTS
    }
stats = {
    v: {key: torch.stack([run[key] for run in r]).mean(0) for key in r[0]}
    for v, r in runs.items()
}

print("mean of 3 seeds    weight gradient            input gradient      stream RMS")
#> mean of 3 seeds    weight gradient            input gradient      stream RMS
table = ["variant        layer 1 layer 48  ratio   layer 1 layer 48  ratio   layer 48"]
for v in VARIANTS:
    columns = []
    for key in ["weight_grad", "input_grad"]:
        first, last = stats[v][key][0], stats[v][key][-1]
        columns.append(f"{first:>7.3g} {last:>8.3g} {last / first:>6.3g}")
    rms = stats[v]["stream_rms"][-1]
    table.append(f"{v:<12} {columns[0]}   {columns[1]}   {rms:>8.3g}")
print("\n".join(table))
"""
variant        layer 1 layer 48  ratio   layer 1 layer 48  ratio   layer 48
pre-norm        2.06    0.698  0.339     0.237   0.0586  0.247       4.11
post-norm       2.15     3.11   1.45     0.246    0.227  0.922          1
DeepNorm       0.247    0.252   1.02      0.24     0.24      1          1
Peri-LN         3.01     0.77  0.256     0.236   0.0335  0.142       7.12
nGPT           0.228    0.229      1      2.74     2.73  0.997     0.0884
DyT            0.836    0.533  0.637     0.206   0.0745  0.361       2.47
"""

# The weight gradient's ratio seed by seed: a mean of 3 can hide a seed that goes the
# other way.
for v in ["post-norm", "DeepNorm"]:
    ratios = [f"{r['weight_grad'][-1] / r['weight_grad'][0]:.3g}" for r in runs[v]]
    print(f"{v:<10} weight gradient ratio, seeds 0 to 2: {', '.join(ratios)}")
    #> post-norm  weight gradient ratio, seeds 0 to 2: 1.25, 2.86, 0.704
    #> DeepNorm   weight gradient ratio, seeds 0 to 2: 1.04, 1.03, 0.983

# Each block's second linear layer scaled by 1/sqrt(48), as the Placement page's scaled
# initialization: pre-norm's stream grows less; Peri-LN's output norm divides it out.
for v in ["pre-norm", "Peri-LN"]:
    with one_thread():
        scaled = [layer_statistics(v, s, depth=depth, scale=depth**-0.5) for s in seeds]
    rms = torch.stack([run["stream_rms"][-1] for run in scaled]).mean()
    print(f"{v:<10} scaled init, stream RMS at layer 48: {rms:.3g}")
    #> pre-norm   scaled init, stream RMS at layer 48: 1.15
    #> Peri-LN    scaled init, stream RMS at layer 48: 7.12

# Plot: each variant's gradients relative to its own layer 1, so that variants whose
# states have another scale (nGPT's have norm 1, not RMS 1) share one axis.
colors = ["tab:blue", "tab:red", "tab:orange", "tab:green", "tab:purple", "tab:brown"]
styles = dict(zip(VARIANTS, zip(colors, ["-", "-", "-", "-", "--", "-."])))
layers = torch.arange(1, depth + 1)

def gradients_figure(translate):
    fig = Figure(figsize=(8.5, 3.4), layout="constrained")
    titles = {
        "weight_grad": "gradient norm, first linear layer",
        "input_grad": "gradient norm, block input",
    }
    for ax, (key, title) in zip(fig.subplots(1, 2, sharey=True), titles.items()):
        for v in VARIANTS:
            values = stats[v][key]
            color, style = styles[v]
            ax.plot(layers, values / values[0], color=color, linestyle=style, label=v)
        ax.set(title=translate(title), xlabel=translate("layer"), yscale="log")
        # Ticks at 0.1, 0.2, 0.5, 1, 2, all shown: the limits hold every curve.
        ax.set_ylim(0.1, 2)
        ax.yaxis.set_major_locator(LogLocator(subs=(1, 2, 5)))
        ax.yaxis.set_major_formatter("{x:g}")
        ax.yaxis.set_minor_formatter(NullFormatter())
    fig.axes[0].set_ylabel(translate("relative to layer 1 (log scale)"))
    fig.legend(*fig.axes[0].get_legend_handles_labels(), loc="outside right upper")
    return fig

# The labels of the Korean page's figure, by their English text.
KOREAN = {
    "gradient norm, first linear layer": "그래디언트 노름, 첫 번째 선형 층",
    "layer": "층",
    "gradient norm, block input": "그래디언트 노름, 블록 입력",
    "relative to layer 1 (log scale)": "층 1 대비(로그 스케일)",
}
save_svgs(gradients_figure, "beyond_gradients", KOREAN)
