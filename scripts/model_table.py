"""The Models page's table of model families, as Markdown the page includes (so that it reads
as a table, on a phone too, and search finds a checkpoint's row): one file per language,
snippets/models/families.<language>.md.

    .venv/bin/python -m scripts.model_table    # rewrite them after families.py's output changes

The rows are what snippets/models/families.py prints, read from its output lines, which
tests/test_standalone.py checks against a run of the block; tests/test_models.py checks that
the files are what this script writes from them.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SNIPPET = ROOT / "snippets" / "models" / "families.py"
HEADERS = {
    "en": [
        "Family (`model_type`)",
        "Checkpoints (hidden size, ε)",
        "Norm classes (gain)",
    ],
    "ko": [
        "계열(`model_type`)",
        "체크포인트(은닉 차원 크기, ε)",
        "정규화 층 클래스(게인)",
    ],
}


def printed_table(source: str) -> list[str]:
    """The table's lines as families.py prints them: its last output block, header first."""
    block = source.rsplit('"""', 2)[1]
    return block.strip("\n").splitlines()


def families(lines: list[str]) -> list[dict]:
    """One entry per family: its name, model type, checkpoints and norm classes. The
    columns are those families.py writes: family, model, hidden, eps, model type, norms."""
    header, *rows = lines
    starts = [header.index(name) for name in ("model ", "hidden", "eps", "model type")]
    starts.append(header.index("norm classes"))
    found = []
    for row in rows:
        family = row[: starts[0]].strip()
        model = row[starts[0] : starts[1]].strip()
        hidden = row[
            starts[1] : starts[2] - 1
        ].strip()  # right-aligned under its header
        eps = row[starts[2] : starts[3]].strip()
        model_type = row[starts[3] : starts[4]].strip()
        norm = row[starts[4] :].strip()
        if family:
            found.append(
                {"family": family, "type": model_type, "models": [], "norms": []}
            )
        if model:
            found[-1]["models"].append(f"{model}: {hidden}, {eps}")
        if norm:
            found[-1]["norms"].append(norm)
    return found


def markdown(entries: list[dict], language: str) -> str:
    def code(norm: str) -> str:  # "LlamaRMSNorm (w)" -> "`LlamaRMSNorm` (w)"
        name, _, gain = norm.partition(" ")
        return f"`{name}` {gain}"

    def whole(model: str) -> str:  # "3 8B: 4096, 1e-05": "3" not above "8B" on a phone
        name, colon, rest = model.partition(":")
        return name.replace(" ", "\u00a0") + colon + rest

    # A space after each line break: the search index, which drops the tag, keeps the entries
    # apart ("1e-06 4B:", not "1e-064B:"); a browser draws no space at a line's start.
    lines = ["| " + " | ".join(HEADERS[language]) + " |", "| --- | --- | --- |"]
    for entry in entries:
        cells = [
            f"{entry['family']} (`{entry['type']}`)",
            "<br> ".join(whole(model) for model in entry["models"]),
            "<br> ".join(code(norm) for norm in entry["norms"]),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write(folder: Path = SNIPPET.parent) -> list[Path]:
    """Write the table in each language to `folder`; return the files."""
    entries = families(printed_table(SNIPPET.read_text(encoding="utf-8")))
    written = []
    for language in HEADERS:
        path = folder / f"families.{language}.md"
        path.write_text(markdown(entries, language), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write():
        print(f"wrote {path.relative_to(ROOT)}")
