"""axe-core at WCAG 2.1 AA (plus axe's best practices) on every page, in both languages and
both color schemes (in the dark one, the rules that depend on colors), and with the search
dialog open: no serious or critical violations."""

from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

from conftest import LANGUAGES, all_pages, search, url_path

PAGES = all_pages()
RULE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
BLOCKING = {"serious", "critical"}


def violations(page, rules=None) -> list[str]:
    """axe's serious and critical violations: of every rule in RULE_TAGS, or of `rules`."""
    selection = (
        {"type": "rule", "values": rules}
        if rules
        else {
            "type": "tag",
            "values": RULE_TAGS,
        }
    )
    # Details of the violations only: listing every passing element too doubles axe's time.
    options = {"runOnly": selection, "resultTypes": ["violations"]}
    report = Axe().run(page, options=options).response
    return [
        f"{rule['id']} ({rule['impact']}) at {node['target']}: "
        + " ".join(node["failureSummary"].split("\n")[1:]).strip()
        for rule in report["violations"]
        if rule["impact"] in BLOCKING
        for node in rule["nodes"]
    ]


def scheme(page) -> str:
    return page.locator("body").get_attribute("data-md-color-scheme")


@pytest.mark.parametrize("language, path", PAGES, ids=str)
def test_page_meets_wcag_21_aa(browser, server, language, path):
    # The site follows the reader's setting. Light: every rule.
    light = browser.new_context(base_url=server, color_scheme="light").new_page()
    light.goto(url_path(language, path))
    assert scheme(light) == "default"
    assert violations(light) == [], "light scheme"
    # Dark: the page is the same but for its colors, so only the rules axe files under
    # colors can change their verdict (color-contrast, link-in-text-block).
    color_rules = light.evaluate(
        "tags => axe.getRules(tags).filter(r => r.tags.includes('cat.color'))"
        ".map(r => r.ruleId)",
        RULE_TAGS,
    )
    light.context.close()
    dark = browser.new_context(base_url=server, color_scheme="dark").new_page()
    dark.goto(url_path(language, path))
    assert scheme(dark) == "slate"
    assert violations(dark, color_rules) == [], "dark scheme"
    dark.context.close()


@pytest.mark.parametrize("preference", ["light", "dark"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_open_search_dialog_meets_wcag_21_aa(page, language, preference):
    page.emulate_media(color_scheme=preference)
    # A phone-sized window, where search opens as a full-screen dialog.
    page.set_viewport_size({"width": 400, "height": 800})
    page.goto(url_path(language, Path("index.md")))
    search(page, "RMS")
    page.wait_for_timeout(
        500
    )  # let the dialog's fade-in finish before measuring contrast
    assert violations(page) == []
