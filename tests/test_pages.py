"""Page policy: every code block is a snippet include, and numbers come from the code.

- A code fence under docs/ holds nothing but `--8<-- "snippets/..."` lines, and a page includes
  only from its own folder or module of the snippets package (index.md -> snippets/home/,
  notebooks/playground.md -> snippets/notebooks/playground.py).
- A Korean page includes the same snippet files, in the same order, as its English twin, and
  shows the same formulas and the same numbers, each as many times and with its sign.
- Every decimal number, scientific-notation number and percentage in a page's text (its
  description included) is written in, or printed by, a snippet that page includes (a negative
  one with its sign).
- Every page has a description of its own, in its language and short enough for a search
  result, in its front matter.
"""

import re
from collections import Counter
from pathlib import Path

import pytest
from markdown.extensions.toc import slugify
from page_text import (
    FENCE,
    FORMULA,
    HANGUL,
    INCLUDE,
    description,
    generated_text,
    includes,
    prose,
    read,
    shown_code,
)
from site_layout import DOCS, ROOT, i18n_language, mkdocs_config, pages

from scripts import standalone

TITLE = re.compile(r'title="(?P<title>[^"]*)"')
HEADING = re.compile(r"^#{2,6} (?P<text>.+?)[ \t]*$", re.MULTILINE)
EXPLICIT_ID = re.compile(r"\{ *#(?P<id>[\w-]+) *\}$")
# Version numbers are facts about tools, not results, arXiv identifiers name papers and
# commits in code spans name commits (`7e00239` is no 7e+239): none is checked against code.
NOT_RESULTS = re.compile(
    r"\b(?:Python|PyTorch|torch|MkDocs|Triton)\s+\d+(?:\.\d+)+|\barXiv:\d{4}\.\d{4,5}"
    r"|https://arxiv\.org/abs/\d{4}\.\d{4,5}|`(?=[0-9]*[a-f])[0-9a-f]{7,40}`"
)
# 1.3693, 0.75, 1e-6, 5.0e-07, 41.3%, -0.52: but not integers, and not 2.13.0 or
# 127.0.0.1. A number may follow Hangul (Python's \w would take it for part of a word);
# a minus is its sign where it is attached and follows no letter, digit or bracket (in
# "x - 0.5" and "a-0.5" it subtracts).
NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.])((?<![A-Za-z0-9_.)\]}])-)?(\d+(?:\.\d+)*(?:e[-+]?\d+)?%?)"
)

EN_PAGES = pages("en")


def numbers(text: str) -> list[tuple[float, bool]]:
    """Every decimal, scientific or percentage number, as (value, is_percentage), as
    often as the text writes it."""
    text = NOT_RESULTS.sub("", text.replace("\u2212", "-"))
    found = []
    for sign, token in NUMBER.findall(text):
        is_percentage = token.endswith("%")
        digits = token.rstrip("%")
        if digits.count(".") > 1 or not (
            "." in digits or "e" in digits or is_percentage
        ):
            continue
        found.append((float(sign + digits), is_percentage))
    return found


def snippet_home(page: Path) -> str:
    """Where a page's snippets live: snippets/<page>/ or the module snippets/<page>.py."""
    stem = page.with_suffix("").as_posix()
    return "snippets/home" if stem == "index" else f"snippets/{stem}"


def both_languages(page: Path) -> list[Path]:
    return [DOCS / "en" / page, DOCS / "ko" / page]


ALL_PAGES = [path for page in EN_PAGES for path in both_languages(page)]


def page_id(path: Path) -> str:
    return str(path.relative_to(DOCS))


