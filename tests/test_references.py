"""Citations: every paper a page cites links to its entry on the References page, which gives
the paper's arXiv link and names the pages that cite it, in both languages.

- A citation on a page ("Xiong et al. (2020)", "(Ashkboos et al., 2024)", "Zhang and
  Sennrich (2019)", "(van Laarhoven, 2017)", "Zhang과 Sennrich(2019)") has its authors
  linked to references.md#<first author>-<year>[-<word>], the year the text gives (the first
  author's surname written without spaces: vanlaarhoven-2017). Korean pages write et al.,
  never 등.
- Every entry of the References page is cited, and lists exactly the pages that cite it, by
  their navigation titles; the two languages' References pages hold the same entries in the
  same order, each with one arXiv link (or, for a paper never posted there, its PMLR page),
  and the same authors, year, title and venue.
"""

import re
from pathlib import Path

import pytest
from page_text import prose, read
from site_layout import DOCS, LANGUAGES, all_pages, i18n_language, mkdocs_config, pages

REFERENCES = Path("references.md")
# Authors (a surname and "et al." or "등", two surnames joined by "and", "과" or "와", or
# one surname, with its particle (van, de; a team's Team), right before a comma or bracket
# and the year), the link to their entry if there is one, then the year.
CITATION = re.compile(
    r"(?P<authors>(?P<surname>(?:(?:van|von|de|Team)\s+)?[A-Z][A-Za-z-]+)"
    r"(?:\s+et\s+al\.|\s?등|(?:\s+and|과|와)\s+[A-Z][A-Za-z-]+"
    r"|(?=(?:\]\([^)\s]*\))?\s*[,(]\s*(?:19|20)\d\d)))"
    r"(?:\]\((?P<target>[^)\s]*)\))?(?:'s)?"
    r"[\s,(]*(?P<year>(?:19|20)\d\d)\b"
)
# A link to a reference whose authors end in 등 (Korean pages write et al.), year or not.
KOREAN_ET_AL = re.compile(r"\[[^\]]*[A-Za-z] 등\]\((?:\.\./)*references\.md#")
SURNAME_DEUNG = re.compile(r"\b([A-Z][A-Za-z-]+)\]?(?:\([^)]*\))? ?등")
TARGET = re.compile(
    r"(?:\.\./)*references\.md#(?P<key>[a-z]+-(?P<year>\d{4})[a-z0-9-]*)"
)
ENTRY = re.compile(
    r'^- <span id="(?P<key>[a-z0-9-]+)"></span>(?P<text>.+)$', re.MULTILINE
)
ARXIV = re.compile(
    r"\[arXiv:(?P<id>\d{4}\.\d{4,5})\]\(https://arxiv\.org/abs/(?P=id)\)"
)
PMLR = re.compile(
    r"\[PMLR (?P<volume>\d+)\]\(https://proceedings\.mlr\.press/v(?P=volume)/\w+\.html\)"
)
CITED_ON = re.compile(r"\[(?P<title>[^\]]+)\]\((?P<page>[\w/]+\.md)\)")
CITED_ON_WORDS = {"en": "Cited on: ", "ko": "인용한 페이지: "}
CITING_PAGES = [
    (language, page) for language, page in all_pages() if page != REFERENCES
]


def entries(language: str) -> dict[str, str]:
    """key -> the entry's text, in the page's order."""
    text = read(DOCS / language / REFERENCES)
    return {m["key"]: m["text"] for m in ENTRY.finditer(text)}


def citations(language: str, page: Path) -> list[re.Match]:
    return list(CITATION.finditer(prose(read(DOCS / language / page))))


def nav_titles(language: str) -> dict[str, str]:
    """page -> its title in the navigation, in this language."""
    titles = {}

    def walk(items):
        for item in items:
            ((title, target),) = item.items()
            if isinstance(target, list):
                walk(target)
            else:
                titles[target] = title

    walk(mkdocs_config()["nav"])
    if language == "en":
        return titles
    words = i18n_language(language)["nav_translations"]
    return {page: words[title] for page, title in titles.items()}


@pytest.mark.parametrize(
    "language, page", CITING_PAGES, ids=lambda p: p if isinstance(p, str) else str(p)
)
def test_every_citation_links_to_its_reference(language, page):
    keys = entries(language)
    deung = KOREAN_ET_AL.search(read(DOCS / language / page))
    assert not deung, f"{language}/{page}: {deung and deung[0]!r}: write et al., not 등"
    # Unlinked and undated too ("Sun 등의 해석"), for the References page's surnames only:
    # "Gemma 등의 모델" is Korean for "models such as Gemma".
    surnames = {key.split("-")[0] for key in keys}
    deung = [
        found[0]
        for found in SURNAME_DEUNG.finditer(prose(read(DOCS / language / page)))
        if found[1].lower().replace("-", "") in surnames
    ]
    assert not deung, f"{language}/{page}: {deung}: write et al., not 등"
    for citation in citations(language, page):
        where = f"{language}/{page}: {citation[0]!r}"
        assert citation["target"], f"{where}: link the authors to references.md#..."
        target = TARGET.fullmatch(citation["target"])
        assert target, f"{where}: not a link to an entry of the References page"
        assert target["key"] in keys, f"{where}: no entry {target['key']}"
        assert target["year"] == citation["year"], f"{where}: another year's entry"
        # van Laarhoven -> vanlaarhoven, DeepSeek-AI -> deepseekai, Team OLMo -> teamolmo:
        # keys are letters only.
        surname = citation["surname"].replace(" ", "").replace("-", "").lower()
        assert target["key"].startswith(surname + "-"), where


