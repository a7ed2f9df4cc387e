"""Every code block runs on its own, exactly as a reader copies it from the built site.

Each block (what its copy button copies, not the snippet file; the test checks it is the built
page's block) runs with the site's Python in an empty temporary folder outside the repository,
after code that makes the site's own packages unimportable (scripts/standalone.py,
NO_SITE_PACKAGE). What it prints must equal its `#>` lines (pytest-examples' check, as in
test_snippets.py), and every output line must follow a print that ran. A block that imports
from `snippets`, or reads a file of the repository, fails, named by page and title. The
notebooks' cells run the same way in the build (tests/test_notebooks.py checks the run).

This is where every snippet's output is checked; test_snippets.py lints them and, with
`--update-examples`, rewrites their `#>` lines.
"""

import html
import os
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from page_text import built_page, includes, read, shown_code, written_output
from site_layout import DOCS, ROOT, pages

from scripts import standalone as scripts_standalone
from scripts.standalone import NO_SITE_PACKAGE, standalone

# What checks one block, run in the block's folder with block.py beside it.
RUNNER = """
import ast
import difflib
import inspect
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest_examples.run_code
from pytest_examples import CodeExample
from pytest_examples.config import ExamplesConfig
from pytest_examples.run_code import find_print_location, run_code


def frames():
    \"\"\"inspect.stack() without reading source: each frame and its file name.\"\"\"
    frame, found = sys._getframe(1), []
    while frame is not None:
        found.append(SimpleNamespace(frame=frame, filename=frame.f_code.co_filename))
        frame = frame.f_back
    return found


# pytest-examples finds where each print is with inspect.stack(), which reads the source of
# every frame and looks through all loaded modules for each: about 13 ms a print with torch
# and transformers loaded, against 0.04 ms. It uses only the frames and their file names.
pytest_examples.run_code.inspect = SimpleNamespace(
    stack=frames, iscoroutinefunction=inspect.iscoroutinefunction
)

path = Path("block.py").resolve()
example = CodeExample.create(path.read_text(encoding="utf-8"), path=path)
config = ExamplesConfig(line_length=88, quotes="double", target_version="py310")
printed, _ = run_code(
    example=example, python_file=path, loader=None, config=config,
    enable_print_mock=True, print_callback=None, include_print=None,
    module_globals=None, call=None,
)
changed = printed.updated_print_statements(example)
# pytest-examples writes a long output's block between \'\'\' lines; black, which lints the
# snippets, turns them into \"\"\" lines. Either is the same output.
if changed is not None:
    changed = re.sub(r"^( *)\'\'\'$", r'\\1\"\"\"', changed, flags=re.MULTILINE)
if changed is not None and changed != example.source:
    diff = difflib.unified_diff(
        example.source.splitlines(keepends=True), changed.splitlines(keepends=True),
        "in the file (its #> lines)", "printed now",
    )
    sys.exit("it printed other lines than its #> lines:\\n" + "".join(diff))

# pytest-examples checks only the output under the prints that ran: output left under a print
# that no longer runs, or under no print, is not compared. Each must follow a print that ran.
ran = {
    find_print_location(example, line)[0]
    for line in {statement.line_no for statement in printed.print_statements()}
}
tree = ast.parse(example.source)
docstrings = {
    id(node.body[0])
    for node in ast.walk(tree)
    if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
}
outputs = [
    node.lineno
    for node in ast.walk(tree)
    if isinstance(node, ast.Expr) and isinstance(getattr(node.value, "value", None), str)
    and id(node) not in docstrings
]
lines = ["", *example.source.splitlines()]  # lines[n] is line n
outputs += [
    number
    for number, line in enumerate(lines)
    if line.lstrip().startswith("#>") and not lines[number - 1].lstrip().startswith("#>")
]
unprinted = sorted(number for number in outputs if number - 1 not in ran)
if unprinted:
    sys.exit(
        "output written where no print ran, at line(s) "
        + ", ".join(f"{number}: {lines[number].strip()}" for number in unprinted)
    )
"""