@pytest.mark.parametrize("path", ALL_PAGES, ids=page_id)
def test_code_blocks_only_include_snippet_files(path: Path):
    page = Path(*path.relative_to(DOCS).parts[1:])  # docs/ko/math.md -> math.md
    for fence in FENCE.finditer(read(path)):
        lines = [line for line in fence["body"].splitlines() if line.strip()]
        assert lines, f"{page_id(path)}: empty code block"
        for line in lines:
            match = INCLUDE.match(line)
            assert match, (
                f"{page_id(path)}: code block line {line!r} is not a snippet include;"
                " put the code in a file under snippets/ and include it"
            )
            target = match["target"].split(":")[0]
            assert (ROOT / target).is_file(), f"{page_id(path)}: no file {target}"
            home = snippet_home(page)
            assert target.startswith(f"{home}/") or target == f"{home}.py", (
                f"{page_id(path)} includes {target}; its snippets belong in {home}/"
                f" or {home}.py"
            )
        if title := TITLE.search(fence["info"]):
            shown = {INCLUDE.match(line)["target"].split(":")[0] for line in lines}
            assert shown == {title["title"]}, (
                f"{page_id(path)}: title does not name the file"
            )


@pytest.mark.parametrize("page", EN_PAGES, ids=str)
def test_korean_page_shows_the_same_code(page: Path):
    english, korean = (read(path) for path in both_languages(page))
    english_code, korean_code = includes(english), includes(korean)
    assert korean_code == english_code, (
        f"ko/{page}: include the English page's snippets, in its order: "
        + "; ".join(differences("includes", english_code, korean_code) or ["order"])
    )


# The words a Korean page writes in Korean inside a formula's \text{}, and their English.
KOREAN_IN_FORMULAS = {
    r"\text{순전파: }": r"\text{forward: }",
    r"\text{역전파: }": r"\text{backward: }",
    r"\text{ 바이트}": r"\text{ bytes}",
    r"\text{바이트 수}": r"\text{bytes}",
    r"\text{행}": r"\text{rows}",
    r"\text{그룹별}": r"\text{per group}",
}


@pytest.mark.parametrize("page", EN_PAGES, ids=str)
def test_korean_page_shows_the_same_formulas_and_numbers(page: Path):
    english, korean = (prose(read(path)) for path in both_languages(page))
    for words, in_english in KOREAN_IN_FORMULAS.items():
        korean = korean.replace(words, in_english)
    formulas = [[m[0] for m in FORMULA.finditer(text)] for text in (english, korean)]
    problems = differences("formulas", *(sorted(f) for f in formulas))
    problems += differences("numbers", numbers(english), numbers(korean))
    assert not problems, f"ko/{page} against en/{page}:\n" + "\n".join(problems)


# Whole numbers of two or more digits, commas grouping thousands (4096, 1,475, the 93 of
# "93 percent"); not part of a decimal, a version or an anchor (zhu-2025). numbers() leaves
# them out, a width as often as a result, so they are compared between the languages only.
WHOLE = re.compile(
    r"(?<![A-Za-z0-9_.\-])(\d{1,3}(?:,\d{3})+|\d{2,})(?!,?\d|\.\d|e[-+]?\d)"
)


# The whole numbers a Korean page gives more often than its English twin, and how many
# times more: Korean repeats a number where English says "it" or "there", writes "10분의 1"
# for "a tenth" and "30억" for "3B", and links a numbered exercise by its number. Counted,
# so that a figure changed on the Korean page alone (8192 written 16384) shows too.
KOREAN_REPEATS = {
    "activations.md": {50: 1, 1000: 1, 10: 4},
    "benchmark_results.md": {8192: 1, 10: 1, 16384: 1},
    "beyond.md": {48: 1, 30: 1},
    "check.md": {300: 3, 100: 3, 10: 8, 16: 1},
    "dynamics.md": {1000: 1},
    "exercises.md": {
        **dict.fromkeys([10, 11, 12, 13, 14, 15, 17], 1),
        400: 1,
        1600: 1,
    },
    "fp8.md": {448: 1, 128: 1},
    "kernel.md": {10: 4, 15: 1, 16: 1, 512: 1},
    "numerics.md": {10: 2, 64: 1, 4096: 1},
    "placement.md": {30: 1},
}


