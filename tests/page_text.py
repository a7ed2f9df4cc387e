"""A page's text: its Markdown (front matter, fences, includes, formulas, prose), the code an
include shows, and its built HTML, parsed once per test process."""

import ast
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from site_layout import ROOT, SITE_PATH, url_path

from scripts.standalone import standalone

if TYPE_CHECKING:
    from bs4 import BeautifulSoup

FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)\n"
    r"(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
INCLUDE = re.compile(r'^\s*--8<--\s+"(?P<target>[^"]+)"\s*$')
FORMULA = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.DOTALL)
HANGUL = re.compile(r"[\uac00-\ud7a3]")
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)


# What a formula left unrendered would show: LaTeX delimiters and commands.
LATEX_LEFT = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\\frac|\\sqrt|\\mathrm|\\varepsilon")


def read(path: Path) -> str:
    """A Markdown page without its front matter."""
    return _FRONT_MATTER.sub("", path.read_text(encoding="utf-8"), count=1)


def description(path: Path):
    """The `description` in a page's front matter, read as MkDocs reads it (None if none):
    Material puts it in the page's <meta name="description"> for search results."""
    from mkdocs.utils.meta import (
        get_data,
    )  # not at the top: the GPU machine has no MkDocs

    return get_data(path.read_text(encoding="utf-8"))[1].get("description")


def includes(text: str) -> list[str]:
    """The snippet targets (`file` or `file:section`) a page includes, in order."""
    return [
        match["target"]
        for fence in FENCE.finditer(text)
        for line in fence["body"].splitlines()
        if (match := INCLUDE.match(line))
    ]


@cache  # several tests of each page ask for its blocks; the files do not change meanwhile
def shown_code(target: str, language: str = "en") -> str:
    """The code an include line shows on a page in `language`: a whole snippet file, or
    `file:section`, with the site's helpers it imports written out (scripts/standalone.py)
    and a notebook's LANGUAGE knob set to the page's language."""
    from scripts.notebooks import localized
    from scripts.standalone import section

    path, _, name = target.partition(":")
    code = section((ROOT / path).read_text(encoding="utf-8"), name or None, path)
    if path.endswith(".py"):
        code = localized(standalone(code, path), language)
    return code


@cache
def parsed_html(path: Path) -> "BeautifulSoup":
    """A built HTML file, parsed once per test process (about 0.3 s a page): several tests
    read it, none may change it (copy.copy a part to edit it)."""
    from bs4 import BeautifulSoup

    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def built_file(site: Path, language: str, page: Path) -> Path:
    """The HTML file of a page of the built site."""
    path = site / url_path(language, page).removeprefix(SITE_PATH) / "index.html"
    assert path.is_file(), f"{language}/{page} was not built at {path}"
    return path


def built_page(site: Path, language: str, page: Path) -> "BeautifulSoup":
    """A page of the built site, parsed (parsed_html)."""
    return parsed_html(built_file(site, language, page))


def prose(text: str) -> str:
    """A page's text without its code fences."""
    return FENCE.sub("", text)


def generated_text(text: str) -> str:
    """The Markdown a page includes outside its code fences: what page.py generated from
    the benchmark's results files."""
    return "\n".join(
        (ROOT / match["target"]).read_text(encoding="utf-8")
        for line in prose(text).splitlines()
        if (match := INCLUDE.match(line))
    )


def is_string(statement: ast.AST) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(
        getattr(statement.value, "value", None), str
    )


def written_output(source: str) -> str:
    """The output written in a snippet, in the file's order: its #> lines and its output
    blocks (strings standing as statements, docstrings aside), whitespace collapsed."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0])
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
    }
    pieces = [
        (node.lineno, node.value.value)
        for node in ast.walk(tree)
        if is_string(node) and id(node) not in docstrings
    ]
    pieces += [
        (number, line.strip()[2:])
        for number, line in enumerate(source.splitlines(), start=1)
        if line.strip().startswith("#>")
    ]
    return " ".join(" ".join(text for _, text in sorted(pieces)).split())
