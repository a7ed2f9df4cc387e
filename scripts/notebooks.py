"""Notebook pages: from a Markdown page and the snippets package to an executed Jupyter notebook.

A page in docs/<language>/notebooks/ is a notebook written in jupytext's Markdown format: prose,
and code fences that each hold one include line, as on every other page of the site:

    ```python
    --8<-- "snippets/notebooks/playground.py:knobs"
    ```

`notebook()` turns the page into a notebook whose code cells are those sections of the snippet
file, so code is written once, in snippets/, for both languages. Both languages therefore have the
same code cells, and `execute()` runs them once, in a fresh Jupyter kernel, and caches the outputs
under .cache/notebooks/, keyed by the code, the snippets package and the installed packages. A cell that raises stops
the run with its traceback. `executed()` copies the outputs into one language's notebook and writes
it: the file the site renders (hooks/notebooks.py) and offers for download.

    .venv/bin/python -m scripts.notebooks   # write every executed notebook to build/notebooks/
"""

import hashlib
import importlib.metadata
import re
import sys
import textwrap
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient
from nbconvert.preprocessors import CoalesceStreamsPreprocessor
from traitlets.config import Config

ROOT = Path(__file__).resolve().parents[1]
FOLDER = "notebooks"  # pages in docs/<language>/notebooks/ are notebooks
KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}
CELL_TIMEOUT = 600  # seconds
# Kernel messages over Unix sockets rather than local TCP ports, which ipykernel warns about.
_KERNEL_CONFIG = Config({"KernelManager": {"transport": "ipc"}})

_INCLUDE = re.compile(r'^--8<--\s+"(?P<path>[^":]+)(?::(?P<section>[\w-]+))?"$')
_SECTION_MARK = re.compile(r"^\s*# --8<-- \[(?:start|end):[\w-]+\]\s*$", re.MULTILINE)
# A Korean heading names its English anchor, `## 손잡이 { #knobs }`; in a notebook the anchor
# becomes an HTML target, which Jupyter and the site both understand.
_EXPLICIT_ID = re.compile(r"^(#{1,6} .*?) *\{ *#([\w-]+) *\}[ \t]*$", re.MULTILINE)


def is_notebook(src_uri: str) -> bool:
    """Whether a page (a path relative to docs/ or docs/<language>/) is a notebook."""
    return Path(src_uri).parent.name == FOLDER


def section(path: Path, name: str | None) -> str:
    """A whole snippet file, or the lines between its `[start:name]` and `[end:name]` marks."""
    text = path.read_text(encoding="utf-8")
    if name is not None:
        marks = re.search(
            rf"^\s*# --8<-- \[start:{name}\]\n(.*?)^\s*# --8<-- \[end:{name}\]",
            text,
            re.MULTILINE | re.DOTALL,
        )
        if marks is None:
            raise ValueError(f"{path}: no section {name!r}")
        text = marks[1]
    return textwrap.dedent(_SECTION_MARK.sub("", text)).strip()


def notebook(page: Path, base: Path = ROOT) -> nbformat.NotebookNode:
    """The notebook a Markdown page describes; include paths are relative to `base`."""
    nb = jupytext.reads(page.read_text(encoding="utf-8"), fmt="md")
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "raw" and cell.source.startswith("---"):
            continue  # the page's front matter
        if cell.cell_type == "markdown":
            cell.source = _EXPLICIT_ID.sub(r'\1 <a id="\2"></a>', cell.source)
        if cell.cell_type == "code":
            include = _INCLUDE.match(cell.source.strip())
            if include is None:
                raise ValueError(
                    f"{page}: a code cell must be one include line, got {cell.source!r}"
                )
            cell.source = section(base / include["path"], include["section"])
        # Stable ids (jupytext draws random ones): the same page gives the same notebook.
        cell.id = f"cell-{len(cells)}"
        cells.append(cell)
    nb.cells = cells
    nb.metadata = {"kernelspec": KERNEL, "language_info": {"name": "python"}}
    return nb


def _code(nb) -> list[str]:
    return [cell.source for cell in nb.cells if cell.cell_type == "code"]


# The packages whose versions the notebooks' outputs depend on.
_COMPUTING_PACKAGES = ("torch", "numpy", "matplotlib")


def _environment() -> bytes:
    """The versions of Python and of the packages that compute the outputs."""
    versions = [importlib.metadata.version(name) for name in _COMPUTING_PACKAGES]
    return " ".join([sys.version, *versions]).encode()


def cache_key(nb, base: Path = ROOT) -> str:
    """Changes when a code cell, any file of the snippets package (which cells import),
    this module (which runs them), or the version of Python, PyTorch, NumPy or Matplotlib."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(_environment() + b"\0")
    for source in _code(nb):
        digest.update(source.encode() + b"\0")
    for path in sorted((base / "snippets").rglob("*.py")):
        digest.update(path.relative_to(base).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def execute(nb, base: Path = ROOT, cache: Path | None = None) -> list[tuple]:
    """Run the notebook's code cells in a fresh kernel started in `base`; return each code
    cell's outputs. Raises nbclient's CellExecutionError, with the traceback, if a cell raises.
    With `cache`, outputs are read from or written to cache/<cache_key>.ipynb."""
    cached = cache / f"{cache_key(nb, base)}.ipynb" if cache else None
    if cached and cached.is_file():
        run = nbformat.read(cached, as_version=4)
    else:
        run = nbformat.v4.new_notebook(metadata={"kernelspec": KERNEL})
        run.cells = [nbformat.v4.new_code_cell(source) for source in _code(nb)]
        NotebookClient(
            run,
            timeout=CELL_TIMEOUT,
            kernel_name=KERNEL["name"],
            config=_KERNEL_CONFIG,
            resources={"metadata": {"path": str(base)}},
        ).execute()
        # One block per cell for what it printed, as Jupyter shows it, not one per flush.
        CoalesceStreamsPreprocessor().preprocess(run, {})
        if cached:
            cached.parent.mkdir(parents=True, exist_ok=True)
            partial = cached.with_suffix(".partial")
            nbformat.write(run, partial)
            partial.replace(cached)
    return [(cell.execution_count, cell.outputs) for cell in run.cells]


def cache_folder(base: Path = ROOT) -> Path:
    """Where the runs are kept, one file per cache key."""
    return base / ".cache" / FOLDER


def executed(page: Path, out_dir: Path, base: Path = ROOT, run: bool = True) -> Path:
    """Write the page's notebook, with outputs unless `run` is false, to out_dir/<name>.ipynb."""
    nb = notebook(page, base)
    if run:
        results = iter(execute(nb, base, cache=cache_folder(base)))
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
        target = executed(page, ROOT / "build" / FOLDER / language)
        print(f"{page.relative_to(ROOT)} -> {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
