"""The site as a reader uses it, in Chromium: every page in both languages, in one visit each,
loads cleanly and offline, shows its formulas, meets WCAG 2.1 AA (axe), copies code exactly,
fits a phone's screen and switches language to the same page; search finds terms in both
languages; light and dark toggle and follow the reader's setting, and plots turn dark with the
page. With SCREENSHOTS=1 set, the first screens of the pages readers open with a question go
to build/screenshots/ for review."""

import io
import os
from pathlib import Path

import pytest
from axe_checks import check_page_meets_wcag_21_aa
from browser_fixtures import all_answered, open_collapsed_blocks, search, toggle_scheme
from page_text import FORMULA, LATEX_LEFT, includes, prose, read, shown_code
from PIL import Image
from site_layout import DOCS, LANGUAGES, ROOT, all_pages, url_path

PAGES = all_pages()
SCREENSHOTS = ROOT / "build" / "screenshots"


def page_id(param) -> str:
    return str(param)


def other(language: str) -> str:
    return next(lang for lang in LANGUAGES if lang != language)


# A phone's screen, and Playwright's default window, in which the pages are opened.
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 720}


def check_formulas(page, language, path):
    formulas = len(FORMULA.findall(prose(read(DOCS / language / path))))
    # Not the copies of a header's formulas that label a stacked table's cells on a phone.
    rendered = page.locator("article math:not(.column-label *)")
    assert rendered.count() == formulas, "not every formula is rendered as MathML"
    sizes = rendered.evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().width)"
    )
    assert all(width > 0 for width in sizes), "a formula takes no space on the page"
    visible_text = page.locator("article").inner_text()
    assert not LATEX_LEFT.search(visible_text), "raw LaTeX is visible"


COPY_EACH = """async () => {
  const buttons = document.querySelectorAll("article div.highlight button[data-md-type=copy]");
  const copied = [];
  for (const button of [...buttons].slice(1)) {
    button.click();
    copied.push(await navigator.clipboard.readText());
  }
  return copied;
}"""


def check_copy_buttons(page, language, path):
    expected = [
        shown_code(target, language)
        for target in includes(read(DOCS / language / path))
    ]
    buttons = page.locator("article div.highlight button[data-md-type=copy]")
    assert buttons.count() == len(expected), (
        "code blocks differ from the page's includes"
    )
    if not expected:
        return
    if language != "en" and path.parts[0] != "notebooks":
        # The same snippets, shown by the same hooks, as on the English twin, whose visit
        # clicks every button: here the first, as a reader does. (A notebook's code differs
        # between languages: its LANGUAGE knob.)
        expected = expected[:1]
    # The first button clicked as a reader does; the rest from the page in one round trip,
    # each click followed by a read of the clipboard.
    buttons.first.click()
    copied = [page.evaluate("navigator.clipboard.readText()")]
    if len(expected) > 1:
        copied += page.evaluate(COPY_EACH)
    for index, (text, snippet) in enumerate(zip(copied, expected, strict=True)):
        assert text.strip() == snippet, f"code block {index + 1} copies something else"


def check_fits_a_phone(page):
    """Wide code, formulas and figures scroll inside their own boxes; the page itself must
    not. The page stays at a phone's size (no relayout back: nothing after it needs the
    desktop)."""
    page.set_viewport_size(PHONE)
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, f"on a phone the page is {overflow}px wider than the screen"
    check_figures_are_readable(page)
    check_reference_rows_are_stacked(page)
    check_benchmark_rows_keep_one_line(page)
    check_tables_of_words_fit(page)
    check_names_in_tables_stay_whole(page)


FIGURES = (
    "article :is(img[src*='assets/plots/'], img[src*='assets/diagrams/'],"
    " .jp-RenderedImage img)"
)
FIGURE_SIZES = """els => els.map(e => {
  const box = e.closest("p, .jp-OutputArea-output");
  return [e.getBoundingClientRect().width / e.naturalWidth, box.scrollWidth,
          box.clientWidth, getComputedStyle(box).overflowX];
})"""


