"""Notebook pages: from a Markdown page and its snippets to an executed Jupyter notebook.

A page in docs/<language>/notebooks/ is a notebook written in jupytext's Markdown format: prose,
and code fences that each hold one include line, as on every other page of the site:

    ```python
    --8<-- "snippets/notebooks/playground.py:knobs"
    ```

`notebook()` turns the page into a notebook whose code cells are those sections of the snippet
file, so code is written once, in snippets/, for both languages; a cell that imports one of the
site's helpers gets them written out (scripts/standalone.py), so a downloaded notebook runs
anywhere. The languages' code cells differ in one line only, the knob `LANGUAGE = "en"`, which a
Korean page's notebook sets to "ko" so that its figures have Korean labels.

`execute()` runs a notebook for every language in one fresh Jupyter kernel, started in an empty
folder with the site's packages unimportable (as a reader runs it): all cells with "en", then,
per other language, the cell that sets LANGUAGE and every cell from the first one that reads it
(the figures, last), so the training runs once. It caches the outputs under .cache/notebooks/,
keyed by the code and the installed packages. A cell that raises stops the run with its
traceback. `executed()` copies one language's outputs into its notebook and writes it: the file
the site renders (hooks/notebooks.py) and offers for download.

    .venv/bin/python -m scripts.notebooks   # write every executed notebook to build/notebooks/
"""

import hashlib
import importlib.metadata
import logging
import re
import sys
import tempfile
from pathlib import Path

import jupytext
import nbformat
from markdown.extensions.toc import slugify
from nbclient import NotebookClient
from nbconvert.preprocessors import CoalesceStreamsPreprocessor
from traitlets.config import Config

from scripts.standalone import NO_SITE_PACKAGE, section, standalone

ROOT = Path(__file__).resolve().parents[1]
FOLDER = "notebooks"  # pages in docs/<language>/notebooks/ are notebooks
KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}
CELL_TIMEOUT = 600  # seconds

_INCLUDE = re.compile(r'^--8<--\s+"(?P<path>[^":]+)(?::(?P<section>[\w-]+))?"$')
# A Korean heading names its English anchor, `## 손잡이 { #knobs }`; in a notebook the anchor
# becomes an HTML target, which Jupyter and the site both understand.
_EXPLICIT_ID = re.compile(r"^(#{1,6} .*?) *\{ *#([\w-]+) *\}[ \t]*$", re.MULTILINE)
# Any other heading gets the anchor the site's table of contents gives it: Jupyter's own
# ids keep the heading's capitals, and an HTML id is case-sensitive.
_HEADING_WITHOUT_ID = re.compile(r"^(#{1,6}) (?!.*<a id=)(.+?)[ \t]*$", re.MULTILINE)
# An admonition as the pages write it (`!!! abstract "In short"` and its indented lines).
_ADMONITION = re.compile(
    r'^!!! (?P<kind>\w+) "(?P<title>[^"]+)"\n\n(?P<body>(?:    .*\n|\n)+)', re.MULTILINE
)
LANGUAGES = ("en", "ko")
# Under "mkdocs", so that a build or `mkdocs serve` shows it.
_log = logging.getLogger("mkdocs.notebooks")
# The knob that chooses the language of a notebook's figures, as the snippets write it.
_LANGUAGE_KNOB = re.compile(r'^LANGUAGE = "en"', re.MULTILINE)
_READS_LANGUAGE = re.compile(r"\bLANGUAGE\b")


def is_notebook(src_uri: str) -> bool:
    """Whether a page (a path relative to docs/ or docs/<language>/) is a notebook."""
    return Path(src_uri).parent.name == FOLDER


def localized(source: str, language: str) -> str:
    """A code cell as the notebook in `language` has it: its LANGUAGE knob set to it."""
    return _LANGUAGE_KNOB.sub(f'LANGUAGE = "{language}"', source)


