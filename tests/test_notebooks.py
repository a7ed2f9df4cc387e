"""Notebook pages (docs/<language>/notebooks/): built from a Markdown page and the snippets,
run in a Jupyter kernel, rendered by mkdocs-jupyter in both languages.

- The Korean and English notebooks have the same code cells, but for the knob that puts the
  figures' labels in Korean.
- Each notebook runs in a fresh kernel without an error (nbclient), in the build or earlier
  with the same code and environment (the cache key), and both languages publish that run:
  the same printed output, each language's own figures. The Korean figures are what a fresh
  run of the Korean notebook draws, and no cell writes a warning (a missing glyph, say); a
  run that wrote one is not cached, so it does not outlast its cause.
- Each notebook page shows rendered cells and outputs, not the notebook's JSON; it loads no
  MathJax; it links its .ipynb for download; every figure has the alt text its page gives.
  The downloaded notebook links to the published site's pages, not to their .md files, and
  its first cell names the packages it needs, as the page does under its link.
- A cell that raises fails `mkdocs build`.
- What each page says of the run it shows holds in that run's printed output (the losses of
  the Placement notebook, the Playground's table), and the Playground's Try this items: each
  knob change gives what its item says.
"""

import json
import re
import runpy
from pathlib import Path

import nbformat
import pytest
import torch
from page_text import built_page
from site_layout import (
    DOCS,
    LANGUAGES,
    ROOT,
    SITE_PATH,
    SITE_URL,
    pages,
    python_module,
    url_path,
)

from scripts import notebooks, standalone

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
    english = notebooks.notebook(DOCS / "en" / page)
    korean = notebooks.notebook(DOCS / "ko" / page, language="ko")
    assert code_cells(english), "a notebook without code"
    knob = 'LANGUAGE = "en"'
    assert sum(knob in source for source in code_cells(english)) == 1
    assert code_cells(korean) == [
        source.replace(knob, 'LANGUAGE = "ko"') for source in code_cells(english)
    ]
    assert len(korean.cells) == len(english.cells), "markdown cells differ in number"
    # The same code is the same cache entry: a build runs each notebook once for both
    # languages, the figures' cells twice.
    page_ko = notebooks.notebook(DOCS / "ko" / page)
    assert notebooks.cache_key(page_ko) == notebooks.cache_key(english)


def test_an_upgrade_of_python_or_a_computing_package_runs_the_notebooks_again(
    monkeypatch,
):
    nb = notebooks.notebook(DOCS / "en" / "notebooks" / "playground.md")
    before = notebooks.cache_key(nb)
    real = notebooks.importlib.metadata.version
    monkeypatch.setattr(
        notebooks.importlib.metadata, "version", lambda name: real(name) + ".post1"
    )
    assert notebooks.cache_key(nb) != before, "cached outputs of another torch served"
    monkeypatch.undo()
    monkeypatch.setattr(notebooks.sys, "version", "3.99.0")
    assert notebooks.cache_key(nb) != before, "cached outputs of another Python served"


def outputs_of(nb) -> list[tuple]:
    return [
        (cell.execution_count, cell.outputs)
        for cell in nb.cells
        if cell.cell_type == "code"
    ]


def figures(outputs) -> list[str]:
    return [
        output.data["image/png"]
        for _, shown in outputs
        for output in shown
        if "image/png" in output.get("data", {})
    ]


def printed(outputs) -> list[list]:
    return [[o for o in shown if o.output_type == "stream"] for _, shown in outputs]


