"""Every snippet file is linted; `pytest --update-examples` reformats it and rewrites the `#>`
lines under its prints (running it here, in the repository) after an intended change, at once,
so that one run both writes a new snippet's lines and checks the pages against them.

Whether each prints exactly its `#>` lines is checked by tests/test_standalone.py, on the block
a reader copies from the built site, run on its own. Two folders and the command lines are only
linted: the notebooks' code (snippets/notebooks/), run in a Jupyter kernel by the build
(tests/test_notebooks.py), the benchmark (snippets/benchmark/), a command-line module run by
tests/test_benchmark.py, and the checker's `__main__.py`, run by tests/test_check.py; none
writes its output as `#>` lines.
"""

import ast
from pathlib import Path

import pytest
from pytest_examples import CodeExample, EvalExample

from conftest import ROOT

LINT_ONLY = [ROOT / "snippets" / "notebooks", ROOT / "snippets" / "benchmark"]
ALL_FILES = sorted(
    path for path in (ROOT / "snippets").rglob("*.py") if path.name != "__init__.py"
)
# Linted but not run here: notebook cells and the benchmark (run elsewhere), and command
# lines (__main__.py), which would read pytest's own arguments.
LINT_ONLY_FILES = [
    p
    for p in ALL_FILES
    if any(f in p.parents for f in LINT_ONLY) or p.name == "__main__.py"
]


FOLDERS = sorted({path.parent for path in ALL_FILES})


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: str(f.relative_to(ROOT)))
def test_every_snippet_folder_says_what_it_holds(folder: Path):
    """A folder per page: a package (its scripts import each other's helpers as
    `snippets.<page>.<module>`) whose __init__.py docstring names the page it serves."""
    init = folder / "__init__.py"
    where = init.relative_to(ROOT)
    assert init.exists(), f"{where} is missing: add it, with a one-line docstring"
    docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
    assert docstring, (
        f'{where} has no docstring: write one, such as """Code blocks of the X page'
        f' (docs/en/x.md, docs/ko/x.md)."""'
    )


def configure(eval_example: EvalExample):
    # pytest-examples keeps single blank lines between top-level blocks, which isort's
    # two-lines-after-imports rule (I001) would reject.
    eval_example.set_config(
        line_length=88, quotes="double", target_version="py310", ruff_ignore=["I001"]
    )


def snippet_line(error: Exception, path: Path) -> int | None:
    """The line of the snippet file at which `error` was raised."""
    line, tb = None, error.__traceback__
    while tb is not None:  # walked by hand: traceback.extract_tb fails here on 3.11
        if tb.tb_frame.f_code.co_filename == str(path):
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def write_now(eval_example: EvalExample):
    """Write an updated snippet at once, not when the session ends as pytest-examples does:
    the pages' checks later in the same run read its new #> lines."""
    for example in eval_example.to_update:
        example.path.write_text(example.source, encoding="utf-8")
    eval_example.to_update.clear()


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_snippet_is_linted(path: Path, eval_example: EvalExample):
    example = CodeExample.create(path.read_text(encoding="utf-8"), path=path)
    configure(eval_example)
    if not eval_example.update_examples:
        eval_example.lint(example)
        return
    eval_example.format(example)
    failure = None
    if path not in LINT_ONLY_FILES:
        try:
            eval_example.run_print_update(example)
        except Exception as error:  # noqa: BLE001 (any error in a snippet is a failure)
            failure = (
                f"{path.relative_to(ROOT)}:{snippet_line(error, path)} raised {error!r}"
            )
    write_now(eval_example)
    if failure:
        # Failed outside the `except`: on Python 3.11 pytest cannot render the traceback
        # pytest-examples builds and would stop the whole run with an INTERNALERROR.
        pytest.fail(failure, pytrace=False)
