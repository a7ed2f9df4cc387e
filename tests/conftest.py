"""Shared fixtures: the repository layout and one strict build of the site per test session."""

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LANGUAGES = ("en", "ko")
DEFAULT_LANGUAGE = "en"
# Built as if published under a sub-path, the way a GitHub Pages project site is served.
SITE_URL = "https://docs.example/rmsnorm/"


FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)\n"
    r"(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
INCLUDE = re.compile(r'^\s*--8<--\s+"(?P<target>[^"]+)"\s*$')
FORMULA = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.DOTALL)
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)


def pages(language: str) -> list[Path]:
    """Markdown pages of one language, relative to docs/<language>/."""
    base = DOCS / language
    return sorted(p.relative_to(base) for p in base.rglob("*.md"))


def read(path: Path) -> str:
    """A Markdown page without its front matter."""
    return _FRONT_MATTER.sub("", path.read_text(encoding="utf-8"), count=1)


def includes(text: str) -> list[str]:
    """The snippet targets (`file` or `file:section`) a page includes, in order."""
    return [
        match["target"]
        for fence in FENCE.finditer(text)
        for line in fence["body"].splitlines()
        if (match := INCLUDE.match(line))
    ]


def prose(text: str) -> str:
    """A page's text without its code fences."""
    return FENCE.sub("", text)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """Run `mkdocs build --strict` once; return the site folder. Any warning fails it."""
    site = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": SITE_URL}
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)]
    start = time.perf_counter()
    result = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    log = result.stdout + result.stderr
    assert result.returncode == 0, f"strict build failed:\n{log}"
    assert "WARNING" not in log, f"build logged warnings:\n{log}"
    _timings["strict build"] = seconds
    return site


_timings: dict[str, float] = {}


def pytest_terminal_summary(terminalreporter):
    for name, seconds in _timings.items():
        terminalreporter.write_line(f"{name}: {seconds:.1f} s")
