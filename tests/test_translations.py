"""Translation integrity: every English page has a Korean twin, written in Korean, up to date."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from page_text import HANGUL
from site_layout import DOCS, ROOT, i18n_language, mkdocs_config, nav_titles, pages

from scripts import translations

LATIN = re.compile(r"[A-Za-z]")
# What is not prose: front matter, code fences, math, inline code (which may cross a line, not
# a paragraph), links' targets, HTML tags.
NOT_PROSE = re.compile(
    r"\A---\n.*?\n---\n|^```.*?^```|\$\$.*?\$\$|\$[^$\n]+\$|`(?:[^`\n]|\n(?![ \t]*\n))+`"
    r"|\]\([^)]*\)|<[^>\n]+>",
    re.DOTALL | re.MULTILINE,
)
# Korean technical prose keeps English names (RMSNorm, PyTorch, LLaMA) and gives the English
# term in parentheses at first use: each Korean page here is over half Hangul (the glossary,
# with its English column, the least), while an English page is under a twentieth.
MIN_HANGUL_SHARE = 0.4
# An entry of the References page: authors, title and venue stay in the paper's language.
REFERENCE_ENTRY = re.compile(r'^- <span id="[\w-]+"></span>.*$', re.MULTILINE)
# A gloss: English in parentheses right after a Korean term, "역전파(backward pass)". Parentheses
# holding Hangul are a remark; holding only capitals or symbols ("(SM)", "(ε)"), an abbreviation.
GLOSS = re.compile(
    r"(?<=[\uac00-\ud7a3])\(([^()\uac00-\ud7a3]*[a-z][^()\uac00-\ud7a3]*)\)"
)
# A heading's line: headings carry no glosses.
HEADING_LINE = re.compile(r"^#{1,6} .*$", re.MULTILINE)
# A glossary row: its anchors (in the English cell) and the Korean term, glossed where it may be.
GLOSSARY_ROW = re.compile(
    r"^\| ((?:<span id=\"[\w-]+\"></span>)*)[^|]+ \| ([^|]+) \|", re.MULTILINE
)
ANCHOR = re.compile(r'<span id="([\w-]+)"></span>')
GLOSSED_TERM = re.compile(r"([\w -]+?)\(([^()]+)\)")
# A term's first use may link to its glossary row instead of carrying the gloss: in the prose
# the link becomes the term followed by ⟦anchor⟧.
# A generated Korean part of a page, as the page shows it.
GENERATED_INCLUDE = re.compile(r'^ *--8<-- "([^"]+\.ko\.md)"$', re.MULTILINE)
ALT_TEXT = re.compile(r'<img\b[^>]*?\balt="([^"]*)"[^>]*>')
GLOSSARY_LINK = re.compile(r"\[([^\]]+)\]\((?:\.\./)?glossary\.md#([\w-]+)\)")
# A link to a whole page (no section), other than the glossary: its text is the page's title.
PAGE_TITLE_LINK = re.compile(r"\[[^\]]+\]\((?!(?:\.\./)?glossary\.md)[\w./]+\.md\)")
# Glosses are for the pages that explain a term; elsewhere a link to the glossary reads lighter.
MAX_GLOSSES_PER_PAGE = 8
# Term choices (CONTRIBUTING.md, "Korean pages"): what a Korean page writes instead of each.
AVOIDED = {
    "더미": "스택 (a stack of blocks)",
    "프리 노름": "pre-norm",
    "포스트 노름": "post-norm",
    "샌드위치 노름": "sandwich norm",
    "디바이스": "장치",
    "부분층": "서브층",
    "웜업": "워밍업",
    "매개변수": "파라미터",
    "분해능": "정밀도",
    "놀이터": "플레이그라운드",
    "증명": "검증 (checked by running code)",
    "세요": "합니다체, imperatives as -십시오",
    "합시다": "하겠습니다 (…라고 하겠습니다)",
    "봅시다": "합니다체 (…라고 하겠습니다, …를 봅니다)",
    "보여 주는 것은 다음과": "수치에서 (표에서) 알 수 있는 점은 다음과",
    "보여 주는 점은 다음과": "수치에서 (표에서) 알 수 있는 점은 다음과",
    "까요?": "합니다체: a question as a heading (-는가) or a statement (…는지 보겠습니다)",
    "임포트": "import",
    "머신": "기계",
    "검사 도구": "검사기",
    "포팅": "이식",
    "상계": "상한",
    "표준 정규 분포": "표준정규분포",
    "docstring": "독스트링",
}
# Style rules a machine can check in Korean prose (CONTRIBUTING.md, "Korean pages").
STYLE = {
    # A line break inside a paragraph renders as a space: "행 (" instead of "행(".
    "a line that starts with '(' after Hangul": re.compile(
        r"[\uac00-\ud7a3]\n[ \t]*\(", re.MULTILINE
    ),
    "a semicolon (split the sentence or make a list)": re.compile(r";"),
    # Any tilde, spaced or not, full-width (～), the operator (∼) or the wave dash (〜).
    "'~' for a range (write 'A에서 B' or 'A부터 B까지')": re.compile(
        r"[~\uff5e\u223c\u301c]"
    ),
    # An exercise may ask in 합니다체 (…입니까?); prose does not ask in 한다체 (…할까?, …하는가?).
    "a question in 한다체 (…할까?, …하는가?: state it, or ask in 합니다체)": re.compile(
        r"(?<!니)까\?|가\?"
    ),
    "a sentence that opens with 이것은, 이것이 or 이는 (name what it refers to)": re.compile(
        r"(?:^|[.)] )(?:이것은|이것이|이는) ", re.MULTILINE
    ),
}


def test_every_navigation_title_has_a_korean_title():
    """The i18n plugin shows an untranslated title in English on the Korean site, silently."""
    translated = i18n_language("ko").get("nav_translations", {})
    titles = nav_titles(mkdocs_config()["nav"])
    missing = [title for title in titles if title not in translated]
    assert missing == [], (
        f"mkdocs.yml: the navigation titles {missing} have no Korean title; add a line"
        " `English title: 한국어 제목` under nav_translations (the i18n plugin's ko language)"
    )
    not_korean = {k: v for k, v in translated.items() if not HANGUL.search(str(v))}
    assert not_korean == {}, f"mkdocs.yml nav_translations: not in Korean: {not_korean}"
    unused = sorted(set(translated) - set(titles))
    assert unused == [], (
        f"mkdocs.yml nav_translations: no such navigation title: {unused}"
    )


def test_both_languages_have_the_same_pages():
    assert pages("ko") == pages("en")


@pytest.mark.parametrize("page", pages("ko"), ids=str)
def test_korean_page_is_written_in_korean(page: Path):
    text = (DOCS / "ko" / page).read_text(encoding="utf-8")
    text = NOT_PROSE.sub(" ", REFERENCE_ENTRY.sub(" ", text))
    hangul, latin = len(HANGUL.findall(text)), len(LATIN.findall(text))
    share = hangul / max(hangul + latin, 1)
    assert share >= MIN_HANGUL_SHARE, (
        f"ko/{page}: only {share:.0%} of its letters are Hangul"
    )


def korean_text(
    page: Path,
    *,
    headings: bool = True,
    filler: str = " ",
    titles: bool = True,
    generated: bool = False,
    alts: bool = False,
) -> str:
    """A Korean page's prose with its line breaks, code and math replaced by `filler`; a
    link to the glossary kept as ⟦anchor⟧; with titles=False, the text of a link that
    names a whole page (`[FP8 양자화](fp8.md)`: a title, not a use of its words) left out;
    with generated=True, the generated Korean text it includes (the benchmark's tables and
    notes, which may link glossary terms) in its place; with alts=True, a figure's alt
    text in place of its tag (prose a reader's screen reader reads, but not running text)."""
    text = (DOCS / "ko" / page).read_text(encoding="utf-8")
    if alts:
        text = ALT_TEXT.sub(lambda image: f" {image[1]} ", text)
    if generated:
        text = GENERATED_INCLUDE.sub(
            lambda include: (ROOT / include[1]).read_text(encoding="utf-8"), text
        )
    if not titles:
        text = PAGE_TITLE_LINK.sub(" ", text)
    text = NOT_PROSE.sub(filler, GLOSSARY_LINK.sub(r"\1⟦\2⟧", text))
    return text if headings else HEADING_LINE.sub(" ", text)


def korean_prose(page: Path, **options) -> str:
    """A Korean page's prose on one line (a term may be broken across lines)."""
    return " ".join(korean_text(page, **options).split())


def glossary_rows(language: str = "ko") -> list[tuple[list[str], str]]:
    """(anchors, Korean cell) of each row of a glossary's table."""
    text = (DOCS / language / "glossary.md").read_text("utf-8")
    return [
        (ANCHOR.findall(spans), korean) for spans, korean in GLOSSARY_ROW.findall(text)
    ]


def glossary_glosses() -> dict[str, str]:
    """English gloss -> the Korean term it follows, from the glossary's Korean column."""
    return {
        english: korean.strip()
        for _, cell in glossary_rows()
        for korean, english in GLOSSED_TERM.findall(cell)
        if GLOSS.search(f"가({english})")
    }


def glossary_anchors() -> dict[str, list[str]]:
    """English gloss -> the anchors of its glossary row."""
    return {
        english: anchors
        for anchors, cell in glossary_rows()
        for _, english in GLOSSED_TERM.findall(cell)
    }


def test_both_glossaries_give_each_term_the_same_korean_word():
    """The English glossary's Korean column says which word the Korean pages use."""

    def terms(language):  # the rows of terms, not the tables' headers
        return [
            (anchors, cell.strip())
            for anchors, cell in glossary_rows(language)
            if anchors
        ]

    assert len(terms("ko")) > 50 and terms("en") == terms("ko")


def test_the_glossary_lists_glosses():
    glosses = glossary_glosses()
    assert glosses["backward pass"] == "역전파"
    assert glosses["root mean square, RMS"] == "제곱평균제곱근"
    assert "row" not in glosses  # 행 is not glossed
    assert glossary_anchors()["backward pass"] == ["forward-pass", "backward-pass"]


@pytest.mark.parametrize("page", pages("ko"), ids=str)
def test_glosses_are_glossary_terms_once_and_never_nested(page: Path):
    text = korean_prose(page)
    nested = [
        match[0]
        for match in GLOSS.finditer(text)
        if text.count("(", 0, match.start()) > text.count(")", 0, match.start())
    ]
    assert nested == [], f"ko/{page}: a gloss inside parentheses"
    if page == Path("glossary.md"):
        return
    glosses = glossary_glosses()
    found = [(text[: match.start()], match[1]) for match in GLOSS.finditer(text)]
    unknown = [english for _, english in found if english not in glosses]
    assert unknown == [], f"ko/{page}: glosses of terms the glossary does not gloss"
    misplaced = [
        english for before, english in found if not before.endswith(glosses[english])
    ]
    assert misplaced == [], f"ko/{page}: a gloss not right after its glossary term"
    english = [english for _, english in found]
    repeated = sorted({term for term in english if english.count(term) > 1})
    assert repeated == [], f"ko/{page}: glossed more than once"
    assert len(english) <= MAX_GLOSSES_PER_PAGE, (
        f"ko/{page}: {len(english)} glosses; gloss the terms this page explains and link"
        " the first use of the others to the glossary: [특성](glossary.md#feature)"
    )


@pytest.mark.parametrize("page", pages("ko"), ids=str)
def test_a_glossary_term_is_glossed_or_linked_once_per_page(page: Path):
    if page == Path("glossary.md"):
        return
    text = korean_prose(page, generated=True)
    rows = glossary_rows()
    glossed = {  # the rows that give an English gloss, by anchor
        anchor: english
        for anchors, cell in rows
        for anchor, (_, english) in zip(anchors, GLOSSED_TERM.findall(cell))
    }
    # Every row counts its links, one without a gloss (워밍업, 퓨즈드 커널) too.
    twice = [
        anchor
        for anchors, _ in rows
        for anchor in anchors
        if text.count(f"⟦{anchor}⟧")
        # A link whose text carries the gloss, [엡실론(ε)](glossary.md#epsilon), is one.
        + (
            text.count(f"({english})") - text.count(f"({english})⟦{anchor}⟧")
            if (english := glossed.get(anchor))
            else 0
        )
        > 1
    ]
    assert twice == [], f"ko/{page}: glossed or linked to the glossary more than once"


@pytest.mark.parametrize("page", pages("ko"), ids=str)
def test_headings_carry_no_glosses(page: Path):
    headings = HEADING_LINE.findall(korean_text(page))
    glossed = [heading for heading in headings if GLOSS.search(heading)]
    assert glossed == [], f"ko/{page}: gloss the term in the body text instead"


@pytest.mark.parametrize("page", pages("ko"), ids=str)
def test_a_glossed_term_is_glossed_where_the_page_first_uses_it(page: Path):
    if page == Path("glossary.md"):
        return
    # Headings carry no glosses, so the first use counted is the first in the running text.
    text = korean_prose(page, headings=False, titles=False, generated=True)
    unglossed = first_uses_unglossed(text, page)
    if unglossed:  # the whole message, which an assertion's diff would cut short
        pytest.fail(
            f"ko/{page}: glossary terms whose first use has neither its gloss nor a link"
            " to its glossary row:\n" + "\n".join(unglossed),
            pytrace=False,
        )


def first_uses_unglossed(text: str, page: Path) -> list[str]:
    """For each glossary term whose first use in `text` has neither its gloss nor a link to
    its glossary row: the term, where, and what to write."""
    glosses, anchors = glossary_glosses(), glossary_anchors()
    found = []
    for english, korean in glosses.items():
        # 특성 inside 이상치 특성 is a use of the longer term, not of 특성.
        masked = text
        for longer in (
            term for term in glosses.values() if korean in term and term != korean
        ):
            masked = masked.replace(longer, "□" * len(longer))
        used, first = korean, masked.find(korean)
        # RMS alone is a use of 제곱평균제곱근(root mean square, RMS) too (RMSNorm is not).
        abbreviation = first_abbreviation(masked, english)
        if abbreviation and (first < 0 or abbreviation.start() < first):
            used, first = abbreviation[0], abbreviation.start()
        after = first + len(used)
        linked = any(text.startswith(f"⟦{a}⟧", after) for a in anchors[english])
        if first >= 0 and not (linked or text.startswith(f"({english})", after)):
            up = "../" * (len(page.parents) - 1)  # notebooks/x.md links ../glossary.md
            found.append(
                f"{used!r}, first used in {text[max(first - 15, 0) : after + 15]!r}:"
                f" write {korean}({english}) where this page explains the term, or"
                f" [{used}]({up}glossary.md#{anchors[english][0]}); if the word here"
                " means something else, rephrase it"
            )
    return found


@pytest.mark.parametrize("page", pages("ko"), ids=str)
def test_a_glossary_link_sits_at_the_terms_first_use(page: Path):
    """A term linked to its glossary row is linked where the page first uses it: a reader
    who meets it unlinked first does not know the glossary explains it."""
    text = korean_prose(page, headings=False, titles=False, generated=True)
    terms = glossary_terms()
    # Each anchor's first link, by its own words: [엡실론(ε)], [RMS], [복사] as well as the
    # row's term; the term and the words without their gloss are both uses.
    source = GENERATED_INCLUDE.sub(
        lambda include: (ROOT / include[1]).read_text(encoding="utf-8"),
        (DOCS / "ko" / page).read_text(encoding="utf-8"),
    )
    linked = {}
    for found in GLOSSARY_LINK.finditer(source):
        linked.setdefault(found[2], " ".join(found[1].split()))
    late = []
    for anchor, words in linked.items():
        link = text.find(f"{words}⟦{anchor}⟧")
        if anchor not in terms or link < 0:
            continue
        for term in {terms[anchor], re.sub(r"\([^()]*\)$", "", words)}:
            masked = text  # 특성 inside 이상치 특성 is a use of the longer term
            for longer in {t for t in terms.values() if term in t and t != term}:
                masked = masked.replace(longer, "□" * len(longer))
            # A Latin word counts whole: RMS inside RMSNorm is not a use of RMS.
            edge = r"(?<![A-Za-z])" if term[:1].isascii() else ""
            first = re.search(edge + re.escape(term) + edge.replace("<", ""), masked)
            if first and first.start() < link:
                at = first.start()
                late.append(
                    f"{term!r} #{anchor}: first in {text[max(at - 20, 0) : at + 25]!r}"
                )
    assert not late, f"ko/{page}: link these at their first use instead:\n" + "\n".join(
        late
    )


def glossary_terms() -> dict[str, str]:
    """Anchor -> the Korean term of its glossary row, without its gloss (a row with two
    anchors names two terms: 순전파, 역전파)."""
    terms = {}
    for anchors, cell in glossary_rows():
        names = [name.strip() for name in re.sub(r"\([^()]*\)", "", cell).split(",")]
        for i, anchor in enumerate(anchors):
            terms[anchor] = names[min(i, len(names) - 1)]
    return {anchor: term for anchor, term in terms.items() if term}


def first_abbreviation(text: str, english: str) -> re.Match | None:
    """The first use of a gloss's abbreviation ("RMS" of "root mean square, RMS") as a word
    of its own, not inside a longer name such as RMSNorm."""
    if ", " not in english:
        return None
    abbreviation = english.rsplit(", ", 1)[1]
    return re.search(rf"(?<![A-Za-z]){re.escape(abbreviation)}(?![A-Za-z])", text)


def test_a_first_use_without_its_gloss_is_named_with_what_to_write():
    # 특성 used in another sense, "characteristic", before any gloss: the clash a
    # contributor met, named with the term and both ways to fix it.
    text = "이 방법의 특성은 단순합니다. 특성(feature)마다 게인이 있습니다."
    [message] = first_uses_unglossed(text, Path("notebooks/faq.md"))
    assert message.startswith("'특성', first used in '이 방법의 특성은 단순합니다")
    assert "write 특성(feature)" in message
    assert "[특성](../glossary.md#feature)" in message and "rephrase it" in message
    [message] = first_uses_unglossed("행의 RMS로 나눕니다.", Path("x.md"))
    assert "write 제곱평균제곱근(root mean square, RMS)" in message
    assert "[RMS](glossary.md#root-mean-square)" in message
    assert first_uses_unglossed("RMSNorm만 씁니다.", Path("x.md")) == []
    linked = "[특성](glossary.md#feature)"
    assert (
        first_uses_unglossed(GLOSSARY_LINK.sub(r"\1⟦\2⟧", linked), Path("x.md")) == []
    )


@pytest.mark.parametrize("page", pages("ko"), ids=str)
def test_korean_pages_keep_the_term_choices(page: Path):
    # The generated Korean benchmark text included on the page is held to it too.
    if page == Path("glossary.md"):  # its first column is English
        text = korean_prose(page, generated=True).replace("docstring", "")
    else:  # and the figures' alt text
        text = korean_prose(page, generated=True, alts=True)
    found = {term: instead for term, instead in AVOIDED.items() if term in text}
    assert found == {}, f"ko/{page}: write instead"


@pytest.mark.parametrize("page", pages("ko"), ids=str)
def test_korean_prose_follows_the_style_sheet(page: Path):
    # Math and code stay where they were; the generated benchmark text and the figures'
    # alt text are prose too.
    text = korean_text(page, filler="§", generated=True, alts=True)
    broken = {
        rule: [
            text[max(m.start() - 20, 0) : m.end() + 10] for m in pattern.finditer(text)
        ]
        for rule, pattern in STYLE.items()
    }
    assert {rule: found for rule, found in broken.items() if found} == {}, f"ko/{page}"


@pytest.mark.parametrize(
    "page", pages("en"), ids=str
)  # so `-k math` checks math.md too
def test_every_korean_page_translates_the_current_english_page(page: Path):
    stale = [line for line in translations.problems() if line.startswith(f"ko/{page}:")]
    if stale:  # the whole message, which an assertion's diff would cut short
        pytest.fail("\n".join(stale), pytrace=False)


def test_an_english_change_without_its_korean_twin_is_caught(tmp_path: Path):
    docs = tmp_path / "docs"
    shutil.copytree(DOCS / "en", docs / "en")
    shutil.copytree(DOCS / "ko", docs / "ko")
    # The real pages' state is another test's.
    for korean in (docs / "ko").rglob("*.md"):
        translations.mark(korean, docs)
    assert translations.problems(docs) == []

    changed = ["math.md", "notebooks/playground.md"]  # a page in a subfolder too
    for page in changed:
        english = docs / "en" / page
        english.write_text(english.read_text(encoding="utf-8") + "\nOne more.\n")
    assert [line.split(":")[0] for line in translations.problems(docs)] == [
        f"ko/{page}" for page in changed
    ]

    for page in changed:
        translations.mark(docs / "ko" / page, docs)
    assert translations.problems(docs) == []


def test_diff_shows_the_english_changes_since_the_recorded_version(tmp_path: Path):
    docs = tmp_path / "docs"
    (docs / "en").mkdir(parents=True)
    (docs / "ko").mkdir()
    english, korean = docs / "en" / "page.md", docs / "ko" / "page.md"
    english.write_text("# Title\n\nFirst sentence.\n", encoding="utf-8")
    korean.write_text("# 제목\n\n첫 문장입니다.\n", encoding="utf-8")
    translations.mark(korean, docs)
    assert "has not changed" in translations.changes(korean, docs)

    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "pages")
    english.write_text("# Title\n\nFirst sentence, longer.\nA new one.\n")
    diff = translations.changes(korean, docs).splitlines()
    assert diff[0].startswith("--- en/page.md as recorded (commit ")
    assert "-First sentence." in diff and "+A new one." in diff
    # The change committed, then the page renamed with its twin (scripts/new-page
    # --rename): the recorded version is found under the old name.
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "change")
    git("mv", "docs/en/page.md", "docs/en/renamed.md")
    git("mv", "docs/ko/page.md", "docs/ko/renamed.md")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "rename")
    korean = docs / "ko" / "renamed.md"
    diff = translations.changes(korean, docs).splitlines()
    assert diff[0].startswith("--- en/renamed.md as recorded (commit ")
    assert "-First sentence." in diff and "+A new one." in diff
    korean.write_text("---\nsource_sha256: 0000\n---\n# 제목\n", encoding="utf-8")
    assert "no commit holds the version" in translations.changes(korean, docs)


