"""The site's own Python (hooks, scripts, tests) passes ruff's lint and format checks.

Snippet files are linted by tests/test_snippets.py instead, with pytest-examples' settings.
"""

import subprocess
import sys

import pytest

from conftest import ROOT

OWN_CODE = ["hooks", "scripts", "tests"]


@pytest.mark.parametrize(
    "command", [["check"], ["format", "--check", "--diff"]], ids=str
)
def test_ruff(command):
    result = subprocess.run(
        [sys.executable, "-m", "ruff", *command, *OWN_CODE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
