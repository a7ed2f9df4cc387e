"""The Benchmark page's tables and plots, generated from one results file of run.py.

    python -m snippets.benchmark.page snippets/benchmark/results/<gpu>.json

writes snippets/benchmark/results/tables.en.md and tables.ko.md (included by the two
language pages) and one SVG plot per pass in docs/assets/benchmark/: the same files,
byte for byte, from the same JSON.
"""

import argparse
import json
from pathlib import Path

import matplotlib
from matplotlib.figure import Figure

ROOT = Path(__file__).resolve().parents[2]
TABLES = Path(__file__).resolve().parent / "results"
# The tables' few words, in each language of the site.
WORDS = {
    "en": {
        "device": "Device",
        "rows": "rows",
        "name": "implementation",
        "copy": "copy",
        "failed": "failed",
        "unit": "GB/s (% of copy)",
        "skipped": "Not run",
        "modes": {m: m for m in ["forward", "backward", "forward+backward"]},
    },
    "ko": {
        "device": "장치",
        "rows": "행",
        "name": "구현",
        "copy": "복사",
        "failed": "실패",
        "unit": "GB/s (복사 대비 %)",
        "skipped": "실행하지 않음",
        "modes": {
            "forward": "순전파",
            "backward": "역전파",
            "forward+backward": "순전파+역전파",
        },
    },
}
PLOTS = ROOT / "docs" / "assets" / "benchmark"
MODES = ["forward", "backward", "forward+backward"]
DTYPE_ORDER = ["torch.bfloat16", "torch.float16", "torch.float32"]

def _dtypes(results) -> list[str]:
    present = {run["dtype"] for run in results["runs"]}
    return [dtype for dtype in DTYPE_ORDER if dtype in present]

def _cell(run, words) -> str:
    if "error" in run:
        return words["failed"]
    return f"{run['gbps']:,.0f} ({run['copy_percent']:.0f}%)"

def tables(results, language: str) -> str:
    """One Markdown table per dtype and pass: GB/s and percent of the copy, per N."""
    words = WORDS[language]
    sizes = sorted({run["n"] for run in results["runs"]})
    versions = ", ".join(
        f"{label} {results[key] or '-'}"
        for label, key in [
            ("driver", "driver"),
            ("CUDA", "cuda"),
            ("torch", "torch"),
            ("triton", "triton"),
            ("Liger-Kernel", "liger-kernel"),
            ("QuACK", "quack-kernels"),
        ]
    )
    commit = (results["git_commit"] or "-")[:12]
    where = f"**{results['device']}**; {versions}; {results['date']}; commit `{commit}`"
    lines = [f"{words['device']}: {where}; M = {results['rows']} {words['rows']}.", ""]
    for dtype in _dtypes(results):
        copy = {c["n"]: c["gbps"] for c in results["copy"] if c["dtype"] == dtype}
        for mode in MODES:
            unit = words["unit"]
            runs = [
                r for r in results["runs"] if r["dtype"] == dtype and r["mode"] == mode
            ]
            names = list(dict.fromkeys(run["implementation"] for run in runs))
            lines += [
                f"**{dtype.removeprefix('torch.')}, {words['modes'][mode]}**: {unit}",
                "",
                f"| {words['name']} | " + " | ".join(f"N = {n}" for n in sizes) + " |",
                "| --- |" + " ---: |" * len(sizes),
                f"| {words['copy']} | "
                + " | ".join(f"{copy[n]:,.0f} (100%)" for n in sizes)
                + " |",
            ]
            for name in names:
                cells = {
                    r["n"]: _cell(r, words) for r in runs if r["implementation"] == name
                }
                row = " | ".join(cells.get(n, "") for n in sizes)
                lines.append(f"| {name} | {row} |")
            lines.append("")
    if results["skipped"]:
        lines.append(
            f"{words['skipped']}: "
            + "; ".join(
                f"{name}: {why}" for name, why in sorted(results["skipped"].items())
            )
            + "."
        )
    return "\n".join(lines).rstrip() + "\n"

def plot(results, mode, dtype) -> Figure:
    """GB/s and percent of the copy against N, one line per implementation."""
    fig = Figure(figsize=(9, 3.6), layout="constrained")
    speed, share = fig.subplots(1, 2)
    runs = [
        r
        for r in results["runs"]
        if r["dtype"] == dtype and r["mode"] == mode and "error" not in r
    ]
    copy = sorted((c["n"], c["gbps"]) for c in results["copy"] if c["dtype"] == dtype)
    speed.plot(*zip(*copy), color="black", linestyle="--", label="copy")
    for name in dict.fromkeys(r["implementation"] for r in runs):
        mine = sorted(
            (r["n"], r["gbps"], r["copy_percent"])
            for r in runs
            if r["implementation"] == name
        )
        sizes, gbps, percent = zip(*mine)
        speed.plot(sizes, gbps, marker="o", label=name)
        share.plot(sizes, percent, marker="o", label=name)
    for ax, label in [(speed, "GB/s"), (share, "% of copy bandwidth")]:
        ax.set(xscale="log", xlabel="N (row length)", ylabel=label)
        ax.set_xticks([n for n, _ in copy], [str(n) for n, _ in copy])
        ax.minorticks_off()
    speed.set_title(f"{dtype.removeprefix('torch.')}, {mode}, {results['device']}")
    speed.legend(fontsize="small")
    return fig

def write(
    results_path: Path, tables_path: Path = TABLES, plots: Path = PLOTS
) -> list[Path]:
    """Write the tables (into the folder tables_path) and the plots; return paths."""
    results = json.loads(results_path.read_text())
    tables_path.mkdir(parents=True, exist_ok=True)
    written = []
    for language in WORDS:
        path = tables_path / f"tables.{language}.md"
        path.write_text(tables(results, language))
        written.append(path)
    plots.mkdir(parents=True, exist_ok=True)
    dtype = _dtypes(results)[0]  # bfloat16 when measured: the dtype models train in
    for mode in MODES:
        path = plots / f"{mode.replace('+', '-')}.svg"
        # A fixed salt for element ids and no date: the same JSON gives the same bytes.
        with matplotlib.rc_context({"svg.hashsalt": "benchmark"}):
            figure = plot(results, mode, dtype)
            figure.savefig(path, metadata={"Date": None, "Creator": None})
        written.append(path)
    return written

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m snippets.benchmark.page")
    parser.add_argument("results", type=Path, help="a JSON file written by run.py")
    args = parser.parse_args(argv)
    for path in write(args.results):
        print(f"wrote {path.relative_to(ROOT)}")
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
