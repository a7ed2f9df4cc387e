"""A phone gets the phone version of a figure: each plot or diagram under assets/ that has
one (name-phone.svg, its panels stacked: snippets/placement/plots.py for the plots,
scripts/diagrams.py for the diagrams) is wrapped in a <picture class="phone-version"> whose
source replaces it at the width where extra.css shows other figures at 0.8 of their size; the
phone version, drawn to fit, is shown fitted to the column instead. The <img> stays, with its
alt text and its link to the desktop version."""

import re
from pathlib import Path

PHONE = "(max-width: 44.9375em)"  # extra.css's phone width
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
        return f'<picture class="phone-version">{source}{match[0]}</picture>'

    return _FIGURE.sub(phone_version, html)