def check_figures_are_readable(page):
    """Fitted to a phone's column, a figure's 13 px text would be 5 to 6 px high: plots,
    diagrams and notebook figures keep at least 0.75 of their drawn width there (the
    benchmark's plots have phone versions), and one wider than its box scrolls inside it."""
    # Loaded first (the benchmark pages' images in closed tabs need not be, nor are checked),
    # each <picture> showing the source its media query now picks: resized to a phone, the
    # desktop image stays complete until the browser swaps in the phone version.
    page.wait_for_function(
        f"[...document.querySelectorAll({FIGURES!r})].every(image => image.complete"
        " && image.currentSrc === new URL(([...(image.parentElement.matches('picture')"
        " ? image.parentElement.querySelectorAll('source') : [])].find(source =>"
        " matchMedia(source.media).matches)?.srcset ?? image.getAttribute('src')),"
        " document.baseURI).href)"
    )
    sizes = page.locator(FIGURES).evaluate_all(FIGURE_SIZES)
    for index, (scale, content, shown, overflow) in enumerate(sizes):
        assert scale >= 0.75, f"figure {index + 1} is drawn at {scale:.2f} of its size"
        assert content <= shown or overflow == "auto", f"figure {index + 1} is cut off"


def check_reference_rows_are_stacked(page):
    """The rows of the Glossary, on a phone, are blocks: a meaning as wide as the text
    column, not a third of a three-column table's."""
    rows = page.locator("article table:has(td:first-child > span[id])")
    if not rows.count():
        return
    article = page.locator("article").evaluate("e => e.clientWidth")
    widths = rows.locator("td:last-child").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().width)"
    )
    assert min(widths) > 0.8 * article, "the rows with anchors are table columns"


def check_tables_of_words_fit(page):
    """Outside the benchmark's pages, whose tables of figures scroll sideways to be read
    across, a table fits a phone's column: one of four or five columns of words is stacked
    into a card per row, each cell after its column's header (tables.js, extra.css)."""
    if "/benchmark" in page.url:
        return
    wide = page.locator("article .md-typeset__scrollwrap").evaluate_all(
        """boxes => boxes.filter(box => box.scrollWidth > box.clientWidth + 1)
          .map(box => box.querySelector("tr").innerText.slice(0, 50))"""
    )
    assert not wide, f"tables wider than a phone, scrolled sideways: {wide}"
    labels = page.locator("article .comparison td .column-label")
    if labels.count():  # the header is hidden: each cell says its column
        assert labels.first.evaluate("e => getComputedStyle(e).display") == "inline"


def check_names_in_tables_stay_whole(page):
    """A short name in code in a table (a check, an option: `forward`, `--convention`)
    stays on one line on a phone: Material lets code break anywhere, and a narrow column
    showed "forwa" above "rd"."""
    broken = page.locator("article :is(td, th) code").evaluate_all(
        """codes => codes.filter(code => !/\\s/.test(code.textContent)
          && code.textContent.length <= 14 && code.getClientRects().length > 1)
          .map(code => code.textContent)"""
    )
    assert not broken, f"names in tables broken across lines on a phone: {broken}"


def check_benchmark_rows_keep_one_line(page):
    """The benchmark's tables (of each pass, of host time, the compiled layer's and the
    CPU's), on a phone, keep each figure on one line and scroll sideways with the
    implementation's name in view, rather than wrap every cell onto four or five lines; the
    name wraps (a Korean one before its parenthesis too, where it has no space), and leaves
    each figure room to be read whole beside it. Rows in a tab not shown have no lines and
    are skipped."""
    tables = page.locator("article .benchmark-results table")
    if not tables.count():
        return
    rows = tables.evaluate_all(
        """tables => tables
          .flatMap(table => [...table.querySelectorAll("tbody tr")])
          .map(row => {
            // Each figure's lines and the width of its text (not of its cell's padding).
            const figures = [...row.cells].slice(1).map(cell => {
              const text = document.createRange();
              text.selectNodeContents(cell);
              const tops = new Set([...text.getClientRects()].map(r => Math.round(r.top)));
              return [tops.size, text.getBoundingClientRect().width];
            });
            return [Math.max(...figures.map(([lines]) => lines)),
                    row.cells[0].getBoundingClientRect().width,
                    getComputedStyle(row.cells[0]).position, row.cells[0].innerText,
                    Math.max(...figures.map(([, width]) => width)),
                    row.closest(".md-typeset__scrollwrap").clientWidth];
          })"""
    )
    for lines, name_width, position, name, figure_width, shown in rows:
        if not lines:
            continue
        assert lines == 1, f"{name}: a figure on {lines} lines"
        assert name_width <= 0.55 * PHONE["width"], f"{name}: {name_width:.0f}px wide"
        assert figure_width <= shown - name_width, (
            f"{name}: a {figure_width:.0f}px figure beside a {name_width:.0f}px name"
            f" in {shown}px: never seen whole"
        )
        assert position == "sticky", "the implementation's name scrolls away"
    # Sticky in name only if the table itself scrolls (Material's rule, where ours loses on
    # specificity): scrolled to its end, each shown table still shows its first column.
    hidden = tables.evaluate_all(
        """tables => tables.filter(table => table.offsetWidth).flatMap(table => {
          const box = table.closest(".md-typeset__scrollwrap");
          if (box.scrollWidth <= box.clientWidth) return [];
          box.scrollLeft = box.scrollWidth;
          const shown = table.rows[0].cells[0].getBoundingClientRect().left
            >= box.getBoundingClientRect().left - 1;
          box.scrollLeft = 0;
          return shown ? [] : [table.rows[0].innerText.slice(0, 60)];
        })"""
    )
    assert not hidden, (
        f"scrolled sideways, these tables lose their first column: {hidden}"
    )


