import math

import torch
from matplotlib.figure import Figure

from snippets.placement.plots import save_svgs

# 200 rows of 3 features, of every size and offset, normalized with eps = 0 and no gain.
torch.manual_seed(0)
x = torch.randn(200, 3, dtype=torch.float64) * torch.rand(200, 1) * 3 + 0.5
rms_normed = torch.nn.functional.rms_norm(x, (3,), eps=0.0)
layer_normed = torch.nn.functional.layer_norm(x, (3,), eps=0.0)

radius = math.sqrt(3)
on_sphere = torch.allclose(rms_normed.norm(dim=-1), torch.tensor(radius).double())
print(f"RMSNorm: every output has length sqrt(3) = {radius:.4f}: {on_sphere}")
#> RMSNorm: every output has length sqrt(3) = 1.7321: True
on_circle = torch.allclose(layer_normed.norm(dim=-1), torch.tensor(radius).double())
centered = torch.allclose(layer_normed.sum(dim=-1), torch.zeros(200).double())
print(f"LayerNorm: length sqrt(3) and features summing to 0: {on_circle and centered}")
#> LayerNorm: length sqrt(3) and features summing to 0: True

def geometry_figure(translate):
    fig = Figure(figsize=(8, 3.8), layout="constrained")
    # The sphere of radius sqrt(3), drawn as a wire frame.
    around, down = torch.linspace(0, 2 * math.pi, 25), torch.linspace(0, math.pi, 13)
    u, v = torch.meshgrid(around, down, indexing="ij")
    sphere = [radius * u.cos() * v.sin(), radius * u.sin() * v.sin(), radius * v.cos()]
    panels = {"RMSNorm": rms_normed, "LayerNorm": layer_normed}
    for index, (name, normed) in enumerate(panels.items()):
        ax = fig.add_subplot(1, 2, index + 1, projection="3d")
        ax.plot_wireframe(*sphere, color="lightgray", linewidth=0.5)
        ax.scatter(*normed.T, color="tab:blue", s=6, depthshade=False)
        ax.set(title=translate(f"{name} (ε = 0, no gain)"), xlabel="x₁", ylabel="x₂")
        ax.set_zlabel("x₃")
        ax.set_box_aspect((1, 1, 1), zoom=0.85)  # room for the axis labels
        ax.view_init(elev=25, azim=-30)  # LayerNorm's circle seen at a slant
        ax.set(xticks=[-1, 0, 1], yticks=[-1, 0, 1], zticks=[-1, 0, 1])
    return fig

# The labels of the Korean page's figure, by their English text.
KOREAN = {
    "RMSNorm (ε = 0, no gain)": "RMSNorm(ε = 0, 게인 없음)",
    "LayerNorm (ε = 0, no gain)": "LayerNorm(ε = 0, 게인 없음)",
}
save_svgs(geometry_figure, "math_geometry", KOREAN)
