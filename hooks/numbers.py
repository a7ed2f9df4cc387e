"""Numbers in scientific notation kept on one line: a browser may break a line after the
minus of 2.0e-07, and "2.0e-" above "07" reads as two numbers. Each such number in the
prose is wrapped in a span that does not break (extra.css); code and formulas are left
as they are, and the text copied is the same. So is short inline code with a hyphen and
no space (`--strict`, `-k`): split after a hyphen, it reads as another option."""

import re

# Where the number is not prose: code, formulas, and what is not text at all.
_SKIPPED = ("pre", "code", "math", "script", "style", "svg")
_TAG = re.compile(r"(<[^>]*>)")
_TAG_NAME = re.compile(r"<(/?)([a-zA-Z][\w-]*)")
# ASCII letters and digits around it only: a Korean particle may follow (1e-5를).
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])\d+(?:\.\d+)?e[-+]\d+(?![A-Za-z0-9_])")
# Inline code of one word with a hyphen; at most 32 characters, so that a phone's line
# (about 45 of them) still holds it.
_HYPHENATED_CODE = re.compile(r"<code>(?=[^<\s]{1,32}</code>)([^<\s]*-[^<\s]*</code>)")


def on_page_content(html, page, config, files):
    return nowrap_numbers(_HYPHENATED_CODE.sub(r'<code class="nowrap">\1', html))


def nowrap_numbers(html: str) -> str:
    parts, inside = _TAG.split(html), 0
    for i, part in enumerate(parts):
        if i % 2:  # a tag: count the skipped elements it opens or closes
            name = _TAG_NAME.match(part)
            if name and name[2].lower() in _SKIPPED and not part.endswith("/>"):
                inside = max(0, inside + (-1 if name[1] else 1))
        elif inside == 0:
            parts[i] = _NUMBER.sub(r'<span class="nowrap">\g<0></span>', part)
    return "".join(parts)
