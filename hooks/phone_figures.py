"""A phone gets the phone version of a figure: each plot or diagram under assets/ that has
one (name-phone.svg, its panels stacked: snippets/placement/plots.py for the plots,
scripts/diagrams.py for the diagrams) is wrapped in a <picture class="phone-version"> whose
source replaces it at the width where extra.css shows other figures at 0.8 of their size; the
phone version, drawn to fit, is fitted to the column instead, between 0.8 of its drawn width
(`--drawn`, read from its file) and all of it. The <img> stays, with its alt text and its
link to the desktop version."""

import re
from pathlib import Path

PHONE = "(max-width: 44.9375em)"  # extra.css's phone width
_WIDTH = re.compile(r'<svg\b[^>]*?\bwidth="(?P<value>[\d.]+)(?P<unit>pt|px)?"')
_FIGURE = re.compile(
    r'<img\b[^>]*?\bsrc="(?P<folder>[^"]*assets/(?P<kind>plots|diagrams)/)'
    r'(?P<name>[\w-]+?)(?P<ending>(?:\.ko)?\.svg)"[^>]*>'
)


def on_page_content(html, page, config, files):
    assets = Path(config["docs_dir"]) / "assets"

    def phone_version(match):
        phone = f"{match['name']}-phone{match['ending']}"
        if not (assets / match["kind"] / phone).is_file():
            return match[0]
        source = f'<source media="{PHONE}" srcset="{match["folder"]}{phone}">'
        drawn = f"--drawn: {drawn_width(assets / match['kind'] / phone):g}px"
        return f'<picture class="phone-version" style="{drawn}">{source}{match[0]}</picture>'

    return _FIGURE.sub(phone_version, html)


def drawn_width(svg: Path) -> float:
    """An SVG's width in CSS pixels (matplotlib writes points, 4/3 of a pixel each)."""
    width = _WIDTH.search(svg.read_text(encoding="utf-8"))
    return float(width["value"]) * (4 / 3 if width["unit"] == "pt" else 1)
