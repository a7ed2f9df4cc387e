"""Notebook pages (docs/<language>/notebooks/): built from a Markdown page and the snippets,
run in a Jupyter kernel, rendered by mkdocs-jupyter in both languages.

- The Korean and English notebooks have the same code cells.
- Each notebook runs in a fresh kernel without an error (nbclient), in the build or earlier
  with the same code and environment (the cache key), and both languages publish that run.
- Each notebook page shows rendered cells and outputs, not the notebook's JSON; it loads no
  MathJax; it links its .ipynb for download; every figure has the alt text its page gives.
- A cell that raises fails `mkdocs build`.
"""

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from conftest import DOCS, LANGUAGES, ROOT, SITE_PATH, built_page, pages, url_path
from scripts import notebooks

NOTEBOOKS = [page for page in pages("en") if notebooks.is_notebook(page.as_posix())]


def code_cells(nb) -> list[str]:
    return [cell.source for cell in nb.cells if cell.cell_type == "code"]


def published(site: Path, language: str, page: Path):
    folder = site / url_path(language, page).removeprefix(SITE_PATH)
    return nbformat.read(folder / f"{page.stem}.ipynb", as_version=4)


def test_the_site_has_its_notebooks():
    assert {page.as_posix() for page in NOTEBOOKS} == {
        "notebooks/placement.md",
        "notebooks/playground.md",
    }


@pytest.mark.parametrize("page", NOTEBOOKS, ids=str)
def test_korean_notebook_has_the_same_code_cells(page: Path):
    english, korean = (notebooks.notebook(DOCS / lang / page) for lang in LANGUAGES)
    assert code_cells(english), "a notebook without code"
    assert code_cells(korean) == code_cells(english)
    assert len(korean.cells) == len(english.cells), "markdown cells differ in number"
    # The same code is the same cache entry: a build runs each notebook once, not per language.
    assert notebooks.cache_key(korean) == notebooks.cache_key(english)


@pytest.mark.parametrize("page", NOTEBOOKS, ids=str)
def test_the_site_shows_a_run_of_this_code(page: Path, built_site: Path):
    # The build ran the notebook in a fresh kernel, once for both languages, or found the
    # run of this exact code, snippets package and environment in the cache (on a clean
    # checkout, as in CI, it runs it); a cell that raised would have failed the build.
    key = notebooks.cache_key(notebooks.notebook(DOCS / "en" / page))
    run = nbformat.read(notebooks.cache_folder() / f"{key}.ipynb", as_version=4)
    outputs = [(cell.execution_count, cell.outputs) for cell in run.cells]
    assert any(shown for _, shown in outputs), "the notebook shows no output"
    for language in LANGUAGES:
        shown = [
            (cell.execution_count, cell.outputs)
            for cell in published(built_site, language, page).cells
            if cell.cell_type == "code"
        ]
        assert shown == outputs, (
            f"{language}: the site shows other outputs than the run"
        )


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("page", NOTEBOOKS, ids=str)
def test_notebook_page_is_rendered_html(built_site: Path, language: str, page: Path):
    soup = built_page(built_site, language, page)
    article = soup.select_one("article")
    nb = published(built_site, language, page)
    assert len(article.select(".jp-CodeCell div.highlight pre code")) == len(
        code_cells(nb)
    )
    outputs = [cell.outputs for cell in nb.cells if cell.cell_type == "code"]
    assert len(article.select(".jp-OutputArea-output")) == sum(map(len, outputs)) > 0
    text = article.get_text()
    assert '"cell_type"' not in text and '"nbformat"' not in text, "raw notebook JSON"
    assert "MathJax" not in str(soup) and not soup.select("script[src='']")
    assert not article.select("style, script"), "inline CSS or JavaScript left"

    download = article.select_one("a[download]")
    assert download["href"] == f"{page.stem}.ipynb"

    alts = [img.get("alt", "") for img in article.select(".jp-RenderedImage img")]
    fences = [cell.metadata.get("alt") for cell in nb.cells if "alt" in cell.metadata]
    assert alts and set(alts) <= set(fences), "a figure without its alt text"


def test_a_cell_that_raises_fails_the_build(tmp_path: Path):
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "broken.py").write_text(
        'raise ValueError("broken on purpose")\n'
    )
    (tmp_path / "docs" / "notebooks").mkdir(parents=True)
    (tmp_path / "docs" / "notebooks" / "broken.md").write_text(
        '# Broken\n\n```python\n--8<-- "snippets/broken.py"\n```\n'
    )
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: broken\n"
        f"hooks: [{ROOT / 'hooks' / 'notebooks.py'}]\n"
        "plugins: [mkdocs-jupyter: {include: ['*.ipynb'], allow_errors: false}]\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert "notebooks/broken.md: a cell raised" in result.stderr
    assert "ValueError: broken on purpose" in result.stderr