@pytest.mark.parametrize("page", EN_PAGES, ids=str)
def test_korean_page_states_every_whole_number_of_the_english(page: Path):
    """Each whole number the English prose gives, the Korean gives as often, or as much
    more often as KOREAN_REPEATS says: a figure changed or dropped in one language shows
    here."""
    english, korean = (
        Counter(
            int(n.replace(",", ""))
            for n in WHOLE.findall(NOT_RESULTS.sub("", prose(read(path))))
        )
        for path in both_languages(page)
    )
    missing = english - korean
    assert not missing, f"ko/{page} lacks these of en/{page}: {dict(missing)}"
    repeats = Counter(KOREAN_REPEATS.get(page.as_posix(), {}))
    assert korean - english == repeats, (
        f"ko/{page} gives these more often than en/{page}: {dict(korean - english)};"
        f" KOREAN_REPEATS lists {dict(repeats)} (a repeat the Korean needs goes there)"
    )


def differences(what: str, english, korean) -> list[str]:
    """What one language's page has that the other's lacks, in words."""
    only_english = [item for item in english if item not in korean]
    only_korean = [item for item in korean if item not in english]
    lines = []
    if only_english:
        lines.append(f"{what} only on the English page: {listed(only_english)}")
    if only_korean:
        lines.append(f"{what} only on the Korean page: {listed(only_korean)}")
    if not lines and sorted(english, key=str) != sorted(korean, key=str):
        lines.append(f"{what}: the same ones, a different number of times")
    return lines


def listed(items) -> str:
    """Numbers as a page writes them (0.25, 95%); formulas as they are."""
    return ", ".join(
        f"{item[0]:g}{'%' if item[1] else ''}" if isinstance(item, tuple) else str(item)
        for item in sorted(items, key=str)
    )


@pytest.mark.parametrize("page", EN_PAGES, ids=str)
def test_korean_headings_keep_the_english_anchors(page: Path):
    # Same sections in the same order, and links like math.md#a-worked-example work in both.
    english, korean = (prose(read(path)) for path in both_languages(page))
    # An English heading's anchor is its slug unless it names one ({ #check-form }).
    english_ids = [
        explicit["id"]
        if (explicit := EXPLICIT_ID.search(m["text"]))
        else slugify(m["text"], "-")
        for m in HEADING.finditer(english)
    ]
    korean_ids = [
        (EXPLICIT_ID.search(m["text"]) or {"id": None})["id"]
        for m in HEADING.finditer(korean)
    ]
    assert korean_ids == english_ids, (
        f"ko/{page}: give each heading the English heading's anchor, in order, as"
        f" '## 제목 {{ #anchor }}': English {english_ids}, Korean {korean_ids}"
    )


@pytest.mark.parametrize("path", ALL_PAGES, ids=page_id)
def test_every_number_on_a_page_comes_from_its_code(path: Path):
    text = read(path)
    language = path.relative_to(DOCS).parts[0]
    # What the page shows: a file:section include only that section.
    code = "\n".join(shown_code(target, language) for target in includes(text))
    written = set(numbers(code)) | set(numbers(generated_text(text)))
    # A page may give a printed -4.5e-08 as an error of 4.5e-08, but never the reverse.
    written |= {(abs(value), percentage) for value, percentage in written}
    stated = prose(text) + "\n" + (description(path) or "")
    unexplained = set(numbers(stated)) - written
    shown = sorted(f"{value:g}{'%' if pct else ''}" for value, pct in unexplained)
    assert not unexplained, (
        f"{page_id(path)} states {shown}, which no included snippet writes or prints"
    )


@pytest.mark.parametrize("path", ALL_PAGES, ids=page_id)
def test_every_page_has_a_description_for_search_results(path: Path):
    described = description(path)
    assert isinstance(described, str), (
        f"{page_id(path)}: no `description:` in its front matter (Material would give"
        " the site's description, the same on every page)"
    )
    # Search results show about 160 characters; fewer than 30 say little more than a title.
    assert 30 <= len(described) <= 160, f"{page_id(path)}: {len(described)} characters"
    korean = path.is_relative_to(DOCS / "ko")
    assert bool(HANGUL.search(described)) == korean, f"{page_id(path)}: {described}"


@pytest.mark.parametrize("language", ["en", "ko"])
def test_no_two_pages_share_a_description(language: str):
    site = (mkdocs_config() | i18n_language(language))["site_description"]
    described = [description(DOCS / language / page) for page in EN_PAGES]
    assert len(set(described)) == len(described), "two pages share a description"
    assert site not in described, "a page repeats the site's description"


