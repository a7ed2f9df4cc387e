"""codespell over the pages (the English ones, and the English terms in the Korean ones), the
snippets and the project's own text: no findings. Real terms that codespell mistakes for typos
go in tests/spelling-allowlist.txt, one per line (none so far)."""

import subprocess
import sys

from site_layout import ROOT

CHECKED = [
    "docs",
    "snippets",
    "hooks",
    "scripts",
    "tests",
    "README.md",
    "CONTRIBUTING.md",
    "mkdocs.yml",
]


def test_no_spelling_mistakes():
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "codespell_lib",
            "--ignore-words",
            "tests/spelling-allowlist.txt",
            "--check-filenames",
            *CHECKED,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
