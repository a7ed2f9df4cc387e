"""Each code block is highlighted once per `mkdocs build` or `mkdocs serve`, not once per
language and rebuild: the two languages show the same snippets, and an edit changes one.

pymdownx.highlight calls Pygments' `highlight(src, lexer, formatter)` for every block; this
hook wraps that call with a cache keyed by the source and every option of the lexer and the
formatter (the block's title and line settings among them), so a hit returns exactly what
a first call returns.

It also unwraps the tokens a span does not change: whitespace (`<span class="w">`, which no
style sheet of the site colours) and names (`<span class="n">`, which Material colours
`--md-code-hl-name-color`, the code's own colour, in both schemes). A page of code carries
thousands of them (the heaviest page's names alone were 40 KB of its 298 KB).
"""

import re

import pymdownx.highlight

_highlight = pymdownx.highlight.highlight
_done: dict[tuple, str] = {}
_UNCOLOURED = re.compile(r'<span class="[wn]">([^<]*)</span>')


def _options(thing) -> tuple:
    return type(thing).__qualname__, repr(sorted(thing.options.items()))


def _cached(src, lexer, formatter):
    key = (src, _options(lexer), _options(formatter))
    if key not in _done:
        _done[key] = _UNCOLOURED.sub(r"\1", _highlight(src, lexer, formatter))
    return _done[key]


def on_startup(command, dirty):
    pymdownx.highlight.highlight = _cached
