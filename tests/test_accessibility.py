"""axe-core at WCAG 2.1 AA (plus axe's best practices) on every page, its solutions opened:
the English pages in the light color scheme and, for the rules that depend on colors, the
dark one (reached with the toggle); the Korean pages, which have their English twins' elements
and styles, for the rules that do not depend on colors; the search dialog open, in both
languages and schemes; and the 404 page: no serious or critical violations."""

from pathlib import Path

import pytest

# axe-core, as the axe-playwright-python package bundles it.
from axe_playwright_python.base import AXE_SCRIPT

from conftest import (
    LANGUAGES,
    SITE_PATH,
    all_pages,
    open_collapsed_blocks,
    search,
    url_path,
)

PAGES = all_pages()
RULE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
ALL_RULES = {"type": "tag", "values": RULE_TAGS}
BLOCKING = {"serious", "critical"}


# Highlighted code is most of a page's elements (3969 of the Placement page's 4641, one per
# token) and most of axe's time. A token's contrast depends only on its own colors, size,
# weight and opacity and on its code block's background, so axe checks the rest of the page,
# then one token of each such style: the longest, since axe leaves text of one character
# undecided.
MARK_STYLE_SAMPLES = """() => {
  const longest = new Map();
  for (const token of document.querySelectorAll("div.highlight code span")) {
    if (token.children.length) continue;  // only tokens: text, no elements inside
    const own = getComputedStyle(token);
    const block = getComputedStyle(token.closest("code"));
    const style = [token.className, own.color, own.backgroundColor, own.fontSize,
      own.fontWeight, own.opacity, block.backgroundColor].join("|");
    const best = longest.get(style);
    if (!best || token.textContent.trim().length > best.textContent.trim().length) {
      longest.set(style, token);
    }
  }
  for (const token of longest.values()) token.dataset.styleSample = "";
}"""
# The whole page but its code's tokens, then one token of each style.
PARTS = [{"exclude": [["div.highlight code"]]}, {"include": [["[data-style-sample]"]]}]


def load_axe(page):
    if page.evaluate("typeof axe") == "undefined":
        page.evaluate(AXE_SCRIPT)


def color_rules(page) -> list[str]:
    """The rules axe files under colors (color-contrast, link-in-text-block): most of its
    time on a page."""
    load_axe(page)
    return page.evaluate(
        "tags => axe.getRules(tags).filter(r => r.tags.includes('cat.color'))"
        ".map(r => r.ruleId)",
        RULE_TAGS,
    )


def violations(page, selection: dict, without=()) -> list[str]:
    """axe's serious and critical violations of the rules in `selection` (axe's runOnly),
    but those named in `without`."""
    page.evaluate(MARK_STYLE_SAMPLES)
    load_axe(page)
    # Details of the violations only: listing every passing element too doubles axe's time.
    options = {"runOnly": selection, "resultTypes": ["violations"]}
    options["rules"] = {rule: {"enabled": False} for rule in without}
    run = "([context, options]) => axe.run(context, options)"
    return [
        f"{rule['id']} ({rule['impact']}) at {node['target']}: "
        + " ".join(node["failureSummary"].split("\n")[1:]).strip()
        for part in PARTS
        if part is PARTS[0] or page.locator("[data-style-sample]").count()
        for rule in page.evaluate(run, [part, options])["violations"]
        if rule["impact"] in BLOCKING
        for node in rule["nodes"]
    ]


def scheme(page) -> str:
    return page.locator("body").get_attribute("data-md-color-scheme")


@pytest.mark.usefixtures("empty_search_index")
@pytest.mark.parametrize("language, path", PAGES, ids=str)
def test_page_meets_wcag_21_aa(page, language, path):
    # A reader whose system setting is light (the site follows it), solutions opened.
    page.emulate_media(color_scheme="light")
    page.goto(url_path(language, path))
    open_collapsed_blocks(page)
    assert scheme(page) == "default"
    if language != "en":
        # The same elements and styles as its English twin, so the same colors in both
        # schemes, measured there: the rules that do not depend on colors.
        assert violations(page, ALL_RULES, without=color_rules(page)) == []
        return
    assert violations(page, ALL_RULES) == [], "light scheme"
    # Then the toggle to dark: the page is the same but for its colors, so only the rules
    # axe files under colors can change their verdict.
    page.locator("form[data-md-component=palette] label:visible").click()
    # Colors are measured once every transition between the schemes has ended.
    page.wait_for_function(
        "document.getAnimations().every(a => a.playState != 'running')"
    )
    assert scheme(page) == "slate"
    assert violations(page, {"type": "rule", "values": color_rules(page)}) == [], "dark"


@pytest.mark.parametrize("preference", ["light", "dark"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_open_search_dialog_meets_wcag_21_aa(page, language, preference):
    page.emulate_media(color_scheme=preference)
    # A phone-sized window, where search opens as a full-screen dialog.
    page.set_viewport_size({"width": 400, "height": 800})
    page.goto(url_path(language, Path("index.md")))
    search(page, "RMS")
    page.wait_for_timeout(500)  # the dialog's fade-in ends before contrast is measured
    assert violations(page, ALL_RULES) == []


@pytest.mark.usefixtures("empty_search_index")
def test_not_found_page_meets_wcag_21_aa(page):
    page.goto(f"{SITE_PATH}404.html")
    assert violations(page, ALL_RULES) == []


def test_a_code_token_with_too_little_contrast_is_caught(page):
    # The check of the test above: one token style made pale is reported, though axe
    # sees only the first token of each style.
    page.goto(url_path("en", Path("math.md")))
    page.add_style_tag(content=".md-typeset .highlight .n { color: #ddd !important }")
    found = violations(page, {"type": "rule", "values": ["color-contrast"]})
    assert len(found) == 1 and found[0].startswith("color-contrast (serious) at ['.n")
