"""The site's own Python (hooks, scripts, tests) passes ruff's lint and format checks.

Snippet files are linted by tests/test_snippets.py instead, with pytest-examples' settings.
"""

import pytest
from site_layout import python_module

OWN_CODE = ["hooks", "scripts", "tests"]


@pytest.mark.parametrize(
    "command", [["check"], ["format", "--check", "--diff"]], ids=str
)
def test_ruff(command):
    result = python_module("ruff", *command, *OWN_CODE)
    assert result.returncode == 0, result.stdout + result.stderr