def check_language_selector(page, server, language, path):
    """The page says its language, and the selector's link to the other language is this
    page's twin: the twin's own visit checks it loads, and clicking the link (which keeps
    the section being read) is test_the_language_switch_keeps_the_section_being_read's."""
    assert page.locator("html").get_attribute("lang") == language
    target = other(language)
    link = page.locator(f".md-select a[hreflang={target}]").first
    href = link.evaluate("a => a.href")  # resolved against the page's address
    assert href.split("#")[0] == server + url_path(target, path)


# The pages a reader opens with a question (Home's routes lead to them): their first screen,
# desktop and phone, light and dark, goes to build/screenshots/ for review when SCREENSHOTS
# is set (`SCREENSHOTS=1 scripts/test -k reader_visits`; about 40 s more on two cores).
SCREENSHOT_PAGES = [
    "index.md",
    "implementations.md",
    "placement.md",
    "kernel.md",
    "benchmark.md",
    "check.md",
]
PLOT = "article img[src*='assets/plots/'], article img[src*='assets/benchmark/']"


def dark_share(png: bytes) -> float:
    """The share of a picture's pixels darker than mid-gray."""
    image = Image.open(io.BytesIO(png)).convert("L")
    return sum(image.histogram()[:128]) / (image.width * image.height)