def test_every_snippet_file_is_shown_on_a_page():
    """Shown as a block, or written out (folded) in a block that imports it."""
    shown = {
        target.split(":")[0]
        for page in EN_PAGES
        for target in includes(read(DOCS / "en" / page))
    }
    for path in list(shown):
        text = standalone.standalone(read(ROOT / path), path)
        shown.update((standalone.written_out(text.splitlines()) or (0, 0, []))[2])
    scripts = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "snippets").rglob("*.py")
        if path.name != "__init__.py"
    }
    assert scripts - shown == set(), "snippet files that no page shows"


def test_numbers_keep_their_sign_and_count_and_may_follow_hangul():
    text = "약0.5, −0.25 and 12.5%; x - 0.75, a-1.5, 2.13.0, 3 and 12.5%"
    assert numbers(text) == [
        (0.5, False), (-0.25, False), (12.5, True), (0.75, False), (1.5, False),
        (12.5, True),
    ]  # fmt: skip
    assert numbers("commit `7e00239`, 7e00239 and `1e-06`") == [
        (7e239, False),
        (1e-6, False),
    ]
    assert differences("numbers", numbers("0.5 and 0.5"), numbers("0.5")) == [
        "numbers: the same ones, a different number of times"
    ]
    assert differences("numbers", numbers("-0.5"), numbers("0.5")) == [
        "numbers only on the English page: -0.5",
        "numbers only on the Korean page: 0.5",
    ]


# Home's routes by goal: (goal, the pages it points to), in both languages.
ROUTES = [
    (
        "new to it",
        [
            "math.md#layernorm-briefly",
            "math.md#zero-mean-input-rmsnorm-equals-layernorm",
            "exercises.md#1-a-second-vector",
            "#why-models-use-it",
            "placement.md",
            "pitfalls.md",
            "check.md",
        ],
    ),
    (
        "implement",
        [
            "models.md#porting-a-model-its-norms-in-order",
            "implementations.md#a-module-to-copy",
            "pitfalls.md",
            "check.md",
        ],
    ),
    ("understand", ["math.md", "gradients.md", "placement.md", "dynamics.md"]),
    (
        "train it",
        [
            "placement.md",
            "placement.md#a-deep-stack-at-initialization",
            "placement.md#a-deep-stack-at-initialization",  # LayerNorm Scaling
            "beyond.md#gradients-at-initialization",
            "placement.md#two-places-for-the-norm",
            "pitfalls.md#gains-initialized-like-a-linear-layers-weights",
            "pitfalls.md#gains-trained-in-bfloat16",
            "dynamics.md#weight-decay-and-the-gain",
            "activations.md#attention-logit-growth-and-qk-norm",
            "activations.md#what-to-log-in-a-training-run",
            "implementations.md#under-autocast",
            "implementations.md#under-fsdps-mixed-precision",
            "implementations.md#fine-tuning-with-lora",
            "implementations.md#a-checklist-for-training-in-half-precision",
            "benchmark_results.md#a-compiled-layer",
            "benchmark_results.md#which-to-use",
        ],
    ),
    (
        "make it fast",
        ["kernel.md", "kernel_in_practice.md", "fp8.md", "benchmark_results.md"],
    ),
    (
        "serve it",
        [
            "models.md#porting-a-model-its-norms-in-order",
            "models.md#model-families-and-their-norms",
            "numerics.md#rounding-conventions-in-production-code",
            "numerics.md#batch-invariance",
            "benchmark_results.md#which-to-use",
            "implementations.md#the-fused-add-and-norm-of-inference-engines-in-place",
            "fp8.md",
            "kernel_in_practice.md#split-across-devices",
            "frameworks.md",
            "frameworks.md#exported-to-onnx",
            "pitfalls.md#running-a-bfloat16-model-in-float16",
            "pitfalls.md#where-there-is-no-float32",
            "kernel_in_practice.md",
        ],
    ),
    (
        "coming from LayerNorm",
        [
            "math.md#the-rmsnorm-definition",
            "benchmark_results.md#a-compiled-layer",
            "benchmark_results.md",
            "benchmark.md#on-a-cpu",
            "placement.md#training-a-tiny-language-model",
            "math.md#converting-a-pre-norm-layernorm-model",
            "dynamics.md#weight-decay-and-the-gain",
        ],
    ),
    (
        "debug a NaN",
        [
            "pitfalls.md#a-nan-in-training-or-inference-where-it-starts",
            "pitfalls.md#no-float32-upcast",
            "implementations.md#under-autocast",
            "pitfalls.md#running-a-bfloat16-model-in-float16",
            "activations.md#what-to-log-in-a-training-run",
            "activations.md#attention-logit-growth-and-qk-norm",
            "pitfalls.md#gains-trained-in-bfloat16",
            "pitfalls.md#no-float32-upcast",
            "dynamics.md#weight-decay-and-the-gain",
        ],
    ),
    (
        "check yours",
        [
            "check.md",
            "check.md#on-this-sites-code-and-on-broken-forms",
            "kernel_in_practice.md#checking-it-without-a-gpu",
            "numerics.md#tolerances-that-tell-conventions-apart",
        ],
    ),
]


