import torch
from matplotlib.figure import Figure

from snippets.dynamics.attention_lm import train_attention
from snippets.placement.plots import save_svgs

# 2 pre-RMSNorm layers, width 64, 4 heads of 16; 150 steps of AdamW at lr 0.1, no warmup.
runs = {
    name: train_attention(name == "QK-norm", lr=0.1, steps=150)
    for name in ["no QK-norm", "QK-norm"]
}
# Training at this rate amplifies rounding differences between CPUs, so after the first
# step the snippet prints only which side of a threshold the values lie on.
for name, run in runs.items():
    logits, entropy = torch.tensor(run["max_logit"]), torch.tensor(run["entropy"])
    print(f"{name:<10}  at initialization: largest logit {logits[0]:.3g}", end=", ")
    print(f"entropy {entropy[0]:.3g}")
    late_logits, late_entropy = logits[75:], entropy[75:]
    print(f"{name:<10}  steps 76-150: largest logit > 1000 {bool(late_logits.min() > 1000)}", end=", ")
    print(f"entropy < 0.05 {bool(late_entropy.max() < 0.05)}", end=", ")
    print(f"> 0.5 {bool(late_entropy.min() > 0.5)}")
    if run["bound"]:
        within = all(a <= b for a, b in zip(run["max_logit"][1:], run["bound"]))
        print(f"{name:<10}  every logit within its bound: {within}")

final = {name: sum(run["loss"][-20:]) / 20 for name, run in runs.items()}
gap = final["no QK-norm"] - final["QK-norm"]
print(f"training loss, last 20 steps: no QK-norm higher by more than 0.2: {gap > 0.2}")

def draw(translate):
    fig = Figure(figsize=(8, 3.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    for (name, run), color in zip(runs.items(), ["tab:red", "tab:blue"]):
        steps = range(1, len(run["loss"]) + 1)
        left.plot(steps, run["max_logit"], color=color, label=translate(name))
        right.plot(steps, run["entropy"], color=color, label=translate(name))
    left.set(title=translate("largest attention logit"), yscale="log")
    right.set(title=translate("attention entropy (nats)"), ylim=(0, None))
    for ax in (left, right):
        ax.set(xlabel=translate("step"))
        ax.legend()
    return fig

save_svgs(draw, "dynamics_qk_norm")