def save_first_screens(page, language, path):
    """The first screen, desktop and phone, light and dark, to build/screenshots/; a plot
    light on white in the light scheme and dark in the dark one (the reader's toggle)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    stem = Path(path).stem.replace("index", "home")
    toggle = page.locator("form[data-md-component=palette] label:visible")
    for scheme in ("light", "dark"):
        if scheme == "dark":
            page.set_viewport_size(DESKTOP)
            page.evaluate("window.scrollTo(0, 0)")
            toggle.click()
            assert page.locator("body").get_attribute("data-md-color-scheme") == "slate"
        for device, size in (("desktop", DESKTOP), ("phone", PHONE)):
            page.set_viewport_size(size)
            shot = SCREENSHOTS / f"{stem}-{language}-{device}-{scheme}.png"
            page.screenshot(path=shot)
            assert shot.stat().st_size > 10_000, f"{shot.name} looks blank"
        if stem == "home" and scheme == "light":  # the first formula, for review
            formula = page.locator("article .math-block").first
            formula.screenshot(path=SCREENSHOTS / f"home-{language}-formula.png")
        plot = page.locator(f"{PLOT} >> visible=true").first
        if plot.count():
            share = dark_share(plot.screenshot())
            assert (share > 0.5) == (scheme == "dark"), f"{scheme}: {share:.0%} dark"
    page.set_viewport_size(DESKTOP)
    page.evaluate("window.scrollTo(0, 0)")
    toggle.click()  # back to light for the rest of the visit


@pytest.mark.usefixtures("empty_search_index")
@pytest.mark.parametrize("language, path", PAGES, ids=page_id)
def test_reader_visits_the_page(page, server, language, path):
    """One visit per page, as a reader makes it: the page loads cleanly (with SCREENSHOTS=1
    set, the first screens of six pages are saved for review) and shows its formulas; every
    solution opened, axe finds no serious violation (tests/axe_checks.py), each copy button
    copies its snippet and nothing is wider than a phone's screen; and the language selector
    links to the same page in the other language."""
    page.emulate_media(color_scheme="light")  # a reader whose system setting is light
    page.goto(url_path(language, path))
    if os.environ.get("SCREENSHOTS") and str(path) in SCREENSHOT_PAGES:
        all_answered(page)
        save_first_screens(page, language, path)
    check_formulas(page, language, path)
    open_collapsed_blocks(page)
    check_page_meets_wcag_21_aa(page, language)
    check_copy_buttons(page, language, path)
    check_fits_a_phone(page)
    all_answered(page)
    assert page.problems == []
    check_language_selector(page, server, language, path)
    assert page.problems == []


FONT = "STIX Two Math (site)"
SHADOWS = """() => [...document.querySelectorAll("article .math-block")]
  .filter((box) => box.scrollWidth > box.clientWidth)
  .map((box) => getComputedStyle(box).backgroundImage)"""


@pytest.mark.parametrize("language", LANGUAGES)
def test_formulas_are_set_in_the_sites_math_font_and_wide_ones_show_they_scroll(
    page, language
):
    page.set_viewport_size(PHONE)
    page.goto(url_path(language, Path("math.md")))
    all_answered(page)
    page.evaluate("document.fonts.ready.then(() => true)")
    statuses = page.evaluate(
        f"[...document.fonts].filter(f => f.family.includes({FONT!r})).map(f => f.status)"
    )
    assert statuses == ["loaded"], "the site's math font is not in use"
    assert any(
        url.endswith("/assets/fonts/stix-two-math.woff2") for url in page.answered
    )
    wide = page.evaluate(SHADOWS)
    assert wide, "no formula wider than a phone to check"
    assert all(image.count("radial-gradient") == 2 for image in wide)


def test_the_language_switch_keeps_the_section_being_read(page, server):
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    placement, section = Path("placement.md"), "#training-a-tiny-language-model"
    page.goto(url_path("en", placement) + section)
    on_screen = f"""() => {{
      const box = document.querySelector("{section}").getBoundingClientRect();
      return box.top >= 0 && box.top < innerHeight;
    }}"""

    # What language.js reads at a click: the address's anchor, and the headings near the
    # top of the window (a failure shows them).
    reading = """() => [location.hash, ...[...document.querySelectorAll(
      "article :is(h2, h3, h4)[id]")].map(h => [h.id, h.getBoundingClientRect().top])
      .filter(([, top]) => Math.abs(top) < 400)]"""

    def switch_to(target):
        page.locator(".md-select").first.hover()
        link = page.locator(f".md-select a[hreflang={target}]").first
        link.wait_for(state="visible")
        before = page.evaluate(reading)
        # The mouse pressed where the link is, as a reader clicks. With Playwright's
        # click(), which first scrolls its target into view, the page once moved between
        # this read and the click: the heading read at -50 px was below 100 px, and the
        # section before it opened.
        box = link.bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        expected = server + url_path(target, placement) + section
        try:
            page.wait_for_url(expected, timeout=15_000)
        except PlaywrightTimeoutError:
            raise AssertionError(
                f"opened {page.url}; before the click: {before}"
            ) from None
        page.wait_for_function(on_screen)  # opened at that section

    for target in ("ko", "en"):  # an address with the section's anchor
        page.wait_for_function(on_screen)  # the section the reader sees
        switch_to(target)
    # A reader who scrolled instead: no anchor, the section's heading just above the top.
    # The page is read once it has settled (fonts, late requests); the scroll is repeated
    # until a frame leaves the heading where it was put, as a busy machine may lay the page
    # out again after the first scroll.
    page.goto(url_path("en", placement))
    page.evaluate("document.fonts.ready.then(() => true)")
    all_answered(page)
    page.wait_for_function(f"""() => {{
      const top = document.querySelector("{section}").getBoundingClientRect().top;
      if (Math.abs(top + 50) < 1) return true;
      scrollBy(0, top + 50);
      return false;
    }}""")
    switch_to("ko")
    assert page.problems == []


def test_korean_breaks_lines_between_words_in_links_too(page):
    """Korean wraps between words (keep-all), links and the navigation's titles included:
    Material's rules would otherwise break a word between two syllables."""
    page.set_viewport_size(PHONE)
    page.goto(url_path("ko", Path("benchmark_results.md")))
    text = "article p, article li, article a, .md-nav__link"
    breaks = page.locator(text).evaluate_all(
        "els => [...new Set(els.map(e => getComputedStyle(e).wordBreak))]"
    )
    assert breaks == ["keep-all"]