# Any link to an entry, with a year after it or not ("[Sun et al.](references.md#sun-2024)").
REFERENCE_LINK = re.compile(
    r"\[(?P<authors>[^\]]+)\]\((?:\.\./)*references\.md#(?P<key>[a-z]+)-\d{4}[a-z0-9-]*\)"
)


@pytest.mark.parametrize(
    "language, page", CITING_PAGES, ids=lambda p: p if isinstance(p, str) else str(p)
)
def test_every_link_to_a_reference_names_its_first_author(language, page):
    for link in REFERENCE_LINK.finditer(read(DOCS / language / page)):
        # van Laarhoven -> vanlaarhoven, DeepSeek-AI -> deepseekai, as the keys write them.
        words = re.sub(r"[^a-z ]", "", link["authors"].lower().replace("-", "")).split()
        assert link["key"] in words or "".join(words).startswith(link["key"]), (
            f"{language}/{page}: {link[0]!r} links another author's entry"
        )


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_reference_is_cited_and_names_the_pages_citing_it(language):
    cited = {}
    for citing_language, page in CITING_PAGES:
        if citing_language == language:
            for citation in citations(language, page):
                key = TARGET.fullmatch(citation["target"] or "")
                if key:
                    cited.setdefault(key["key"], set()).add(page.as_posix())
    titles = nav_titles(language)
    for key, text in entries(language).items():
        assert key in cited, f"{language}: {key} is cited on no page"
        listed = text.partition(CITED_ON_WORDS[language])[2]
        assert listed, f"{language}: {key} does not say where it is cited"
        shown = {m["page"]: m["title"] for m in CITED_ON.finditer(listed)}
        assert set(shown) == cited[key], f"{language}: {key} names other pages"
        for page, title in shown.items():
            assert title == titles[page], f"{language}: {key} calls {page} {title!r}"
        links = ARXIV.findall(text) + PMLR.findall(text)
        assert len(links) == 1, f"{language}: {key} needs one arXiv (or PMLR) link"


def test_both_languages_list_the_same_papers_in_the_same_order():
    english, korean = (entries(language) for language in LANGUAGES)
    assert list(english) == list(korean)
    for key in english:
        for link in (ARXIV, PMLR):
            assert link.findall(english[key]) == link.findall(korean[key]), key
    assert list(english) == sorted(english), "entries in order of first author and year"
    # Authors, year, title, venue and links as the English gives them, word for word (the
    # Korean names the arXiv version's title in its own words).
    arxiv_title = {"en": "(arXiv title: ", "ko": "(arXiv 판의 제목: "}
    data = {
        language: {
            key: text.partition(CITED_ON_WORDS[language])[0].replace(
                arxiv_title[language], "("
            )
            for key, text in entries(language).items()
        }
        for language in LANGUAGES
    }
    for key in english:
        assert data["en"][key] == data["ko"][key], f"{key}: the two languages differ"
    assert len(english) == len(set(english)) > 10
    assert REFERENCES in pages("en")


def test_an_unlinked_or_mislinked_citation_is_caught():
    text = (
        "As Xiong et al. (2020) show, and [Kim et al.](references.md#kim-2024) (2025) and"
        " SliceGPT ([Ashkboos et al.](references.md#ashkboos-2024-slicegpt), 2024)."
    )
    found = [(m["authors"], m["target"], m["year"]) for m in CITATION.finditer(text)]
    assert found == [
        ("Xiong et al.", None, "2020"),
        ("Kim et al.", "references.md#kim-2024", "2025"),
        ("Ashkboos et al.", "references.md#ashkboos-2024-slicegpt", "2024"),
    ]
    # Unlinked, 등 is found as a citation (then refused for its missing link); linked, it
    # is refused with or without a year.
    korean = "Xiong 등(2020)과 Zhang과 Sennrich(2019), van Laarhoven(2017)"
    assert [m["authors"] for m in CITATION.finditer(korean)] == [
        "Xiong 등",
        "Zhang과 Sennrich",
        "van Laarhoven",
    ]
    for linked in [
        "[Sun 등](references.md#sun-2024)(2024)",
        "[Sun 등](../references.md#sun-2024)이",
    ]:
        assert KOREAN_ET_AL.search(linked)
    assert not KOREAN_ET_AL.search("[Sun et al.](references.md#sun-2024) 등의 연구")
    # One author: the surname before a comma or bracket and the year, linked or not.
    single = (
        "(van Laarhoven, 2017) and [Ba](references.md#ba-2016) (2016), not LLaMA 2;"
        " ([Team OLMo](references.md#teamolmo-2024-olmo2), 2024), (Gemma Team, 2025)"
    )
    found = [(m["surname"], m["target"]) for m in CITATION.finditer(single)]
    assert found == [
        ("van Laarhoven", None),
        ("Ba", "references.md#ba-2016"),
        ("Team OLMo", "references.md#teamolmo-2024-olmo2"),
        ("Team", None),
    ]
