"""A phone gets the phone version of a plot: each plot under assets/plots/ that has one
(name-phone.svg, its panels stacked: snippets/placement/plots.py) is wrapped in a <picture>
whose source replaces it at the width where extra.css shows figures at 0.8 of their size.
The <img> stays, with its alt text and its link to the desktop version."""

import re
from pathlib import Path

PHONE = "(max-width: 44.9375em)"  # extra.css's phone width
_PLOT = re.compile(
    r'<img\b[^>]*?\bsrc="(?P<folder>[^"]*assets/plots/)'
    r'(?P<name>[\w-]+?)(?P<ending>(?:\.ko)?\.svg)"[^>]*>'
)


def on_page_content(html, page, config, files):
    plots = Path(config["docs_dir"]) / "assets" / "plots"

    def phone_version(match):
        phone = f"{match['name']}-phone{match['ending']}"
        if not (plots / phone).is_file():
            return match[0]
        source = f'<source media="{PHONE}" srcset="{match["folder"]}{phone}">'
        return f"<picture>{source}{match[0]}</picture>"

    return _PLOT.sub(phone_version, html)
