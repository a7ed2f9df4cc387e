"""Which English page each Korean page translates, recorded as a hash in its front matter.

Every docs/ko page starts with front matter naming the SHA-256 of the English file it was
reviewed against:

    ---
    source_sha256: 3f5c...
    ---

When the English page changes, the hash no longer matches and tests/test_translations.py fails
until the Korean page is brought up to date and the record refreshed:

    .venv/bin/python -m scripts.translations status          # list stale or missing twins
    .venv/bin/python -m scripts.translations mark ko/math.md # after reviewing docs/ko/math.md
"""

import argparse
import hashlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
KEY = "source_sha256"
_FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)
_RECORD = re.compile(rf"^{KEY}:\s*([0-9a-f]+)\s*$", re.MULTILINE)


def english_source(korean_page: Path, docs: Path = DOCS) -> Path:
    return docs / "en" / korean_page.relative_to(docs / "ko")


def source_hash(english_page: Path) -> str:
    return hashlib.sha256(english_page.read_bytes()).hexdigest()


def recorded_hash(korean_page: Path) -> str | None:
    front = _FRONT_MATTER.match(korean_page.read_text(encoding="utf-8"))
    record = front and _RECORD.search(front[1])
    return record[1] if record else None


def problems(docs: Path = DOCS) -> list[str]:
    """One line per English page whose Korean twin is missing or out of date."""
    found = []
    for english in sorted((docs / "en").rglob("*.md")):
        korean = docs / "ko" / english.relative_to(docs / "en")
        name, source = korean.relative_to(docs), english.relative_to(docs)
        if not korean.exists():
            found.append(f"{name}: missing (translate {source})")
        elif recorded_hash(korean) is None:
            found.append(f"{name}: no {KEY} in its front matter")
        elif recorded_hash(korean) != source_hash(english):
            found.append(
                f"{name}: {source} changed since it was translated; update the Korean"
                f" page, then run `python -m scripts.translations mark {name}`"
            )
    return found


def mark(korean_page: Path, docs: Path = DOCS) -> None:
    """Record that `korean_page` now translates the current English page."""
    line = f"{KEY}: {source_hash(english_source(korean_page, docs))}"
    text = korean_page.read_text(encoding="utf-8")
    front = _FRONT_MATTER.match(text)
    if front is None:
        text = f"---\n{line}\n---\n\n{text}"
    elif _RECORD.search(front[1]):
        body = _RECORD.sub(line, front[1])
        text = f"---\n{body}\n---\n{text[front.end() :]}"
    else:
        text = f"---\n{front[1]}\n{line}\n---\n{text[front.end() :]}"
    korean_page.write_text(text, encoding="utf-8")


def _korean_page(argument: str) -> Path:
    path = Path(argument)
    for candidate in (path, DOCS / path, DOCS / "ko" / path):
        candidate = candidate.resolve()
        if candidate.is_file() and candidate.is_relative_to(DOCS / "ko"):
            return candidate
    raise SystemExit(f"not a Korean page under docs/ko/: {argument}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.translations", description=__doc__.split("\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "status", help="list Korean pages that are missing or out of date"
    )
    marking = commands.add_parser("mark", help="record reviewed translations")
    marking.add_argument("pages", nargs="+", help="Korean pages, e.g. ko/math.md")
    args = parser.parse_args(argv)

    if args.command == "mark":
        for page in map(_korean_page, args.pages):
            mark(page)
            source = english_source(page).relative_to(DOCS)
            print(f"recorded: {page.relative_to(DOCS)} translates {source}")
        return 0
    found = problems()
    print("\n".join(found) or "every Korean page is up to date")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
