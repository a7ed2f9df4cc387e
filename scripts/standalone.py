"""A snippet as a reader copies it: the script, with the site's helpers it imports written out.

Snippets share code through helper modules of the `snippets` package (for example
snippets/implementations/variants.py), so that it is written once. A reader has no such package.
`standalone()` replaces each `from snippets.<module> import <names>` line of a script with the
definitions those names need from that module (and, in turn, from the helpers it imports), under
a comment naming the file, so the block runs in an empty folder. Definitions keep their comments
and their order; imports the script already made above them are not repeated.

`write_all()` writes the standalone version of every snippet file to a folder that mirrors the
repository (build/standalone/snippets/...). The pages include from that folder first
(mkdocs.yml, pymdownx.snippets' base_path), so a block shows exactly what the reader copies.

    .venv/bin/python -m scripts.standalone snippets/pitfalls/eps_twice.py   # print one
"""

import ast
import functools
import html
import importlib.metadata
import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "snippets"
FOLDER = Path("build") / "standalone"
# Code that, run first, makes the site's own packages unimportable, as they are on a reader's
# machine: the tests run every block after it, and the build runs each notebook after it.
NO_SITE_PACKAGE = """
import sys as _sys


class _NoSitePackage:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {"snippets", "scripts"}:
            message = f"No module named {name!r} (the site's own package)"
            raise ModuleNotFoundError(message, name=name)


_sys.meta_path.insert(0, _NoSitePackage())
del _sys, _NoSitePackage
"""
# pymdownx.snippets' section marks: an inlined helper must not bring its own.
SECTION_MARK = re.compile(r"^\s*# --8<-- \[(?:start|end):[\w-]+\]\s*$")
# The comments around a helper written out (the build folds what lies between them).
_HELPER_START = "# From {name}, one of this site's helper modules:"
_HELPER_END = "# (end of {name})"
_HELPER_LINE = re.compile(
    r"^# (?:From (?P<start>snippets/[\w/]+\.py), one of this site's helper modules:"
    r"|\(end of (?P<end>snippets/[\w/]+\.py)\))$"
)


def _is_site_import(node: ast.AST) -> bool:
    if isinstance(node, ast.ImportFrom):
        module = node.module or ""
        return node.level == 0 and (
            module == PACKAGE or module.startswith(PACKAGE + ".")
        )
    if isinstance(node, ast.Import):
        return any(alias.name.split(".")[0] == PACKAGE for alias in node.names)
    return False


def _module_path(module: str, root: Path) -> Path:
    return root / (module.replace(".", "/") + ".py")


def _site_imports(tree: ast.Module, where: str) -> list[ast.ImportFrom]:
    """The module's top-level `from snippets.x import a, b`; any other form is an error."""
    top = [node for node in tree.body if _is_site_import(node)]
    for node in ast.walk(tree):
        if _is_site_import(node) and (
            node not in top
            or isinstance(node, ast.Import)
            or any(alias.name == "*" or alias.asname for alias in node.names)
        ):
            raise ValueError(
                f"{where}:{node.lineno}: only top-level `from {PACKAGE}.<module> import"
                " <names>` (no `as`, no `*`) can be written out for a reader"
            )
    return top


