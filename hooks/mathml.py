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
# The linear form (search only): powers in superscript characters where they have them
# (x², 10⁻³, W′), accents combined (x̂, ā), relations spaced (y = x), and a space after an
# open script before the next factor (W_q h, not W_qh).
_RAISE = str.maketrans("0123456789+−-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿ")
_RAISED = set("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ′″")
_ACCENTS = {"ˆ": "\u0302", "¯": "\u0304", "~": "\u0303", "˜": "\u0303", "˙": "\u0307"}
_RELATIONS = set("=≈≠≤≥<>→↦∈")
_OPERATORS = _RELATIONS | set("+−-,.;:⋅×⊙/⇒←)]⟩")
_OPEN_SCRIPT = re.compile(r"[_^][\w\u0300-\u036f′⊤]+$")
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
    for a power, x_i for an index; a fraction beside a factor in parentheses, (1/n)∑."""
    parts = [linear_text(child) for child in element]
    tag = element.tag
    if tag in ("mi", "mn", "mtext"):
        return "".join(element.itertext())  # \texttt{...} comes as <mtext><code>
    if tag == "mo":
        text = element.text or ""  # function application (U+2061): see _tidy
        return f" {text} " if text in _RELATIONS else text
    if tag in ("mspace", "mphantom"):
        return " " if tag == "mspace" and element.get("width") else ""
    if tag == "msqrt":
        return "√" + _grouped("".join(parts), _several(element))
    if tag == "mroot":
        return _grouped(parts[1]) + "√" + _grouped(parts[0], _several(element[0]))
    if tag == "mfrac":
        over, under = (_grouped(p, _several(e)) for p, e in zip(parts, element))
        return f"{over}/{under}"
    if tag in ("msup", "msub", "msubsup", "munder", "mover", "munderover"):
        if element.get("accent") == "true":  # x̂: the accent over its letter
            return parts[0] + _ACCENTS.get(parts[1], parts[1])
        base, *scripts = [parts[0]] + [part.replace(" ", "") for part in parts[1:]]
        over = tag in ("msup", "mover") or len(scripts) == 2
        under = scripts[0] if tag in ("msub", "munder") or len(scripts) == 2 else ""
        text = base + (f"_{_grouped(under)}" if under else "")
        big = base in ("∑", "∏", "∫", "max", "min")  # x_i after ∑_i: one space between
        if over:
            power = scripts[-1]
            raised = power.translate(_RAISE)
            text += raised if set(raised) <= _RAISED else f"^{_grouped(power)}"
        return text + (" " if big else "")
    if tag == "mtr":
        return " ".join(parts)
    if tag == "mtable":
        return "; ".join(part.strip().rstrip(",") for part in parts)
    # A row (math, mrow, mstyle, mtd and the like): its parts side by side.
    shown = [(child, part) for child, part in zip(element, parts) if part]
    text = ""
    for i, (child, part) in enumerate(shown):
        before = text.rstrip()
        after = next((p.lstrip() for _, p in shown[i + 1 :] if p.strip()), "")
        beside = (before and before[-1] not in _OPERATORS) or (
            after and after[0] not in _OPERATORS
        )
        if child.tag == "mfrac" and beside:  # (1/n)∑, not 1/n∑: not 1/(n∑)
            part = f"({part})"
        if _OPEN_SCRIPT.search(text) and re.match(r"\w", part):
            text += " "
        text += part
    return _tidy(text) if tag == "math" else text


def _several(element) -> bool:
    """Whether a root's or a fraction's operand is more than one factor (2ηλ, nr³)."""
    factors = [child for child in element if child.tag != "mspace"]
    if element.tag not in ("mrow", "msqrt"):
        return False
    return len(factors) > 1 or (len(factors) == 1 and _several(factors[0]))


def _tidy(text: str) -> str:
    """Spaces where a reader expects them: sin(x) and tan θ, (x) not ( x ), one at most."""
    text = re.sub("\u2061(?=[(\\[])", "", text).replace("\u2061", " ")
    text = re.sub(r"([(\[⟨])\s+", r"\1", text)
    text = re.sub(r"\s+([)\]⟩,])", r"\1", text)
    text = re.sub(r"(^|[\s(+−=⋅⊙/,])([|‖])\s+", r"\1\2", text)
    return re.sub(" {2,}", " ", text).strip()


def _parsed(mathml: str):
    """MathML as an element tree: HTML's named characters (&ApplyFunction;) made plain."""
    named = re.sub(
        r"&(?!(?:lt|gt|amp|quot|apos|#\w+);)\w+;", lambda m: html.unescape(m[0]), mathml
    )
    return ElementTree.fromstring(named)


def _grouped(text: str, several: bool = False) -> str:
    """Parenthesized unless one name or number."""
    text = re.sub(" +", " ", text.strip())
    return text if not several and re.fullmatch(r"[\w.]+|.", text) else f"({text})"


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