def test_wide_tables_code_and_figures_on_a_phone_show_that_they_scroll(page):
    """A shadow marks the edge past which a table or a code block goes on (tables.js marks
    it as the box scrolls, extra.css draws it) and a figure's edges carry the formulas'
    shadows: without them a phone showed Placement's diagram with its second panel out of
    sight, and a code block's printed figures past its edge. Every diagram now has a phone
    version, so one is widened here to stand for a wide figure; a notebook's figures have
    none (the Playground's histograms hid two of their four columns without a mark)."""
    page.set_viewport_size(PHONE)
    page.goto(url_path("en", Path("benchmark_results.md")))
    wide = "article .md-typeset__scrollwrap"
    box = page.locator(wide).first
    assert box.evaluate("box => box.scrollWidth > box.clientWidth")
    edges = "box => [...box.classList].filter(name => name.startsWith('more-'))"
    assert box.evaluate(edges) == ["more-right"]
    assert "inset" in box.evaluate("box => getComputedStyle(box).boxShadow")
    box.evaluate("box => { box.scrollLeft = box.scrollWidth; }")
    page.wait_for_function(
        f"document.querySelector({wide!r}).classList.contains('more-left')"
    )
    assert box.evaluate(edges) == ["more-left"]
    page.goto(url_path("en", Path("beyond.md")))
    code = page.locator("article pre > code").first  # the page's first block, 88 wide
    assert code.evaluate("code => code.scrollWidth > code.clientWidth")
    assert code.evaluate(edges) == ["more-right"]
    assert "inset" in code.evaluate("code => getComputedStyle(code).boxShadow")
    figure = page.locator("article p:has(> a img[src*='assets/diagrams/'])").first
    assert figure.evaluate("p => p.scrollWidth <= p.clientWidth")  # its phone version
    figure.locator("img").evaluate("img => { img.style.minWidth = '600px'; }")
    assert figure.evaluate("p => p.scrollWidth > p.clientWidth")
    shadows = figure.evaluate("p => getComputedStyle(p).backgroundImage")
    assert shadows.count("radial-gradient") == 2
    # The diagram is opaque: the shadows show only where it blends with them.
    blend = figure.locator("img").evaluate("img => getComputedStyle(img).mixBlendMode")
    assert blend == "darken"
    # A notebook's figure, wider than a phone, shows the same edges where it scrolls.
    page.goto(url_path("en", Path("notebooks/playground.md")))
    output = page.locator("article .jp-RenderedImage.jp-OutputArea-output").first
    assert output.evaluate("box => box.scrollWidth > box.clientWidth")
    shadows = output.evaluate("box => getComputedStyle(box).backgroundImage")
    assert shadows.count("radial-gradient") == 2
    blend = output.locator("img").evaluate("img => getComputedStyle(img).mixBlendMode")
    assert blend == "darken"


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_phone_shows_the_headline_tables_kernel_beside_f_rms_norm(page, language):
    """Cells fitted to their content on a phone (Material's 5rem header cells would show
    three of the headline's six columns): N, timing, F.rms_norm and the kernel at least."""
    page.set_viewport_size(PHONE)
    page.goto(url_path(language, Path("benchmark_results.md")))
    headers = page.locator("article table").first.locator("th")
    edges = headers.evaluate_all("els => els.map(e => e.getBoundingClientRect().right)")
    assert sum(edge <= PHONE["width"] for edge in edges) >= 4


