"""Add a page in both languages, ready to fill in: `scripts/new-page NAME "Title" "제목"`.

It writes what a page needs to pass the whole check as created:

- docs/en/NAME.md and docs/ko/NAME.md: a description for search results (front matter), the
  title, an "In short" box of placeholder conclusions linking the one section, whose Korean
  heading carries the English anchor, and the include of a first snippet; the Korean page
  records the English version it translates (scripts/translations.py);
- snippets/NAME/: the page's package (__init__.py with its docstring) and a first snippet
  with its #> lines;
- mkdocs.yml: the page in `nav` (before the Glossary, or after the title given with
  --after, in that title's section) and its Korean title in the Korean language's
  `nav_translations`.

`scripts/new-page --rename OLD NEW` moves a page instead: both languages' pages, its snippets
folder, and every include, import, link and `nav` entry that names them; a Korean page whose
translation was current before is recorded again (its English twin changed only by the
rename).

mkdocs.yml is edited as text, so that its comments and layout stay.
"""

import argparse
import re
import sys
from pathlib import Path

from scripts import translations

ROOT = Path(__file__).resolve().parents[1]
NAME = re.compile(r"[a-z][a-z0-9_]*")
SECTION = ("A first example", "첫 예제", "a-first-example")
SNIPPET = """\
import torch

# The page's first example: replace it with a script that prints what the page says.
x = torch.tensor([3.0, 4.0])
rms = x.pow(2).mean().sqrt()
print(f"the RMS of {x.tolist()} is {rms:.4f}")
#> the RMS of [3.0, 4.0] is 3.5355
"""


def pages(name: str, title: str, korean_title: str) -> dict[str, str]:
    """The two pages' Markdown, by language."""
    include = f'```python title="snippets/{name}/first_example.py"\n'
    include += f'--8<-- "snippets/{name}/first_example.py"\n```\n'
    english, korean, anchor = SECTION
    # The page opens with its conclusions (tests/test_pages.py): 3 to 5, each linking its
    # section.
    in_short = {
        "en": '!!! abstract "In short"\n\n'
        + "".join(
            f"    - **Conclusion {i}**: one thing the page shows, in a sentence"
            f" ([{english.lower()}](#{anchor})).\n"
            for i in (1, 2, 3)
        ),
        "ko": '!!! abstract "요약"\n\n'
        + "".join(
            f"    - **결론 {i}**: 이 페이지가 보여 주는 것을 한 문장으로"
            f" 적습니다([{korean}](#{anchor})).\n"
            for i in (1, 2, 3)
        ),
    }
    return {
        "en": "---\ndescription: What this page answers, in a sentence for search results.\n"
        f"---\n\n# {title}\n\n{in_short['en']}\nWhat this page answers, in a paragraph.\n\n"
        f"## {english}\n\nThe RMS of $[3, 4]$ is 3.5355:\n\n{include}",
        "ko": "---\ndescription: 이 페이지가 답하는 질문을 검색 결과에 보일 한 문장으로 적습니다.\n"
        f"---\n\n# {korean_title}\n\n{in_short['ko']}\n"
        "이 페이지가 답하는 질문을 한 문단으로 적습니다.\n\n"
        f"## {korean} {{ #{anchor} }}\n\n$[3, 4]$의 [RMS](glossary.md#root-mean-square)는 3.5355입니다.\n\n{include}",
    }


def indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def add_to_navigation(config: str, name, title, korean_title, after=None) -> str:
    """mkdocs.yml's text with the page in `nav` and its title in `nav_translations`."""
    lines = config.splitlines(keepends=True)
    start = end = lines.index("nav:\n") + 1
    while end < len(lines) and lines[end].startswith("  "):
        end += 1  # the nav block: its indented lines
    entries = {}  # title -> (line, indentation), at every level of the nav
    for i in range(start, end):
        if match := re.match(r"( *)- ([^:]+):", lines[i]):
            entries[match[2]] = (i, match[1])
    if title in entries:
        raise ValueError(f"the navigation already has a page titled {title!r}")
    if after is not None and after not in entries:
        raise ValueError(f"--after {after!r}: no such title in the navigation")
    if after is None:  # before the Glossary, which closes the navigation
        where, indent = entries.get("Glossary", (end, "  "))
    else:  # after that entry, and after a section's pages: at its level, in its section
        at, indent = entries[after]
        where = at + 1
        while where < end and indentation(lines[where]) > len(indent):
            where += 1  # the section's own lines, indented deeper
    lines.insert(where, f"{indent}- {title}: {name}.md\n")
    at = next(i for i, line in enumerate(lines) if line.strip() == "nav_translations:")
    indent = re.match(r" *", lines[at + 1])[0]
    last = at + 1
    while last < len(lines) and lines[last].startswith(indent) and lines[last].strip():
        last += 1
    lines.insert(last, f"{indent}{title}: {korean_title}\n")
    return "".join(lines)


