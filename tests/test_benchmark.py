"""The benchmark (snippets/benchmark/run.py) and the Benchmark page's generator (page.py).

- A smoke run on tiny sizes works on this machine's CPU and writes a complete results file:
  versions, every implementation in every pass, or the reason it was left out, and figures
  that agree with each other (GB/s from the fewest bytes and the time, % of the copy).
- A run without a GPU never writes into snippets/benchmark/results/, where GPU results go.
- The generator turns a results file into both languages' tables and the SVG plots, byte for
  byte the same from the same file; the committed tables and plots are those of the committed
  GPU results, and with no GPU results the page shows no figures.
"""

import json
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
import torch

from conftest import DOCS, LANGUAGES, ROOT, read
from snippets.benchmark import page, run

GPU_RESULTS = sorted(run.RESULTS.glob("*.json"))
# One worker runs this file, so the smoke run below happens once.
pytestmark = pytest.mark.xdist_group("benchmark")


def benchmark(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "snippets.benchmark.run", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(scope="module")
def smoke_results(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("benchmark") / "smoke.json"
    result = benchmark("--smoke", "--out", str(out))
    assert result.returncode == 0, result.stderr
    return out


def test_smoke_run_writes_every_figure(smoke_results: Path):
    results = json.loads(smoke_results.read_text())
    for key in ["device", "torch", "triton", "python", "date", "git_commit", "rows"]:
        assert results[key], f"{key} missing"
    found, _ = run.implementations(smoke=True)
    assert set(found) | set(results["skipped"]) >= {
        "eager naive", "eager Hugging Face", "torch F.rms_norm", "torch.compile naive",
        "Triton (this site)", "Liger-Kernel", "QuACK", "LayerNorm eager",
        "LayerNorm compiled",
    }  # fmt: skip
    copies = {(c["dtype"], c["n"]): c for c in results["copy"]}
    runs = results["runs"]
    assert len(runs) == len(copies) * len(found) * len(run.MODES)
    for entry in runs:
        assert "error" not in entry, entry
        size = (
            results["rows"] * entry["n"] * getattr(torch, entry["dtype"][6:]).itemsize
        )
        expected = run.PASSES[entry["mode"]] * size / entry["ms"] / 1e6
        assert entry["gbps"] == pytest.approx(expected)
        copy = copies[entry["dtype"], entry["n"]]["gbps"]
        assert entry["copy_percent"] == pytest.approx(100 * entry["gbps"] / copy)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks a machine without a GPU")
def test_a_run_without_a_gpu_never_writes_gpu_results(tmp_path: Path):
    refused = benchmark("--smoke", "--out", str(run.RESULTS / "cpu.json"))
    assert refused.returncode != 0 and "does not write into" in refused.stderr
    assert not (run.RESULTS / "cpu.json").exists()
    full = benchmark()
    assert full.returncode != 0 and "needs a CUDA GPU" in full.stderr


def test_generator_writes_tables_and_plots_reproducibly(smoke_results, tmp_path):
    first = page.write(smoke_results, tmp_path / "a", tmp_path / "a")
    second = page.write(smoke_results, tmp_path / "b", tmp_path / "b")
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]
    results = json.loads(smoke_results.read_text())
    for language in LANGUAGES:
        table = (tmp_path / "a" / f"tables.{language}.md").read_text()
        assert results["device"] in table and results["torch"] in table
        for entry in results["runs"]:
            assert entry["implementation"] in table
            assert f"{entry['gbps']:,.0f} ({entry['copy_percent']:.0f}%)" in table
    for svg in (tmp_path / "a").glob("*.svg"):
        ElementTree.parse(svg)  # well-formed


@pytest.mark.parametrize("language", LANGUAGES)
def test_page_shows_exactly_the_committed_gpu_results(language, tmp_path):
    text = read(DOCS / language / "benchmark.md")
    included = f"snippets/benchmark/results/tables.{language}.md"
    if not GPU_RESULTS:
        assert included not in text, "figures on the page, but no GPU results"
        assert not list(page.PLOTS.glob("*.svg")), "plots without GPU results"
        return
    assert included in text
    assert len(GPU_RESULTS) == 1, "one GPU results file feeds the page"
    page.write(GPU_RESULTS[0], tmp_path, tmp_path)
    for fresh in tmp_path.iterdir():
        committed = (page.PLOTS if fresh.suffix == ".svg" else page.TABLES) / fresh.name
        assert committed.read_bytes() == fresh.read_bytes(), f"{committed} is stale"