@pytest.mark.parametrize(
    "language, term, expected_pages",
    [
        ("ko", "교차항", ["math.md"]),  # "cross term": only on the Korean Math page
        ("ko", "정규화", []),  # "normalization": on several pages
        # The pages write ε and Triton; each names them in Korean once.
        ("ko", "엡실론", ["math.md", "implementations.md", "pitfalls.md"]),
        ("ko", "트리톤", ["kernel.md"]),
        # Other spellings a Korean reader types, which the Glossary gives.
        ("ko", "입실론", ["glossary.md"]),
        ("ko", "정규화층", ["glossary.md"]),
        ("en", "invisible", ["math.md"]),  # only on the English Math page
        ("en", "pre-norm", []),
        ("en", "LayerNorm", []),
    ],
)
def test_search_finds_a_term_in_the_readers_language_and_opens_the_page(
    page, server, language, term, expected_pages
):
    page.goto(url_path(language, Path("index.md")))
    results = search(page, term)
    hrefs = [
        href.split("?")[0].split("#")[0]
        for href in results.evaluate_all("links => links.map(a => a.href)")
    ]
    other = [href for href in hrefs if (language == "ko") != ("/ko/" in href)]
    assert other == [], f"results in the other language for {term!r}"
    for expected in expected_pages:
        assert server + url_path(language, Path(expected)) in hrefs, expected
    previews = page.locator(".md-search-result__article").all_inner_texts()
    assert not any("import torch" in preview for preview in previews), "code previews"
    results.first.click()
    page.wait_for_load_state()
    if expected_pages:
        assert page.url.split("?")[0].split("#")[0] == hrefs[0]
    assert page.locator("html").get_attribute("lang") == language
    assert term.lower() in page.locator("article").inner_text().lower()
    assert page.problems == []


def result_pages(home_page, query: str, language: str = "ko") -> list[str]:
    """The addresses of what a search from the home page lists, in order."""
    links = search(home_page(language), query)
    return links.evaluate_all("links => links.map(a => a.href.split('?')[0])")


@pytest.mark.parametrize("word, particle", [("오버플로", "를"), ("RMSNorm", "은")])
def test_a_korean_search_finds_a_word_whatever_particle_follows_it(
    home_page, word, particle
):
    """The index keeps 오버플로를 and 오버플로가 as two words, and a query's word matches
    the words it begins: "오버플로를" found one page of the 11 that "오버플로" finds, until
    hooks/search.py dropped a particle from a query's word."""
    bare = result_pages(home_page, word)
    assert len(bare) >= 5
    assert result_pages(home_page, word + particle) == bare


@pytest.mark.parametrize(
    "language, term, expected",
    [
        ("ko", "기울기", "gradients.md"),
        ("ko", "허깅페이스", "implementations.md"),
        ("ko", "레이어놈", "math.md"),
        ("ko", "엡실론", "math.md"),
        ("ko", "융합", "kernel.md"),
        ("ko", "오토캐스트", "implementations.md"),
        ("ko", "그라디언트", "gradients.md"),
        ("ko", "소프트캡", "activations.md"),
        ("en", "huggingface", "implementations.md"),
        ("en", "bf16", "pitfalls.md"),
        ("en", "epsilon", "math.md"),
        ("en", "speed claims", "pitfalls.md"),
    ],
)
def test_a_readers_word_finds_the_page_that_answers_it_first(
    home_page, server, language, term, expected
):
    """Words readers type for a term the site writes another way (그래디언트, 소프트 캡핑, 야코비 행렬,
    퓨즈, autocast, Hugging Face, LayerNorm, bfloat16), given as the page's `tags`, which Material's search
    indexes (a tag outranks any heading: claims keeps Pitfalls' "Speed claims" first over
    Benchmark results' speed); and epsilon and 엡실론, which Math's heading on where ε goes
    names (Frameworks and Implementations came first before it did)."""
    found = result_pages(home_page, term, language)
    assert found[0] == server + url_path(language, Path(expected))


@pytest.mark.parametrize(
    "language, term",
    [("en", "QK-norm"), ("en", "Llama 3 eps"), ("ko", "Llama 3 엡실론")],
)
def test_search_lists_a_page_that_explains_the_term_first(home_page, language, term):
    """The Exercises (search boost 0.1) and the notebooks (0.25) touch every topic, the
    Exercises' numbered titles match a query's numbers, and so do the GPU pages' tables
    (0.5): unboosted, the first result for each of these terms was one of them (for the
    Korean one, the Exercises at 0.25)."""
    href = result_pages(home_page, term, language)[0]
    assert not any(
        url_path(language, Path(demoted)) in href
        for demoted in ["exercises.md", "notebooks/playground.md", "benchmark_h200.md"]
    ), href


