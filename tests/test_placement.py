"""The plots helper of the Placement page (snippets/placement/plots.py), which every page's
figures use: without its Korean font it says what to install, and where the stale font list
is when the font was installed after matplotlib listed the fonts."""

import matplotlib
import pytest

from snippets.placement import plots


def test_a_missing_korean_font_says_what_to_do(monkeypatch):
    monkeypatch.setattr(plots, "KOREAN_FONT", "No Such Font")
    assert plots.fonts("en") == ["DejaVu Sans"]  # English figures need no other font
    with pytest.raises(RuntimeError) as raised:
        plots.fonts("ko")
    message = str(raised.value)
    assert "No Such Font (Debian: fonts-nanum)" in message
    assert matplotlib.get_cachedir() in message
