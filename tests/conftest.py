"""Shared fixtures: one strict build of the site per test session, shared by the workers,
the order that keeps both workers busy, the browser fixtures (tests/browser_fixtures.py) and
a record of the Triton kernels' launches.

The repository's layout is in tests/site_layout.py, a page's text in tests/page_text.py. The
site's own tools (MkDocs, BeautifulSoup, Playwright, the notebook packages) are imported where
they are used: the kernel's tests then run on a GPU machine that has torch, triton,
transformers and pytest but not those (`python -m pytest tests/test_kernel.py`; a test in
tests/test_kernel.py checks it)."""

import gc
import os
import shutil
import time
from pathlib import Path

import pytest
import torch
from site_layout import SITE_PATH, SITE_URL, python_module

# Two workers share the two cores (pytest-xdist, see pyproject.toml): one thread each, here
# and in the processes the tests start (the build's notebook kernels, the benchmark), since
# threads waiting for a busy core slow small operations down many times over.
torch.set_num_threads(1)
os.environ["OMP_NUM_THREADS"] = "1"

# Without a GPU, Triton kernels (the Kernel page's) run under Triton's interpreter. It is read
# when a kernel is defined, so it is set before any test or snippet imports one.
if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")


# The browser's fixtures, registered here for every test file (the GPU machine lacks
# Playwright, which they import only when used).
from browser_fixtures import (  # noqa: F401
    browser,
    empty_search_index,
    home_page,
    page,
    server,
)

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


@pytest.fixture
def triton_launches(monkeypatch) -> list[tuple]:
    """Each launch of the Kernel page's Triton kernels from here on, made as usual and
    written down as (kernel's name, BLOCK_N, BLOCK_M, num_warps, programs); BLOCK_M is 1
    for the wide kernels, which take a row at a time."""
    from snippets.kernel import rms_norm_triton

    launches = []

    class Recorded:
        def __init__(self, jitted):
            self.jitted = jitted

        def __getitem__(self, grid):
            def launch(*args, **options):
                settings = options["BLOCK_N"], options.get("BLOCK_M", 1)
                launches.append(
                    (self.jitted.fn.__name__, *settings, options["num_warps"], grid[0])
                )
                return self.jitted[grid](*args, **options)

            return launch

    monkeypatch.setattr(rms_norm_triton, "_direct", Recorded)
    return launches


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
