"""Shared fixtures: the repository layout and one strict build of the site per test session.

The site's own tools (MkDocs, BeautifulSoup, Playwright, the notebook packages) are imported
where they are used: the kernel's tests then run on a GPU machine that has torch, triton,
transformers and pytest but not those (`python -m pytest tests/test_kernel.py`; a test in
tests/test_kernel.py checks it)."""

import gc
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

import pytest
import torch
import yaml

from scripts.standalone import standalone

if TYPE_CHECKING:
    from bs4 import BeautifulSoup

# Two workers share the two cores (pytest-xdist, see pyproject.toml): one thread each, here
# and in the processes the tests start (the build's notebook kernels, the benchmark), since
# threads waiting for a busy core slow small operations down many times over.
torch.set_num_threads(1)
os.environ["OMP_NUM_THREADS"] = "1"

# Without a GPU, Triton kernels (the Kernel page's) run under Triton's interpreter. It is read
# when a kernel is defined, so it is set before any test or snippet imports one.
if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")


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
# Built as if published under a sub-path, the way a GitHub Pages project site is served.
SITE_URL = "https://docs.example/rmsnorm/"
SITE_PATH = urlparse(SITE_URL).path


FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)\n"
    r"(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
INCLUDE = re.compile(r'^\s*--8<--\s+"(?P<target>[^"]+)"\s*$')
FORMULA = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.DOTALL)
HANGUL = re.compile(r"[\uac00-\ud7a3]")
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)


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


# What a formula left unrendered would show: LaTeX delimiters and commands.
LATEX_LEFT = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\\frac|\\sqrt|\\mathrm|\\varepsilon")


def url_path(language: str, page: Path) -> str:
    """Where a page is served: math.md -> /rmsnorm/math/, ko + math.md -> /rmsnorm/ko/math/."""
    prefix = "" if language == DEFAULT_LANGUAGE else f"{language}/"
    folder = page.parent if page.stem == "index" else page.with_suffix("")
    folder = "" if folder == Path() else f"{folder.as_posix()}/"
    return f"{SITE_PATH}{prefix}{folder}"


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
    from scripts.notebooks import localized, section

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


def built_page(site: Path, language: str, page: Path) -> "BeautifulSoup":
    """A page of the built site, parsed (parsed_html)."""
    served = url_path(language, page).removeprefix(SITE_PATH)
    path = site / served / "index.html"
    assert path.is_file(), f"{language}/{page} was not built at {path}"
    return parsed_html(path)


def prose(text: str) -> str:
    """A page's text without its code fences."""
    return FENCE.sub("", text)


# Under pytest-xdist, the order that keeps both workers busy: the longest computation first,
# so one worker runs it while the other builds the site; then the tests that need the site;
# then the rest, the longest first, so that no worker is left alone with a long test at the end.
LONGEST = "snippets/placement/training.py"
NEXT_LONGEST = [
    "snippets/beyond/training.py",
    "snippets/placement/deep_stack.py",
    "snippets/activations/qk_norm.py",
    "tests/test_benchmark.py",  # one worker runs the file (the smoke run is shared)
    "tests/test_new_page.py",
    "tests/test_kernel.py::test_liger",  # one worker runs the group (26 s)
]
SITE_FIXTURES = {"served_root", "built_site", "server", "browser"}


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """`--update-examples` runs in one process, the snippets first (below): the pages' checks
    of the same run then read the #> lines it wrote, and a new snippet needs one run."""
    if config.getoption("update_examples", False):
        config.option.numprocesses = 0
        config.option.dist = "no"


def pytest_collection_modifyitems(config, items):
    updating = config.getoption("update_examples", False)

    def order(item):
        if updating:
            return 0 if item.nodeid.startswith("tests/test_snippets.py") else 1
        if LONGEST in item.nodeid:
            return 0
        if SITE_FIXTURES & set(item.fixturenames):
            return 1
        return 2 if any(name in item.nodeid for name in NEXT_LONGEST) else 3

    items.sort(key=order)


