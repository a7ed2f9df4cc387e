import torch
from matplotlib.figure import Figure

from snippets.activations.attention_lm import train_attention
from snippets.placement.plots import save_svgs

# 2 pre-RMSNorm layers, width 64, 4 heads of 16; 150 steps of AdamW at lr 0.1, no warmup:
# without QK-norm, with Gemma 2's soft-cap of the logits (50), and with QK-norm.
runs = {
    "no QK-norm": train_attention(False, lr=0.1, steps=150),
    "soft-cap 50": train_attention(False, lr=0.1, steps=150, softcap=50.0),
    "QK-norm": train_attention(True, lr=0.1, steps=150),
}
# The entropy's scale: uniform causal attention over 32 positions, a mean over its rows.
uniform = torch.log(torch.arange(1, 33, dtype=torch.float64)).mean()
print(f"uniform causal attention over 32 positions: entropy {uniform:.2f} nats")
#> uniform causal attention over 32 positions: entropy 2.55 nats
# Training at this rate amplifies rounding differences between CPUs, so after the first
# step the snippet prints only which side of a threshold the values lie on.
print("            at initialization:     steps 76-150, at every step:")
#>             at initialization:     steps 76-150, at every step:
table = [
    "            largest logit  entropy  logit > 1000  entropy < 0.05  entropy > 0.5"
]
for name, run in runs.items():
    logits, entropy = torch.tensor(run["max_logit"]), torch.tensor(run["entropy"])
    start = f"{logits[0]:>13.3g}  {entropy[0]:>7.3g}"
    late = [
        logits[75:].min() > 1000,
        entropy[75:].max() < 0.05,
        entropy[75:].min() > 0.5,
    ]
    late = [str(bool(value)) for value in late]
    table.append(f"{name:<11} {start}  {late[0]:<12}  {late[1]:<14}  {late[2]}")
print("\n".join(table))
"""
            largest logit  entropy  logit > 1000  entropy < 0.05  entropy > 0.5
no QK-norm           1.52     2.51  True          True            False
soft-cap 50          1.52     2.51  False         False           True
QK-norm              3.35      2.2  False         False           True
"""
# With the cap, the largest logit sits at it: in float32, 50 tanh(s / 50) is 50.0 only once
# tanh rounds to 1: the logits under the cap are above 450 (the first whole one is 451).
capped = torch.tensor(runs["soft-cap 50"]["max_logit"])[75:]
at_cap_throughout = bool((capped == 50).all())
print(f"soft-cap 50: largest logit 50.0 at every step 76-150: {at_cap_throughout}")
#> soft-cap 50: largest logit 50.0 at every step 76-150: True
s = torch.arange(1, 1001, dtype=torch.float32)
at_cap = s[50 * torch.tanh(s / 50) == 50]
print(f"50 tanh(s / 50) in float32 is 50.0 for whole s from {at_cap.min():.0f} on")
#> 50 tanh(s / 50) in float32 is 50.0 for whole s from 451 on
# At the cap tanh's slope is 0 in float32: logits at +50 pass no gradient back, and a
# row's weight is shared among its keys tied there (beside a key at +50, a key at -50 gets
# next to no weight, capped or not). The share of logits at +50 and the share of queries
# with a key there, each the lowest over the layers at a step, as a mean over steps 76-150:
# a single step's share moves with the CPU's rounding (its lowest was 0.20 on one CPU, 0.11
# on another); and the size of the logits before the cap, the lowest over layers and steps.
run = runs["soft-cap 50"]
tied = sum(run["at_cap"][75:]) / 75 > 1 / 10
rows = sum(run["rows_at_cap"][75:]) / 75 > 0.5
grown = min(run["median_before_cap"][75:]) > 100
print(f"soft-cap 50, steps 76-150 (mean): over a tenth of logits at +50: {tied}")
#> soft-cap 50, steps 76-150 (mean): over a tenth of logits at +50: True
print(f"soft-cap 50, steps 76-150 (mean): a key at +50 in over half of queries: {rows}")
#> soft-cap 50, steps 76-150 (mean): a key at +50 in over half of queries: True
print(f"soft-cap 50, steps 76-150: median |logit| before the cap above 100: {grown}")
#> soft-cap 50, steps 76-150: median |logit| before the cap above 100: True
# Its entropy early on: a dip, then back up (entry i is the step i + 1).
entropy = torch.tensor(run["entropy"])
dip, back = bool(entropy[:9].min() < 0.5), bool(entropy[9:].min() > 0.5)
print(f"soft-cap 50: entropy < 0.5 before step 10: {dip}, > 0.5 from step 10: {back}")
#> soft-cap 50: entropy < 0.5 before step 10: True, > 0.5 from step 10: True
# Each layer's largest logit at each step, against that layer's bound from its gains
# after the step before.
logits, bounds = runs["QK-norm"]["layer_logits"][1:], runs["QK-norm"]["bounds"]
pairs = [(a, b) for step in zip(logits, bounds) for a, b in zip(*step)]
within = all(a <= b for a, b in pairs)
print(f"QK-norm: each layer within sqrt(head_dim) max|gain_q| max|gain_k|: {within}")
#> QK-norm: each layer within sqrt(head_dim) max|gain_q| max|gain_k|: True
# With unit gains the bound is sqrt(head_dim) itself.
print(f"bound with unit gains: {16**0.5:.1f} at head_dim 16, {128**0.5:.1f} at 128")
#> bound with unit gains: 4.0 at head_dim 16, 11.3 at 128
# The gains grow in training, and the bound with them: the logits pass the unit-gain bound.
largest = max(runs["QK-norm"]["max_logit"])
print(f"QK-norm: largest logit above 4.0: {largest > 4.0}, below 100: {largest < 100}")
#> QK-norm: largest logit above 4.0: True, below 100: True

final = {name: sum(run["loss"][-20:]) / 20 for name, run in runs.items()}
gaps = [final["no QK-norm"] - final[name] for name in ("soft-cap 50", "QK-norm")]
higher = min(gaps) > 0.1
print(f"mean loss, last 20 steps: no QK-norm higher than each by > 0.1: {higher}")
#> mean loss, last 20 steps: no QK-norm higher than each by > 0.1: True

def draw(translate):
    fig = Figure(figsize=(8, 3.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    for (name, run), color in zip(runs.items(), ["tab:red", "tab:orange", "tab:blue"]):
        steps = range(1, len(run["loss"]) + 1)
        left.plot(steps, run["max_logit"], color=color, label=translate(name))
        right.plot(steps, run["entropy"], color=color, label=translate(name))
    left.set(title=translate("largest attention logit"), yscale="log")
    left.set_ylabel(translate("logit (log scale)"))
    right.set(title=translate("attention entropy"), ylim=(0, None))
    right.set_ylabel(translate("nats"))
    for ax in (left, right):
        ax.set(xlabel=translate("step"))
    # One legend under both panels (inside, it hid the climb of the uncapped logits; beside
    # them, the longer Korean labels narrowed the Korean panels).
    handles, labels = left.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=3)
    return fig

# The labels of the Korean page's figure, by their English text.
KOREAN = {
    "no QK-norm": "QK-norm 없음",
    "soft-cap 50": "소프트 캡핑(상한값 50)",
    "QK-norm": "QK-norm",
    "largest attention logit": "가장 큰 어텐션 로짓",
    "logit (log scale)": "로짓(로그 스케일)",
    "attention entropy": "어텐션 엔트로피",
    "nats": "nat",
    "step": "스텝",
}
save_svgs(draw, "activations_qk_norm", KOREAN)
