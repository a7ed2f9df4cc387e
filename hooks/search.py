"""A search index per language: the English site searches English pages, the Korean site
Korean pages.

mkdocs-static-i18n stacks every language's entries into one index at the site's root
(search/search_index.json), and Material's search loads `search/search_index.json` relative to
the `base` of each page's configuration, the site's root on every page. After the last
language is built, this hook splits that index: the default language's entries stay at the
root, each other language's go to `<language>/search/search_index.json` (their locations
relative to that folder), and that language's pages get `<language>/` as their base. Material
uses the base for nothing else here but the locations of search results (`navigation.instant`
and versions, which also read it, are off; docs/assets/javascripts/language.js handles
the language selector itself).
"""

import json
import re
from pathlib import Path

from mkdocs.plugins import event_priority

INDEX = Path("search") / "search_index.json"
_BASE = re.compile(
    r'(<script id="__config" type="application/json">\{[^<]*?"base": ")([^"]*)'
)


@event_priority(-100)  # after mkdocs-static-i18n has built every language
def on_post_build(config, **kwargs):
    site = Path(config.site_dir)
    index = site / INDEX
    if not index.is_file():  # a nested per-language build: the outer one splits
        return
    whole = json.loads(index.read_text(encoding="utf-8"))
    i18n = config.plugins["i18n"]
    others = [lang.locale for lang in i18n.config.languages if not lang.default]
    stacked = tuple(f"{language}/" for language in others)
    if not any(doc["location"].startswith(stacked) for doc in whole["docs"]):
        return  # a language's own build, before mkdocs-static-i18n stacks the entries
    for language in others:
        prefix = f"{language}/"
        docs = [
            {**doc, "location": doc["location"].removeprefix(prefix)}
            for doc in whole["docs"]
            if doc["location"].startswith(prefix)
        ]
        target = site / language / INDEX
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_dumps({**whole, "docs": docs}), encoding="utf-8")
        for page in (site / language).rglob("*.html"):
            html = page.read_text(encoding="utf-8")
            base = _BASE.search(html)
            if base and not base[2].endswith(f"/{prefix}"):  # this hook may run twice
                page.write_text(_BASE.sub(rf"\g<1>\g<2>/{prefix}", html, 1), "utf-8")
    kept = [doc for doc in whole["docs"] if not doc["location"].startswith(stacked)]
    index.write_text(_dumps({**whole, "docs": kept}), encoding="utf-8")


def _dumps(index: dict) -> str:
    """As UTF-8 text: a Hangul syllable takes 3 bytes, not a 6-byte escape."""
    return json.dumps(index, ensure_ascii=False, separators=(",", ":"))
