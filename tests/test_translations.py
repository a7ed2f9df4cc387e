"""Translation integrity: every English page has a Korean twin, written in Korean, up to date."""

import re
import shutil
from pathlib import Path

import pytest

from conftest import DOCS, pages
from scripts import translations

HANGUL = re.compile(r"[\uac00-\ud7a3]")
LATIN = re.compile(r"[A-Za-z]")
# What is not prose: front matter, code fences, math, inline code, links' targets, HTML tags.
NOT_PROSE = re.compile(
    r"\A---\n.*?\n---\n|^```.*?^```|\$\$.*?\$\$|\$[^$\n]+\$|`[^`\n]+`|\]\([^)]*\)|<[^>\n]+>",
    re.DOTALL | re.MULTILINE,
)
# Korean technical prose keeps English names (RMSNorm, PyTorch, LLaMA) and gives the English
# term in parentheses at first use: each Korean page here is over half Hangul (the glossary,
# with its English column, the least), while an English page is under a twentieth.
MIN_HANGUL_SHARE = 0.4


def test_both_languages_have_the_same_pages():
    assert pages("ko") == pages("en")


@pytest.mark.parametrize("page", pages("ko"), ids=str)
def test_korean_page_is_written_in_korean(page: Path):
    text = NOT_PROSE.sub(" ", (DOCS / "ko" / page).read_text(encoding="utf-8"))
    hangul, latin = len(HANGUL.findall(text)), len(LATIN.findall(text))
    share = hangul / max(hangul + latin, 1)
    assert share >= MIN_HANGUL_SHARE, (
        f"ko/{page}: only {share:.0%} of its letters are Hangul"
    )


def test_every_korean_page_translates_the_current_english_page():
    assert translations.problems() == []


def test_an_english_change_without_its_korean_twin_is_caught(tmp_path: Path):
    docs = tmp_path / "docs"
    shutil.copytree(DOCS / "en", docs / "en")
    shutil.copytree(DOCS / "ko", docs / "ko")
    assert translations.problems(docs) == []

    english = docs / "en" / "math.md"
    english.write_text(english.read_text(encoding="utf-8") + "\nOne more sentence.\n")
    assert [line.split(":")[0] for line in translations.problems(docs)] == [
        "ko/math.md"
    ]

    translations.mark(docs / "ko" / "math.md", docs)
    assert translations.problems(docs) == []


def test_marking_adds_the_record_to_a_page_without_front_matter(tmp_path: Path):
    docs = tmp_path / "docs"
    (docs / "en").mkdir(parents=True)
    (docs / "ko").mkdir()
    (docs / "en" / "page.md").write_text("# Page\n")
    korean = docs / "ko" / "page.md"
    korean.write_text("# 페이지\n")
    assert translations.problems(docs) == [
        f"ko/page.md: no {translations.KEY} in its front matter"
    ]

    translations.mark(korean, docs)
    assert korean.read_text().endswith("---\n\n# 페이지\n")
    assert translations.problems(docs) == []
