"""axe-core at WCAG 2.1 AA (plus axe's best practices) on every page, in both languages and
both color schemes, and with the search dialog open: no serious or critical violations."""

from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

from conftest import LANGUAGES, all_pages, search, url_path

PAGES = all_pages()
RULE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
BLOCKING = {"serious", "critical"}


def violations(page) -> list[str]:
    # Details of the violations only: listing every passing element too doubles axe's time.
    options = {
        "runOnly": {"type": "tag", "values": RULE_TAGS},
        "resultTypes": ["violations"],
    }
    report = Axe().run(page, options=options).response
    return [
        f"{rule['id']} ({rule['impact']}) at {node['target']}: "
        + " ".join(node["failureSummary"].split("\n")[1:]).strip()
        for rule in report["violations"]
        if rule["impact"] in BLOCKING
        for node in rule["nodes"]
    ]


@pytest.mark.parametrize(
    "preference, scheme", [("light", "default"), ("dark", "slate")]
)
@pytest.mark.parametrize("language, path", PAGES, ids=str)
def test_page_meets_wcag_21_aa(page, language, path, preference, scheme):
    page.emulate_media(color_scheme=preference)  # the site follows the reader's setting
    page.goto(url_path(language, path))
    assert page.locator("body").get_attribute("data-md-color-scheme") == scheme
    assert violations(page) == []


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
