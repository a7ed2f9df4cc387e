"""The built site: both languages, MathML formulas, no third-party requests, language links to
the twin page, each page's own description (for search results and link previews), Korean
navigation titles, one search index for both languages, and code blocks that show their
snippet files unchanged."""

import json
import re
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urljoin

import pytest
from bs4 import NavigableString, Tag
from mkdocs.exceptions import PluginError
from page_text import (
    FORMULA,
    HANGUL,
    LATEX_LEFT,
    built_file,
    built_page,
    description,
    includes,
    parsed_html,
    prose,
    read,
    shown_code,
)
from site_layout import (
    DOCS,
    LANGUAGES,
    ROOT,
    SITE_PATH,
    SITE_URL,
    all_pages,
    i18n_language,
    mkdocs_config,
    nav_titles,
    pages,
    url_path,
)

from hooks import numbers as numbers_hook
from hooks import phone_figures as phone_figures_hook
from hooks import standalone as standalone_hook
from scripts import diagrams, standalone

PAGES = all_pages()
# Requests a page makes by itself (not links a reader may follow).
LOADING_ATTRIBUTES = {
    "script": "src",
    "img": "src",
    "iframe": "src",
    "source": "src",
    "audio": "src",
    "video": "src",
    "embed": "src",
    "object": "data",
}
NOT_LOADED_LINKS = {"alternate", "canonical"}
REMOTE = re.compile(r"^\s*['\"]?\s*(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)


def css_urls(css: str) -> list[str]:
    return [
        a or b for a, b in re.findall(r"url\(([^)]*)\)|@import\s+(['\"][^'\"]+)", css)
    ]


def page_id(param) -> str:
    return f"{param[0]}/{param[1]}" if isinstance(param, tuple) else str(param)


def strings_outside(tag, skipped: set[str]):
    """The text strings under `tag`, but those inside a `skipped` element, walked once
    (a find_parent per string climbs the tree again for each: 0.2 s on a page of code)."""
    for child in tag.children:
        if type(child) is NavigableString:
            yield child
        elif isinstance(child, Tag) and child.name not in skipped:
            yield from strings_outside(child, skipped)


@pytest.mark.parametrize("language, page", PAGES, ids=page_id)
def test_formulas_are_rendered_to_mathml(built_site, language, page):
    soup = built_page(built_site, language, page)
    content = soup.select_one("article.md-content__inner")
    assert not content.select(".arithmatex"), "a formula was left for JavaScript"
    formulas = FORMULA.findall(prose(read(DOCS / language / page)))
    blocks = sum(1 for block, _ in formulas if block)  # $$...$$
    assert len(content.find_all("math")) == len(formulas)
    # Browsers do not break lines inside MathML: on a phone a long formula would widen the
    # page unless it sits in a box that scrolls sideways (the site's CSS styles both boxes).
    # A $$ formula is a displayed block of its own, a $ formula sits in its line.
    displayed = content.select("div.math-block > math[display=block]")
    in_line = content.select("span.math-inline > math:not([display=block])")
    assert (len(displayed), len(in_line)) == (blocks, len(formulas) - blocks), (
        "a formula outside its scrolling box, or displayed in a line, or the reverse"
    )
    # Chromium draws no bar over a root of one short letter (ε) unless the hook gives the
    # radicand a digit's height.
    lone = [
        str(root)
        for root in content.find_all("msqrt")
        if [child.name for child in root.find_all(recursive=False)] in (["mi"], ["mn"])
    ]
    assert not lone, f"a root over one token, drawn without its bar: {lone[:3]}"
    for space in content.select("msqrt > mspace:first-child"):
        assert space["height"] == "0.68em", str(space.parent)  # a digit's height
    # What only the search index reads is gone from the page (hooks/mathml.py).
    assert not content.select(".search-only, [data-search-exclude]")
    # The page's text outside formulas and code (read, not cut out: a copy costs more).
    text = "".join(strings_outside(content, {"math", "pre", "code"}))
    leftover = LATEX_LEFT.search(text)
    assert leftover is None, f"raw LaTeX left on the page: {leftover[0]!r}"


def test_nothing_is_loaded_from_another_host(built_site):
    for path in sorted(built_site.rglob("*.html")):
        soup = parsed_html(path)
        urls = [
            element.get(attribute)
            for tag, attribute in LOADING_ATTRIBUTES.items()
            for element in soup.find_all(tag)
        ] + [
            link.get("href")
            for link in soup.find_all("link")
            if not NOT_LOADED_LINKS & set(link.get("rel", []))
        ]
        urls += [  # each candidate of a srcset: "URL [width or density], ..."
            candidate.split()[0]
            for element in soup.find_all(srcset=True)
            for candidate in element["srcset"].split(",")
            if candidate.strip()
        ]
        urls += [
            url for style in soup.find_all("style") for url in css_urls(style.text)
        ]
        urls += [
            url
            for element in soup.find_all(style=True)
            for url in css_urls(element["style"])
        ]
        for url in filter(None, urls):
            assert not REMOTE.match(url), f"{path.relative_to(built_site)} loads {url}"
    for path in sorted(built_site.rglob("*.css")):
        for url in css_urls(path.read_text(encoding="utf-8")):
            assert not REMOTE.match(url), f"{path.relative_to(built_site)} loads {url}"


@pytest.mark.parametrize("language, page", PAGES, ids=page_id)
def test_language_selector_leads_to_the_same_page(built_site, language, page):
    here = url_path(language, page)
    selector = built_page(built_site, language, page).select(".md-select a[hreflang]")
    targets = {link["hreflang"]: urljoin(here, link["href"]) for link in selector}
    assert targets == {other: url_path(other, page) for other in LANGUAGES}


@pytest.mark.parametrize("language, page", PAGES, ids=page_id)
def test_each_page_gives_search_results_and_link_previews_its_description(
    built_site, language, page
):
    soup = built_page(built_site, language, page)
    # Notebook pages included: hooks/notebooks.py carries their front matter over.
    described = description(DOCS / language / page)
    meta = soup.select('meta[name="description"]')
    assert [tag["content"] for tag in meta] == [described]
    # Open Graph (overrides/main.html), which chat apps and social sites read.
    site = (mkdocs_config() | i18n_language(language))["site_name"]
    tags = soup.select('meta[property^="og:"]')
    graph = {tag["property"]: tag["content"] for tag in tags}
    assert len(graph) == len(tags), "an Open Graph property given twice"
    title = graph.pop("og:title")
    assert graph == {
        "og:type": "website",
        "og:site_name": site,
        "og:description": described,
        "og:url": soup.select_one('link[rel="canonical"]')["href"],
        "og:locale": {"en": "en_US", "ko": "ko_KR"}[language],
    }
    # The page's title without the site's name (which the home page's title is alone).
    assert soup.title.get_text() in (f"{title} - {site}", site) and title != site


@pytest.mark.parametrize("language", LANGUAGES)
def test_navigation_titles_are_in_the_page_language(built_site, language):
    english = nav_titles(mkdocs_config()["nav"])
    if language == "en":
        expected = english
    else:
        words = i18n_language(language).get("nav_translations", {})
        expected = [words.get(title, f"{title} (untranslated)") for title in english]
    for page in pages(language):
        nav = built_page(built_site, language, page).select_one("nav.md-nav--primary")
        # Each entry's first link or label: a page's title, or a section's (the open
        # page's own table of contents, a nav inside its entry, left out).
        items = [
            li.select_one(":scope > :is(a, label)")
            for li in nav.select("li.md-nav__item")
            if li.find_parent("nav", class_="md-nav--secondary") is None
        ]
        shown = [item.get_text(strip=True) for item in items]
        assert shown == expected, f"{language}/{page}"


# What the theme and the toc extension write in English unless told otherwise.
ENGLISH_INTERFACE = (
    "Switch to dark mode",
    "Switch to light mode",
    "Permanent link",
    "Made with",
)
# Material's Korean strings drop spaces and use -세요; overrides/partials/language.html fixes them.
MATERIAL_KOREAN = ("세요", "언어설정", "맨위로", "하단/푸터", "네비게이션")


def interface_strings(soup) -> list[str]:
    """The theme's text for the reader: labels, titles, placeholders, the strings its
    JavaScript shows (search results, copy button), and the footer's license line and credit."""
    attributes = ("aria-label", "title", "placeholder")
    strings = [tag[name] for name in attributes for tag in soup.select(f"[{name}]")]
    config = json.loads(soup.select_one("script#__config").string)
    strings += config["translations"].values()
    footer = soup.select_one(".md-copyright")
    license_line = " ".join(
        footer.select_one(".md-copyright__highlight").get_text().split()
    )
    credit = " ".join(footer.get_text().split()).removeprefix(license_line).strip()
    return strings + [license_line, credit]


@pytest.mark.parametrize("language, page", PAGES, ids=page_id)
def test_interface_labels_are_in_the_page_language(built_site, language, page):
    soup = built_page(built_site, language, page)
    toggles = soup.select("input[name=__palette]")
    permalinks = soup.select("article a.headerlink")
    labels = [toggle["aria-label"] for toggle in toggles] + [
        anchor.get("title") for anchor in permalinks
    ]
    assert len(toggles) == 2, f"{language}/{page}: the palette toggles were not found"
    assert None not in labels, f"{language}/{page}: a heading's permalink has no title"
    interface = interface_strings(soup)
    if language == "ko":
        assert [label for label in labels if not HANGUL.search(label)] == []
        html = built_file(built_site, language, page).read_text(encoding="utf-8")
        assert [text for text in ENGLISH_INTERFACE if text in html] == []
        assert [s for s in interface if any(w in s for w in MATERIAL_KOREAN)] == []
        assert "Material for MkDocs로 만들었습니다" in interface
        assert "코드, 글, 그림 모두 MIT 라이선스를 따릅니다" in interface
    else:
        assert [label for label in labels if HANGUL.search(label)] == []
        assert [s for s in interface if HANGUL.search(s) and s != "한국어"] == []
        assert "Made with Material for MkDocs" in interface
        assert "Code, text and figures under the MIT License" in interface


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_has_its_own_search_index_without_code(built_site, language):
    """hooks/search.py: the index a language's pages load holds exactly that language's
    pages, located relative to its folder; code blocks are kept out of it."""
    folder = "" if language == LANGUAGES[0] else f"{language}/"
    index = json.loads(
        (built_site / folder / "search" / "search_index.json").read_text()
    )
    located = {entry["location"].split("#")[0] for entry in index["docs"]}
    expected = {
        url_path(language, page).removeprefix(SITE_PATH + folder)
        for lang, page in PAGES
        if lang == language
    }
    assert located == expected
    text = " ".join(entry["text"] for entry in index["docs"])
    assert "def rms_norm_triton" not in text and "import torch" not in text
    soup = built_page(built_site, language, Path("math.md"))
    config = json.loads(soup.select_one("script#__config").string)
    assert config["base"].endswith(f"/{folder}" if folder else "..")


@pytest.mark.parametrize("language", LANGUAGES)
def test_search_reads_a_formula_as_one_line_of_text(built_site, language):
    """hooks/mathml.py: Placement's $1/\\sqrt{48}$ is "1/√48" in the search index, not its
    MathML's bare tokens, "1/48"; the definition on Math is one readable line."""
    folder = "" if language == LANGUAGES[0] else f"{language}/"
    index = json.loads(
        (built_site / folder / "search" / "search_index.json").read_text()
    )
    text = {
        page: " ".join(
            entry["text"]
            for entry in index["docs"]
            if entry["location"].startswith(f"{page}/")
        )
        for page in ("placement", "math")
    }
    assert "1/√48" in text["placement"] and "1/48" not in text["placement"]
    assert "y = γ⊙x / √((1/n)∑_i x_i²+ε)" in text["math"]


@pytest.mark.parametrize("language, page", PAGES, ids=page_id)
def test_code_blocks_show_their_snippet_files(built_site, language, page):
    shown = [
        block.get_text()
        for block in built_page(built_site, language, page).select(
            ".md-content pre code"
        )
    ]
    expected = [
        shown_code(target, language)
        for target in includes(read(DOCS / language / page))
    ]
    assert [code.strip() for code in shown] == expected


# Code a reader sees without opening anything (helpers written out in a block are folded by
# hooks/standalone.py, whole files kept in collapsed boxes): a block fits a few screens.
MAX_BLOCK_LINES, MAX_PAGE_CODE_LINES = 150, 600


@pytest.mark.parametrize("language, page", PAGES, ids=page_id)
def test_code_is_kept_out_of_the_way(built_site, language, page):
    article = built_page(built_site, language, page).select_one("article")
    sizes = [
        len(pre.get_text().rstrip("\n").splitlines())
        - sum(folded.get_text().count("\n") for folded in pre.select(".helpers"))
        for pre in article.select("pre")
        if not pre.find_parent(
            lambda tag: tag.name == "details" and "open" not in tag.attrs
        )
    ]
    assert max(sizes, default=0) <= MAX_BLOCK_LINES, "a block too long to read past"
    assert sum(sizes) <= MAX_PAGE_CODE_LINES, "too much code shown on the page"


@pytest.mark.parametrize("language, page", PAGES, ids=page_id)
def test_navigation_and_table_of_contents_hold_no_latex(built_site, language, page):
    """A heading's math is written in Unicode: the TOC shows heading text as it is."""
    soup = built_page(built_site, language, page)
    labels = " ".join(nav.get_text(" ") for nav in soup.select("nav"))
    assert not LATEX_LEFT.search(labels) and "$" not in labels


@pytest.mark.parametrize("language", LANGUAGES)
def test_benchmark_answers_first_with_times_and_speed_ups(built_site, language):
    """Its first table is the headline (µs per call, × against F.rms_norm), right below the
    In short box, whose bullets answer first: within the page's first 400 words."""
    article = built_page(built_site, language, Path("benchmark_results.md")).select_one(
        "article"
    )
    if not list((ROOT / "snippets/benchmark/results").glob("*.json")):
        pytest.skip("no GPU results published")
    table = article.find("table")
    assert table is not None, "GPU results are published, but the page has no table"
    before = []
    for text in article.find_all(string=True):
        if text.find_parent("table") is table:
            break
        before += text.split()
    assert len(before) <= 400, f"{len(before)} words before the first table"
    assert "µs" in " ".join(before[-40:]) and "F.rms_norm" in table.thead.get_text()
    assert all("×" in row.get_text() for row in table.tbody.find_all("tr"))


def test_sitemap_lists_both_languages_under_site_url(built_site):
    sitemap = (built_site / "sitemap.xml").read_text()
    locations = set(re.findall(r"<loc>([^<]+)</loc>", sitemap))
    assert locations == {
        urljoin(SITE_URL, url_path(lang, page)) for lang, page in PAGES
    }


def test_every_page_folder_has_the_sitemap_the_language_selector_fetches(built_site):
    # hooks/sitemaps.py: the selector fetches sitemap.xml beside each twin of the page.
    sitemap = (built_site / "sitemap.xml").read_bytes()
    for language, page in PAGES:
        folder = built_site / url_path(language, page).removeprefix(SITE_PATH)
        assert (folder / "sitemap.xml").read_bytes() == sitemap, f"{language}/{page}"


def test_the_one_not_found_page_is_english_and_points_korean_readers_home(built_site):
    # GitHub Pages answers every missing path with the root 404.html: the English build's
    # (hooks/not_found.py), not the last language built over it.
    soup = parsed_html(built_site / "404.html")
    assert soup.html["lang"] == "en"
    navigation = [a.get_text(strip=True) for a in soup.select("nav.md-nav--primary a")]
    assert "Math" in navigation and "수학" not in navigation
    korean = soup.select_one('article p[lang="ko"]')
    assert "페이지가 없습니다" in korean.get_text()
    assert korean.a["href"] == f"{SITE_PATH}ko/"
    assert [p.name for p in built_site.rglob("404.html")] == ["404.html"]


def test_a_number_in_scientific_notation_is_kept_on_one_line():
    # In prose only: code and formulas as they are, and the text itself unchanged; a figure
    # with its unit and particle, a size with its value, a Korean word after ")" or "%".
    html = (
        "<p>ε is 1e-5, 2.0e-07 or 3e+2를, not x2e-5 nor 1.2.3e-4 <code>1e-5</code>"
        "<math><mn>1e-5</mn></math> <a title='1e-5'>6.1e-05</a> 77 ulp까지, 2 ulps</p>"
        "<td>1,258 µs, 0.1417 ms 3,001 GB/s N = 4096에서 (a)에서 59.6%이지만 7 msx</td>"
        "<code>N = 4096</code> 순전파+역전파의 forward+backward 4.7e+03 ulps"
    )
    wrapped = numbers_hook.nowrap_numbers(html)
    assert wrapped.count('<span class="nowrap">') == 14
    assert '<span class="nowrap">4.7e+03 ulps</span>' in wrapped
    assert '<span class="nowrap">순전파+역전파의</span> forward+backward' in wrapped
    assert '<span class="nowrap">77 ulp까지,</span>' in wrapped
    assert '<span class="nowrap">1,258 µs,</span>' in wrapped
    assert '<span class="nowrap">N = 4096에서</span>' in wrapped
    assert '(a<span class="nowrap">)에서</span>' in wrapped
    assert '59.6<span class="nowrap">%이지만</span> 7 msx' in wrapped
    assert '<span class="nowrap">2.0e-07</span>' in wrapped
    assert "<code>1e-5</code><math><mn>1e-5</mn></math>" in wrapped
    assert "<a title='1e-5'><span class=\"nowrap\">6.1e-05</span></a>" in wrapped
    assert re.sub(r"<[^>]*>", "", wrapped) == re.sub(r"<[^>]*>", "", html)


def test_a_headings_hyphenated_words_are_kept_whole():
    # Balanced (extra.css), "Placement: pre-norm" broke as "pre-" above "norm": a word with
    # a hyphen and what is written against it, in h1 to h3 only, not in code or a number.
    html = (
        "<h1 id='p'>Placement: pre-norm과 post-norm</h1>"
        "<h3>Finer groups: DeepSeek-V3's tiles (a z-loss) at 1e-3 <code>x-y z</code></h3>"
        "<h4>pre-norm</h4><p>pre-norm</p>"
    )
    kept = numbers_hook.on_page_content(html, None, None, None)
    spans = re.findall(r'<span class="nowrap">([^<]*)</span>', kept)
    assert spans == ["pre-norm과", "post-norm", "DeepSeek-V3's", "z-loss", "1e-3"]
    assert "<code>x-y z</code></h3><h4>pre-norm</h4><p>pre-norm</p>" in kept
    assert re.sub(r"<[^>]*>", "", kept) == re.sub(r"<[^>]*>", "", html)


def test_short_inline_code_with_a_hyphen_is_kept_on_one_line():
    # One word of 32 characters at most; code with a space, longer code and blocks wrap.
    html = (
        "<p><code>--strict</code> <code>-k</code> <code>a b-c</code> <code>rms_norm</code>"
        f" <code>{'x-' * 17}</code></p><pre><code><span>--eps</span></code></pre>"
    )
    kept = numbers_hook.on_page_content(html, None, None, None)
    assert kept.count('<code class="nowrap">') == 2
    assert '<code class="nowrap">--strict</code> <code class="nowrap">-k</code>' in kept
    # In longer inline code (a command), each option stays whole; not in code blocks.
    command = numbers_hook.on_page_content(
        "<p><code>python -m x a.py --lang ko</code> <code>f(a - b)</code></p>"
        "<pre><code>run --eps 1</code></pre>",
        None,
        None,
        None,
    )
    assert (
        '<code>python <span class="nowrap">-m</span> x a.py'
        ' <span class="nowrap">--lang</span> ko</code> <code>f(a - b)</code>'
    ) in command
    assert "<pre><code>run --eps 1</code></pre>" in command


def test_a_particle_or_punctuation_stays_on_the_line_of_its_formula_or_code():
    # A short formula or one word of code, and what is written against it up to a space:
    # not in code blocks or tables, not a long formula; the text itself unchanged.
    formula = '<span class="math-inline"><math><mi>W</mi></math></span>'
    long = '<span class="math-inline"><math><mi>%s</mi></math></span>' % ("x" * 17)
    html = (
        f"<p>행렬 {formula}의 노름, ({formula}), <code>eps</code>를, <code>a b</code>를,"
        f" {formula} 뒤, {long}의</p><table><td>{formula}의</td></table>"
        f"<pre><code><span>x</span></code>를</pre>"
    )
    kept = numbers_hook.on_page_content(html, None, None, None)
    assert f'<span class="nowrap">{formula}의</span>' in kept
    assert f'<span class="nowrap">({formula}),</span>' in kept
    assert '<span class="nowrap"><code>eps</code>를,</span>' in kept
    assert kept.count('<span class="nowrap">') == 3
    # An opening parenthesis stays with the formula after it, a space after or not.
    opened = numbers_hook.keep_glued_text(f"<p>rows ({formula} to 9)</p>")
    assert f'<span class="nowrap">({formula}</span> to 9)' in opened
    assert re.sub(r"<[^>]*>", "", kept) == re.sub(r"<[^>]*>", "", html)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_folded_blocks_title_breaks_its_path_between_words(built_site, language):
    soup = built_page(built_site, language, Path("implementations.md"))
    titles = [s for s in soup.select("summary") if "snippets/" in s.get_text()]
    assert titles and all(s.find("wbr") for s in titles)


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_number_in_scientific_notation_can_break_in_the_prose(built_site, language):
    # Models: numbers followed by a Korean particle (1e-5를) too.
    soup = built_page(built_site, language, Path("models.md"))
    loose = [
        text
        for text in soup.select_one(".md-content").find_all(string=numbers_hook._NUMBER)
        if not text.find_parent(["code", "pre", "math"])
        and not text.find_parent("span", class_="nowrap")
    ]
    assert loose == []


# Bytes of HTML before compression. The heaviest page, Korean Math, took over 311 KB once its
# two plots came (a plot's block carries the plot helpers, folded).
PAGE_BUDGET = 320_000


def test_every_page_fits_the_weight_budget(built_site):
    # Notebook pages too: hooks/notebooks.py drops the CSS nbconvert inlines (over 500 KB).
    heavy = {
        str(path.relative_to(built_site)): path.stat().st_size
        for path in built_site.rglob("*.html")
        if path.stat().st_size > PAGE_BUDGET
    }
    assert heavy == {}, f"pages over {PAGE_BUDGET} bytes"


@pytest.mark.parametrize("language, page", PAGES, ids=page_id)
def test_each_block_links_its_file_and_offers_the_script(built_site, language, page):
    soup = built_page(built_site, language, page)
    config = mkdocs_config()
    here = built_site / url_path(language, page).removeprefix(SITE_PATH)
    words = standalone_hook.WORDS[language]
    for block in soup.select(".md-content div.highlight"):
        if block.find_parent(
            class_=re.compile(r"^jp-")
        ):  # a notebook's: test_notebooks
            continue
        assert block.select_one(":scope > span.filename"), "a code block without title="
        title = block.select_one("span.filename a")
        path = title.get_text()
        assert title["href"] == f"{config['repo_url']}/blob/main/{path}", path
        code = block.select_one("pre code").get_text()
        info = block.find_next_sibling("p", class_="block-info")
        assert info is not None, f"{path}: nothing says what the block needs"
        if words["excerpt"] in info.get_text():
            assert code.strip() != shown_code(path).strip(), (
                f"{path}: whole, not excerpt"
            )
            # Said above the copy button too.
            heading = block.select_one("span.filename").get_text()
            assert heading == f"{path} ({words['excerpt_mark']})", heading
            # Its download is the whole file, without the site's section marks.
            whole = (here / info.select_one("a[download]")["href"]).resolve()
            assert "--8<--" not in whole.read_text(encoding="utf-8"), path
            continue
        needs = info.get_text()
        if "triton" in dict(
            standalone.requirements(code)
        ):  # runs on a CPU, if told how
            assert words["triton"] in needs, f"{path}: no word of TRITON_INTERPRET"
        for name, version in standalone.requirements(code):
            assert f"{name} {version}" in needs, f"{path}: {name} is not named"
        download = info.select_one("a[download]")
        script = (here / download["href"]).resolve()
        assert script.read_text(encoding="utf-8").strip() == code.strip(), path
    if page.suffix == ".md":
        edit = soup.select_one("a.md-content__button[href*='/edit/']")
        assert edit and edit["href"].endswith(f"/docs/{language}/{page.as_posix()}")


def test_an_include_of_a_missing_file_names_its_page_and_line():
    page = SimpleNamespace(file=SimpleNamespace(src_uri="en/faq.md"))
    config = SimpleNamespace(config_file_path=str(ROOT / "mkdocs.yml"))
    markdown = '# FAQ\n\n```python\n--8<-- "snippets/faq/gone.py:part"\n```\n'
    with pytest.raises(
        PluginError, match=r"docs/en/faq.md:4: includes snippets/faq/gone"
    ):
        standalone_hook.on_page_markdown(markdown, page, config, files=None)
    shown = '--8<-- "snippets/math/worked_example.py"\n'
    assert standalone_hook.on_page_markdown(shown, page, config, None) == shown


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_phone_gets_each_figure_with_its_panels_stacked(built_site, language):
    # hooks/phone_figures.py: every plot has a phone version (snippets/placement/plots.py),
    # as do the diagrams of two panels side by side and the table of rounding conventions
    # (scripts/diagrams.py), and every page
    # that shows one offers it to a phone.
    plots = DOCS / "assets" / "plots"
    desktop = {p.name for p in plots.glob("*.svg") if "-phone" not in p.name}
    assert {p.name for p in plots.glob("*-phone*.svg")} == {
        name.replace(".", "-phone.", 1) for name in desktop
    }
    split = {
        f"{name}.svg" for name in {**diagrams.PHONE_SPLITS, **diagrams.PHONE_DRAWINGS}
    }
    shown = 0
    for page in pages(language):
        soup = built_page(built_site, language, page)
        figures = "img[src*='assets/plots/'], img[src*='assets/diagrams/']"
        for image in soup.select(f"article :is({figures})"):
            name = re.sub(r"\.ko\.svg$", ".svg", image["src"].rsplit("/", 1)[-1])
            if "assets/plots/" not in image["src"] and name not in split:
                assert image.find_parent("picture") is None
                continue
            picture = image.find_parent("picture")
            source = picture.source
            assert source["media"] == phone_figures_hook.PHONE
            assert source["srcset"] == re.sub(
                r"(\.ko)?\.svg$", r"-phone\g<0>", image["src"]
            )
            # The width it was drawn at, in CSS pixels (a point is 4/3 of one), which the
            # site's CSS shows it at, or at no less than 0.8 of it.
            phone = DOCS / "assets" / image["src"].split("assets/", 1)[1]
            phone = phone.with_name(Path(source["srcset"]).name)
            points = re.search(
                r'<svg[^>]*\swidth="([\d.]+)(pt|px)?"', phone.read_text()
            )
            pixels = float(points[1]) * (4 / 3 if points[2] == "pt" else 1)
            assert picture["style"] == f"--drawn: {pixels:g}px", picture["style"]
            shown += 1
    assert shown >= 8 + len(split)
