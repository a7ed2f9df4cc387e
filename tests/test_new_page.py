"""scripts/new-page: a page made by the scaffold passes the page-level checks as created.

The test clones the repository into a temporary folder, adds a page there and runs the
checks that read pages, translations, navigation and snippets (the build-dependent ones are
the whole suite's, which a trial of the scaffold in a fresh clone ran: CONTRIBUTING.md, "A new
page, end to end").
"""

import os
import re
import subprocess
from pathlib import Path

import pytest
from site_layout import ROOT, python_module

from scripts import new_page, translations


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A clone of the repository's committed files plus this working tree's changes."""
    folder = tmp_path_factory.mktemp("clone") / "repo"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(folder)], check=True)
    changed = subprocess.run(
        ["git", "ls-files", "--modified", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    for path in changed:
        if (ROOT / path).is_file():
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_bytes((ROOT / path).read_bytes())
    return folder


def test_a_new_page_and_a_renamed_one_pass_the_page_checks(clone: Path):
    new_page.create("trial_page", "Trial page", "시험 페이지", root=clone)
    # A page with a snippets folder, linked from others (Home, Implementations).
    new_page.rename("frameworks", "framework_apis", root=clone)
    result = python_module(
        "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
        "tests/test_pages.py", "tests/test_translations.py", "tests/test_snippets.py",
        # The two pages' own checks and the site-wide ones; every other page's and snippet's
        # are the main run's (their ids name a page, or they are test_snippets.py's).
        "-k", "not browser and (trial_page or framework_apis or not (md or test_snippets))",
        cwd=clone, env={**os.environ, "PYTHONPATH": str(clone)},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:]
    ran = result.stdout.strip().splitlines()[-1]
    assert "passed" in ran and "failed" not in ran
    assert "trial_page.md" in (clone / "mkdocs.yml").read_text(encoding="utf-8")
    # Nothing names the old page any more, and every translation record is current.
    files = [clone / "mkdocs.yml", *(clone / "docs").rglob("*.md")]
    files += [*(clone / "snippets").rglob("*.py"), *(clone / "tests").rglob("*.py")]
    stale = [
        p
        for p in files
        if re.search(r"[(/ \"]frameworks\.md|snippets.frameworks", p.read_text())
    ]
    assert (
        stale == [] and (clone / "snippets/framework_apis/flax_rms_norm.py").is_file()
    )
    assert translations.problems(clone / "docs") == []


def test_a_rename_rewrites_the_pages_names_and_not_a_notebooks_of_the_same_name():
    text = (
        "- Pre-norm: old.md\n[a](old.md#x) [b](../old.md) docs/en/old.md docs/ko/old.md\n"
        "[nb](notebooks/old.md) bold.md from snippets.old import f; snippets/old/f.py\n"
        'ROUTES = ["old.md", "old.md#x"]\n'
    )
    assert new_page.renamed(text, "old", "new") == (
        "- Pre-norm: new.md\n[a](new.md#x) [b](../new.md) docs/en/new.md docs/ko/new.md\n"
        "[nb](notebooks/old.md) bold.md from snippets.new import f; snippets/new/f.py\n"
        'ROUTES = ["new.md", "new.md#x"]\n'
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (("FAQ", "Questions", "질문"), "NAME must be lowercase"),
        (
            ("math", "Math again", "수학"),
            "docs/en/math.md, docs/ko/math.md already exist",
        ),
        (("faq", "Math", "수학"), "already has a page titled 'Math'"),
        (("faq", "FAQ: questions", "질문"), "title 'FAQ: questions': write it without"),
        (("faq", "FAQ", "# 질문"), "title '# 질문': write it without"),
    ],
)
def test_the_scaffold_refuses_what_would_break_the_site(tmp_path, args, message):
    for language in ("en", "ko"):
        (tmp_path / "docs" / language).mkdir(parents=True)
        (tmp_path / "docs" / language / "math.md").write_text("# Math\n")
    (tmp_path / "snippets").mkdir()
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(config, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        new_page.create(*args, root=tmp_path)
    assert (tmp_path / "mkdocs.yml").read_text(encoding="utf-8") == config


def test_after_puts_the_page_after_a_section_and_its_pages():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    text = new_page.add_to_navigation(
        config, "trial", "Trial page", "시험", "Notebooks"
    )
    lines = text.splitlines()
    at = lines.index("  - Trial page: trial.md")
    assert lines[at - 1].startswith("      - ") and lines[at + 1].startswith("  - ")
    assert "            Trial page: 시험" in lines


def test_after_a_page_in_a_section_puts_the_page_in_that_section():
    # A GPU's first results page goes after the last one: in the benchmark's section.
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    text = new_page.add_to_navigation(
        config, "benchmark_b200", "B200 results", "B200 결과", "H200 results"
    )
    lines = text.splitlines()
    at = lines.index("      - B200 results: benchmark_b200.md")
    assert lines[at - 1] == "      - H200 results: benchmark_h200.md"
    assert lines[at + 1].startswith("  - ")  # the section's last page


def test_a_narrow_run_checks_the_page_translation_and_links():
    """`scripts/test -k <page>` (CONTRIBUTING.md) selects the page's translation record,
    glosses and links, not only its blocks."""
    result = python_module(
        "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider",
        "tests/test_translations.py", "tests/test_links.py", "-k", "gradients",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:]
    for test in [
        "test_every_korean_page_translates_the_current_english_page[gradients.md]",
        "test_a_glossed_term_is_glossed_where_the_page_first_uses_it[gradients.md]",
        "test_no_broken_links_or_anchors[gradients.md]",
    ]:
        assert test in result.stdout, test
