"""Render the site's LaTeX to MathML at build time, so a formula needs no JavaScript.

pymdownx.arithmatex (generic mode) leaves `$...$` as `<span class="arithmatex">\\(...\\)</span>`
and `$$...$$` as `<div class="arithmatex">\\[...\\]</div>`; this hook replaces each with MathML.
A formula math-core cannot parse fails the build, naming the page and the formula.

It also gives the heading anchors (`toc.permalink`) their title in the page's language: the toc
extension's option cannot be set per language in mkdocs-static-i18n's `languages:` entries.
"""

import html
import re

from math_core import LatexError, LatexToMathML
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

_converter = LatexToMathML(fancy_error=False)

_PERMALINK_TITLE = {"en": "Permanent link", "ko": "이 제목의 고정 링크"}
# A root over one letter or number (ε, n, 48): Chromium draws its bar stubbed or not at
# all, the radicand raised, unless the radicand is a digit tall. An empty space that tall
# gives it that height and adds no text (to a copy, or to the search index).
_ONE_TOKEN_ROOT = re.compile(r"<msqrt>(<(mi|mn)(?: [^>]*)?>[^<]*</\2>)</msqrt>")
_DIGIT_TALL = '<mspace height="0.68em"/>'
_INLINE = re.compile(r'<span class="arithmatex">\\\((.*?)\\\)</span>', re.DOTALL)
_BLOCK = re.compile(r'<div class="arithmatex">\\\[(.*?)\\\]</div>', re.DOTALL)


# After mkdocs-static-i18n (priority -100) has set the theme language of this language's build.
@event_priority(-110)
def on_config(config):
    config.mdx_configs["toc"]["permalink_title"] = _PERMALINK_TITLE[
        config.theme["language"]
    ]
    return config


def _to_mathml(latex: str, *, block: bool, page) -> str:
    # arithmatex escapes <, > and & in the LaTeX it wraps.
    source = html.unescape(latex).strip()
    try:
        mathml = _converter.convert_with_local_state(source, displaystyle=block)
    except LatexError as error:
        raise PluginError(
            f"{page.file.src_uri}: cannot render formula {source!r}: {error}"
        ) from None
    mathml = _ONE_TOKEN_ROOT.sub(rf"<msqrt>{_DIGIT_TALL}\1</msqrt>", mathml)
    # A browser does not break a line inside a formula, so each one sits in a box that
    # scrolls sideways when it is wider than the screen, instead of widening the page.
    if block:
        return f'<div class="math-block">{mathml}</div>'
    return f'<span class="math-inline">{mathml}</span>'


def on_page_content(content, page, **kwargs):
    content = _BLOCK.sub(lambda m: _to_mathml(m[1], block=True, page=page), content)
    return _INLINE.sub(lambda m: _to_mathml(m[1], block=False, page=page), content)