def notebook(
    page: Path, base: Path = ROOT, language: str = "en"
) -> nbformat.NotebookNode:
    """The notebook a Markdown page describes, its figures in `language`; include paths are
    relative to `base`."""
    nb = jupytext.reads(page.read_text(encoding="utf-8"), fmt="md")
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "raw" and cell.source.startswith("---"):
            continue  # the page's front matter
        if cell.cell_type == "markdown":
            cell.source = _EXPLICIT_ID.sub(r'\1 <a id="\2"></a>', cell.source)
            cell.source = _HEADING_WITHOUT_ID.sub(
                lambda m: f'{m[0]} <a id="{slugify(m[2], "-")}"></a>', cell.source
            )
            cell.source = _ADMONITION.sub(_admonition, cell.source + "\n").rstrip("\n")
        if cell.cell_type == "code":
            include = _INCLUDE.match(cell.source.strip())
            if include is None:
                raise ValueError(
                    f"{page}: a code cell must be one include line, got {cell.source!r}"
                )
            path = include["path"]
            code = section(
                (base / path).read_text(encoding="utf-8"), include["section"], path
            )
            cell.source = localized(standalone(code, path, base), language)
        # Stable ids (jupytext draws random ones): the same page gives the same notebook.
        cell.id = f"cell-{len(cells)}"
        cells.append(cell)
    nb.cells = cells
    nb.metadata = {"kernelspec": KERNEL, "language_info": {"name": "python"}}
    return nb


def _admonition(match: re.Match) -> str:
    """Markdown that Jupyter renders and that the site styles as the admonition: Material's
    HTML around the body, which stays Markdown (an HTML block ends at a blank line)."""
    body = re.sub(r"^    ", "", match["body"], flags=re.MULTILINE).strip("\n")
    return (
        f'<div class="admonition {match["kind"]}">\n'
        f'<p class="admonition-title">{match["title"]}</p>\n\n{body}\n\n</div>\n\n'
    )


def _code(nb) -> list[str]:
    return [cell.source for cell in nb.cells if cell.cell_type == "code"]


# The packages whose versions the notebooks' outputs depend on.
_COMPUTING_PACKAGES = ("torch", "numpy", "matplotlib")


def _environment() -> bytes:
    """The versions of Python and of the packages that compute the outputs."""
    versions = [importlib.metadata.version(name) for name in _COMPUTING_PACKAGES]
    return " ".join([sys.version, *versions]).encode()


def cache_key(nb) -> str:
    """Changes when a code cell (helpers written out: the cells import nothing of the site),
    this module (which runs them), or the version of Python, PyTorch, NumPy or Matplotlib."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(_environment() + b"\0")
    for source in _code(nb):
        digest.update(source.encode() + b"\0")
    return digest.hexdigest()


def run_cells(sources: list[str]) -> nbformat.NotebookNode:
    """Run code cells in order in a fresh kernel started in an empty folder, with the site's
    own packages unimportable, as a reader runs a downloaded notebook: a notebook of the
    cells with their outputs. Raises nbclient's CellExecutionError, with the traceback, if
    one raises."""
    run = nbformat.v4.new_notebook(metadata={"kernelspec": KERNEL})
    run.cells = [nbformat.v4.new_code_cell(s) for s in [NO_SITE_PACKAGE, *sources]]
    with tempfile.TemporaryDirectory() as empty, tempfile.TemporaryDirectory() as ipc:
        # Kernel messages over Unix sockets rather than local TCP ports, which ipykernel
        # warns about; an absolute path, since the kernel runs in another folder.
        ipc_socket = str(Path(ipc) / "kernel")
        NotebookClient(
            run,
            timeout=CELL_TIMEOUT,
            kernel_name=KERNEL["name"],
            config=Config({"KernelManager": {"transport": "ipc", "ip": ipc_socket}}),
            resources={"metadata": {"path": empty}},
        ).execute()
    run.cells = run.cells[1:]
    for cell in run.cells:  # counted as if the first cell had not run
        cell.execution_count -= 1
    # One block per cell for what it printed, as Jupyter shows it, not one per flush.
    CoalesceStreamsPreprocessor().preprocess(run, {})
    return run


def rerun_for_language(code: list[str]) -> list[int]:
    """The code cells to run again for another language: the one that sets LANGUAGE, and
    every cell from the first other one that reads it to the end. The cells before that one
    do not depend on the language; from it on the run repeats as a fresh run would."""
    setting = [i for i, source in enumerate(code) if _LANGUAGE_KNOB.search(source)]
    reading = [
        i
        for i, source in enumerate(code)
        if i not in setting and _READS_LANGUAGE.search(source)
    ]
    if not reading:
        return []
    return setting + list(range(reading[0], len(code)))


def _warnings(run) -> list[str]:
    """What the run's cells wrote to stderr."""
    return [
        output.text
        for cell in run.cells
        for output in cell.outputs
        if output.output_type == "stream" and output.name == "stderr"
    ]


