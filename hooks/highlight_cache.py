"""Each code block is highlighted once per `mkdocs build` or `mkdocs serve`, not once per
language and rebuild: the two languages show the same snippets, and an edit changes one.

pymdownx.highlight calls Pygments' `highlight(src, lexer, formatter)` for every block; this
hook wraps that call with a cache keyed by the source and every option of the lexer and the
formatter (the block's title and line settings among them), so a hit returns exactly what
a first call returns.

It also unwraps whitespace: Pygments puts every run of it in a `<span class="w">`, which no
style sheet of the site colours (Material's neither); a page of code carries hundreds.
"""

import re

import pymdownx.highlight

_highlight = pymdownx.highlight.highlight
_done: dict[tuple, str] = {}
_WHITESPACE = re.compile(r'<span class="w">(\s*)</span>')


def _options(thing) -> tuple:
    return type(thing).__qualname__, repr(sorted(thing.options.items()))


def _cached(src, lexer, formatter):
    key = (src, _options(lexer), _options(formatter))
    if key not in _done:
        _done[key] = _WHITESPACE.sub(r"\1", _highlight(src, lexer, formatter))
    return _done[key]


def on_startup(command, dirty):
    pymdownx.highlight.highlight = _cached
