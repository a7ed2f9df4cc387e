"""The repository's layout and the site's: where pages are, how they are served, and small
helpers every test file uses (run a module, read mkdocs.yml, import triton or skip, a
strided leaf tensor for the kernel's tests).

Imported by the kernel's tests on a GPU machine that has torch, triton, transformers and
pytest but not MkDocs or the browser: it imports nothing else of the site's tools."""

import ast
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest
import torch
import yaml


def triton_or_skip():
    """triton, for a test module to call at import: where it cannot be imported, the module
    is skipped and says why, unless REQUIRE_TRITON is set (as CI sets it)."""
    try:
        import triton
    except ImportError as error:  # pragma: no cover - depends on the platform
        if os.environ.get("REQUIRE_TRITON"):
            raise
        pytest.skip(
            f"triton cannot be imported here ({error})", allow_module_level=True
        )
    return triton


ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LANGUAGES = ("en", "ko")
DEFAULT_LANGUAGE = "en"
# The article's column on a 390 px phone, in CSS px: figures are sized for it.
PHONE_COLUMN_PX = 358
# Built as if published under a sub-path, the way a GitHub Pages project site is served.
SITE_URL = "https://docs.example/rmsnorm/"
SITE_PATH = urlparse(SITE_URL).path


def leaf(t):
    """A leaf with t's values and strides: clone() would pack a strided view's rows."""
    packed_or_not = torch.empty_strided(
        t.shape, t.stride(), dtype=t.dtype, device=t.device
    )
    return packed_or_not.copy_(t.detach()).requires_grad_()


def python_module(
    module: str, *args: str, cwd: Path = ROOT, env: dict | None = None
) -> subprocess.CompletedProcess:
    """`python -m module args...` with the tests' interpreter, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def mkdocs_config() -> dict:
    """mkdocs.yml as data: `!ENV [NAME, default]` as its default, other tags as None."""

    class Loader(yaml.SafeLoader):
        pass

    def tag(loader, suffix, node):
        if suffix == "ENV" and isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node)[-1]
        return None

    Loader.add_multi_constructor("!", tag)
    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)


def nav_titles(entries: list) -> list[str]:
    """Every title in a `nav:` list, in the order shown: pages and sections, and the pages
    inside sections."""
    titles = []
    for entry in entries:
        for title, target in entry.items():
            titles.append(title)
            if isinstance(target, list):
                titles += nav_titles(target)
    return titles


def i18n_language(locale: str) -> dict:
    """One language's settings for the i18n plugin in mkdocs.yml (its nav_translations...)."""
    config = mkdocs_config()
    i18n = next(
        p["i18n"] for p in config["plugins"] if isinstance(p, dict) and "i18n" in p
    )
    return next(lang for lang in i18n["languages"] if lang["locale"] == locale)


def pages(language: str) -> list[Path]:
    """Markdown pages of one language, relative to docs/<language>/."""
    base = DOCS / language
    return sorted(p.relative_to(base) for p in base.rglob("*.md"))


def all_pages() -> list[tuple[str, Path]]:
    """(language, page) for every page of every language."""
    return [(language, page) for language in LANGUAGES for page in pages(language)]


def url_path(language: str, page: Path) -> str:
    """Where a page is served: math.md -> /rmsnorm/math/, ko + math.md -> /rmsnorm/ko/math/."""
    prefix = "" if language == DEFAULT_LANGUAGE else f"{language}/"
    folder = page.parent if page.stem == "index" else page.with_suffix("")
    folder = "" if folder == Path() else f"{folder.as_posix()}/"
    return f"{SITE_PATH}{prefix}{folder}"


def imported_files(path: str) -> set[str]:
    """The site's files a file imports, and theirs in turn, but run.py's (its own
    benchmark's code, which the other benchmarks use only to time)."""
    found, todo = set(), [path]
    while todo:
        file = todo.pop()
        found.add(file)
        if file == "snippets/benchmark/run.py":
            continue
        for node in ast.walk(ast.parse((ROOT / file).read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module.startswith("snippets."):
                module = node.module.replace(".", "/") + ".py"
                if (ROOT / module).is_file() and module not in found:
                    todo.append(module)
    return found