def create(name: str, title: str, korean_title: str, after=None, root: Path = ROOT):
    """Write the pages, the snippet package and the navigation entries under `root`."""
    if not NAME.fullmatch(name):
        raise ValueError(
            f"NAME must be lowercase letters, digits and _ (a Python package), got {name!r}"
        )
    for given in (title, korean_title):  # written into mkdocs.yml as `Title: page.md`
        if not given.strip() or re.search(r"[:#]|^[-?!&*|>'\"%@`\[\]{},]", given):
            raise ValueError(
                f"title {given!r}: write it without ':' or '#', and not starting with"
                " a mark YAML reads (mkdocs.yml holds it unquoted)"
            )
    folder = root / "snippets" / name
    refuse_taken(name, root)
    config = root / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        add_to_navigation(text, name, title, korean_title, after), encoding="utf-8"
    )
    folder.mkdir()
    (folder / "__init__.py").write_text(
        f'"""Code blocks of the {title} page (docs/en/{name}.md, docs/ko/{name}.md)."""\n',
        encoding="utf-8",
    )
    (folder / "first_example.py").write_text(SNIPPET, encoding="utf-8")
    docs = root / "docs"
    for language, text in pages(name, title, korean_title).items():
        (docs / language / f"{name}.md").write_text(text, encoding="utf-8")
    translations.mark(docs / "ko" / f"{name}.md", docs)


def refuse_taken(name: str, root: Path) -> None:
    """A page's name is free only if neither language's page nor its snippets folder exists."""
    targets = [root / "docs" / lang / f"{name}.md" for lang in ("en", "ko")]
    targets.append(root / "snippets" / name)
    taken = [str(path.relative_to(root)) for path in targets if path.exists()]
    if taken:
        verb = "exists" if len(taken) == 1 else "exist"
        raise ValueError(f"{', '.join(taken)} already {verb}: choose another name")


def renamed(text: str, old: str, new: str) -> str:
    """`text` with the page's paths, imports and links pointing to its new name."""
    text = re.sub(rf"\bsnippets([/.]){old}\b", rf"snippets\g<1>{new}", text)
    # A link or a nav entry: (old.md#...), (../old.md), docs/en/old.md, ": old.md", or a
    # test's "old.md#..." string; not notebooks/old.md, another page.
    before = r"(?:(?<=[( \"'])|(?<=\.\./)|(?<=docs/en/)|(?<=docs/ko/))"
    return re.sub(
        rf"{before}{old}\.md(?=[#)\s,\"']|$)", f"{new}.md", text, flags=re.MULTILINE
    )


def rename(old: str, new: str, root: Path = ROOT) -> list[Path]:
    """Move page `old` to `new` in both languages with its snippets folder; rewrite what
    names them. Returns the files rewritten."""
    if not NAME.fullmatch(new):
        raise ValueError(
            f"NEW must be lowercase letters, digits and _ (a Python package), got {new!r}"
        )
    docs = root / "docs"
    moved = {lang: docs / lang / f"{old}.md" for lang in ("en", "ko")}
    missing = [str(p.relative_to(root)) for p in moved.values() if not p.is_file()]
    if old == "index" or missing:
        raise ValueError(f"no page {old!r} to rename ({', '.join(missing) or 'Home'})")
    refuse_taken(new, root)
    current = {
        korean
        for korean in (docs / "ko").rglob("*.md")
        if translations.recorded_hash(korean)
        == translations.source_hash(translations.english_source(korean, docs))
    }
    for language, page in moved.items():
        page.rename(docs / language / f"{new}.md")
    current = {docs / "ko" / f"{new}.md" if p == moved["ko"] else p for p in current}
    if (root / "snippets" / old).is_dir():
        (root / "snippets" / old).rename(root / "snippets" / new)
    files = [
        root / "mkdocs.yml",
        *root.glob("*.md"),  # README, CONTRIBUTING
        *docs.rglob("*.md"),
        *(root / "snippets").rglob("*.py"),
        *(root / "tests").rglob("*.py"),
        *(path for path in (root / "scripts").iterdir() if path.is_file()),
    ]
    rewritten = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        if (changed := renamed(text, old, new)) != text:
            path.write_text(changed, encoding="utf-8")
            rewritten.append(path)
    for korean in current:
        translations.mark(korean, docs)
    return rewritten


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--rename"]:
        renamer = argparse.ArgumentParser(prog="scripts/new-page --rename")
        renamer.add_argument("old", help="the page's name now, such as faq")
        renamer.add_argument("new", help="its new name, such as questions")
        args = renamer.parse_args(argv[1:])
        try:
            files = rename(args.old, args.new)
        except ValueError as error:
            renamer.error(str(error))
        print(
            f"moved {args.old} to {args.new} (pages, snippets/{args.new}/) and rewrote"
            f" {len(files)} files that named it. Its title stays: change it in mkdocs.yml"
            f" and on both pages if it should. Tests or plots named after the page keep"
            f" their names."
        )
        return 0
    parser = argparse.ArgumentParser(prog="scripts/new-page", description=__doc__)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("name", help="file and package name, such as faq")
    parser.add_argument("title", help="the English title, as the navigation shows it")
    parser.add_argument("korean_title", help="the Korean title (한국어 제목)")
    parser.add_argument("--after", help="the navigation title to put the page after")
    args = parser.parse_args(argv)
    try:
        create(args.name, args.title, args.korean_title, args.after)
    except ValueError as error:
        parser.error(str(error))
    name = args.name
    print(
        f"created docs/en/{name}.md, docs/ko/{name}.md, snippets/{name}/ and the"
        f" navigation entries in mkdocs.yml. Next: write the pages and the snippet, run"
        f" `scripts/test --update-examples -k {name}`, link the page from Home"
        f" (docs/*/index.md) and from the pages it extends, and after each change to the"
        f" English page update the Korean one and run"
        f" `.venv/bin/python -m scripts.translations mark ko/{name}.md`."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
