import torch
from matplotlib.figure import Figure
from matplotlib.patches import Circle

from snippets.placement.plots import save_svgs

# A norm of n = 2 features, gain 1, and the loss L = g . y for one upstream gradient g.
g = torch.tensor([1.0, 0.5], dtype=torch.float64)

def loss_and_gradient(x, eps):
    """L = g . RMSNorm(x) at each row of x, and dL/dx, by autograd."""
    x = x.detach().clone().requires_grad_()
    loss = torch.nn.functional.rms_norm(x, (2,), eps=eps) @ g
    loss.sum().backward()
    return loss.detach(), x.grad

# Rows on a square around 0, 6e-3 wide (an even count of points: none is exactly 0).
side = torch.linspace(-3e-3, 3e-3, 120, dtype=torch.float64)
grid = torch.stack(torch.meshgrid(side, side, indexing="xy"), dim=-1)
arrows = torch.stack(torch.meshgrid(side[5::10], side[5::10], indexing="xy"), dim=-1)

table = ["RMS of x   |cos(x, dL/dx)|, eps = 0   eps = 1e-6"]
direction = torch.tensor([[0.6, 0.8]], dtype=torch.float64) / 0.5**0.5  # RMS 1
for rms in [1e-2, 3e-3, 1e-3, 3e-4, 1e-4]:
    x = rms * direction
    cosines = [
        torch.cosine_similarity(x, loss_and_gradient(x, eps)[1]).abs().item()
        for eps in [0.0, 1e-6]
    ]
    table.append(f"{rms:8.0e}   {cosines[0]:24.4f}   {cosines[1]:10.4f}")
print("\n".join(table))
"""
RMS of x   |cos(x, dL/dx)|, eps = 0   eps = 1e-6
   1e-02                     0.0000       0.0198
   3e-03                     0.0000       0.1961
   1e-03                     0.0000       0.7071
   3e-04                     0.0000       0.8781
   1e-04                     0.0000       0.8926
"""
# Near 0 the norm is close to x / sqrt(eps), whose gradient is g / sqrt(eps).
print(f"|cos(x, g)| = {torch.cosine_similarity(direction, g[None]).abs().item():.4f}")
#> |cos(x, g)| = 0.8944
# Along g the gradient at eps = 0 is 0: what eps leaves along x is all there is.
along_g = g[None] / g.pow(2).mean().sqrt()  # RMS 1
for rms in [1.0, 1e-2]:
    gradient = loss_and_gradient(rms * along_g, 1e-6)[1]
    cosine = torch.cosine_similarity(along_g, gradient).abs().item()
    print(f"along g, eps = 1e-6, RMS {rms:g}: |cos(x, dL/dx)| = {cosine:.4f}")
    #> along g, eps = 1e-6, RMS 1: |cos(x, dL/dx)| = 1.0000
    #> along g, eps = 1e-6, RMS 0.01: |cos(x, dL/dx)| = 1.0000

def gradient_figure(translate):
    fig = Figure(figsize=(8, 3.9), layout="constrained")
    panels = fig.subplots(1, 2, sharey=True)
    for ax, eps, title in zip(panels, [0.0, 1e-6], ["ε = 0", "ε = 10⁻⁶"]):
        loss, _ = loss_and_gradient(grid, eps)
        # Lines of equal loss: rays from 0 where the norm ignores a row's size.
        ax.contour(*[side * 1e3] * 2, loss, 15, colors="silver", linestyles="solid")
        _, gradient = loss_and_gradient(arrows, eps)
        unit = gradient / gradient.norm(dim=-1, keepdim=True)  # directions only
        u, v = unit.unbind(-1)
        ax.quiver(arrows[..., 0] * 1e3, arrows[..., 1] * 1e3, u, v, color="tab:blue")
        ax.set(title=title, aspect="equal", xlabel=translate("x₁ (× 10⁻³)"))
    # Rows of RMS sqrt(eps) = 1e-3: the circle |x| = sqrt(2) 1e-3.
    ring = Circle((0, 0), 2**0.5, fill=False, color="tab:orange", linestyle="--")
    panels[1].add_patch(ring)
    on_white = {"facecolor": "white", "edgecolor": "none", "pad": 1}
    panels[1].text(0, 1.6, "RMS = √ε", ha="center", color="tab:orange", bbox=on_white)
    panels[0].set_ylabel(translate("x₂ (× 10⁻³)"))
    return fig

# The labels of the Korean page's figure, by their English text.
KOREAN = {
    "x₁ (× 10⁻³)": "x₁(× 10⁻³)",
    "x₂ (× 10⁻³)": "x₂(× 10⁻³)",
}
save_svgs(gradient_figure, "gradients_field", KOREAN)