@pytest.mark.parametrize("page", NOTEBOOKS, ids=str)
def test_the_site_shows_a_run_of_this_code(page: Path, built_site: Path):
    # The build ran the notebook in a fresh kernel, once for both languages, or found the
    # run of this exact code (helpers written out) and environment in the cache (on a clean
    # checkout, as in CI, it runs it); a cell that raised would have failed the build.
    nb = notebooks.notebook(DOCS / "en" / page)
    cached = notebooks.cache_folder() / f"{notebooks.cache_key(nb)}.ipynb"
    assert cached.is_file(), (
        "the build kept no run of this code (a warning is not kept)"
    )
    runs = notebooks.execute(nb, cache=notebooks.cache_folder())  # read from the cache
    for language in LANGUAGES:
        shown = outputs_of(published(built_site, language, page))
        assert shown == runs[language], (
            f"{language}: the site shows other outputs than the run"
        )
        assert any(output for _, output in shown), "the notebook shows no output"
        streams = [o for _, out in shown for o in out if o.output_type == "stream"]
        assert [o.text for o in streams if o.name != "stdout"] == [], "a warning"

    english, korean = runs["en"], runs["ko"]
    # The same printed output; each language its own figures (their labels differ).
    assert printed(korean) == printed(english)
    assert figures(english) and len(figures(korean)) == len(figures(english))
    assert not set(figures(english)) & set(figures(korean)), "a figure not in Korean"


def test_the_korean_figures_are_a_fresh_run_of_the_korean_notebook(built_site: Path):
    # The build draws the Korean figures in the kernel that ran the English notebook (the
    # training is not repeated); a fresh kernel running the Korean notebook from the top
    # must give exactly what the site publishes. The Playground takes seconds.
    page = Path("notebooks/playground.md")
    korean = notebooks.notebook(DOCS / "ko" / page, language="ko")
    fresh = notebooks.run_cells(code_cells(korean))
    assert outputs_of(fresh) == outputs_of(published(built_site, "ko", page))


MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("page", NOTEBOOKS, ids=str)
def test_the_downloaded_notebook_links_to_the_published_pages(
    built_site: Path, language: str, page: Path
):
    """Opened in Jupyter, a notebook has no site beside it: a link to another page is that
    page's published URL (a page of the build, with the anchor), not its .md file."""
    nb = published(built_site, language, page)
    markdown = "".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    links = [link for link in MARKDOWN_LINK.findall(markdown) if "#" != link[0]]
    assert links, "no link to another page to check"
    for link in links:
        url, _, anchor = link.partition("#")
        assert url.startswith(SITE_URL), f"{link} is not the published page"
        built = built_site / url.removeprefix(SITE_URL) / "index.html"
        assert built.exists(), f"{link}: no such page"
        assert not anchor or f'id="{anchor}"' in built.read_text(), f"{link}: no anchor"


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
    # What the cells print stays out of the search index (its results show prose).
    folder = "" if language == "en" else f"{language}/"
    index = json.loads((built_site / folder / "search/search_index.json").read_text())
    indexed = " ".join(entry["text"] for entry in index["docs"])
    printed = [
        line.strip()
        for cell in nb.cells
        for output in cell.get("outputs", [])
        if output.get("name") == "stdout"
        for line in output["text"].splitlines()
        if len(line.strip()) > 30  # a line of its own, not a word the prose may use
    ]
    assert printed and not [line for line in printed if line in indexed]

    download = article.select_one("a[download]")
    assert download["href"] == f"{page.stem}.ipynb"
    needs = download.parent.get_text()
    # The downloaded copy, opened elsewhere, names them in its first cell.
    first = nb.cells[0].source
    for name, version in standalone.requirements("\n".join(code_cells(nb))):
        assert f"{name} {version}" in needs, f"{name} is not named under the link"
        assert f"{name} {version}" in first, f"{name} is not named in the first cell"
    site_import = re.compile(r"^\s*(?:from|import) snippets\b", re.MULTILINE)
    assert not any(map(site_import.search, code_cells(nb))), "imports the site package"

    # Each figure, in order, with the alt text of the cell that drew it.
    alts = [img.get("alt", "") for img in article.select(".jp-RenderedImage img")]
    expected = [
        cell.metadata.get("alt")
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if any(kind.startswith("image/") for kind in output.get("data", {}))
    ]
    assert alts and alts == expected, "a figure without its own cell's alt text"


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
    result = python_module("mkdocs", "build", "--strict", cwd=tmp_path)
    assert result.returncode != 0
    assert "notebooks/broken.md: a cell raised" in result.stderr
    assert "ValueError: broken on purpose" in result.stderr


