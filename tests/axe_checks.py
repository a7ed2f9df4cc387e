"""axe-core (as axe-playwright-python bundles it) on the site's pages, for
tests/test_browser.py's visit of each page and tests/test_accessibility.py: WCAG 2.1 AA plus
axe's best practices, no serious or critical violations. The English pages are checked in the
light color scheme and, for the rules that depend on colors, the dark one (reached with the
toggle); the Korean pages, which have their English twins' styles, for the rules that do not
depend on colors (their words differ: a link's text, an image's description). The color
rules see one element of each style, until the style passes (a pale style is still caught:
test_accessibility.py checks it). What axe leaves undecided for a person to judge fails too,
but for the reasons allowed where they are (UNDECIDED_ALLOWED)."""

# axe-core, as the axe-playwright-python package bundles it.
from axe_playwright_python.base import AXE_SCRIPT
from browser_fixtures import settle, toggle_scheme

RULE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
BLOCKING = {"serious", "critical"}


# Most of axe's time on a page goes to its color rules (color-contrast, link-in-text-block),
# which look at every element with text: one per colored token of highlighted code (three
# quarters of the Placement page's elements) and one per symbol of a formula. An element's verdict
# under them depends only on its style: its color, size, weight, decoration and opacity,
# what shows behind it (the backgrounds down to the first opaque one) and, for a link, the
# color of the text around it. So the color rules run on one visible element of each such
# style (the one with the longest text: axe leaves text of one character undecided), the
# other rules on the whole page but its code's tokens (elements without attributes, which
# only the color rules concern). The tokens that are not samples are set aside (each replaced
# by its text, put back after axe's runs): every rule run costs time with each element of the
# page, the color rules most (they map every element's box to find what lies behind a text).
# For the same reason a style that passed on one page is not sampled again on the next: the
# pages share most of their styles (134 among the 1256 samples of the English pages).
# Takes the styles that passed and whether to sample (not for a run of the other rules alone);
# returns the styles it marked.
MARK_STYLE_SAMPLES = """([passed, sampling]) => {
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
  if (sampling) for (const element of document.body.querySelectorAll("*")) {
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
  const skip = new Set(passed);
  const marked = [];
  for (const [style, element] of longest) {
    if (skip.has(style)) continue;
    element.dataset.styleSample = marked.length;  // its style's index in what is returned
    marked.push(style);
  }
  window.setAsideTokens = [];
  for (const token of document.querySelectorAll("div.highlight code span")) {
    if (token.dataset.styleSample !== undefined || token.children.length) continue;
    const text = document.createTextNode(token.textContent);
    token.replaceWith(text);
    window.setAsideTokens.push([token, text]);
  }
  return marked;
}"""
PUT_BACK_TOKENS = """() => {
  for (const [token, text] of window.setAsideTokens) text.replaceWith(token);
}"""
WITHOUT_CODE_TOKENS = {"exclude": [["div.highlight code span"]]}  # not the code box
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


# The styles whose elements passed the color rules, in either scheme, in this test process.
PASSED_STYLES: set[str] = set()


def violations(page, colors=True, others=True) -> list[str]:
    """axe's serious and critical violations of its rules with RULE_TAGS: those it files
    under colors (`colors`), on one element of each style not yet passed, and the others
    (`others`), on the page but its code's tokens."""
    marked = page.evaluate(MARK_STYLE_SAMPLES, [sorted(PASSED_STYLES), colors])
    color = color_rules(page)
    runs = []
    if others:
        tagged = {"type": "tag", "values": RULE_TAGS}
        disabled = {rule: {"enabled": False} for rule in color}
        runs.append((WITHOUT_CODE_TOKENS, {"runOnly": tagged, "rules": disabled}))
    if colors and marked:
        runs.append((STYLE_SAMPLES, {"runOnly": {"type": "rule", "values": color}}))
    found = []
    for context, options in runs:
        lines, unsettled = run_axe(page, context, options)
        found += lines
        if context is STYLE_SAMPLES:
            PASSED_STYLES.update(s for i, s in enumerate(marked) if i not in unsettled)
    page.evaluate(PUT_BACK_TOKENS)
    return found


# An axe run: its violations; the elements it left undecided (incomplete), each with where
# it is and axe's reasons; and the style samples (by index) in either.
RUN = """async ([context, options]) => {
  const result = await axe.run(context, {...options, elementRef: true});
  const samples = rule => rule.nodes.map(node => node.element.closest("[data-style-sample]"));
  const unsettled = [...result.violations, ...result.incomplete].flatMap(samples);
  const searching = document.querySelector("input[data-md-toggle=search]")?.checked;
  const places = element => [
    element.closest("math") && "formula", element.closest(".md-nav") && "navigation",
    searching && "under search",
  ].filter(Boolean);
  return {
    violations: result.violations.map(({id, impact, nodes}) => ({
      id, impact, nodes: nodes.map(({target, failureSummary}) => ({target, failureSummary})),
    })),
    undecided: result.incomplete.map(({id, impact, nodes}) => ({
      id, impact, nodes: nodes.map(({target, element, any, all, none}) => ({
        target, places: places(element),
        reasons: [...any, ...all, ...none].map(check => check.data?.messageKey || check.id),
      })),
    })),
    unsettled: [...new Set(unsettled.filter(Boolean).map(s => Number(s.dataset.styleSample)))],
  };
}"""
# What axe may leave undecided (it asks a person to look), by where and why; anything else
# undecided with a serious or critical impact fails, as a violation does.
UNDECIDED_ALLOWED = {
    # A formula's symbols: one character (axe cannot tell a letter from an icon), letters
    # outside Unicode's first plane (math italic), and the shadow a wide formula casts at
    # the edge where it scrolls (a gradient, which axe does not measure).
    ("formula", "shortTextContent"),
    ("formula", "nonBmp"),
    ("formula", "bgGradient"),
    # A label of the navigation's list, partly scrolled out of its box.
    ("navigation", "elmPartiallyObscured"),
    # The page beneath the open search dialog, which covers it.
    ("under search", "bgOverlap"),
}


def run_axe(page, context, options) -> tuple[list[str], set[int]]:
    """One axe run: its serious and critical violations and the elements it left undecided
    for a reason not allowed (UNDECIDED_ALLOWED), a line per element, and the indexes of
    the style samples whose verdict is not a pass."""
    # Details of violations and undecided elements only: listing every passing element
    # too doubles axe's time.
    options = {**options, "resultTypes": ["violations", "incomplete"]}
    result = page.evaluate(RUN, [context, options])
    found = [
        f"{rule['id']} ({rule['impact']}) at {node['target']}: "
        + " ".join(node["failureSummary"].split("\n")[1:]).strip()
        for rule in result["violations"]
        if rule["impact"] in BLOCKING
        for node in rule["nodes"]
    ]
    found += [
        f"{rule['id']} ({rule['impact']}) undecided at {node['target']}"
        f" ({', '.join(node['places']) or 'page'}): {', '.join(node['reasons'])}"
        for rule in result["undecided"]
        if rule["impact"] in BLOCKING
        for node in rule["nodes"]
        if not all(
            any((place, reason) in UNDECIDED_ALLOWED for place in node["places"])
            for reason in node["reasons"]
        )
    ]
    return found, set(result["unsettled"])


def scheme(page) -> str:
    return page.locator("body").get_attribute("data-md-color-scheme")


def check_page_meets_wcag_21_aa(page, language):
    """The page as loaded, in the light scheme, its solutions opened: axe's checks; an
    English page's colors then again in the dark scheme, which the page is left in."""
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
