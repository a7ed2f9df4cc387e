"""The diagrams (scripts/diagrams.py): each drawn in both languages, the files what the script
writes, each shown with a description on its page in both languages, and each phone version
narrow enough to keep its text readable."""

import re

import pytest
from page_text import HANGUL, read
from site_layout import DOCS, PHONE_COLUMN_PX

from scripts import diagrams

# Which page shows which diagram.
PAGES = {
    "placement_norms": "placement.md",
    "kernel_data_flow": "kernel.md",
    "model_norms": "models.md",
    "rounding_conventions": "numerics.md",
    "beyond_blocks": "beyond.md",
}
IMAGE = re.compile(
    r'!\[(?P<md>[^\]]+)\]\((?P<src>[^)]+)\)|<img src="(?P<html>[^"]+)" alt="(?P<alt>[^"]+)"'
)


def test_every_diagram_has_a_page():
    assert set(PAGES) == set(diagrams.DIAGRAMS)


def test_the_files_are_what_the_script_draws(tmp_path):
    written = diagrams.write(tmp_path)
    # Every committed diagram, the phone versions too, is one the script still writes.
    assert {p.name for p in written} == {p.name for p in diagrams.FOLDER.glob("*.svg")}
    for fresh in written:
        committed = diagrams.FOLDER / fresh.name
        assert committed.read_bytes() == fresh.read_bytes(), (
            f"{fresh.name}: run scripts/diagrams.py"
        )


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("name", PAGES)
def test_each_page_shows_its_diagram_in_its_language(name, language):
    svg = diagrams.path(name, language)
    labels = " ".join(re.findall(r">([^<>]+)</text>", svg.read_text(encoding="utf-8")))
    assert bool(HANGUL.search(labels)) == (language == "ko"), f"{svg.name}: labels"
    shown = {
        (m["src"] or m["html"]).rsplit("/", 1)[-1]: m["md"] or m["alt"]
        for m in IMAGE.finditer(read(DOCS / language / PAGES[name]))
    }
    assert svg.name in shown, f"{language}/{PAGES[name]} does not show {svg.name}"
    alt = shown[svg.name]
    assert len(alt.split()) >= 20 and bool(HANGUL.search(alt)) == (language == "ko")


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("name", PAGES)
def test_a_phone_version_shows_its_smallest_text_at_11_px_or_more(name, language):
    svg = diagrams.path(name, language, phone=True).read_text(encoding="utf-8")
    width = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg)[1])
    smallest = min(float(size) for size in re.findall(r'font-size="([\d.]+)"', svg))
    shown = smallest * min(1.0, PHONE_COLUMN_PX / width)
    assert shown >= 11, f"{name} ({language}): {smallest:g}-unit text at {shown:.1f} px"