def test_a_run_with_a_warning_is_not_cached(tmp_path: Path, monkeypatch):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])

    def run_writing(stream):
        def run(sources):
            cells = [nbformat.v4.new_code_cell(source) for source in sources]
            cells[0].outputs = [nbformat.v4.new_output("stream", name=stream, text="1")]
            return nbformat.v4.new_notebook(cells=cells)

        return run

    monkeypatch.setattr(notebooks, "run_cells", run_writing("stderr"))
    notebooks.execute(nb, cache=tmp_path)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(notebooks, "run_cells", run_writing("stdout"))
    notebooks.execute(nb, cache=tmp_path)
    assert [path.suffix for path in tmp_path.iterdir()] == [".ipynb"]


def shown_output(page: str) -> str:
    """What the run the site shows printed (the English notebook's; the Korean one prints
    the same), from the build's cache."""
    nb = notebooks.notebook(DOCS / "en" / page)
    runs = notebooks.execute(nb, cache=notebooks.cache_folder())
    return "".join(output.text for shown in printed(runs["en"]) for output in shown)


def test_the_placement_notebooks_losses_say_what_its_page_says(built_site: Path):
    """Loss curves: at the small rate the three placements end alike, pre-LN and
    pre-RMSNorm within 0.001 (both print 1.821 in the run shown), at the large one those two
    differ; post-LN ends at the unigram model's loss while both pre-norm models learn;
    Training: in this run every model is still above the bigram model."""
    text = shown_output("notebooks/placement.md")
    found = re.search(r"unigram model: ([\d.]+), bigram model: ([\d.]+)", text)
    unigram, bigram = map(float, found.groups())
    loss = {
        (float(rate), name): float(value)
        for rate, name, value in re.findall(
            r"lr ([\d.]+) +(\S+) +held-out loss ([\d.]+)", text
        )
    }
    assert len(loss) == 6, text
    small = [loss[0.001, name] for name in ("post-LN", "pre-LN", "pre-RMSNorm")]
    assert max(small) - min(small) < 0.01, "the three train alike at the small rate"
    assert round(abs(loss[0.001, "pre-LN"] - loss[0.001, "pre-RMSNorm"]), 3) <= 0.001
    assert abs(loss[0.02, "pre-LN"] - loss[0.02, "pre-RMSNorm"]) >= 0.01
    assert abs(loss[0.02, "post-LN"] - unigram) < 0.1, "post-LN at the unigram loss"
    assert (
        unigram - loss[0.02, "pre-LN"] > 1 and unigram - loss[0.02, "pre-RMSNorm"] > 1
    )
    assert min(loss.values()) > bigram, "a model below the bigram model"


def playground_table(text: str) -> dict:
    """The Playground's table: (input, output of) -> {statistic: value}."""
    names = ["mean", "std", "RMS", "min", "max", "skew"]
    label = r"\(input\)|RMSNorm, no upcast|RMSNorm|LayerNorm"
    return {
        (found[1], found[2]): dict(
            zip(names, map(float, found[3].split()), strict=True)
        )
        for found in re.finditer(rf"^(\w+) +({label}) +(.*)$", text, re.MULTILINE)
    }


def test_the_playgrounds_table_says_what_its_page_says(built_site: Path):
    """What to look for: RMSNorm's outputs have RMS 1, LayerNorm's mean 0 and standard
    deviation 1, but for the scaled input, where both fall below 1; on the shifted input most
    of RMSNorm's output is the shared offset; every output keeps its input's skewness.
    Histograms: in float32 the two RMSNorms give the same statistics, and on the normal and
    scaled inputs LayerNorm's lie on theirs."""
    table = playground_table(shown_output("notebooks/playground.md"))
    assert len(table) == 16, table
    for name in ("normal", "shifted", "scaled", "skewed"):
        rms_norm, layer_norm = table[name, "RMSNorm"], table[name, "LayerNorm"]
        assert table[name, "RMSNorm, no upcast"] == rms_norm
        assert abs(layer_norm["mean"]) < 1e-3
        if name == "scaled":
            assert rms_norm["RMS"] < 0.8 and layer_norm["std"] < 0.8
        else:
            assert abs(rms_norm["RMS"] - 1) < 1e-3
            assert abs(layer_norm["std"] - 1) < 1e-3
        for output in (rms_norm, layer_norm):
            assert abs(output["skew"] - table[name, "(input)"]["skew"]) < 0.05
        if name in ("normal", "scaled"):
            for statistic in ("mean", "std", "RMS"):
                assert abs(layer_norm[statistic] - rms_norm[statistic]) < 0.01
    shifted = table["shifted", "RMSNorm"]
    assert shifted["mean"] ** 2 / shifted["RMS"] ** 2 > 0.8, "the offset is most of it"