def execute(
    nb, cache: Path | None = None, name: str = "a notebook"
) -> dict[str, list[tuple]]:
    """Run the notebook's code cells (with LANGUAGE "en") in a fresh kernel (`run_cells`),
    then in the same kernel the cells `rerun_for_language` names, per other language;
    return each language's (execution count, outputs) per code cell. With `cache`, the run
    is read from or written to cache/<cache_key>.ipynb."""
    code = _code(nb)
    rerun = rerun_for_language(code)
    others = [language for language in LANGUAGES if language != "en"] if rerun else []
    cached = cache / f"{cache_key(nb)}.ipynb" if cache else None
    if cached and cached.is_file():
        run = nbformat.read(cached, as_version=4)
    else:
        # The first build runs each notebook (under a minute each on two cores); later
        # builds read the run from the cache until a cell or a package version changes.
        _log.info(f"Running {name}: {len(code)} code cells, not cached yet")
        run = run_cells(
            code + [localized(code[i], lang) for lang in others for i in rerun]
        )
        # A run that wrote a warning is not kept: it may come from the machine (a missing
        # font), not the code, and would outlast the fix. The tests reject it anyway.
        if cached and not _warnings(run):
            cached.parent.mkdir(parents=True, exist_ok=True)
            partial = cached.with_suffix(".partial")
            nbformat.write(run, partial)
            partial.replace(cached)
    outputs = [cell.outputs for cell in run.cells]
    # Execution counts as a fresh run of each language's notebook numbers its cells.
    english = [(i + 1, outputs[i]) for i in range(len(code))]
    runs = {language: english for language in LANGUAGES}
    for n, language in enumerate(others):
        again = iter(outputs[len(code) + n * len(rerun) :])
        runs[language] = [
            (i + 1, next(again) if i in rerun else shown)
            for i, (_, shown) in enumerate(english)
        ]
    return runs


def cache_folder(base: Path = ROOT) -> Path:
    """Where the runs are kept, one file per cache key."""
    return base / ".cache" / FOLDER


def executed(
    page: Path, out_dir: Path, language: str, base: Path = ROOT, run: bool = True
) -> Path:
    """Write the page's notebook in `language`, with outputs unless `run` is false, to
    out_dir/<name>.ipynb."""
    nb = notebook(page, base, language)
    if run:
        runs = execute(notebook(page, base), cache_folder(base), page.name)
        results = iter(runs[language])
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.execution_count, cell.outputs = next(results)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / page.with_suffix(".ipynb").name
    nbformat.write(nb, target)
    return target


def main() -> int:
    for page in sorted((ROOT / "docs").glob(f"*/{FOLDER}/*.md")):
        language = page.relative_to(ROOT / "docs").parts[0]
        target = executed(page, ROOT / "build" / FOLDER / language, language)
        print(f"{page.relative_to(ROOT)} -> {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
