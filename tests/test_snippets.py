"""Every snippet file is linted, runs, and prints exactly the `#>` lines written under its prints.

`pytest --update-examples` reformats the files and rewrites the `#>` lines after an intended change.
"""

from pathlib import Path

import pytest
from conftest import ROOT
from pytest_examples import CodeExample, EvalExample

SNIPPET_FILES = sorted(
    path for path in (ROOT / "snippets").rglob("*.py") if path.name != "__init__.py"
)


@pytest.mark.parametrize("path", SNIPPET_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_snippet_runs_and_prints_what_it_shows(path: Path, eval_example: EvalExample):
    example = CodeExample.create(path.read_text(encoding="utf-8"), path=path)
    eval_example.set_config(line_length=88, quotes="double", target_version="py310")
    if eval_example.update_examples:
        eval_example.format(example)
        eval_example.run_print_update(example)
    else:
        eval_example.lint(example)
        eval_example.run_print_check(example)