@pytest.mark.parametrize(
    "language, none",
    [("en", "No matching documents"), ("ko", "검색어와 일치하는 문서가 없습니다")],
)
def test_a_search_that_finds_nothing_says_so_in_the_readers_language(
    page, language, none
):
    page.goto(url_path(language, Path("index.md")))
    field = page.locator("input.md-search__input")
    field.click()
    field.fill("zqxjv")
    field.press("End")
    meta = page.locator(".md-search-result__meta")
    meta.filter(has_text=none).wait_for(timeout=10_000)
    assert page.locator(".md-search-result__item").count() == 0


# The words of lunr's trie inside the search worker, as the site serves it, that no page has:
# a worker of the test's own loads Material's (its lunr files found beside it), builds the
# page's index and, at the first query, reports them (hooks/search.py names the trie's nodes
# apart; without that, the Korean site's searches for "1", "2" and "3" failed on 2026-12-06).
WORDS_NO_PAGE_HAS = """async () => {
  const config = JSON.parse(document.querySelector("#__config").textContent);
  const base = new URL(config.base, location.href);
  const worker = new URL(config.search, base).href;
  const source = `
    const load = self.importScripts.bind(self);
    self.importScripts = (...urls) => load(...urls.map(url => new URL(url, "${worker}").href));
    importScripts("${worker}");
    const query = lunr.Index.prototype.query;
    lunr.Index.prototype.query = function (build) {
      const words = this.tokenSet.toArray();
      const absent = words.filter(word => !(word in this.invertedIndex));
      postMessage({words: words.length, absent: absent.slice(0, 5)});
      return query.call(this, build);
    };`;
  const probe = new Worker(URL.createObjectURL(new Blob([source])));
  const replies = [];
  const next = () => new Promise(resolve => replies.push(resolve));
  probe.onmessage = event => replies.shift()(event.data);
  const index = await (await fetch(new URL("search/search_index.json", base))).json();
  probe.postMessage({type: 0, data: {...index, options: {suggest: false}}});
  await next();  // the index is built
  probe.postMessage({type: 2, data: "3"});
  const found = await next();
  probe.terminate();
  return found;
}"""


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_search_worker_holds_no_word_that_no_page_has(page, language):
    page.goto(url_path(language, Path("index.md")))
    found = page.evaluate(WORDS_NO_PAGE_HAS)
    assert found["words"] > 1000
    assert found["absent"] == [], (
        "lunr's trie holds words no page has (hooks/search.py)"
    )


def test_light_and_dark_follow_the_reader_toggle_and_persist(page):
    def scheme() -> str:
        return page.locator("body").get_attribute("data-md-color-scheme")

    def toggle():
        page.locator("form[data-md-component=palette] label:visible").click()

    # A reader whose system setting is dark (light is checked on every page, by its visit).
    page.emulate_media(color_scheme="dark")
    page.goto(url_path("en", Path("math.md")))
    assert scheme() == "slate", "the site does not follow the reader's dark setting"
    toggle()
    assert scheme() == "default"
    page.goto(url_path("ko", Path("math.md")))
    assert scheme() == "default", "the choice does not carry over to the next page"
    toggle()
    assert scheme() == "slate"


@pytest.mark.usefixtures("empty_search_index")
@pytest.mark.parametrize("language", LANGUAGES)
def test_plots_turn_dark_with_the_page(page, language):
    """A plot is light on white in the light scheme and dark in the dark one, after the
    reader's toggle (the plots are drawn for white; the site's CSS turns them)."""
    page.goto(url_path(language, Path("placement.md")))
    plot = page.locator(f"{PLOT} >> visible=true").first
    assert plot.evaluate("img => img.complete && img.naturalWidth > 0"), "not loaded"
    # Mostly the page's color, and a drawing on it: a blank plot shows the page alone.
    light = dark_share(plot.screenshot())
    assert 0.01 < light < 0.5, f"light page: {light:.1%} of the plot dark"
    assert toggle_scheme(page) == "slate"
    dark = dark_share(plot.screenshot())
    assert 0.5 < dark < 0.99, f"dark page: {dark:.1%} of the plot dark"