def shown_scripts() -> tuple[dict[str, Path], dict[str, list[str]]]:
    """Each whole snippet file a page shows (an include without `:section`), with the first
    English page that shows it; then each file with output lines that the pages show only in
    excerpts (`file:section`, each linking the whole file's download), which runs whole too,
    and those excerpts' include targets."""
    shown, excerpts = {}, {}
    for page in pages("en"):
        for target in includes(read(DOCS / "en" / page)):
            path, _, part = target.partition(":")
            if path.endswith(".py") and not part:
                shown.setdefault(path, page)
            elif path.endswith(".py"):
                excerpts.setdefault(path, (page, []))[1].append(target)
    excerpted = {
        path: parts
        for path, parts in excerpts.items()
        if path not in shown and written_output(read(ROOT / path))
    }
    return {**shown, **{path: page for path, (page, _) in excerpted.items()}}, {
        path: targets for path, (_, targets) in excerpted.items()
    }


SCRIPTS, EXCERPTED = shown_scripts()


def copied_block(built_site: Path, page: Path, title: str) -> str:
    """The code of the block titled `title` on the built English page: what its copy button
    copies (Material copies the text of the block's code element)."""
    soup = built_page(built_site, "en", page)
    for block in soup.select(".md-content div.highlight"):
        name = block.select_one(".filename")
        if name is not None and name.get_text(strip=True) == title:
            return block.select_one("pre code").get_text()
    raise AssertionError(f"en/{page}: no code block titled {title}")


# One server per test worker, `python -I` (no PYTHONPATH, no user site) with the site's
# packages refused, imports once what blocks import (together 3-10 s on the development
# machine) and forks a child per block. A block still imports each module itself (a fork
# shares loaded modules, not names); nothing but imports runs before the fork, so no
# thread pool or random state is inherited.
SERVER = f"""{NO_SITE_PACKAGE}
import gc
import os
import runpy
import sys
import tempfile

import flax.linen  # with JAX and Haiku: the Frameworks page's blocks (about 1 s)
import haiku
import jax.numpy
import matplotlib.pyplot
import numpy
import pytest_examples.run_code
import torch
import transformers
import transformers.modeling_utils  # what every model class imports (about 1.5 s)

RUNNER = os.path.join(tempfile.mkdtemp(), "runner.py")  # a file: tracebacks show its lines
with open(RUNNER, "w", encoding="utf-8") as file:
    file.write({RUNNER!r})


def run_block():
    \"\"\"RUNNER's exit status, as `python RUNNER` would give it.\"\"\"
    try:
        runpy.run_path(RUNNER, run_name="__main__")
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            return stop.code or 0
        print(stop.code, file=sys.stderr)
        return 1
    except BaseException:
        sys.excepthook(*sys.exc_info())  # the interpreter's own report, as a script's
        return 1
    return 0


# What is loaded now lives as long as the server: kept out of each child's collections,
# which otherwise walk it (importing JAX here made every small block slower).
gc.freeze()

for line in sys.stdin:  # the block's folder, and a folder for what it writes to stdout/stderr
    folder, output = line.rstrip("\\n").split("\\t")
    child = os.fork()
    if child == 0:
        os.chdir(folder)
        for fd, name in [(1, "stdout"), (2, "stderr")]:
            path = os.path.join(output, name)
            os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
        status = run_block()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    _, status = os.waitpid(child, 0)
    print(os.waitstatus_to_exitcode(status), flush=True)
os._exit(0)  # nothing left to clean up: no teardown of everything imported above
"""


