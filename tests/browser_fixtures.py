"""A real browser: Playwright driving Debian's Chromium over the built site on localhost. The
fixtures (server, browser, page, empty_search_index, home_page) are registered by
tests/conftest.py; the helpers (all_answered, open_collapsed_blocks, search, settle,
toggle_scheme) are imported by the tests that use them."""

import http.server
import json
import os
import sys
import threading
import time
from functools import partial
from pathlib import Path

import pytest
from site_layout import LANGUAGES, url_path

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
    refused requests, and any request that leaves localhost. The tab asks for reduced
    motion, a reader's setting that Material answers by turning its transitions off: the
    state each check reads is the same (settle() waits for it), reached without a quarter
    of a second's wait after each load and each toggle (about 20 s of a run)."""
    context = browser.new_context(
        base_url=server,
        permissions=["clipboard-read", "clipboard-write"],
        reduced_motion="reduce",
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


@pytest.fixture(scope="module")
def home_page(browser, server):
    """A language's home page, in a tab kept open for the searches of the test file that
    asks for it (one tab per language): its search worker builds the index, about a second
    of CPU here, once rather than for every query. The tab does not record problems."""
    context = browser.new_context(base_url=server)
    tabs = {}

    def home(language: str):
        if language not in tabs:
            tabs[language] = context.new_page()
            tabs[language].goto(url_path(language, Path("index.md")))
        return tabs[language]

    yield home
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


def settle(page):
    """Wait until every transition and animation (a toggle's, a fade-in) has ended: colors
    read before would be halfway between two schemes."""
    page.wait_for_function(
        "document.getAnimations().every(a => a.playState != 'running')"
    )


def toggle_scheme(page) -> str:
    """Click the light/dark toggle, as a reader does, let the page settle; return the scheme
    now shown ("default" is light, "slate" dark)."""
    page.locator("form[data-md-component=palette] label:visible").click()
    settle(page)
    return page.locator("body").get_attribute("data-md-color-scheme")


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
    if field.input_value():  # searched before: the old results go first
        field.fill("")
        field.press("End")
        page.locator(".md-search-result__item").first.wait_for(state="detached")

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