def skewness(values) -> torch.Tensor:
    """Each row's skewness (the last dimension)."""
    v = values.double()
    centered = v - v.mean(-1, keepdim=True)
    return centered.pow(3).mean(-1) / centered.pow(2).mean(-1).pow(1.5)


def test_the_playgrounds_few_values_per_row_item_says_what_a_reader_sees(
    tmp_path: Path,
):
    """Try this, HIDDEN = 8: RMSNorm and LayerNorm differ on the normal input; the scaled
    rows' RMS differ from row to row; each row keeps its skewness, but the pooled skewness
    of the input and of RMSNorm's output no longer shows it."""
    run = playground_run(tmp_path, HIDDEN=8)
    gap = run["normal", "RMSNorm"] - run["normal", "LayerNorm"]
    assert gap.abs().max() > 0.1
    scaled = run["scaled", "RMSNorm"].double().pow(2).mean(-1).sqrt()
    assert scaled.max() - scaled.min() > 0.3
    rows = skewness(run["skewed", "(input)"])
    assert torch.allclose(skewness(run["skewed", "RMSNorm"]), rows, atol=1e-3)
    for pooled in (run["skewed", "(input)"], run["skewed", "RMSNorm"]):
        assert abs(skewness(pooled.flatten()) - rows.mean()) > 0.05


def playground_run(folder: Path, **knobs) -> dict:
    """The Playground's outputs with some knobs changed, as a reader sets them: its knobs,
    inputs and norms cells run as one script. Keyed as its table: (input, output of)."""
    code = (ROOT / "snippets/notebooks/playground.py").read_text(encoding="utf-8")
    cells = [notebooks.section(code, name) for name in ("knobs", "inputs", "norms")]
    for knob, value in knobs.items():
        cells[0] = re.sub(
            rf"^{knob} = .*$", f"{knob} = {value}", cells[0], flags=re.MULTILINE
        )
    script = folder / "playground.py"
    script.write_text("\n".join(cells), encoding="utf-8")
    run = runpy.run_path(str(script))
    return run["outputs"] | {(name, "(input)"): x for name, x in run["inputs"].items()}


def rms(values) -> float:
    return values.double().pow(2).mean().sqrt().item()


def test_the_playgrounds_try_this_items_say_what_a_reader_sees(tmp_path: Path):
    """Try this: eps = 1e-8 brings the scaled input's RMS near 1, and at SCALE = 1 eps hardly
    matters; float16 at SCALE = 300 zeroes the scaled rows without the upcast (every value
    0, so the skewness is nan) while the checked RMSNorm gives RMS 1; at the default SCALE
    the squares, their mean and the sum under the root are subnormal and the RMSNorm
    without upcast is off too."""
    scaled = ("scaled", "RMSNorm")
    assert rms(playground_run(tmp_path)[scaled]) < 0.8  # the default eps shows
    assert rms(playground_run(tmp_path, EPS=1e-8)[scaled]) > 0.99
    assert abs(rms(playground_run(tmp_path, SCALE=1)[scaled]) - 1) < 1e-5
    half = playground_run(tmp_path, DTYPE="torch.float16", SCALE=300)
    assert torch.count_nonzero(half["scaled", "RMSNorm, no upcast"]) == 0
    assert abs(rms(half[scaled]) - 1) < 1e-2
    half = playground_run(tmp_path, DTYPE="torch.float16")
    gap = rms(half["scaled", "RMSNorm, no upcast"]) - rms(half[scaled])
    assert abs(gap) > 1e-3  # both round to float16 (steps of 4.9e-4 near 0.7)
