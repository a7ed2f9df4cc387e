"""axe-core at WCAG 2.1 AA (plus axe's best practices): the search dialog open, in both
languages (its colors in both schemes, in English); the 404 page; and the check that a pale style is caught though axe sees
one element of each style. Every page is checked in its visit (tests/test_browser.py), by
tests/axe_checks.py: no serious or critical violations."""

from pathlib import Path

import pytest
from axe_checks import violations
from browser_fixtures import search, settle
from site_layout import SITE_PATH, url_path


# The Korean dialog has the English one's elements and styles, whose colors are checked in
# both schemes: in Korean, the rules that do not depend on colors, as on the Korean pages.
@pytest.mark.parametrize(
    "language, preference", [("en", "light"), ("en", "dark"), ("ko", "light")]
)
def test_open_search_dialog_meets_wcag_21_aa(page, language, preference):
    page.emulate_media(color_scheme=preference)
    # A phone-sized window, where search opens as a full-screen dialog.
    page.set_viewport_size({"width": 400, "height": 800})
    page.goto(url_path(language, Path("index.md")))
    search(page, "RMS")
    settle(page)  # the dialog shown in full before contrast is measured
    assert violations(page, colors=language == "en") == []


@pytest.mark.usefixtures("empty_search_index")
def test_not_found_page_meets_wcag_21_aa(page):
    page.goto(f"{SITE_PATH}404.html")
    assert violations(page) == []


@pytest.mark.parametrize(
    "style, rule, element",
    [
        (
            ".md-typeset .highlight .k { color: #ddd !important }",
            "color-contrast",
            ".k",
        ),
        (".md-typeset math mi { color: #ddd !important }", "color-contrast", "mi"),
        # A link in a paragraph told from its text only by a color too close to it.
        (
            ".md-typeset p a { color: #444 !important; text-decoration: none !important }",
            "link-in-text-block",
            "a",
        ),
        # On a gradient axe does not decide: left undecided where it may not be, it fails.
        (
            ".md-typeset h1 { color: #eee; background: linear-gradient(#fff, #fefefe) }",
            "color-contrast",
            "#the-math-of-rmsnorm",  # the heading, named by its id
        ),
    ],
    ids=[
        "pale code token",
        "pale formula symbol",
        "link too like its text",
        "pale heading on a gradient",
    ],
)
def test_a_style_that_fails_a_color_rule_is_caught(page, style, rule, element):
    # The check of the sampling above: code tokens, formula symbols or links given a
    # failing style are reported, though axe sees only one element of each style.
    page.goto(url_path("en", Path("math.md")))
    page.add_style_tag(content=style)
    found = violations(page, others=False)
    # Each line: "color-contrast (serious) at ['... > mi[...]']: ...", the element last.
    targets = [line.split(" at ", 1)[1].split("]: ", 1)[0] for line in found]
    elements = [target.split(" > ")[-1].lstrip("['") for target in targets]
    assert found and all(line.startswith(f"{rule} (serious)") for line in found), found
    assert all(name.startswith(element) for name in elements), found
