"""The plots helper of the Placement page (snippets/placement/plots.py), which every page's
figures use: without its Korean font it says what to install, and where the stale font list
is when the font was installed after matplotlib listed the fonts; a phone's version of a
figure stacks its panels. And the page's formula for a stack's Jacobian."""

import matplotlib
import pytest
import torch
from matplotlib.figure import Figure
from torch.autograd.functional import jacobian

from snippets.placement import plots


def test_a_missing_korean_font_says_what_to_do(monkeypatch):
    monkeypatch.setattr(plots, "KOREAN_FONT", "No Such Font")
    assert plots.fonts("en") == ["DejaVu Sans"]  # English figures need no other font
    with pytest.raises(RuntimeError) as raised:
        plots.fonts("ko")
    message = str(raised.value)
    assert "No Such Font (Debian: fonts-nanum)" in message
    assert matplotlib.get_cachedir() in message


def test_a_phone_gets_the_panels_one_above_another_and_the_legend_below():
    fig = Figure(figsize=(8.5, 3.4), layout="constrained")
    left, right = fig.subplots(1, 2, sharey=True)
    for ax in (left, right):
        ax.plot([1, 2], [1, 2], label="a line")
    left.set_ylabel("y")
    fig.legend(*left.get_legend_handles_labels(), loc="outside right upper")
    plots.stacked(fig)
    fig.draw_without_rendering()
    assert tuple(fig.get_size_inches()) == (
        plots.PHONE_WIDTH,
        2 * plots.PANEL_HEIGHT + 0.25,
    )
    top, bottom = left.get_position(), right.get_position()
    assert top.x0 == bottom.x0 and top.y0 > bottom.y1  # stacked, not side by side
    assert right.get_ylabel() == "y" and right.yaxis.get_tick_params()["labelleft"]
    (legend,) = fig.legends
    assert legend.get_window_extent().y1 <= bottom.y0 * fig.bbox.height  # below them
    assert [text.get_text() for text in legend.texts] == ["a line"]


def test_a_pre_norm_stacks_jacobian_is_the_product_of_its_blocks():
    """Through L pre-norm blocks h <- h + F(Norm(h)), dh_L/dh_0 = (I + A_L) ... (I + A_1),
    with A_l = J_F J_Norm at block l's input."""
    torch.manual_seed(0)
    n, eye = 8, torch.eye(8, dtype=torch.float64)
    blocks = []
    for _ in range(3):
        norm = torch.nn.RMSNorm(n, eps=1e-6, dtype=torch.float64)
        torch.nn.init.uniform_(norm.weight, 0.5, 2.0)
        f = torch.nn.Sequential(
            torch.nn.Linear(n, 4 * n), torch.nn.ReLU(), torch.nn.Linear(4 * n, n)
        ).double()
        blocks.append((norm, f))

    def stack(h):
        for norm, f in blocks:
            h = h + f(norm(h))
        return h

    h0 = torch.randn(n, dtype=torch.float64)
    product, h = eye, h0
    for norm, f in blocks:
        product = (eye + jacobian(f, norm(h)) @ jacobian(norm, h)) @ product
        h = h + f(norm(h))
    assert torch.allclose(jacobian(stack, h0), product, rtol=1e-10, atol=1e-12)
    assert not torch.allclose(product, eye, atol=0.1)  # the blocks do change the stream
