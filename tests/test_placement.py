"""The plots helper of the Placement page (snippets/placement/plots.py), which every page's
figures use: without its Korean font it says what to install, and where the stale font list
is when the font was installed after matplotlib listed the fonts; a phone's version of a
figure stacks its panels."""

import matplotlib
import pytest
from matplotlib.figure import Figure

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