@pytest.fixture(scope="session")
def block_server():
    server = subprocess.Popen(
        [sys.executable, "-I", "-c", SERVER],
        env={**os.environ, "MPLBACKEND": "Agg"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    yield server
    server.stdin.close()
    server.wait(timeout=60)


@pytest.fixture
def run_alone(block_server, tmp_path_factory):
    """Run `code` as block.py in `folder` (empty but for it), the site's packages refused;
    its exit status and what it wrote to stdout and stderr."""

    def run(code: str, folder: Path) -> subprocess.CompletedProcess:
        (folder / "block.py").write_text(code, encoding="utf-8")
        output = tmp_path_factory.mktemp("output")
        block_server.stdin.write(f"{folder.resolve()}\t{output}\n")
        block_server.stdin.flush()
        answer = block_server.stdout.readline()
        assert answer, "the block server stopped"
        printed = {name: (output / name).read_text() for name in ["stdout", "stderr"]}
        return subprocess.CompletedProcess("block.py", int(answer), **printed)

    return run


def failure(result: subprocess.CompletedProcess) -> str:
    return (result.stderr.strip().splitlines() or ["(no error output)"])[-1]


@pytest.mark.parametrize("script", SCRIPTS, ids=str)
def test_a_copied_block_runs_alone_and_prints_its_lines(
    tmp_path: Path, script: str, request, run_alone
):
    if request.config.getoption("update_examples"):
        pytest.skip("the site was built before --update-examples rewrote the #> lines")
    page = SCRIPTS[script]
    # The block as the build makes it, run first: the longest scripts need not wait for the
    # build (the other worker builds meanwhile); then it must be the built page's block.
    code = shown_code(script)
    result = run_alone(code + "\n", tmp_path)
    assert result.returncode == 0, (
        f"en/{page}, block {script}, copied and run alone: {failure(result)}\n"
        f"{result.stderr[-3000:]}\nIf the new output is right, rewrite the #> lines with"
        f" `scripts/test --update-examples -k {Path(script).stem}`."
    )
    if script in EXCERPTED:  # shown in parts: each part is what ran
        for target in EXCERPTED[script]:
            part = shown_code(target).strip()
            assert part in code, f"en/{page}, {target}: shown, but not in what ran"
        return
    built_site = request.getfixturevalue("built_site")
    assert copied_block(built_site, page, script).strip() == code, (
        f"en/{page}, block {script}: the page shows other code than was run"
    )


def test_a_block_that_needs_the_site_package_fails(tmp_path: Path, run_alone):
    # A test of the test: the snippet file itself, not its standalone block, imports a helper.
    dependent = (ROOT / "snippets" / "pitfalls" / "no_upcast.py").read_text()
    assert "from snippets." in dependent
    result = run_alone(dependent, tmp_path)
    assert result.returncode != 0
    assert "No module named 'snippets'" in failure(result)


def test_a_block_that_imports_the_site_scripts_fails(tmp_path: Path, run_alone):
    # Installed editable here, `scripts` imports from any folder, but not on a reader's.
    result = run_alone("import scripts\n", tmp_path)
    assert result.returncode != 0
    assert "the site's own package" in failure(result)


def test_a_block_that_reads_a_repository_file_fails(tmp_path: Path, run_alone):
    reads = 'print(open("snippets/implementations/variants.py").read()[:3])\n#> """\n'
    result = run_alone(reads, tmp_path)
    assert result.returncode != 0 and "FileNotFoundError" in failure(result)


def test_a_block_that_prints_something_else_fails(tmp_path: Path, run_alone):
    result = run_alone("print(1 + 1)\n#> 3\n", tmp_path)
    assert result.returncode != 0 and "#> lines" in result.stderr
    assert "--- in the file (its #> lines)\n+++ printed now\n" in result.stderr
    assert "-#> 3\n+#> 2\n" in result.stderr


@pytest.mark.parametrize(
    "block",
    [
        'if False:\n    print("skipped")\n    #> skipped\nprint(2)\n#> 2\n',
        "print(2)\n#> 2\nabs(-3)\n#> 3\n",
        'print(2)\n#> 2\nx = 3\n"""\n3\n"""\n',
    ],
    ids=["under a print that did not run", "under no print", "an output block"],
)
def test_output_written_where_no_print_ran_fails(tmp_path: Path, run_alone, block: str):
    result = run_alone(block, tmp_path)
    assert result.returncode != 0
    assert "output written where no print ran, at line(s) " in failure(result)


def test_every_script_with_output_lines_is_run_here():
    """Every snippet file with output written in it (#> lines, or a block of output
    standing as a string), found in the folder, not from the pages' includes, is shown on a
    page, whole or in excerpts, and so run here whole; one no page showed would never have
    its output checked. Future snippets too: nothing here lists them."""
    with_output = {
        str(path.relative_to(ROOT))
        for path in (ROOT / "snippets").rglob("*.py")
        if written_output(path.read_text())
    }
    assert with_output - set(SCRIPTS) == set() and len(SCRIPTS) > 50


@pytest.mark.parametrize(
    "line",
    [
        "import snippets.implementations.variants",
        "from snippets.implementations.variants import rms_norm_llama as llama",
        "from snippets.implementations.variants import *",
        "def f():\n    from snippets.implementations.variants import rms_norm_llama",
    ],
)
def test_an_import_that_cannot_be_written_out_stops_the_build(line: str):
    with pytest.raises(ValueError, match=r"<snippet>:\d+: only top-level"):
        standalone(line + "\n")


def test_a_name_the_helper_lacks_is_named_with_the_script_and_the_helper():
    script = "from snippets.implementations.variants import no_such_helper\n"
    with pytest.raises(ValueError) as error:
        standalone(script, "snippets/x/y.py")
    assert str(error.value) == (
        "snippets/x/y.py: snippets/implementations/variants.py: not defined at the top of"
        " the module: ['no_such_helper']"
    )


def test_a_helper_is_written_out_with_only_what_the_script_needs():
    script = "from snippets.implementations.variants import rms_norm_llama\n"
    shown = standalone(script)
    assert "def rms_norm_llama(" in shown and "def rms_norm_gemma(" not in shown
    assert "# From snippets/implementations/variants.py" in shown
    assert "from snippets" not in shown


HELPER = """import math

# The root of two, once.
ROOT2 = math.sqrt(2)


def unused():
    pass


# Twice a number.
def double(x):
    return 2 * x  # exact in binary
"""
SCRIPT = (
    "import math\n\nfrom snippets.demo.helper import ROOT2, double\n\n"
    "print(double(ROOT2))\n"
)


def demo_repository(root: Path) -> Path:
    """A repository whose snippets package holds one helper and one script using it."""
    (root / "snippets" / "demo").mkdir(parents=True)
    (root / "snippets" / "demo" / "helper.py").write_text(HELPER)
    (root / "snippets" / "demo" / "script.py").write_text(SCRIPT)
    return root


def test_a_helper_is_written_out_with_its_comments_and_nothing_twice(tmp_path: Path):
    shown = standalone(SCRIPT, "script.py", demo_repository(tmp_path))
    assert shown == (
        "import math\n\n"  # the script's own import, not repeated from the helper
        "# From snippets/demo/helper.py, one of this site's helper modules:\n"
        "# The root of two, once.\n"
        "ROOT2 = math.sqrt(2)\n\n"  # one blank line where unused() was left out
        "# Twice a number.\n"
        "def double(x):\n"
        "    return 2 * x  # exact in binary\n"
        "# (end of snippets/demo/helper.py)\n\n"
        "print(double(ROOT2))\n"
    )


HELPER_START = "# From snippets/demo/helper.py, one of this site's helper modules:"
HELPER_END = "# (end of snippets/demo/helper.py)"


def test_written_out_helpers_are_folded_and_the_code_keeps_every_character(
    tmp_path: Path,
):
    """What the build shows: the helpers' lines in a span the CSS hides (as plain text),
    the rest as highlighted; a tag that spans lines (nbconvert's whitespace) still nests."""
    shown = standalone(SCRIPT, "script.py", demo_repository(tmp_path))
    lines = [html.escape(line) for line in shown.split("\n")]
    assert lines[:2] == ["import math", ""]
    lines[:2] = ['<span class="kn">import</span> math<span class="w">', "</span>"]
    first, last = lines.index(html.escape(HELPER_START)), lines.index(HELPER_END)
    disclosure, code = scripts_standalone.fold("\n".join(lines), "en")
    count = last - first + 1
    assert f"Show the {count} lines" in disclosure
    assert "<code>snippets/demo/helper.py</code>" in disclosure
    parsed = BeautifulSoup(f"<pre>{code}</pre>", "html.parser")
    folded = parsed.select_one(".helpers")
    assert folded.get_text() == "\n".join(shown.split("\n")[first : last + 1]) + "\n"
    assert folded.find("span") is None  # plain text
    assert f"{count} lines folded" in parsed.select_one(".fold-mark")["data-note"]
    assert parsed.get_text() == shown
    assert scripts_standalone.fold("print(1)\n", "en") is None


def test_write_all_rewrites_what_an_edit_changed_and_only_that(tmp_path: Path):
    root = demo_repository(tmp_path)
    written = scripts_standalone.write_all(root) / "snippets" / "demo" / "script.py"
    assert written.read_text() == standalone(SCRIPT, "script.py", root)
    helper = written.with_name("helper.py")
    (root / "snippets" / "demo" / "helper.py").write_text(
        HELPER.replace("2 * x", "x + x")
    )
    scripts_standalone.write_all(root)  # the helper edited: the script shows the edit
    assert "return x + x" in written.read_text()
    assert helper.read_text().count("x + x") == 1
    edited = written.stat().st_mtime_ns
    scripts_standalone.write_all(root)  # nothing edited: nothing rewritten
    assert written.stat().st_mtime_ns == edited
    # A snippet renamed: its old standalone file goes, or a page still including it would
    # build here and fail on a fresh clone.
    (root / "snippets" / "demo" / "script.py").rename(
        root / "snippets" / "demo" / "renamed.py"
    )
    scripts_standalone.write_all(root)
    assert not written.exists() and written.with_name("renamed.py").is_file()


def test_a_block_names_each_package_it_imports_at_the_pinned_version():
    pins = dict(
        line.split("==")
        for line in (ROOT / "constraints.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    )
    code = "import os\nimport torch\nfrom matplotlib.figure import Figure\n"
    code += "import numpy as np\nimport torch.nn\n"
    named = scripts_standalone.requirements(code)
    assert [name for name, _ in named] == ["torch", "matplotlib", "numpy"]
    for name, version in named:  # 2.13.0, not the CPU build's 2.13.0+cpu: pip's name
        assert version == pins[name], name
    with pytest.raises(ValueError, match="not_a_package is imported but not installed"):
        scripts_standalone.requirements("import not_a_package\n")
    # The files the Check page's CI test imports from beside it are no packages.
    beside = "from check_rmsnorm import check\nfrom my_norm import RMSNorm\n"
    assert scripts_standalone.requirements(beside) == ()


def test_a_package_the_build_lacks_is_named_at_its_pinned_version(monkeypatch):
    # scripts/serve installs what the build needs; the libraries the tests compare
    # against (here keras) are named at the version the tests run.
    installed = {
        top: names
        for top, names in scripts_standalone._distributions().items()
        if top != "keras"
    }
    monkeypatch.setattr(scripts_standalone, "_distributions", lambda: installed)
    scripts_standalone.requirements.cache_clear()
    try:
        named = dict(scripts_standalone.requirements("import keras\n"))
    finally:
        scripts_standalone.requirements.cache_clear()
    assert named == {"keras": scripts_standalone._pins()["keras"]}


def test_every_package_a_block_imports_is_named_with_nothing_installed(monkeypatch):
    """scripts/serve installs the build's packages only: every other package a block or a
    notebook imports is found among the pins by its import name (haiku is dm-haiku,
    ml_dtypes is pinned as ml_dtypes)."""
    monkeypatch.setattr(scripts_standalone, "_distributions", dict)
    scripts_standalone.requirements.cache_clear()
    try:
        for page in pages("en"):
            for target in includes(read(DOCS / "en" / page)):
                if target.split(":")[0].endswith(".py"):
                    scripts_standalone.requirements(shown_code(target))
    finally:
        scripts_standalone.requirements.cache_clear()