def _defines(node: ast.stmt) -> set[str]:
    """Names a top-level statement binds."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, ast.Import):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, ast.ImportFrom):
        return {a.asname or a.name for a in node.names}
    return {
        n.id
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


@functools.lru_cache(maxsize=8192)  # a helper's statements, used by many snippets
def _uses(node: ast.stmt) -> frozenset[str]:
    return frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))


@functools.lru_cache(maxsize=256)
def _helper(text: str, where: str) -> tuple[ast.Module, list[ast.ImportFrom]]:
    """A helper module's tree and its imports of other helpers, parsed once per process
    for all the snippets that import it."""
    tree = ast.parse(text)
    return tree, _site_imports(tree, where)


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)


def _is_main_guard(node: ast.stmt) -> bool:
    """`if __name__ == "__main__":`: what the helper does when run as a script."""
    return isinstance(node, ast.If) and "__name__" in {
        n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)
    }


def _needed(tree: ast.Module, names: set[str]) -> list[ast.stmt]:
    """The module's top-level statements that `names` need, directly or through others,
    in the module's order. Statements that bind nothing (other than the docstring and the
    main guard) are kept: they may do something the definitions rely on."""
    body = [
        node
        for node in tree.body
        if not _is_docstring(node) and not _is_main_guard(node)
    ]
    defines = [_defines(node) for node in body]
    missing = set(names).difference(*defines)
    if missing:
        raise ValueError(f"not defined at the top of the module: {sorted(missing)}")
    wanted, kept, uses = set(names), set(), {}
    while True:
        grown = {i for i, bound in enumerate(defines) if not bound or bound & wanted}
        if grown == kept:
            return [body[i] for i in sorted(kept)]
        kept = grown
        for i in kept:
            if i not in uses:  # each statement's names are walked once
                uses[i] = _uses(body[i])
                wanted |= uses[i]


def _plan(tree: ast.Module, where: str, root: Path) -> list[tuple[str, list[ast.stmt]]]:
    """Each helper module the script needs, before the ones that import from it, with the
    statements of it that are needed."""
    wanted: dict[str, set[str]] = {}
    needs: dict[str, set[str]] = {}  # module -> the helper modules it imports from

    def visit(module: str, names: set[str], chain: tuple[str, ...]) -> None:
        if module in chain:
            raise ValueError(
                f"{where}: helpers import each other: {' -> '.join(chain)}"
            )
        wanted.setdefault(module, set()).update(names)
        needs.setdefault(module, set())
        path = _module_path(module, root)
        if not path.is_file():
            raise ValueError(f"{where}: no file {path.relative_to(root)} for {module}")
        relative = str(path.relative_to(root))
        tree, helper_imports = _helper(path.read_text(encoding="utf-8"), relative)
        try:
            kept = _needed(tree, wanted[module])
        except ValueError as error:  # a name the script imports that the helper lacks
            raise ValueError(f"{where}: {relative}: {error}") from error
        used = set(wanted[module]).union(
            *(_uses(node) for node in kept if node not in helper_imports)
        )
        for node in helper_imports:
            if node in kept:
                needs[module].add(node.module)
                visit(
                    node.module, {a.name for a in node.names} & used, (*chain, module)
                )

    for node in _site_imports(tree, where):
        visit(node.module, {alias.name for alias in node.names}, ())
    order: list[str] = []  # each module after the ones it imports from

    def place(module: str) -> None:
        if module not in order:
            for dependency in sorted(needs[module]):
                place(dependency)
            order.append(module)

    for module in wanted:
        place(module)
    result = []
    for module in order:
        path = _module_path(module, root)
        module_tree, _ = _helper(
            path.read_text(encoding="utf-8"), str(path.relative_to(root))
        )
        result.append((module, _needed(module_tree, wanted[module])))
    return result


def _text(lines: list[str], nodes: list[ast.stmt]) -> str:
    """The statements' source with the comments right above each, the helper's spacing
    between neighbours and one blank line where statements were left out."""
    parts, previous_end = [], None
    for node in nodes:
        start = min(
            [node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]
        )
        while start > 1 and lines[start - 2].lstrip().startswith("#"):
            start -= 1
        if previous_end is not None:
            between = lines[previous_end : start - 1]
            if all(not line.strip() for line in between):
                parts += between  # neighbours in the helper: its own spacing
            else:
                parts.append("")  # something left out between them
        parts += lines[start - 1 : node.end_lineno]
        previous_end = node.end_lineno
    return "\n".join(line for line in parts if not SECTION_MARK.match(line))


def section(text: str, name: str | None, where: str = "<snippet>") -> str:
    """A whole snippet, or the lines between its `[start:name]` and `[end:name]` marks,
    without the marks' lines (as pymdownx.snippets shows it)."""
    if name is not None:
        marks = re.search(
            rf"^\s*# --8<-- \[start:{name}\]\n(.*?)^\s*# --8<-- \[end:{name}\]",
            text,
            re.MULTILINE | re.DOTALL,
        )
        if marks is None:
            raise ValueError(f"{where}: no section {name!r}")
        text = marks[1]
    kept = (line for line in text.splitlines() if not SECTION_MARK.match(line))
    return textwrap.dedent("\n".join(kept)).strip()


