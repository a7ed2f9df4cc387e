import torch
from matplotlib.figure import Figure

from snippets.placement.plots import save_svgs

# One direction (RMS 1), scaled to every RMS from 1e-8 to 10, 20 steps a decade.
torch.manual_seed(0)
direction = torch.randn(4096, dtype=torch.float64)
direction = direction / direction.pow(2).mean().sqrt()
input_rms = torch.logspace(-8, 1, 181, dtype=torch.float64)
rows = input_rms[:, None] * direction
mean_square = rows.pow(2).mean(dim=-1, keepdim=True)

eps = 1e-6
outputs = {
    "ε inside the root": rows / torch.sqrt(mean_square + eps),
    "ε outside the root": rows / (mean_square.sqrt() + eps),
}
# With eps = 0 every output has RMS 1: the curves show what each eps takes away.
output_rms = {form: y.pow(2).mean(dim=-1).sqrt() for form, y in outputs.items()}

table = ["input RMS   output RMS, eps inside   eps outside"]
for rms in [1.0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6]:
    i = (input_rms.log10() - torch.tensor(rms).log10()).abs().argmin()
    inside, outside = (output_rms[form][i] for form in outputs)
    table.append(f"{rms:9.0e}   {inside:24.4f}   {outside:11.4f}")
print("\n".join(table))
"""
input RMS   output RMS, eps inside   eps outside
    1e+00                     1.0000        1.0000
    1e-01                     1.0000        1.0000
    1e-02                     0.9950        0.9999
    1e-03                     0.7071        0.9990
    1e-04                     0.0995        0.9901
    1e-05                     0.0100        0.9091
    1e-06                     0.0010        0.5000
"""

def eps_figure(translate):
    fig = Figure(figsize=(6.4, 3.2), layout="constrained")
    ax = fig.subplots()
    for form, color in zip(outputs, ["tab:blue", "tab:orange"]):
        ax.plot(input_rms, output_rms[form], color=color, label=translate(form))
    # Where each form's output falls: near sqrt(eps) inside, near eps outside.
    for x, name in [(eps**0.5, "√ε = 10⁻³"), (eps, "ε = 10⁻⁶")]:
        ax.axvline(x, color="gray", linestyle=":")
        ax.annotate(name, (x, 1.08), xytext=(3, 0), textcoords="offset points")
    ax.set(xscale="log", ylim=(0, 1.15))
    ax.set_xlabel(translate("RMS of the input (log scale)"))
    ax.set_ylabel(translate("RMS of the output"))
    ax.legend(loc="lower right")
    return fig

# The labels of the Korean page's figure, by their English text.
KOREAN = {
    "ε inside the root": "제곱근 안의 ε",
    "ε outside the root": "제곱근 밖의 ε",
    "RMS of the input (log scale)": "입력의 RMS(로그 스케일)",
    "RMS of the output": "출력의 RMS",
}
save_svgs(eps_figure, "math_eps", KOREAN)