def a_page_pair(tmp_path: Path, korean_text: str) -> tuple[Path, Path]:
    """docs/ with en/page.md and its Korean twin holding `korean_text`: (docs, ko page)."""
    docs = tmp_path / "docs"
    (docs / "en").mkdir(parents=True)
    (docs / "ko").mkdir()
    (docs / "en" / "page.md").write_text("# Page\n")
    korean = docs / "ko" / "page.md"
    korean.write_text(korean_text)
    return docs, korean


def test_marking_adds_the_record_to_a_page_without_front_matter(tmp_path: Path):
    docs, korean = a_page_pair(tmp_path, "# 페이지\n")
    [problem] = translations.problems(docs)
    assert problem.startswith(f"ko/page.md: no {translations.KEY} in its front matter")
    assert "python -m scripts.translations mark ko/page.md" in problem  # how to add it

    translations.mark(korean, docs)
    assert korean.read_text().endswith("---\n\n# 페이지\n")
    assert translations.problems(docs) == []


def test_a_missing_twin_is_named_and_the_status_command_fails(tmp_path, monkeypatch):
    docs, korean = a_page_pair(tmp_path, "# 페이지\n")
    korean.unlink()
    assert translations.problems(docs) == ["ko/page.md: missing (translate en/page.md)"]
    monkeypatch.setattr(translations, "problems", lambda: ["ko/page.md: missing"])
    assert translations.main(["status"]) == 1
    monkeypatch.setattr(translations, "problems", list)
    assert translations.main(["status"]) == 0


def test_marking_replaces_a_record_that_is_not_a_hash(tmp_path: Path):
    record = f"---\n{translations.KEY}: TODO\n---\n\n# 페이지\n"
    docs, korean = a_page_pair(tmp_path, record)
    assert "changed since it was translated" in translations.problems(docs)[0]
    translations.mark(korean, docs)
    assert korean.read_text().count(translations.KEY) == 1
    assert translations.problems(docs) == []