def standalone(source: str, where: str = "<snippet>", root: Path = ROOT) -> str:
    """`source` (a script, or a notebook cell) with its `from snippets... import` lines
    replaced by what they import, written out."""
    tree = ast.parse(source)
    imports = _site_imports(tree, where)
    if not imports:
        return source
    lines = source.splitlines()
    before = {ast.dump(node) for node in tree.body if node.lineno < imports[0].lineno}
    sections = []
    for module, nodes in _plan(tree, where, root):
        helper = _module_path(module, root)
        helper_lines = helper.read_text(encoding="utf-8").splitlines()
        # Neither the site's own imports nor imports the script made above the helpers.
        nodes = [
            n for n in nodes if not _is_site_import(n) and ast.dump(n) not in before
        ]
        before |= {
            ast.dump(n) for n in nodes if isinstance(n, (ast.Import, ast.ImportFrom))
        }
        name = helper.relative_to(root).as_posix()
        sections.append(
            _HELPER_START.format(name=name)
            + "\n"
            + _text(helper_lines, nodes)
            + "\n"
            + _HELPER_END.format(name=name)
        )
    drop = {i for node in imports for i in range(node.lineno - 1, node.end_lineno)}
    first = imports[0].lineno - 1
    out = []
    for i, line in enumerate(lines):
        if i == first:
            out.append("\n\n".join(sections))
        if i not in drop:
            out.append(line)
    return "\n".join(out) + ("\n" if source.endswith("\n") else "")


def written_out(lines: list[str]) -> tuple[int, int, list[str]] | None:
    """Where a standalone script's written-out helpers lie: the index of the first line and
    of the one after the last, and the helper files, in order; None if there are none."""
    marks = [(i, _HELPER_LINE.match(line)) for i, line in enumerate(lines)]
    marks = [(i, mark) for i, mark in marks if mark]
    if not marks:
        return None
    files = [mark["start"] for _, mark in marks if mark["start"]]
    return marks[0][0], marks[-1][0] + 1, files


# What a folded block says, in each language (shown above the code, and in it as a comment
# drawn by CSS, which Material's copy button does not copy).
FOLD_WORDS = {
    "en": {
        "show": "Show the {lines} lines of the site's helpers written out in this block "
        "so that it runs alone (the copy button copies them either way): {files}",
        "mark": "# … {lines} lines folded: {files}",
    },
    "ko": {
        "show": "이 블록이 단독으로 실행되도록 풀어 쓴 사이트 도우미 코드 {lines}줄 보기: "
        "{files}. 복사 버튼은 펼치지 않아도 이 코드까지 복사합니다.",
        "mark": "# … 접어 둔 {lines}줄: {files}",
    },
}
_TAG = re.compile(r"<[^>]*>")


def _plain(line: str) -> str:
    return html.escape(html.unescape(_TAG.sub("", line)), quote=False)


def _whole_lines(code: str) -> list[str]:
    """The lines of highlighted code, each with its own tags: a tag left open at the end of
    a line (nbconvert's whitespace tokens span lines) is closed there and opened again on
    the next line, so that whole lines can be wrapped."""
    lines, open_tags = [], []
    for line in code.split("\n"):
        text = "".join(open_tags) + line
        for tag in _TAG.findall(line):
            if tag.startswith("</"):
                open_tags.pop()
            elif not tag.endswith("/>"):
                open_tags.append(tag)
        lines.append(text + "</span>" * len(open_tags))
    return lines


def fold(code: str, language: str) -> tuple[str, str] | None:
    """Highlighted code (Pygments' spans, nothing else) with its written-out
    helpers folded: (a disclosure to put above the code, the code with the helpers' lines
    in a `helpers` span and a `fold-mark` after it); None if it has no helpers. The site's
    CSS hides the span unless the disclosure is open or Material is copying the code."""
    lines = _whole_lines(code)
    found = written_out([html.unescape(_TAG.sub("", line)) for line in lines])
    if found is None:
        return None
    first, end, files = found
    words = FOLD_WORDS[language]
    count = end - first
    show = html.escape(words["show"], quote=False).format(
        lines=count, files=", ".join(f"<code>{name}</code>" for name in files)
    )
    mark = html.escape(words["mark"].format(lines=count, files=", ".join(files)))
    folded = "".join(
        [
            *(line + "\n" for line in lines[:first]),
            # Plain text: highlighted, the kernel written out in a few blocks would put a
            # page over the site's weight budget; the helper's own page highlights it.
            '<span class="helpers">',
            *(_plain(line) + "\n" for line in lines[first:end]),
            f'</span><span class="fold-mark" data-note="{mark}"></span>',
            "\n".join(lines[end:]),
        ]
    )
    return f'<details class="helpers"><summary>{show}</summary></details>', folded


