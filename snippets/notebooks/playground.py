"""The Playground notebook's code: one section per code cell, in order.

docs/en/notebooks/playground.md and its Korean twin include these sections; scripts/notebooks.py
turns each page into a notebook and runs it.
"""

# --8<-- [start:knobs]
import torch

# In the mean square (RMSNorm) or variance (LayerNorm). The authors' reference PyTorch and
# TensorFlow versions default to 1e-8 (the PyTorch one adds it to the RMS instead); the code
# their README gives for the experiments uses 1e-5 (1e-6 for CIFAR-10), inside the root. The
# checked RMSNorm refuses 0.
EPS = 1e-6
DTYPE = torch.float32  # try torch.bfloat16 or torch.float16
HIDDEN = 4096  # the size of the normalized (last) dimension
ROWS = 64  # rows per input; each statistic below pools all of them
SHIFT = 3.0  # added to every value of the "shifted" input
SCALE = 1e-3  # multiplies every value of the "scaled" input
SEED = 0
LANGUAGE = "en"  # the figures' labels: "en" or "ko" (Korean: NanumGothic font)
# --8<-- [end:knobs]

# --8<-- [start:inputs]
generator = torch.Generator().manual_seed(SEED)
normal = torch.randn(ROWS, HIDDEN, generator=generator)
inputs = {
    "normal": normal,
    "shifted": normal + SHIFT,
    "scaled": normal * SCALE,
    # Exponential(1): positive, long right tail, skewness 2.
    "skewed": torch.empty(ROWS, HIDDEN).exponential_(generator=generator),
}
inputs = {name: x.to(DTYPE) for name, x in inputs.items()}
# --8<-- [end:inputs]

# --8<-- [start:norms]
import torch.nn.functional as F

from snippets.implementations.rms_norm_module import rms_norm
from snippets.implementations.variants import rms_norm_scratch

NORMS = {
    # The Implementations page's checked function: float32 math, one rounding at the end.
    "RMSNorm": lambda x: rms_norm(x, HIDDEN, eps=EPS),
    # The formula as written, each step rounded to x's dtype (no float32 upcast; torch's
    # mean still adds in float32 before it rounds).
    "RMSNorm, no upcast": lambda x: rms_norm_scratch(
        x, torch.ones(HIDDEN, dtype=x.dtype), eps=EPS
    ),
    "LayerNorm": lambda x: F.layer_norm(x, (HIDDEN,), eps=EPS),
}
outputs = {
    (name, norm): normalize(x)
    for name, x in inputs.items()
    for norm, normalize in NORMS.items()
}
# --8<-- [end:norms]

# --8<-- [start:statistics]
def statistics(values):
    """Mean, standard deviation, root mean square, min, max and skewness of all values."""
    v = values.double().flatten()
    mean, std = v.mean(), v.std(correction=0)
    skew = ((v - mean) ** 3).mean() / std**3
    return [mean, std, v.pow(2).mean().sqrt(), v.min(), v.max(), skew]

print(f"{DTYPE}, hidden size {HIDDEN}, eps {EPS:g}")
columns = ["mean", "std", "RMS", "min", "max", "skew"]
print(f"{'input':<8} {'output of':<19}" + "".join(f"{c:>10}" for c in columns))
for name, x in inputs.items():
    rows = [("(input)", x)] + [(norm, outputs[name, norm]) for norm in NORMS]
    for label, values in rows:
        # 10 wide, 3 decimals: the table fits a desktop page's output box, and at
        # SCALE = 300 in float16 a min of -1303.000 still leaves a space.
        # Not named `numbers`: rms_norm (written out above) uses the module of that name.
        cells = "".join(f"{float(s):>10.3f}" for s in statistics(values))
        print(f"{name:<8} {label:<19}{cells}")
# --8<-- [end:statistics]

# --8<-- [start:histograms]
import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

TEXT = {
    "en": {
        "input": "{name} input",
        "value": "input value",
        "output": "output value",
        "count": "count",
        "RMSNorm, no upcast": "RMSNorm, no upcast",
    },
    "ko": {
        "input": "{name} 입력",
        "value": "입력값",
        "output": "출력값",
        "count": "개수",
        "RMSNorm, no upcast": "RMSNorm, 업캐스트 없음",
    },
}[LANGUAGE]
# Hangul from NanumGothic, everything else from matplotlib's own DejaVu Sans.
fonts = ["DejaVu Sans", "NanumGothic"] if LANGUAGE == "ko" else ["DejaVu Sans"]
plt.rcParams["font.family"] = fonts

# A thick RMSNorm line under a thin dotted one: where the two RMSNorms agree (float32),
# both stay visible.
STYLES = [
    {"color": "#1f4e99", "linewidth": 2.6, "linestyle": "-"},
    {"color": "#e07b00", "linewidth": 1.6, "linestyle": ":"},
    {"color": "#2a9d4a", "linewidth": 1.4, "linestyle": "--"},
]
fig, axes = plt.subplots(2, 4, figsize=(9, 5), layout="constrained")
for column, (name, x) in enumerate(inputs.items()):
    top, bottom = axes[0, column], axes[1, column]
    top.hist(x.float().flatten(), bins=80, color="gray")
    top.set_title(TEXT["input"].format(name=name))
    # Left-aligned: the scaled input's "1e-3" sits at the axis's right end.
    top.set_xlabel(TEXT["value"], loc="left")
    for norm, style in zip(NORMS, STYLES):
        y = outputs[name, norm].float().flatten()
        label = TEXT.get(norm, norm)  # the norms without a translation keep their name
        bottom.hist(y, bins=80, histtype="step", label=label, **style)
    bottom.set_xlabel(TEXT["output"])
for row in axes:
    row[0].set_ylabel(TEXT["count"])  # how many of the values fall in each bin
for axis in axes.flat:  # few ticks, small values in powers of ten
    axis.xaxis.set_major_locator(MaxNLocator(4))
    axis.ticklabel_format(axis="x", style="sci", scilimits=(-2, 4))
# One legend for the row, under the plots, where it covers no curve.
handles, labels = axes[1, 0].get_legend_handles_labels()
fig.legend(handles, labels, loc="outside lower center", ncols=3)
plt.show()
# --8<-- [end:histograms]
