"""What must not be split across lines, kept on one (a span or class that does not
break, extra.css; the text copied is the same):
- a number in scientific notation: after the minus of 2.0e-07, "2.0e-" above "07" reads as
  two numbers (in prose only: code and formulas are left as they are);
- a figure with its unit (77 ulp까지, 1,258 µs, 3,001 GB/s), a size with its value
  (N = 4096에서), and a closing parenthesis or percent sign with the Korean word written
  against it ()에서, 59.6%이지만), where Chromium would break (in prose and tables alike);
- short inline code with a hyphen and no space (`--strict`, `-k`), and each option in longer
  inline code (`--lang ko`): split after a hyphen, it reads as another option;
- a word with a plus sign after Hangul (순전파+역전파), where Chromium would break before it;
- a short formula or word of code with the particle or punctuation written against it
  (W의, `eps`를, √ε.), which would otherwise open the next line, and with an opening
  parenthesis before it, which would otherwise end a line;
- a hyphenated word in a heading (pre-norm, DeepSeek-V3's): a balanced heading
  (extra.css) would otherwise break it at its hyphen ("pre-" above "norm")."""

import re

# Where the number is not prose: code, formulas, and what is not text at all.
_SKIPPED = ("pre", "code", "math", "script", "style", "svg")
_TAG = re.compile(r"(<[^>]*>)")
_TAG_NAME = re.compile(r"<(/?)([a-zA-Z][\w-]*)")
# ASCII letters and digits around it only: a Korean particle may follow (1e-5를).
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])\d+(?:\.\d+)?e[-+]\d+(?![A-Za-z0-9_])")
# What follows a space but reads with the figure before it: a unit (2 ulps, 77 ulp까지,
# 1,258 µs, 0.1417 ms, 3,001 GB/s, 512 MiB), not "77" above "ulp"; a size and its value
# (N = 4096에서); a Korean word after ")" or "%", and a word with a plus sign after Hangul
# (순전파+역전파), where a line may otherwise break.
_KEPT_TEXT = re.compile(
    r"(?<![A-Za-z0-9_.,])\d[\d,]*(?:\.\d+)?(?:e[-+]\d+)? (?:ulps?|ms|µs|[GT]B/s|[KMG]iB)"
    r"(?![A-Za-z/])[^\s<]*"
    r"|(?<![A-Za-z0-9_])[MN] = \d[\d,]*(?:\.\d+)?[^\s<]*"
    r"|[)%][가-힣]+"
    r"|[^\s<>]*[가-힣]\+[^\s<>]+"
)
# One pass, so that a number with its unit (4.7e+03 ulps) is kept whole, not only its number.
_KEPT_OR_NUMBER = re.compile(f"{_KEPT_TEXT.pattern}|{_NUMBER.pattern}")
# Inline code of one word with a hyphen; at most 32 characters, so that a phone's line
# (about 45 of them) still holds it.
_HYPHENATED_CODE = re.compile(r"<code>(?=[^<\s]{1,32}</code>)([^<\s]*-[^<\s]*</code>)")
# A formula (hooks/mathml.py: its box, which a browser breaks around as around an image)
# or one word of code, with an opening parenthesis before it and what follows it up to a
# space or a tag: 의, 를, "." or ")의".
_FORMULA_OR_WORD = (
    r"(?:<span class=\"math-inline\"><math(?:(?!</math>).)*</math>"
    r"(?:<span class=\"search-only\">[^<]*</span>)?</span>"
    r"|<code(?: class=\"nowrap\")?>[^<\s]{1,32}</code>)"
)
_GLUED = re.compile(
    rf"\({_FORMULA_OR_WORD}[^\s<]*|{_FORMULA_OR_WORD}[^\s<]+", re.DOTALL
)
# Inline code with a space in it (a command), and each option in it (--lang, -k).
_COMMAND = re.compile(r"<code>([^<]*\s[^<]*)</code>")
_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
# Left as they are: code blocks, and tables, whose columns the pairs would widen.
_APART = re.compile(r"(<pre\b.*?</pre>|<table\b.*?</table>)", re.DOTALL)
# A formula longer than this, with its particle, might not fit a phone's line.
_LONGEST_GLUED_FORMULA = 16
# A heading's text (h1 to h3, which extra.css balances) and a hyphenated word in it, with
# what is written against it (pre-norm과, DeepSeek-V3's); not a number (1e-3: below).
_HEADING = re.compile(r"(<h[1-3]\b[^>]*>)(.*?)(</h[1-3]>)", re.DOTALL)
_HYPHENATED_WORD = re.compile(r"(?<![^\s(])(?![\d.]+e-)[^\s<>()]*\w-\w[^\s<>()]*")


def on_page_content(html, page, config, files):
    html = _HYPHENATED_CODE.sub(r'<code class="nowrap">\1', html)
    html = _HEADING.sub(_hyphenated_words_kept, html)
    return nowrap_numbers(keep_glued_text(html))


def _hyphenated_words_kept(match: re.Match) -> str:
    return match[1] + _kept_in_text(match[2], _HYPHENATED_WORD) + match[3]


def keep_glued_text(html: str) -> str:
    parts = _APART.split(html)
    for i in range(0, len(parts), 2):  # the parts between code blocks and tables
        parts[i] = _COMMAND.sub(
            _options_kept_whole, _GLUED.sub(_kept_together, parts[i])
        )
    return "".join(parts)


def _options_kept_whole(match: re.Match) -> str:
    options = _OPTION.sub(r'<span class="nowrap">\g<0></span>', match[1])
    return f"<code>{options}</code>"


def _kept_together(match: re.Match) -> str:
    formula = re.search(r"<math.*?</math>", match[0], re.DOTALL)
    if formula and len(_TAG.sub("", formula[0])) > _LONGEST_GLUED_FORMULA:
        return match[0]
    return f'<span class="nowrap">{match[0]}</span>'


def nowrap_numbers(html: str) -> str:
    return _kept_in_text(html, _KEPT_OR_NUMBER)


def _kept_in_text(html: str, kept: re.Pattern) -> str:
    """Each match of `kept` in the text (not code, formulas, ...) in a span that does not
    break."""
    parts, inside = _TAG.split(html), 0
    for i, part in enumerate(parts):
        if i % 2:  # a tag: count the skipped elements it opens or closes
            name = _TAG_NAME.match(part)
            if name and name[2].lower() in _SKIPPED and not part.endswith("/>"):
                inside = max(0, inside + (-1 if name[1] else 1))
        elif inside == 0:
            parts[i] = kept.sub(r'<span class="nowrap">\g<0></span>', part)
    return "".join(parts)
