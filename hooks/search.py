"""A search index per language: the English site searches English pages, the Korean site
Korean pages; and two changes to Material's search worker: a fix to its lunr, and Korean
queries that find a word whatever particle follows it.

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


# lunr (inside Material's search worker) keeps every word in a trie, merges the trie's
# nodes that have the same name, and names a node by its edges run together, each a letter
# then the number of the node it leads to: with digits for letters, two different nodes
# can share a name (edges 1 to 23 and 4 to 5 give "012345", as do 1 to 2 and 3 to 45). The
# merged trie then holds words no page has, and a search whose words begin like them fails
# ("Invalid query"): on 2026-12-06 the Korean site found nothing for "1", "2" or "3",
# after a word elsewhere changed the numbering. A space after each number keeps the names
# apart.
_NODE_NAME = "e=e+s+o.id}return e}"  # lunr's TokenSet.toString, as Material minified it
_NODE_NAME_APART = 'e=e+s+o.id+" "}return e}'

# Korean writes a particle onto the word before it (오버플로를, 모델의, GPU에서), and the
# index keeps each such form as one word. Material matches a query's word as the beginning
# of a page's word, so the bare word finds every form, and a form with its particle finds
# only pages with that very form: on 2026-12-06 "오버플로" found 11 Korean pages,
# "오버플로를" one. A query's word therefore loses one trailing particle, where at least two
# characters are left, before Material matches it (dropping letters only widens a prefix
# match; "막는" and "결과" keep theirs, too short to be a particle after a word).
_PARTICLES = (
    "에서는|에서도|으로는|으로도|이라는|에서|에게|으로|까지|부터|보다|처럼|마다|이나|이란|"
    "라는|에는|와는|과는|로는|을|를|이|가|은|는|의|에|로|와|과|도|만"
)
_WITHOUT_PARTICLE = f"/^(.+?[가-힣A-Za-z0-9])(?:{_PARTICLES})$/"
# Material's query parser, as minified: each word `s`, cut at the separator, goes to `r`.
_QUERY_WORD = 'r.push([e.slice(0,o),s.slice(...u),e.slice(a)].join(""))'
_QUERY_STEM = (
    f'r.push([e.slice(0,o),s.slice(...u).replace({_WITHOUT_PARTICLE},"$1"),'
    'e.slice(a)].join(""))'
)
_WORKERS = "assets/javascripts/workers/search.*.min.js"


def change_the_worker(site: Path) -> None:
    """Material's search worker, with lunr's trie nodes named apart and particles dropped
    from Korean queries."""
    for worker in site.glob(_WORKERS):
        text = worker.read_text(encoding="utf-8")
        for old, new in [(_NODE_NAME, _NODE_NAME_APART), (_QUERY_WORD, _QUERY_STEM)]:
            if new in text:
                continue  # an earlier run of this hook
            if text.count(old) != 1:
                raise RuntimeError(
                    f"{worker.name} lacks the code hooks/search.py changes ({old});"
                    " see whether this Material still needs the change"
                )
            text = text.replace(old, new)
        worker.write_text(text, encoding="utf-8")


@event_priority(-100)  # after mkdocs-static-i18n has built every language
def on_post_build(config, **kwargs):
    site = Path(config.site_dir)
    change_the_worker(site)
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
