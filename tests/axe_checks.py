"""axe-core (as axe-playwright-python bundles it) on the site's pages, for
tests/test_browser.py's visit of each page and tests/test_accessibility.py: WCAG 2.1 AA plus
axe's best practices, no serious or critical violations. The English pages are checked in the
light color scheme and, for the rules that depend on colors, the dark one (reached with the
toggle); the Korean pages with markup of their own (the others are their English twins' HTML
with Korean words), for the rules that do not depend on colors. The color rules see one
element of each style (a pale style is still caught: test_accessibility.py checks it)."""

import re
from pathlib import Path

# axe-core, as the axe-playwright-python package bundles it.
from axe_playwright_python.base import AXE_SCRIPT
from browser_fixtures import settle, toggle_scheme
from page_text import read
from site_layout import DOCS

# A Korean page written in Markdown alone is its English twin's HTML with Korean words, which
# the English page's run checks; axe also runs on the Korean pages that add markup of their
# own: raw HTML (images with Korean descriptions), included generated Markdown (Benchmark's
# tables) and the notebooks (their outputs).
OWN_MARKUP = re.compile(r'<(img|picture|span|div|a|details)\b|--8<-- "[^"]+\.md"')


def checked(language: str, path: Path) -> bool:
    """Whether axe runs on the page: every English page and notebook, and the Korean pages
    with markup of their own."""
    if language == "en" or path.parts[0] == "notebooks":
        return True
    return bool(OWN_MARKUP.search(read(DOCS / language / path)))


RULE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
BLOCKING = {"serious", "critical"}


# Most of axe's time on a page goes to its color rules (color-contrast, link-in-text-block),
# which look at every element with text: one per token of highlighted code (3969 of the
# Placement page's 4641 elements) and one per symbol of a formula. An element's verdict
# under them depends only on its style: its color, size, weight, decoration and opacity,
# what shows behind it (the backgrounds down to the first opaque one) and, for a link, the
# color of the text around it. So the color rules run on one visible element of each such
# style (the one with the longest text: axe leaves text of one character undecided), the
# other rules on the whole page but its code's tokens (elements without attributes, which
# only the color rules concern). The tokens that are not samples are set aside (each replaced
# by its text, put back after axe's runs): every rule run costs time with each element of the
# page, the color rules most (they map every element's box to find what lies behind a text).
MARK_STYLE_SAMPLES = """() => {
  for (const element of document.querySelectorAll("[data-style-sample]")) {
    delete element.dataset.styleSample;
  }
  const behind = new Map();  // element -> what shows behind its text
  const backdrop = element => {
    if (!element) return "";
    if (!behind.has(element)) {
      const style = getComputedStyle(element);
      const own = [style.backgroundColor, style.backgroundImage, style.opacity].join(" ");
      const opaque = style.backgroundColor.startsWith("rgb(") && style.opacity === "1";
      behind.set(element, opaque ? own : own + " / " + backdrop(element.parentElement));
    }
    return behind.get(element);
  };
  const ownText = element => [...element.childNodes]
    .filter(node => node.nodeType === Node.TEXT_NODE)
    .map(node => node.textContent).join("").trim();
  const longest = new Map();
  for (const element of document.body.querySelectorAll("*")) {
    if (["SCRIPT", "STYLE", "TEMPLATE"].includes(element.tagName)) continue;
    const text = ownText(element);
    if (!text || !element.checkVisibility({visibilityProperty: true})) continue;
    const own = getComputedStyle(element);
    const around = element.parentElement ? getComputedStyle(element.parentElement).color : "";
    const style = [element.tagName === "A", own.color, own.fontSize, own.fontWeight,
      own.fontStyle, own.textDecorationLine, own.borderBottomStyle, own.textShadow,
      around, backdrop(element)].join("|");
    const best = longest.get(style);
    if (!best || text.length > ownText(best).length) longest.set(style, element);
  }
  for (const element of longest.values()) element.dataset.styleSample = "";
  window.setAsideTokens = [];
  for (const token of document.querySelectorAll("div.highlight code span")) {
    if (token.dataset.styleSample !== undefined || token.children.length) continue;
    const text = document.createTextNode(token.textContent);
    token.replaceWith(text);
    window.setAsideTokens.push([token, text]);
  }
}"""
PUT_BACK_TOKENS = """() => {
  for (const [token, text] of window.setAsideTokens) text.replaceWith(token);
}"""
WITHOUT_CODE_TOKENS = {"exclude": [["div.highlight code"]]}
STYLE_SAMPLES = {"include": [["[data-style-sample]"]]}


def load_axe(page):
    if page.evaluate("typeof axe") == "undefined":
        page.evaluate(AXE_SCRIPT)


def color_rules(page) -> list[str]:
    """The rules axe files under colors (color-contrast, link-in-text-block)."""
    load_axe(page)
    return page.evaluate(
        "tags => axe.getRules(tags).filter(r => r.tags.includes('cat.color'))"
        ".map(r => r.ruleId)",
        RULE_TAGS,
    )


def violations(page, colors=True, others=True) -> list[str]:
    """axe's serious and critical violations of its rules with RULE_TAGS: those it files
    under colors (`colors`), on one element of each style, and the others (`others`), on
    the page but its code's tokens."""
    page.evaluate(MARK_STYLE_SAMPLES)
    color = color_rules(page)
    runs = []
    if others:
        tagged = {"type": "tag", "values": RULE_TAGS}
        disabled = {rule: {"enabled": False} for rule in color}
        runs.append((WITHOUT_CODE_TOKENS, {"runOnly": tagged, "rules": disabled}))
    if colors:
        runs.append((STYLE_SAMPLES, {"runOnly": {"type": "rule", "values": color}}))
    run = "([context, options]) => axe.run(context, options)"
    found = [
        f"{rule['id']} ({rule['impact']}) at {node['target']}: "
        + " ".join(node["failureSummary"].split("\n")[1:]).strip()
        for context, options in runs
        # Details of the violations only: listing every passing element too doubles axe's time.
        for rule in page.evaluate(
            run, [context, {**options, "resultTypes": ["violations"]}]
        )["violations"]
        if rule["impact"] in BLOCKING
        for node in rule["nodes"]
    ]
    page.evaluate(PUT_BACK_TOKENS)
    return found


def scheme(page) -> str:
    return page.locator("body").get_attribute("data-md-color-scheme")


def check_page_meets_wcag_21_aa(page, language, path):
    """The page as loaded, in the light scheme, its solutions opened: axe's checks (none on
    a Korean page without markup of its own); an English page's colors then again in the
    dark scheme, which the page is left in."""
    if not checked(language, path):
        return
    settle(page)  # colors are measured once every transition has ended
    assert scheme(page) == "default"
    if language != "en":
        # The same elements and styles as its English twin, so the same colors in both
        # schemes, measured there: the rules that do not depend on colors.
        assert violations(page, colors=False) == []
        return
    assert violations(page) == [], "light scheme"
    # Then the toggle to dark: the page is the same but for its colors, so only the rules
    # axe files under colors can change their verdict.
    assert toggle_scheme(page) == "slate"
    assert violations(page, others=False) == [], "dark"