@pytest.mark.parametrize("language", ["en", "ko"])
def test_home_starts_with_routes_by_goal(language):
    """Home's first section is "Start here": one bullet per goal, linking its pages."""
    text = read(DOCS / language / "index.md")
    first = HEADING.search(text)
    assert first["text"].endswith(("Start here", "{ #start-here }")), first["text"]
    section = text[first.end() : HEADING.search(text, first.end()).start()]
    bullets = re.findall(r"^- (.+(?:\n  .+)*)", section, re.MULTILINE)
    assert len(bullets) == len(ROUTES), bullets
    for bullet, (goal, targets) in zip(bullets, ROUTES, strict=True):
        links = re.findall(r"\]\(([^)]+)\)", bullet)
        pages_linked = [link for link in links if not link.startswith("glossary.md")]
        assert pages_linked == targets, (
            goal,
            links,
        )  # a Korean term's glossary link aside


# Every content page opens with its conclusions, Home too (its routes by goal follow): all
# but the Glossary and References. In a notebook page's notebook the box becomes HTML around
# Markdown (scripts/notebooks.py), which Jupyter renders and the site styles alike.
NOT_CONTENT = {"glossary.md", "references.md"}
IN_SHORT_PAGES = [str(page) for page in pages("en") if str(page) not in NOT_CONTENT]
IN_SHORT_TITLE = {"en": "In short", "ko": "요약"}
IN_SHORT_WORDS = 320
# A bullet a phone shows in about one screen (Korean runs longer on the same facts).
IN_SHORT_BULLET_WORDS = 90


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("page", IN_SHORT_PAGES)
def test_a_page_opens_with_its_conclusions(language, page):
    """The first element after the title is the "In short" box: 3 to 5 bullets, each
    linking the section that shows it, and short enough to read first (English: at most
    IN_SHORT_WORDS words, and IN_SHORT_BULLET_WORDS a bullet, links' addresses aside; the
    detail belongs to the sections)."""
    text = read(DOCS / language / page)
    body = text[re.search(r"^# .+$", text, re.MULTILINE).end() :].lstrip("\n")
    box = f'!!! abstract "{IN_SHORT_TITLE[language]}"\n\n'
    assert body.startswith(box), body[:80]
    inside = re.match(r"(?:    .*\n|\n)+", body[len(box) :])[0]
    bullets = re.findall(r"^    - (.+(?:\n      .+)*)", inside, re.MULTILINE)
    assert 3 <= len(bullets) <= 5, bullets
    if language == "en":
        counts = [len(re.sub(r"\]\([^)]*\)", "]", b).split()) for b in bullets]
        assert sum(counts) <= IN_SHORT_WORDS, f"{sum(counts)} words in the In short box"
        assert max(counts) <= IN_SHORT_BULLET_WORDS, f"bullets of {counts} words"
    for bullet in bullets:
        assert re.search(r"\]\([^)]*#[\w-]+\)", bullet), (
            f"no link to a section: {bullet}"
        )
