"""Every snippet file is linted, a printed table's header standing over its columns among
the checks; `pytest --update-examples` reformats it and rewrites the `#>` lines under its
prints (running it here, in the repository) after an intended change, at once, so that one
run both writes a new snippet's lines and checks the pages against them.

Whether each prints exactly its `#>` lines is checked by tests/test_standalone.py, on the block
a reader copies from the built site, run on its own. Two folders and the command lines are only
linted: the notebooks' code (snippets/notebooks/), run in a Jupyter kernel by the build
(tests/test_notebooks.py), the benchmark (snippets/benchmark/), a command-line module run by
tests/test_benchmark.py, and the checker's `__main__.py`, run by tests/test_check.py; none
writes its output as `#>` lines.
"""

import ast
import io
import os
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest
from page_text import is_string, written_output
from pytest_examples import CodeExample, EvalExample
from site_layout import ROOT

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
    # index.md -> snippets/home/, notebooks/*.md -> snippets/notebooks/<notebook>.py
    page = {"home": "index.md", "notebooks": "notebooks/"}.get(
        folder.name, f"{folder.name}.md"
    )
    assert f"docs/en/{page}" in docstring and f"docs/ko/{page}" in docstring, (
        f"{where}: its docstring names no page: add (docs/en/{page}, docs/ko/{page})"
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
    the pages' checks later in the same run read its new #> lines. A long output's block
    is quoted with \"\"\", as the other strings are."""
    for example in eval_example.to_update:
        source = re.sub(r"^(\s*)'''$", r'\1"""', example.source, flags=re.MULTILINE)
        example.path.write_text(source, encoding="utf-8")
    eval_example.to_update.clear()


def code_shape(source: str) -> str | None:
    """The code without its output: the syntax tree less the statements that are only a
    string (where long output is written); None if it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if isinstance(statements, list):
                setattr(node, field, [s for s in statements if not is_string(s)])
    return ast.dump(tree)


def output_inside_brackets(source: str) -> bool:
    """Whether a #> line sits inside an open bracket, such as a print call split over
    several lines: valid Python, but the formatter would move it."""
    depth = 0
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif token.type == tokenize.COMMENT and token.string.startswith("#>") and depth:
            return True
    return False


HOW_TO_PRINT = (
    "Write each print on one line (the formatter splits a longer call over several, and"
    " inside a loop its output lands inside the call), each output line shorter than 85"
    " characters less the print's indent, and one print at most in a loop, none followed"
    " by an inner loop's: collect such lines in a list and print them after the loops."
)


def update_outputs(path: Path, eval_example: EvalExample) -> str | None:
    """Run the snippet, rewrite its #> lines, then run it again as a script and compare
    what it prints with what was written (as a reader copies it from the built page:
    tests/test_standalone.py, in a run without --update-examples). Returns what went
    wrong, if anything; then the file is left as it was."""
    original = path.read_text(encoding="utf-8")
    example = CodeExample.create(original, path=path)
    eval_example.format(example)
    shape = code_shape(example.source)
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    try:
        eval_example.run_print_update(example)
    except Exception as error:  # noqa: BLE001 (any error in a snippet is a failure)
        eval_example.to_update.clear()
        return f"{where}:{snippet_line(error, path)} raised {error!r}"
    if code_shape(example.source) != shape or output_inside_brackets(example.source):
        eval_example.to_update.clear()
        return (
            f"{where}: pytest-examples would write the output inside the code (a print"
            f" that does not start its line, or a block of long lines inside a call)."
            f" {HOW_TO_PRINT}"
        )
    updated = example.source  # its long output quoted as pytest-examples checks it
    write_now(eval_example)
    try:
        eval_example.run_print_check(CodeExample.create(updated, path=path))
        # pytest-examples checks its own placement: two prints in one loop come out
        # misplaced yet consistent. A reader reads the lines in the file's order.
        printed = subprocess.run(
            [sys.executable, str(path)], cwd=ROOT, capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False,
        )  # fmt: skip
        written = written_output(updated)
        assert printed.returncode == 0, printed.stderr[-2000:]
        assert " ".join(printed.stdout.split()) == written, (
            f"printed:\n{printed.stdout}\nwritten, in the file's order:\n{written}"
        )
    except (Exception, pytest.fail.Exception) as error:  # noqa: BLE001
        path.write_text(original, encoding="utf-8")
        return (
            f"{where}: the #> lines pytest-examples wrote differ from what the snippet"
            f" prints when run again, so the file is left as it was. {HOW_TO_PRINT}"
            f"\n{error}"
        )
    return None


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_snippet_is_linted(path: Path, eval_example: EvalExample):
    configure(eval_example)
    if not eval_example.update_examples:
        eval_example.lint(
            CodeExample.create(path.read_text(encoding="utf-8"), path=path)
        )
        return
    if path in LINT_ONLY_FILES:
        example = CodeExample.create(path.read_text(encoding="utf-8"), path=path)
        eval_example.format(example)
        write_now(eval_example)
        return
    if failure := update_outputs(path, eval_example):
        # Failed outside an `except`: on Python 3.11 pytest cannot render the traceback
        # pytest-examples builds and would stop the whole run with an INTERNALERROR.
        pytest.fail(failure, pytrace=False)


# Print shapes that pytest-examples 0.0.18 updates wrongly. Nested loops: the outer print
# loses its second line, the inner lines land around the inner print. Two prints in a loop:
# the second iteration's first line is lost, and pytest-examples' own check passes.
WRONGLY_UPDATED = {
    "nested loops": (
        'for dtype in ["float32", "bfloat16"]:\n'
        "    print(dtype)\n"
        "    for n in range(2):\n"
        "        print(dtype, n)\n"
    ),
    "two prints in a loop": "for n in [1, 2]:\n    print(n)\n    print(n * 10)\n",
}


@pytest.mark.parametrize("shape", WRONGLY_UPDATED)
def test_an_output_update_that_would_be_wrong_is_refused(
    shape, tmp_path: Path, eval_example: EvalExample, monkeypatch
):
    snippet = tmp_path / "snippet.py"
    snippet.write_text(WRONGLY_UPDATED[shape], encoding="utf-8")
    monkeypatch.setattr(EvalExample, "update_examples", property(lambda self: True))
    configure(eval_example)
    failure = update_outputs(snippet, eval_example)
    assert failure and "differ from what the snippet prints" in failure
    assert "collect such lines in a list" in failure  # how to write it instead
    assert snippet.read_text(encoding="utf-8") == WRONGLY_UPDATED[shape]


def test_an_output_update_that_can_be_checked_is_written(
    tmp_path: Path, eval_example: EvalExample, monkeypatch
):
    snippet = tmp_path / "snippet.py"
    snippet.write_text('for n in range(2):\n    print(n)\nprint("x" * 90)\n')
    monkeypatch.setattr(EvalExample, "update_examples", property(lambda self: True))
    configure(eval_example)
    assert update_outputs(snippet, eval_example) is None
    written = snippet.read_text(encoding="utf-8")
    assert "    #> 0\n    #> 1\n" in written and '"""\n' + "x" * 90 in written


def test_output_written_inside_the_code_is_told_from_output_after_it():
    """How update_outputs() sees the output pytest-examples writes in the wrong place (as
    it did for a print after a semicolon, before the formatter splits such lines)."""
    assert code_shape('print("a")\n"""\na\n"""\n') == code_shape('print("a")\n')
    inside_a_call = 'print(\n    "a",\n    """\n    a\n    """,\n)\n'
    assert code_shape(inside_a_call) != code_shape('print(\n    "a",\n)\n')
    assert output_inside_brackets('print(\n    "a",\n    #> a\n)\n')
    assert not output_inside_brackets('print("a")\n#> a\n')
    assert code_shape("x = 1; print(x)\n   '''\n   1\n   '''\n") is None


# A printed table's header, written above a loop that prints the rows, shows its output
# line at the loop's indent less 4 columns: the header sits left of its columns. A header
# is told by its columns (two or more gaps of 2+ spaces between words).
COLUMNS = re.compile(r"\S {2,}\S.*\S {2,}\S")


def headers_left_of_their_rows(source: str) -> list[int]:
    """Line numbers of `#>` lines that head columns printed, deeper, by a loop below."""
    lines = source.splitlines()
    found = []
    for number, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        is_last_output = line.lstrip().startswith("#>") and not (
            number + 1 < len(lines) and lines[number + 1].lstrip().startswith("#>")
        )
        if not is_last_output or not COLUMNS.search(line):
            continue
        code = []
        for after in lines[number + 1 : number + 15]:
            if after.lstrip().startswith("#>"):
                deeper = len(after) - len(after.lstrip()) > indent
                if deeper and any(c.lstrip().startswith("for ") for c in code):
                    found.append(number + 1)
                break
            code.append(after)
    return found


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_printed_tables_header_stands_over_its_columns(path: Path):
    left = headers_left_of_their_rows(path.read_text(encoding="utf-8"))
    assert not left, (
        f"line(s) {left}: a table's header printed above the loop that prints its rows;"
        ' collect header and rows in a list and print them at once, print("\\n".join(table)),'
        ' its output in a """ block'
    )


def test_a_header_left_of_its_rows_is_found():
    rows = 'for n in [1]:\n    print(f"{n}  {n}  {n}")\n    #> 1  1  1\n'
    header = 'print("n  ulps  share")\n#> n  ulps  share\n'
    assert headers_left_of_their_rows(header + rows) == [2]
    # A line that heads no columns is left alone.
    assert headers_left_of_their_rows('print("rows:")\n#> rows:\n' + rows) == []
