"""Render the site's LaTeX to MathML at build time, so a formula needs no JavaScript.

pymdownx.arithmatex (generic mode) leaves `$...$` as `<span class="arithmatex">\\(...\\)</span>`
and `$$...$$` as `<div class="arithmatex">\\[...\\]</div>`; this hook replaces each with MathML.
A formula math-core cannot parse fails the build, naming the page and the formula.

Material's search index would hold a formula's MathML as the bare text of its tokens, where
$1/\\sqrt{48}$ reads "1/48". Such a formula is kept out of the index (`data-search-exclude`,
which the search plugin removes once it has read the page) and a linear form of it, "1/√48",
is indexed instead, then taken out of the page before it is written.

It also gives the heading anchors (`toc.permalink`) their title in the page's language: the toc
extension's option cannot be set per language in mkdocs-static-i18n's `languages:` entries.
"""

import html
import re
from xml.etree import ElementTree

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
_SEARCH_ONLY = re.compile(r'<span class="search-only">[^<]*</span>')
# The linear form: a power in superscript characters where it has them (x², 10⁻³).
_RAISED = "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿ"
_RAISE = str.maketrans("0123456789+−-=()n", _RAISED)
_RELATIONS = set("=≈≠≤≥<>→↦∈")  # spaced: y = x
_INLINE = re.compile(r'<span class="arithmatex">\\\((.*?)\\\)</span>', re.DOTALL)
_BLOCK = re.compile(r'<div class="arithmatex">\\\[(.*?)\\\]</div>', re.DOTALL)


# After mkdocs-static-i18n (priority -100) has set the theme language of this language's build.
@event_priority(-110)
def on_config(config):
    config.mdx_configs["toc"]["permalink_title"] = _PERMALINK_TITLE[
        config.theme["language"]
    ]
    return config


def linear_text(element) -> str:
    """A formula as one line of text: √(…) for a root, a/b for a fraction, x² or x^(…)
    for a power, x_i for an index."""
    parts = [linear_text(child) for child in element]
    tag = element.tag
    if tag in ("mi", "mn", "mtext"):
        return element.text or ""
    if tag == "mo":
        text = (element.text or "").replace("\u2061", "")  # function application
        return f" {text} " if text in _RELATIONS else text
    if tag in ("mspace", "mphantom"):
        return ""
    if tag == "msqrt":
        return "√" + _grouped("".join(parts))
    if tag == "mroot":
        return _grouped(parts[1]) + "√" + _grouped(parts[0])
    if tag == "mfrac":
        return f"{_grouped(parts[0])}/{_grouped(parts[1])}"
    if tag in ("msup", "msub", "msubsup", "munder", "mover", "munderover"):
        if element.get("accent") == "true":  # x̂: the accent over its letter
            return parts[0] + ("\u0302" if parts[1] == "ˆ" else parts[1])
        base, *scripts = [parts[0]] + [part.replace(" ", "") for part in parts[1:]]
        over = tag in ("msup", "mover") or len(scripts) == 2
        under = scripts[0] if tag in ("msub", "munder") or len(scripts) == 2 else ""
        text = base + (f"_{_grouped(under)}" if under else "")
        big = base in ("∑", "∏", "∫", "max", "min")  # x_i after ∑_i: one space between
        if over:
            power = scripts[-1]
            raised = power.translate(_RAISE)
            text += raised if set(raised) <= set(_RAISED) else f"^{_grouped(power)}"
        return text + (" " if big else "")
    if tag == "mtr":
        return " ".join(parts)
    if tag == "mtable":
        return "; ".join(parts)
    return "".join(parts)  # math, mrow, mstyle, mpadded, mtd and the like


def _parsed(mathml: str):
    """MathML as an element tree: HTML's named characters (&ApplyFunction;) made plain."""
    named = re.sub(
        r"&(?!(?:lt|gt|amp|quot|apos|#\w+);)\w+;", lambda m: html.unescape(m[0]), mathml
    )
    return ElementTree.fromstring(named)


def _grouped(text: str) -> str:
    """Parenthesized unless one name or number."""
    return text if re.fullmatch(r"[\w.]+|.", text.strip()) else f"({text.strip()})"


def _to_mathml(latex: str, *, block: bool, page) -> str:
    # arithmatex escapes <, > and & in the LaTeX it wraps.
    source = html.unescape(latex).strip()
    try:
        mathml = _converter.convert_with_local_state(source, displaystyle=block)
    except LatexError as error:
        raise PluginError(
            f"{page.file.src_uri}: cannot render formula {source!r}: {error}"
        ) from None
    tree = _parsed(mathml)
    linear, bare = linear_text(tree), "".join(tree.itertext()).replace("\u2061", "")
    mathml = _ONE_TOKEN_ROOT.sub(rf"<msqrt>{_DIGIT_TALL}\1</msqrt>", mathml)
    if linear.replace(" ", "") != bare.replace(" ", ""):
        mathml = mathml.replace("<math", '<math data-search-exclude="math"', 1)
        mathml += f'<span class="search-only">{html.escape(linear, quote=False)}</span>'
    # A browser does not break a line inside a formula, so each one sits in a box that
    # scrolls sideways when it is wider than the screen, instead of widening the page.
    if block:
        return f'<div class="math-block">{mathml}</div>'
    return f'<span class="math-inline">{mathml}</span>'


def on_post_page(output, page, config):
    """The linear forms were for the search index only."""
    return _SEARCH_ONLY.sub("", output)


def on_page_content(content, page, **kwargs):
    content = _BLOCK.sub(lambda m: _to_mathml(m[1], block=True, page=page), content)
    return _INLINE.sub(lambda m: _to_mathml(m[1], block=False, page=page), content)
