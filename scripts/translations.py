"""Which English page each Korean page translates, recorded as a hash in its front matter.

Every docs/ko page starts with front matter naming the SHA-256 of the English file it was
reviewed against:

    ---
    source_sha256: 3f5c...
    ---

When the English page changes, the hash no longer matches and tests/test_translations.py fails
until the Korean page is brought up to date and the record refreshed:

    .venv/bin/python -m scripts.translations status          # list stale or missing twins
    .venv/bin/python -m scripts.translations diff ko/math.md # what changed in en/math.md since
    .venv/bin/python -m scripts.translations mark ko/math.md # after reviewing docs/ko/math.md

`diff` finds the recorded English version in git's history (the commit whose file has the
recorded hash) and prints the changes from it to the current English page.
"""

import argparse
import difflib
import hashlib
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
KEY = "source_sha256"
_FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)
# The record, whatever its value: `mark` replaces a value that is not a hash too.
_RECORD = re.compile(rf"^{KEY}:[ \t]*(\S*)[ \t]*$", re.MULTILINE)


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
            found.append(
                f"{name}: no {KEY} in its front matter, so nothing says which version of"
                f" {source} it translates; once it matches {source}, run"
                f" `.venv/bin/python -m scripts.translations mark {name}`"
            )
        elif recorded_hash(korean) != source_hash(english):
            found.append(
                f"{name}: {source} changed since it was translated; see what changed with"
                f" `.venv/bin/python -m scripts.translations diff {name}`, update the Korean page,"
                f" then run `.venv/bin/python -m scripts.translations mark {name}`"
            )
    return found


def _git(root: Path, *args: str) -> bytes | None:
    result = subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    return result.stdout if result.returncode == 0 else None


def recorded_source(korean_page: Path, docs: Path = DOCS) -> tuple[str, str] | None:
    """(commit, text) of the English page as the Korean page's record names it: the newest
    commit whose version of the file has the recorded hash, under the name it had then (a
    renamed page's history is followed); None if git has none."""
    wanted = recorded_hash(korean_page)
    root = docs.parent  # the repository
    path = english_source(korean_page, docs).relative_to(root).as_posix()
    log = _git(root, "log", "--follow", "--name-only", "--format=%H", "--", path)
    # Each commit, then the file's name in it (a line each, a blank line between).
    lines = [line for line in (log or b"").decode().splitlines() if line]
    for commit, named in zip(lines[::2], lines[1::2]):
        blob = _git(root, "show", f"{commit}:{named}")
        if blob is not None and hashlib.sha256(blob).hexdigest() == wanted:
            return commit, blob.decode("utf-8")
    return None


def changes(korean_page: Path, docs: Path = DOCS) -> str:
    """A unified diff of the English page, from the recorded version to the current one."""
    english = english_source(korean_page, docs)
    source = english.relative_to(docs)
    if recorded_hash(korean_page) == source_hash(english):
        return (
            f"{source} has not changed since {korean_page.relative_to(docs)} was marked"
        )
    found = recorded_source(korean_page, docs)
    if found is None:
        return (
            f"no commit holds the version of {source} that"
            f" {korean_page.relative_to(docs)} records ({recorded_hash(korean_page)});"
            " compare the pages by hand"
        )
    commit, then = found
    return "".join(
        difflib.unified_diff(
            then.splitlines(keepends=True),
            english.read_text(encoding="utf-8").splitlines(keepends=True),
            fromfile=f"{source} as recorded (commit {commit[:12]})",
            tofile=f"{source} now",
        )
    )


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
    showing = commands.add_parser(
        "diff", help="the English page's changes since the recorded version"
    )
    showing.add_argument("page", help="a Korean page, e.g. ko/math.md")
    args = parser.parse_args(argv)

    if args.command == "diff":
        print(changes(_korean_page(args.page)).rstrip("\n"))
        return 0

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