def _build(root: Path) -> None:
    """`mkdocs build --strict` into <root>/rmsnorm/; any warning fails it."""
    site = root / SITE_PATH.strip("/")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": SITE_URL}
    start = time.perf_counter()
    result = python_module("mkdocs", "build", "--strict", "-d", str(site), env=env)
    log = result.stdout + result.stderr
    assert result.returncode == 0, f"strict build failed:\n{log}"
    assert "WARNING" not in log, f"build logged warnings:\n{log}"
    # Read back by pytest_terminal_summary, which under xdist runs in another process.
    (root / "build-seconds").write_text(f"{time.perf_counter() - start:.1f}")


@pytest.fixture(scope="session")
def served_root(tmp_path_factory, worker_id) -> Path:
    """Run `mkdocs build --strict` once, into <root>/rmsnorm/; return <root>.

    Serving <root> puts the site at SITE_PATH, where its root-absolute links resolve as they
    will on GitHub Pages. Any build warning fails the build. Under pytest-xdist the workers
    share one build: the first to get here builds, the others wait for it.
    """
    if worker_id == "master":  # not under xdist
        root = tmp_path_factory.mktemp("served")
        _build(root)
        return root
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp().parent
    root, built = shared / "served", shared / "served.built"
    with FileLock(shared / "served.lock"):
        if not built.exists():
            # Whatever a build that failed in another worker left behind.
            shutil.rmtree(root, ignore_errors=True)
            _build(root)
            built.touch()
    return root


@pytest.fixture(scope="session")
def built_site(served_root) -> Path:
    """The built site's folder."""
    return served_root / SITE_PATH.strip("/")


def pytest_collection_finish(session):
    # What is alive now (the modules the tests import) lives to the end: kept out of the
    # collector's full passes, which otherwise walk it again and again.
    gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    # The same at the end: a process's exit would otherwise spend seconds collecting the
    # parsed pages (parsed_html), whose trees are cycles that only the collector frees.
    gc.freeze()


def pytest_terminal_summary(terminalreporter):
    base = terminalreporter.config._tmp_path_factory.getbasetemp()
    for record in base.glob("**/build-seconds"):
        terminalreporter.write_line(f"strict build: {record.read_text()} s")


# --- A real browser: Playwright driving Debian's Chromium over the built site on localhost ---

# Debian's headless shell of Chromium (the browser without a window, as Playwright runs
# headless); CHROMIUM_PATH points elsewhere (e.g. /usr/bin/chromium) if needed.
CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium-headless-shell"))
# Chromium as root in a container with no network: no sandbox, no background connections.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # A tab closed mid-transfer (the test moved on) breaks the connection: not the
        # site's fault, and not worth a traceback in the test log.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture(scope="session")
def server(served_root) -> str:
    """Serve the built site on localhost; return the origin, e.g. http://127.0.0.1:41234."""
    handler = partial(_QuietHandler, directory=str(served_root))
    httpd = _QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        message = f"Debian's Chromium is not installed at {CHROMIUM} (apt-get install chromium-headless-shell)"
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail(message + "; REQUIRE_BROWSER is set, so browser tests must run")
        pytest.skip(message + "; browser tests skipped")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, server):
    """A fresh browser tab on the site. `page.problems` collects console errors, failed or
    refused requests, and any request that leaves localhost."""
    context = browser.new_context(
        base_url=server, permissions=["clipboard-read", "clipboard-write"]
    )
    tab = context.new_page()
    tab.problems = []
    tab.on("console", lambda m: m.type == "error" and tab.problems.append(m.text))
    tab.on("pageerror", lambda error: tab.problems.append(f"page error: {error}"))
    # A request the browser cancels because the reader moves on (net::ERR_ABORTED) is not
    # the site's fault: on a busy machine the search worker may still be loading its
    # scripts when a test leaves the page.
    tab.on(
        "requestfailed",
        lambda r: (
            r.failure != "net::ERR_ABORTED"
            and tab.problems.append(f"failed: {r.url} ({r.failure})")
        ),
    )
    tab.on(
        "response",
        lambda r: r.status >= 400 and tab.problems.append(f"HTTP {r.status}: {r.url}"),
    )
    tab.on(
        "request",
        lambda r: (
            not r.url.startswith((server, "data:", "blob:"))
            and tab.problems.append(f"left the site: {r.url}")
        ),
    )
    # Requests not yet answered, and the URLs of those answered (see all_answered).
    tab.pending, tab.answered = set(), []
    tab.on("request", lambda r: tab.pending.add(r))
    for event in ["requestfinished", "requestfailed"]:
        tab.on(event, lambda r: (tab.pending.discard(r), tab.answered.append(r.url)))
    yield tab
    context.close()