@functools.cache
def _distributions() -> dict[str, list[str]]:
    """Top-level module -> the distributions that provide it. Once per process: it reads
    every installed package's file list (about half a second here)."""
    return importlib.metadata.packages_distributions()


@functools.cache
def _version(distribution: str) -> str:
    """Its installed version without a local label: torch's 2.13.0+cpu is the CPU build of
    2.13.0, the version a reader asks pip for. Once per process: each lookup searches
    every installed package's metadata."""
    return importlib.metadata.version(distribution).partition("+")[0]


@functools.lru_cache(maxsize=1024)  # each block is described once per language
def requirements(source: str) -> tuple[tuple[str, str], ...]:
    """(distribution, installed version) of each third-party package the code imports, in
    the order of first import: what a reader installs to get the output shown."""
    modules = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.append(node.module)
    distributions = _distributions()
    found = {}
    for module in modules:
        top = module.partition(".")[0]
        if top in sys.stdlib_module_names or top == "__future__" or top in BESIDE:
            continue
        if top in distributions:
            for name in distributions[top]:
                found.setdefault(name, _version(name))
        else:
            # Not installed here (scripts/serve installs what the build needs, not the
            # libraries the tests compare against): the version the tests run.
            name = _normalized(DISTRIBUTION.get(top, top))
            if name not in _pins():
                raise ValueError(f"{top} is imported but not installed")
            found.setdefault(name, _pins()[name])
    return tuple(found.items())


# Modules a block imports from files beside it, not packages: the checker the Check page
# offers as one file, and the reader's own norm that its CI test imports.
BESIDE = {"check_rmsnorm", "my_norm"}

# Modules imported by a name other than their distribution's.
DISTRIBUTION = {"haiku": "dm-haiku"}


def _normalized(name: str) -> str:
    """A distribution's name as pip compares it: ml_dtypes, ML.Dtypes -> ml-dtypes."""
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.cache
def _pins() -> dict[str, str]:
    """Distribution name (normalized) -> version, from constraints.txt (the versions pip
    installs)."""
    lines = (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
    pairs = (line.split("==") for line in lines if "==" in line and line[:1] != "#")
    return {_normalized(name.strip()): version.strip() for name, version in pairs}


def runs_with(source: str) -> str:
    """ "Python 3.11, torch 2.13.0, ...": what the code needs, at the versions here."""
    python = "Python {}.{}".format(*sys.version_info[:2])
    packages = [f"{name} {version}" for name, version in requirements(source)]
    return ", ".join([python, *packages])


def snippet_files(root: Path = ROOT) -> list[Path]:
    return sorted((root / PACKAGE).rglob("*.py"))


def write_all(root: Path = ROOT) -> Path:
    """Write the standalone version of every snippet file under root/build/standalone/;
    return that folder. Unchanged files are not rewritten (mkdocs serve watches them), and
    those of snippet files since removed or renamed are deleted: a page still including
    one would otherwise build here and fail on a fresh clone."""
    out = root / FOLDER
    sources = {path: path.read_text(encoding="utf-8") for path in snippet_files(root)}
    if _written.get(root) == sources:  # the second language's build, or nothing edited
        return out
    wanted = {out / path.relative_to(root) for path in sources}
    for stale in set(out.rglob("*.py")) - wanted:
        stale.unlink()
    for path, source in sources.items():
        relative = path.relative_to(root)
        text = standalone(source, relative.as_posix(), root)
        target = out / relative
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    _written[root] = sources
    return out


# What write_all last wrote out, per repository: one build writes each language, and
# `mkdocs serve` rebuilds in the same process.
_written: dict[Path, dict[Path, str]] = {}


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "files", nargs="+", help="snippet files, such as snippets/x/y.py"
    )
    for argument in parser.parse_args().files:
        print(standalone(Path(argument).read_text(encoding="utf-8"), argument), end="")