# What a page requests after it has loaded: the sitemap of each language, which the language
# selector reads, and the search index, the last thing the search worker loads.
LATE_REQUESTS = {"sitemap.xml": len(LANGUAGES), "search_index.json": 1}


def all_answered(page, timeout_s: float = 30):
    """Wait until the page's late requests have been made and every request is answered, so
    that any failed request or console error it caused has been recorded. (Playwright's
    "networkidle" waits for half a second without requests instead: longer, every time.)"""
    deadline = time.monotonic() + timeout_s
    while page.pending or any(
        sum(url.endswith(f"/{name}") for url in page.answered) < count
        for name, count in LATE_REQUESTS.items()
    ):
        assert time.monotonic() < deadline, (
            f"unanswered: {page.pending or page.answered}"
        )
        page.wait_for_timeout(20)


@pytest.fixture
def empty_search_index(page, built_site):
    """The tab's search worker gets an index of no pages. Building the site's index (1 MB,
    both languages) costs each page load about 0.4 s of CPU, which a test that checks a
    page without searching it need not spend; the search tests use the real index."""
    index = json.loads((built_site / "search" / "search_index.json").read_text())
    empty = {**index, "docs": []}
    page.route("**/search/search_index.json", lambda route: route.fulfill(json=empty))


# A click on each closed block's summary, again for blocks inside the ones just opened.
CLICK_CLOSED_SUMMARIES = """() => {
  for (let depth = 0; depth < 5; depth++) {
    const closed = document.querySelectorAll("article details:not([open]) > summary");
    closed.forEach(summary => summary.click());
  }
}"""


def open_collapsed_blocks(page):
    """Open every collapsed block (the exercises' solutions), as a reader would: by clicking
    its summary (in the page, all at once: a click from Playwright waits for each to be
    scrolled to and stable, about 0.1 s each)."""
    page.evaluate(CLICK_CLOSED_SUMMARIES)
    assert not page.locator("article details:not([open])").count()


def search(page, term: str):
    """Enter `term` into the search box; return the result links."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    field = page.locator("input.md-search__input")
    opener = page.locator("label.md-header__button[for=__search]")
    if opener.is_visible():  # narrow screens: a button opens search as a dialog
        opener.click()
        field.focus()
    else:
        field.click()

    def enter(text):
        # The whole text at once (as a paste or an input method enters it), then a key,
        # since Material reads the query on keyup. Typed letter by letter, a busy machine
        # could show, and the test open, the results of a prefix (교차 for 교차항).
        field.fill(text)
        field.press("End")

    enter(term)
    results = page.locator(".md-search-result__item > a")
    for _ in range(10):
        try:
            results.first.wait_for(timeout=1000)
            return results
        except PlaywrightTimeoutError:
            # Material drops a query entered before its search worker is ready; clearing
            # the box and entering the term again searches again.
            enter("")
            enter(term)
    pytest.fail(f"search for {term!r} shows no results")
