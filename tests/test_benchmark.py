"""The benchmark (snippets/benchmark/run.py) and the Benchmark page's generator (page.py).

- A smoke run on tiny stand-ins of the GPU's groups of shapes works on this machine's CPU
  and writes a complete results file: versions, every implementation of each group in the
  three passes and both timings (the graph timing as a labelled CPU stand-in), each figure
  the median of its rounds with its range, GB/s and % of the copy of equal bytes that agree
  with the times and the bytes counted, and the host time per call of every implementation
  and of the kernels' bare launches.
- The copy of equal bytes copies, and moves half the pass's bytes each way; % of peak
  follows from a peak; an implementation that fails at a shape (Liger-Kernel above
  N = 65536) is recorded as failed there and measured elsewhere.
- The passes: gradients returned, not copied into .grad; a backward alone that runs again
  from one forward, compiled with donated buffers off.
- The torch.compile guard turns a graph break or a recompile into a recorded failure.
- Results are fresh: measured on the current code, comments and docstrings aside.
- A run without a GPU never writes GPU results; a CPU run writes only to results/cpu/.
- The generator writes both languages' tables and plots byte for byte the same from the same
  file, shows every figure in tabs that render, and states each target as met or missed from
  the figures.
- The page shows exactly the committed results: no GPU figures until there are GPU results,
  and the committed CPU results in the section "On a CPU".
"""

import ast
import contextlib
import copy
import hashlib
import io
import json
import re
import runpy
import statistics
import subprocess
import warnings
from dataclasses import replace
from pathlib import Path
from xml.etree import ElementTree

import markdown
import matplotlib
import pytest
import torch
from matplotlib.text import Text
from page_text import read
from site_layout import (
    DOCS,
    LANGUAGES,
    PHONE_COLUMN_PX,
    ROOT,
    mkdocs_config,
    python_module,
)

from scripts import host_probe
from snippets.benchmark import page, run, tune
from snippets.kernel import rms_norm_triton as kernel

GPU_RESULTS = sorted(run.RESULTS.glob("*.json"))
CPU_RESULTS = sorted(run.CPU_RESULTS.glob("*.json"))
OLD_COMMIT = "a6b8d27"  # this repository's benchmark before the graph and eager timings
# A few rows and one N, no compiling: the pipeline in a second.
TINY = replace(
    run.SETUPS["smoke"],
    groups={"rows": ((2, 16),)},
    dtypes=(torch.float32,),
    host_calls=3,
)
# One worker runs this file, so the smoke run below happens once.
pytestmark = pytest.mark.xdist_group("benchmark")


def benchmark(*args: str) -> subprocess.CompletedProcess:
    return python_module("snippets.benchmark.run", *args)


@pytest.fixture(scope="session")
def smoke_results(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("benchmark") / "smoke.json"
    result = benchmark("--smoke", "--out", str(out))
    assert result.returncode == 0, result.stderr
    return out


def where(entry: dict) -> tuple:
    """The dtype, group and shape (M, N) of an entry."""
    return entry["dtype"], entry["group"], entry["m"], entry["n"]


def check_figures(results: dict):
    """Ranges in order; GB/s, % of the copy of equal bytes and % of peak that follow from
    the times, the bytes and the peak."""
    peak = results["peak_gbps"]
    copies = {(*where(c), c["bytes"], c["timing"]): c for c in results["copy"]}
    assert len(copies) == len(results["copy"])  # one copy per bytes and timing
    for copy_entry in copies.values():
        assert "error" not in copy_entry, copy_entry
        assert copy_entry["ms_min"] <= copy_entry["ms"] <= copy_entry["ms_max"]
        gbps = copy_entry["bytes"] / copy_entry["ms"] / 1e6
        assert copy_entry["gbps"] == pytest.approx(gbps)
        assert copy_entry["peak_percent"] == (peak and pytest.approx(100 * gbps / peak))
    for entry in results["runs"]:
        assert "error" not in entry, entry
        rounds = entry["ms_rounds"]
        assert len(rounds) == results["rounds"] >= 3
        assert entry["ms"] == statistics.median(rounds)
        assert (entry["ms_min"], entry["ms_max"]) == (min(rounds), max(rounds))
        for key in ["gbps", "copy_percent"]:
            assert entry[f"{key}_min"] <= entry[key] <= entry[f"{key}_max"]
        itemsize = getattr(torch, entry["dtype"].removeprefix("torch.")).itemsize
        size = entry["m"] * entry["n"] * itemsize
        add = entry["implementation"] in results["add_and_norm"]
        assert (
            entry["bytes"]
            == (run.ADD_PASSES if add else run.PASSES)[entry["mode"]] * size
        )
        copy_entry = copies[(*where(entry), entry["bytes"], entry["timing"])]
        for end, ms in [("", "ms"), ("_min", "ms_max"), ("_max", "ms_min")]:
            gbps = entry["bytes"] / entry[ms] / 1e6
            assert entry[f"gbps{end}"] == pytest.approx(gbps)
            percent = 100 * gbps / copy_entry["gbps"]
            assert entry[f"copy_percent{end}"] == pytest.approx(percent)
        gbps = entry["gbps"]
        assert entry["peak_percent"] == (peak and pytest.approx(100 * gbps / peak))


def test_smoke_run_writes_every_figure(smoke_results: Path):
    results = json.loads(smoke_results.read_text())
    for key in ["device", "torch", "triton", "python", "date", "git_commit", "cpu"]:
        assert results[key], f"{key} missing"
    assert results["kind"] == "smoke"
    assert results["code_sha256"].keys() == set(run.MEASURED_CODE["smoke"])
    assert results["timings"] == {
        "graph": "cpu-stand-in-direct-calls",  # labelled: no CUDA graph on a CPU
        "eager": "python-calls",
    }
    found, _ = run.implementations("smoke")
    assert set(found) | set(results["skipped"]) == {
        "eager naive", "eager Hugging Face", "torch F.rms_norm", "torch.compile naive",
        "Triton (this site)", "Liger-Kernel", "QuACK", "LayerNorm eager",
        "LayerNorm compiled", "eager add + F.rms_norm", "add + Triton RMSNorm (this site)",
        "Triton add+RMSNorm (this site)", "torch.compile add+norm",
        "Liger-Kernel add+RMSNorm",
    }  # fmt: skip
    assert results["add_and_norm"] == [n for n in found if n in run.ADD_AND_NORM]
    smoke = run.SETUPS["smoke"]
    assert results["grid"] == {
        "dtypes": ["torch.float32", "torch.bfloat16"],
        "groups": {
            "rows": [[2, 100], [2, 256]],
            "decode": [[1, 64]],
            "qk-norm": [[8, 16]],
            "wide": [[2, 300]],
        },
    }
    assert list(smoke.groups) == list(run.SETUPS["gpu"].groups)  # a stand-in of each
    # The groups but "rows" time F.rms_norm and the site's kernel here (of run.FEW).
    few = {"torch F.rms_norm", "Triton (this site)"}
    measured = {
        (*where(r), r["implementation"], r["mode"], r["timing"])
        for r in results["runs"]
    }
    assert measured == {
        (str(dtype), group, m, n, name, mode, timing)
        for dtype in smoke.dtypes
        for group, shapes in smoke.groups.items()
        for m, n in shapes
        for name in (found if group == "rows" else few)
        for mode in run.MODES
        for timing in ["graph", "eager"]
    }
    check_figures(results)
    assert results["peak_gbps"] is results["peak_source"] is None  # a CPU: no peak
    assert results["host_calls"] >= 10
    for name in found:
        assert set(results["host_us"][name]) == set(run.MODES), name
        assert all(us > 0 for us in results["host_us"][name].values())
    bare = results["host_us"][run.BARE]
    assert set(bare) == {"forward", "backward"} and all(us > 0 for us in bare.values())


def test_gradients_are_returned_not_copied_and_a_backward_runs_again():
    x = torch.randn(3, 16)
    fused = run.ADD_AND_NORM["Triton add+RMSNorm (this site)"]
    args = run.inputs(fused, "fused", x)
    together = run.one_pass(fused.fn, "forward+backward", *args)()
    dx, _, dr = together  # x, weight, residual: the leaves
    assert dx.data_ptr() == dr.data_ptr()  # h's gradient, shared by x and r: no copy
    again = run.one_pass(fused.fn, "backward", *args)  # one forward, its graph kept
    for first, second, third in zip(together, again(), again(), strict=True):
        assert torch.equal(first, second) and torch.equal(second, third)


def test_the_backward_alone_runs_its_forward_once():
    forwards = []

    def counted(x, weight, bias):
        forwards.append(x)
        return run.rms_norm_naive(x, weight, bias)

    args = run.inputs(run.Implementation(counted), "counted", torch.randn(3, 16))
    backward = run.one_pass(counted, "backward", *args)
    for _ in range(3):
        backward()
    assert len(forwards) == 1  # only the backward is timed
    both = run.one_pass(counted, "forward+backward", *args)
    for _ in range(3):
        both()
    assert len(forwards) == 4


def test_rounds_take_turns_and_the_first_round_is_dropped(monkeypatch):
    # A clock that counts: each timed pass takes one more ms than the one before.
    clock = iter(range(1, 100))
    monkeypatch.setattr(run, "time_pass", lambda make, timing, setup: next(clock))
    found = {"a": run.Implementation(run.rms_norm_naive)}
    found["b"] = run.ADD_AND_NORM["Triton add+RMSNorm (this site)"]
    setup = replace(TINY, timings=("graph", "eager"), rounds=2)
    samples, copies = {}, {}
    run.measure_pass(setup, found, torch.randn(2, 16), "forward", samples, copies)
    # Round 0 took 1 to 8: per timing, the copies of a's bytes (2 x 2 x 16 x 4 bytes) and
    # of b's (4 x), then a and b.
    assert copies == {
        (256, "graph"): [9, 17],
        (512, "graph"): [10, 18],
        (256, "eager"): [13, 21],
        (512, "eager"): [14, 22],
    }
    assert samples == {
        ("a", "forward", "graph"): [11, 19],
        ("b", "forward", "graph"): [12, 20],
        ("a", "forward", "eager"): [15, 23],
        ("b", "forward", "eager"): [16, 24],
    }


def test_entries_are_medians_over_rounds_and_percentages_of_the_equal_copy():
    found = {"norm": run.Implementation(run.rms_norm_naive)}
    found["add"] = run.ADD_AND_NORM["Triton add+RMSNorm (this site)"]
    samples = {
        ("norm", "forward", "eager"): [3.0, 1.0, 2.0],
        ("add", "forward", "eager"): [2.0, 5.0, 2.0],
        ("norm", "backward", "eager"): "RuntimeError('boom')",
        ("add", "backward", "graph"): [1.0, 1.0, 1.0],
    }
    size = 4 * 1000 * 2  # bytes of x
    copies = {
        (2 * size, "eager"): [4.0, 8.0, 2.0],
        (4 * size, "eager"): [8.0, 8.0, 8.0],
        (4 * size, "graph"): "RuntimeError('no memory')",
    }
    x = torch.empty(4, 1000, dtype=torch.bfloat16)
    copy_entries, runs = run.entries(samples, copies, found, x, "decode", 200.0)
    place = {"dtype": "torch.bfloat16", "group": "decode", "m": 4, "n": 1000}
    assert copy_entries == [
        {**place, "bytes": 2 * size, "timing": "eager", "ms": 4.0, "ms_min": 2.0,
         "ms_max": 8.0, "gbps": 2 * size / 4.0 / 1e6,
         "peak_percent": 100 * (2 * size / 4.0 / 1e6) / 200.0},
        {**place, "bytes": 4 * size, "timing": "eager", "ms": 8.0, "ms_min": 8.0,
         "ms_max": 8.0, "gbps": 4 * size / 8.0 / 1e6,
         "peak_percent": 100 * (4 * size / 8.0 / 1e6) / 200.0},
        {**place, "bytes": 4 * size, "timing": "graph",
         "error": "RuntimeError('no memory')"},
    ]  # fmt: skip
    norm, add, failed, uncopied = runs
    assert all(entry.items() >= place.items() for entry in runs)
    # Each against the copy of its own bytes: 2 ms against 4 ms for twice x's bytes...
    assert (norm["ms"], norm["bytes"]) == (2.0, 2 * size)
    assert norm["copy_percent"] == pytest.approx(200)
    assert norm["copy_percent_min"] == pytest.approx(400 / 3)  # its slowest round, 3 ms
    assert norm["peak_percent"] == pytest.approx(100 * norm["gbps"] / 200.0)
    # ... and 2 ms against 8 ms for four times x's.
    assert (add["ms"], add["bytes"]) == (2.0, 4 * size)
    assert add["copy_percent"] == pytest.approx(400)
    assert add["gbps_min"] == pytest.approx(4 * size / 5.0 / 1e6)
    assert failed["error"] == "RuntimeError('boom')" and "ms" not in failed
    # Its copy failed: a figure, but no percentage of it.
    assert uncopied["ms"] == 1.0 and uncopied["copy_percent"] is None
    _, runs = run.entries(samples, copies, found, x, "decode", None)
    assert all(entry.get("peak_percent") is None for entry in runs)  # no peak known


def test_the_copy_moves_half_the_bytes_each_way_and_copies():
    for moved, dtype in [(3 * 2 * 16 * 4, torch.float32), (5 * 8 * 2, torch.bfloat16)]:
        copy_run = run.copy_pass(moved, dtype, torch.device("cpu"))
        source, out, numel = copy_run.args
        assert source.dtype == out.dtype == dtype and source.shape == out.shape
        assert source.numel() == numel and 2 * numel * dtype.itemsize == moved
    x = torch.randn(3, 3000)  # 36,000 bytes: 3 programs of 16 KiB, the last one part
    out = torch.zeros_like(x)
    run.copy_of(x, out)()
    assert torch.equal(out, x)


def test_every_shape_splits_into_a_whole_copy():
    """A pass's bytes split into two halves of whole elements, at every shape and pass."""
    for setup in run.SETUPS.values():
        for shapes in setup.groups.values():
            for m, n in shapes:
                for moved in [*run.PASSES.values(), *run.ADD_PASSES.values()]:
                    assert moved * m * n % 2 == 0, (setup.kind, m, n)
    groups = run.SETUPS["gpu"].groups
    assert {m * n * 2 for m, n in groups["wide"]} == {2**29}  # 512 MiB in bfloat16
    assert groups["rows"] == tuple((16384, 1024 * 2**k) for k in range(5))


@pytest.mark.skipif(torch.cuda.is_available(), reason="the stand-in is for a CPU")
def test_the_graph_stand_in_calls_the_pass_itself():
    calls = []
    stand_in = run.graphed(lambda: lambda: calls.append(1))
    stand_in()
    stand_in()
    assert calls == [1, 1]


def test_only_the_backward_alone_keeps_the_compiled_buffers(monkeypatch):
    # The flag torch.compile reads when it compiles a backward, seen by each pass.
    seen = {}

    def probe(x, weight, bias):
        seen[MODE[0]] = torch._functorch.config.donated_buffer
        return x * weight

    MODE = [None]
    real = run.measure_pass

    def measure_pass(setup, found, x, mode, samples, copies):
        MODE[0] = mode
        real(setup, found, x, mode, samples, copies)

    monkeypatch.setattr(run, "measure_pass", measure_pass)
    found = {"probe": run.Implementation(probe)}
    run.run(replace(TINY, timings=("eager",), host_calls=0), found, {})
    assert seen == {"forward": True, "backward": False, "forward+backward": True}


def graph_break(x, weight, bias):
    torch._dynamo.graph_break()
    return x * weight


STEP = [0]


def new_constant_each_call(x, weight, bias):
    STEP[0] += 1  # dynamo specializes on the value: every call would compile anew
    return x * weight + STEP[0]


def test_compile_guard_records_fallbacks_as_failures(monkeypatch):
    # The guard does not depend on the backend; "eager" generates no code, so it is quick.
    monkeypatch.setattr(run, "BACKEND", "eager")
    found = {
        "graph break": run.Implementation(graph_break, compiled=True),
        "recompiles": run.Implementation(new_constant_each_call, compiled=True),
        "compiles once": run.Implementation(run.rms_norm_naive, compiled=True),
    }
    results = run.run(replace(TINY, timings=("eager",)), found, {})
    for name, words in [("graph break", "graph_break"), ("recompiles", "recompile")]:
        entries = [r for r in results["runs"] if r["implementation"] == name]
        assert entries and all(words in r.get("error", "") for r in entries), entries
        assert words in results["host_us"][name]["error"]
    check_figures({**results, "runs": [r for r in results["runs"] if "error" not in r]})
    assert all(
        "error" not in r for r in results["runs"] if "once" in r["implementation"]
    )


def test_same_code_ignores_comments_and_docstrings_only():
    code = 'def f(x):\n    """Twice x."""\n    return 2 * x  # doubled\n'
    assert run.same_code(code, code.replace("# doubled", "# times two"))
    assert run.same_code(code, code.replace("Twice x.", "x, doubled."))
    assert not run.same_code(code, code.replace("2 * x", "x + x"))


def git_show(commit: str, path: str) -> bytes:
    return subprocess.run(
        ["git", "show", f"{commit}:{path}"], cwd=ROOT, capture_output=True, check=True
    ).stdout


def test_results_measured_on_other_code_are_stale():
    measured = {
        p: hashlib.sha256(git_show(OLD_COMMIT, p)).hexdigest()
        for p in run.MEASURED_CODE["gpu"]
    }
    old = {"kind": "gpu", "git_commit": OLD_COMMIT, "code_sha256": measured}
    reasons = run.stale(old)
    assert "snippets/benchmark/run.py has changed since commit a6b8d27" in reasons
    assert not any("was not commit" in reason for reason in reasons)
    unsaved = copy.deepcopy(old)
    unsaved["code_sha256"]["snippets/benchmark/run.py"] = "0" * 64
    assert any("was not commit" in reason for reason in run.stale(unsaved))
    assert run.stale({"kind": "gpu", "git_commit": None}) == ["no git_commit recorded"]


@pytest.mark.parametrize(
    "path", GPU_RESULTS + CPU_RESULTS, ids=lambda p: str(p.relative_to(ROOT))
)
def test_committed_results_come_from_the_current_code(path: Path):
    results = json.loads(path.read_text())
    assert results["kind"] == ("cpu" if path.parent == run.CPU_RESULTS else "gpu")
    assert run.stale(results) == [], f"{path.name} is stale: rerun the benchmark"


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks a machine without a GPU")
def test_a_run_without_a_gpu_never_writes_gpu_results(capsys):
    for kind, out in [
        (["--smoke"], run.RESULTS / "cpu.json"),
        (["--smoke"], run.CPU_RESULTS / "cpu.json"),
        (["--cpu"], run.RESULTS / "cpu.json"),
        (["--merge", "part.json"], run.CPU_RESULTS / "cpu.json"),
    ]:
        with pytest.raises(SystemExit):  # refused before anything is measured
            run.main([*kind, "--out", str(out)])
        assert "does not write into" in capsys.readouterr().err
        assert not out.exists()
    with pytest.raises(SystemExit):
        run.main([])
    assert "needs a CUDA GPU" in capsys.readouterr().err
    assert run.checked("cpu", run.CPU_RESULTS / "x.json").parent == run.CPU_RESULTS
    cpu = run.default_out("cpu", "AMD EPYC 7B13")
    assert cpu == run.CPU_RESULTS / "amd-epyc-7b13.json"
    gpu = run.default_out("gpu", "NVIDIA H100 80GB HBM3")
    assert gpu == run.RESULTS / "nvidia-h100-80gb-hbm3.json"
    assert run.default_out("smoke", "AMD EPYC") == run.SMOKE / "smoke.json"
    assert not run.SMOKE.is_relative_to(run.RESULTS)


def test_every_site_module_the_benchmark_imports_is_measured_code():
    tree = ast.parse(Path(run.__file__).read_text(encoding="utf-8"))
    imported = {
        node.module.replace(".", "/") + ".py"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module.startswith("snippets.")
    }
    kernel_file = "snippets/kernel/rms_norm_triton.py"
    assert kernel_file in imported
    measured = imported | {"snippets/benchmark/run.py"}
    assert set(run.MEASURED_CODE["gpu"]) == set(run.MEASURED_CODE["smoke"]) == measured
    # A CPU run times no Triton kernel.
    assert set(run.MEASURED_CODE["cpu"]) == measured - {kernel_file}


def test_results_come_from_committed_code(monkeypatch, tmp_path, capsys):
    # A copy of the measured files, committed, then one of them edited.
    for path in run.MEASURED_CODE["gpu"]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes((ROOT / path).read_bytes())
    identity = ["-c", "user.name=test", "-c", "user.email=test@example.com"]
    for command in [["init", "-q"], ["add", "."], [*identity, "commit", "-qm", "c"]]:
        subprocess.run(["git", *command], cwd=tmp_path, check=True)
    monkeypatch.setattr(run, "ROOT", tmp_path)
    assert run.dirty() == []
    edited = tmp_path / "snippets" / "implementations" / "variants.py"
    edited.write_text(edited.read_text() + "EPS = 1e-5\n")
    assert run.dirty() == ["snippets/implementations/variants.py"]
    with pytest.raises(SystemExit):  # refused before anything is measured
        run.main(["--cpu", "--out", str(tmp_path / "cpu.json")])
    assert "results must come from committed code" in capsys.readouterr().err
    assert not (tmp_path / "cpu.json").exists()


def test_a_run_records_its_whole_grid_even_as_a_part():
    found = {"naive": run.Implementation(run.rms_norm_naive)}
    results = run.run(replace(TINY, timings=("eager",), host_calls=0), found, {})
    whole = run.SETUPS["smoke"]
    assert results["grid"] == {
        "dtypes": [str(dtype) for dtype in whole.dtypes],
        "groups": {
            group: [list(shape) for shape in shapes]
            for group, shapes in whole.groups.items()
        },
    }
    assert {where(entry) for entry in results["runs"]} == {
        ("torch.float32", "rows", 2, 16)  # a part
    }


def liger_like(x, weight, bias):
    """Liger-Kernel's norm as it fails: a row too long for one block raises."""
    if x.shape[-1] > 64:  # Liger-Kernel's limit on a GPU is 65536
        raise RuntimeError(f"Cannot launch Triton kernel since n = {x.shape[-1]} ...")
    return run.rms_norm_naive(x, weight, bias)


def test_a_shape_an_implementation_refuses_is_recorded_and_peaks_follow(monkeypatch):
    """A failure at a wide shape is an error entry there, never the end of the run; the
    groups but "rows" time only run.FEW; a GPU's peak gives every figure's % of peak."""
    found = {
        "Liger-Kernel": run.Implementation(liger_like),
        "eager naive": run.Implementation(run.rms_norm_naive),  # "rows" only
    }
    groups = {"rows": ((2, 16),), "wide": ((2, 128),)}
    setup = replace(TINY, groups=groups, timings=("eager",), host_calls=0)
    monkeypatch.setattr(run, "PEAK_GBPS", {run.cpu_info()["cpu"]: (0.5, "made up")})
    results = run.run(setup, found, {})
    assert (results["peak_gbps"], results["peak_source"]) == (0.5, "made up")
    failed = [entry for entry in results["runs"] if "error" in entry]
    assert {(entry["group"], entry["implementation"]) for entry in failed} == {
        ("wide", "Liger-Kernel")
    }
    assert len(failed) == len(run.MODES)  # every pass, recorded once
    assert all("Cannot launch Triton kernel" in entry["error"] for entry in failed)
    timed = [entry for entry in results["runs"] if entry not in failed]
    assert {(entry["group"], entry["implementation"]) for entry in timed} == {
        ("rows", "Liger-Kernel"),
        ("rows", "eager naive"),
    }
    check_figures({**results, "runs": timed})
    assert all(entry["peak_percent"] > 0 for entry in results["copy"])


def test_the_bare_launches_are_the_kernels_alone(monkeypatch):
    calls = []

    def spy(real, name):
        def launch(*args):
            calls.append((name, [tuple(a.shape) for a in args if torch.is_tensor(a)]))
            real(*args)

        return launch

    monkeypatch.setattr(run, "launch_forward", spy(kernel.launch_forward, "forward"))
    monkeypatch.setattr(run, "launch_backward", spy(kernel.launch_backward, "backward"))
    device = torch.device("cpu")
    costs = run.bare_launch_costs(device, 2, (4, 100))
    assert set(costs) == {"forward", "backward"} and all(costs.values())
    programs = kernel.backward_programs(4, 100, device)
    forward = ("forward", [(4, 100), (100,), (4, 100), (4,)])  # x, weight, y, rstd
    dy_x_weight_rstd_dx = [(4, 100), (4, 100), (100,), (4,), (4, 100)]
    backward = ("backward", [*dy_x_weight_rstd_dx, (programs, 100)])  # and dw_partial
    # 3 warm-up calls and 2 timed of each: nothing but the launches.
    assert calls == [forward] * 5 + [backward] * 5
    monkeypatch.setattr(run, "launch_backward", boom)  # a launch that fails: recorded
    assert run.bare_launch_costs(device, 2, (4, 100)) == {
        "error": "RuntimeError('boom')"
    }


def boom(*args):
    raise RuntimeError("boom")


def generate(results_path: Path, folder: Path) -> list[Path]:
    """page.write into `folder`, failing on a missing glyph (a Korean font not found)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*missing from font")
        return page.write([results_path], folder, folder)


@pytest.fixture(scope="module")
def generated(smoke_results, tmp_path_factory) -> list[Path]:
    return generate(smoke_results, tmp_path_factory.mktemp("generated"))


def test_generator_shows_every_figure(smoke_results, generated):
    # That it writes the same bytes on every run, the committed tables and plots show:
    # test_committed_tables_and_plots_are_the_generators_output regenerates them.
    folder = generated[0].parent
    results = json.loads(smoke_results.read_text())
    for language in LANGUAGES:
        table = (folder / f"{smoke_results.stem}.{language}.md").read_text()
        assert results["device"] in table and results["torch"] in table
        assert results["git_commit"][:12] in table
        words = page.WORDS[language]
        for entry in results["runs"]:
            assert f"| {page._row_name(entry['implementation'], words)} |" in table
            if "error" in entry:
                continue
            if entry["group"] == "decode":  # µs per call
                low, high = 1e3 * entry["ms_min"], 1e3 * entry["ms_max"]
                assert f"{1e3 * entry['ms']:.1f} ({low:.1f}–{high:.1f})" in table
                continue
            low, high = entry["copy_percent_min"], entry["copy_percent_max"]
            percents = f"{entry['copy_percent']:.1f}%, {low:.1f}–{high:.1f}"
            assert f"{entry['gbps']:,.0f} ({percents})" in table  # no peak on a CPU
        for group, title in words["groups"].items():
            assert f"**{title}: bfloat16, {words['modes']['forward']}**" in table, group
        for name, why in results["skipped"].items():
            assert f"- {page._name(name, words)}: {page._reason(why, words)}" in table
        if language == "ko":  # every reason in Korean, an import error's message aside
            assert "not installed" not in table and "설치되지 않음(" in table
        for name, costs in results["host_us"].items():
            row = f"| {page._row_name(name, words)} | {costs['forward']:.1f} |"
            assert row in table
            assert all(f"{us:.1f} |" in table for us in costs.values())
        for dtype in page._dtypes(results):
            for timing in results["timings"]:
                for family in page.FAMILIES:  # plotted in bfloat16 only
                    plot = page._plot_name("smoke", dtype, timing, family, language)
                    assert (f"assets/benchmark/{plot}" in table) == (
                        dtype == page.PLOTTED
                    )
                    assert (folder / plot).exists() == (dtype == page.PLOTTED)
                    if dtype == page.PLOTTED:
                        ElementTree.parse(folder / plot)  # well-formed
                for line in page.sayings(results, words, dtype, timing)[2:-1]:
                    in_its_tab = f"        {line}\n"  # its dtype's and timing's tab
                    assert in_its_tab in table


def test_generated_tables_render_in_tabs(smoke_results, generated):
    # The site's Markdown extensions, less the snippets (the tables are a snippet).
    extensions, configs = [], {}
    for extension in mkdocs_config()["markdown_extensions"]:
        if not isinstance(extension, dict):
            extension = {extension: {}}
        ((name, config),) = extension.items()
        if name != "pymdownx.snippets":
            extensions.append(name)
            configs[name] = config
    results = json.loads(smoke_results.read_text())
    # Per dtype and timing, a table per pass: "rows" two (norm, add), every other group one.
    per_pass = 2 + len(results["grid"]["groups"]) - 1
    tables = (
        len(page._dtypes(results)) * len(results["timings"]) * per_pass * len(run.MODES)
    )
    for language in LANGUAGES:
        text = (generated[0].parent / f"{smoke_results.stem}.{language}.md").read_text()
        html = markdown.markdown(text, extensions=extensions, extension_configs=configs)
        # and the headline's (against F.rms_norm) and the host time's
        assert html.count("<table>") == tables + 2
        assert html.count('class="tabbed-set') == 1 + len(page._dtypes(results))
        images = html.count('loading="lazy"')  # a tab's images load once it is shown
        assert html.count("<img ") == images == len(results["timings"]) * 2  # bfloat16
        assert "===" not in html  # every tab marker became a tab


def test_the_page_and_the_kernel_page_use_the_benchmarks_passes_and_targets(capsys):
    assert page.MODES == run.MODES
    assert [page.FUSED, page.UNFUSED] == [
        n for n in run.ADD_AND_NORM if "this site" in n
    ][::-1]
    with contextlib.redirect_stdout(io.StringIO()):  # it prints its counts
        add_bytes = runpy.run_path(str(ROOT / "snippets" / "kernel" / "add_bytes.py"))
    assert add_bytes["TARGETS"] == page.FUSED_SPEEDUP


def test_a_smoke_run_is_never_published(smoke_results, capsys):
    with pytest.raises(SystemExit):
        page.main([str(smoke_results)])
    assert "never published" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        page.main([str(smoke_results), str(CPU_RESULTS[0])])
    assert "one CPU results file, or GPU ones only" in capsys.readouterr().err


def with_kernel_at(results: dict, percent: float) -> dict:
    """The results with the kernel's graph figures all at `percent` of their copy."""
    changed = copy.deepcopy(results)
    for entry in changed["runs"]:
        if entry["implementation"] == page.KERNEL and entry["timing"] == "graph":
            entry["copy_percent"] = percent
    return changed


def target(lines: list[str], words: str) -> str:
    """The one target line that holds `words` (in its title)."""
    (line,) = [line for line in lines if line.startswith("- ") and words in line]
    return line


ROWS_FORWARD = "Graph, rows, forward, bfloat16: at least 95%"
ROWS_BOTH = "Graph, rows, forward+backward, bfloat16: at least 88%"
WIDE_FORWARD = "Graph, wide rows, forward, bfloat16: at least 90%"
WIDE_BOTH = "Graph, wide rows, forward+backward, bfloat16: at least 80%"
QK_FORWARD = "Graph, QK-norm rows, forward, bfloat16: at least 85%"
DECODE = "Graph, decode, bfloat16, every pass"
EAGER = "Eager, rows, bfloat16, N ≥ 4096"
HOST_FORWARD = "Host time, forward, at most 2×"
HOST_BOTH = "Host time, forward+backward, at most 1.5×"
BARE_FORWARD = "Host time, forward, at most the forward kernel's bare launch + 10 µs"
BARE_BOTH = "Host time, forward+backward, at most the bare launches"
FUSED_FORWARD = "the fused add and norm, forward: at least 1.2×"
FUSED_BACKWARD = "the fused add and norm, backward: at least 1.4×"
FUSED_PEER = "as fast as Liger-Kernel's in every pass at every N"
CEILING = "no figure above 101% of its copy"
TITLES = [ROWS_FORWARD, ROWS_BOTH, WIDE_FORWARD, WIDE_BOTH, QK_FORWARD, DECODE, EAGER]
TITLES += [HOST_FORWARD, BARE_FORWARD, HOST_BOTH, BARE_BOTH, FUSED_FORWARD]
TITLES += [FUSED_BACKWARD, FUSED_PEER, CEILING]


def test_targets_are_met_or_missed_by_the_figures(smoke_results):
    results = json.loads(smoke_results.read_text())
    met = page.targets(with_kernel_at(results, 96), "en")
    assert len(met) == 2 + len(TITLES) + 2  # a title, a blank line, targets, a note
    assert [target(met, title) for title in TITLES] == met[2:-2]  # in this order
    assert "at every shape: **met** (lowest 96.0%: bfloat16, N = 100)" in target(
        met, ROWS_FORWARD
    )
    for title in [ROWS_BOTH, WIDE_FORWARD, WIDE_BOTH, QK_FORWARD]:
        assert "**met**" in target(met, title), title
    assert met[-1].startswith("Each percentage of copy is of a copy that moves")
    missed = page.targets(with_kernel_at(results, 89), "en")
    assert "**missed**: bfloat16, N = 100 (89.0%); bfloat16, N = 256" in target(
        missed, ROWS_FORWARD
    )
    assert "**met**" in target(missed, ROWS_BOTH)  # 88%: met
    assert "**missed**: bfloat16, N = 300 (89.0%)" in target(missed, WIDE_FORWARD)
    assert "**met**" in target(missed, QK_FORWARD)
    assert "**not measured**" in target(met, EAGER)  # tiny N only
    korean = page.targets(with_kernel_at(results, 96), "ko")
    assert "**달성**" in korean[2] and "**미측정**" in korean[2 + TITLES.index(EAGER)]
    assert "**not measured**" in target(met, FUSED_PEER)  # Liger-Kernel not installed


def test_the_h200_is_held_to_its_own_copy_targets_in_every_dtype(smoke_results):
    results = with_kernel_at(json.loads(smoke_results.read_text()), 94)
    results["device"] = "NVIDIA H200"
    lines = page.targets(results, "en")
    forward = target(lines, "Graph, rows, forward, every dtype: at least 93%")
    assert "**met** (lowest 94.0%" in forward
    assert "**met**" in target(lines, "forward+backward, every dtype: at least 85%")
    for entry in results["runs"]:
        if entry["dtype"] == "torch.float32" and entry["implementation"] == page.KERNEL:
            entry["copy_percent"] = 85.0  # float32 too: every dtype
    lines = page.targets(results, "en")
    assert "**missed**: float32, N = 100 (85.0%)" in target(
        lines, "rows, forward, every"
    )
    # Below the wide rows' 90% in float32 too, whose target is bfloat16's alone.
    assert "**missed**" not in target(lines, WIDE_FORWARD)


def test_no_figure_may_pass_its_copy_by_more_than_one_percent(smoke_results):
    results = json.loads(smoke_results.read_text())
    results["runs"] = [r for r in results["runs"] if r["implementation"] == page.KERNEL]
    # Every timing: the ceiling holds for eager figures too, which the CPU's smoke run
    # times at random (one came out at 179%).
    for entry in results["runs"]:
        entry["copy_percent"] = 101.0
    highest = target(page.targets(results, "en"), CEILING)
    assert "**met** (highest 101.0%: Triton (this site), " in highest
    for entry in results["runs"]:
        entry["copy_percent"] = 90.0
    for percent, entry in zip([95, 100.5, 97], results["runs"]):
        entry["copy_percent"] = percent  # the highest named, wherever it comes
    highest = target(page.targets(results, "en"), CEILING)
    assert "**met** (highest 100.5%: Triton (this site), " in highest
    for percent, entry in zip([101.5, 103, 102, 104, 105, 106, 107], results["runs"]):
        entry["copy_percent"] = percent
    missed = target(page.targets(results, "en"), CEILING)
    # The highest first: 107% (the seventh figure), then 106%, ...
    assert (
        "**missed**: Triton (this site), rows, float32, N = 256, forward, graph"
        in missed
    )
    assert (
        missed.index("(107.0%)") < missed.index("(106.0%)") < missed.index("(103.0%)")
    )
    assert "(107.0%)" in missed and "(103.0%)" in missed and "(102.0%)" not in missed
    assert missed.endswith("; 2 more.")  # the five highest named
    korean = target(page.targets(results, "ko"), "101%")
    # In Korean the verdict comes first and the cases follow "근거:", with no ";".
    assert korean.startswith("- **미달** — ") and korean.endswith("103.0% / 외 2개.")
    results["runs"][0]["copy_percent"] = 100.0  # five above: all named, none more
    results["runs"][2]["copy_percent"] = 100.0
    missed = target(page.targets(results, "en"), CEILING)
    assert "(103.0%)" in missed and "more" not in missed


@pytest.mark.parametrize(
    "forward, both", [(1.9, 1.6), (2.1, 1.4), (2.0, 1.5), (2.7, 1.4)]
)
def test_host_targets_are_met_or_missed_by_the_host_times(smoke_results, forward, both):
    """Host time over F.rms_norm's: at most 2 forward and 1.5 forward+backward; and at
    most the bare launches' + 10 µs."""
    results = json.loads(smoke_results.read_text())
    reference = {"forward": 10.0, "forward+backward": 100.0}
    results["host_us"][page.REFERENCE] = reference
    results["host_us"][page.KERNEL] = {
        "forward": forward * 10.0,
        "forward+backward": both * 100.0,
    }
    results["host_us"][page.BARE] = {"forward": 10.0, "backward": 130.0}
    lines = page.targets(results, "en")
    assert ("**met**" if forward <= 2 else "**missed**") in target(lines, HOST_FORWARD)
    assert ("**met**" if both <= 1.5 else "**missed**") in target(lines, HOST_BOTH)
    assert f"{forward:.2f}" in target(lines, HOST_FORWARD)
    assert f"{both:.2f}" in target(lines, HOST_BOTH)
    # Forward against the bare forward launch, 10 µs + 10 µs; forward+backward against
    # both launches, 140 µs + 10 µs.
    bare = target(lines, BARE_FORWARD)
    assert ("**met**" if forward <= 2 else "**missed**") in bare
    assert f"{forward * 10:.1f} µs, bare 10.0 µs" in bare
    bare = target(lines, BARE_BOTH)
    assert ("**met**" if both <= 1.5 else "**missed**") in bare
    assert f"{both * 100:.1f} µs, bare 140.0 µs" in bare
    # A verdict decided by less than the two GPUs' hosts differ (10 µs) says so.
    for line, margin in [
        (target(lines, HOST_FORWARD), forward * 10 - 20),
        (target(lines, BARE_FORWARD), forward * 10 - 20),
        (target(lines, HOST_BOTH), both * 100 - 150),
        (target(lines, BARE_BOTH), both * 100 - 150),
    ]:
        close = abs(margin) < 10
        assert ("not settled" in line) == close, line
        assert not close or f"decided by {abs(margin):.1f} µs" in line
    results["host_us"][page.BARE] = {"error": "RuntimeError('boom')"}
    assert "**missed**: failed" in target(page.targets(results, "en"), BARE_FORWARD)


def with_fused_speedup(results: dict, speedup: float) -> dict:
    """The results with the fused kernel `speedup` times as fast as the add and the lone
    kernel, everywhere."""
    changed = copy.deepcopy(results)
    unfused = {
        (*where(r), r["mode"], r["timing"]): r["ms"]
        for r in changed["runs"]
        if r["implementation"] == page.UNFUSED
    }
    for entry in changed["runs"]:
        if entry["implementation"] == page.FUSED:
            place = (*where(entry), entry["mode"], entry["timing"])
            entry["ms"] = unfused[place] / speedup
    return changed


def test_the_fused_targets_are_met_or_missed_by_the_figures(smoke_results):
    results = json.loads(smoke_results.read_text())
    lines = page.targets(with_fused_speedup(results, 1.5), "en")
    assert "**met** (N = 100: 1.50×" in target(lines, FUSED_FORWARD)
    assert "**met**" in target(lines, FUSED_BACKWARD)
    lines = page.targets(with_fused_speedup(results, 1.3), "en")
    assert "**met**" in target(lines, FUSED_FORWARD)
    assert "**missed**: N = 100: 1.30×; N = 256: 1.30×" in target(lines, FUSED_BACKWARD)


def made_up(ms, names, shapes, timing="graph", adds=(), group="rows") -> dict:
    """Results in bfloat16 at the (M, N) `shapes` of a group: every pass of each of
    `names` at each shape, taking ms(name, shape, mode) ms (100 / ms % of copy); `adds`
    are the residual family."""
    place = {"dtype": "torch.bfloat16", "group": group, "timing": timing}
    runs = [
        {**place, "implementation": name, "m": m, "n": n, "mode": mode,
         "ms": ms(name, (m, n), mode), "copy_percent": 100 / ms(name, (m, n), mode)}
        for name in names
        for m, n in shapes
        for mode in page.MODES
    ]  # fmt: skip
    copies = [place | {"m": m, "n": n} for m, n in shapes]
    grid = {"dtypes": ["torch.bfloat16"], "groups": {group: [list(s) for s in shapes]}}
    return {
        "runs": runs, "add_and_norm": list(adds), "copy": copies, "grid": grid,
        "device": "NVIDIA H100 80GB HBM3", "torch": "2.13.0", "peak_gbps": None,
    }  # fmt: skip


def rows(*sizes) -> list[tuple[int, int]]:
    return [(16384, n) for n in sizes]


def test_the_headline_table_gives_microseconds_and_the_speed_against_f_rms_norm():
    speeds = {page.REFERENCE: 2.0, page.KERNEL: 1.0, "Liger-Kernel": 4.0}
    names = list(speeds)
    shapes = rows(512, 4096, 16384)
    results = made_up(lambda name, shape, mode: speeds[name], names, shapes)
    # Eager, the host's time added: F.rms_norm the fastest at N = 4096.
    eager = made_up(
        lambda name, shape, mode: speeds[name] + (2.0 if name != page.REFERENCE else 0),
        names,
        shapes,
        timing="eager",
    )
    results["runs"] += eager["runs"]
    results["timings"] = {"graph": "cuda-graph-replay", "eager": "python-calls"}
    lines = page.headline(results, page.WORDS["en"])
    assert lines[0].startswith(
        "**NVIDIA H100 80GB HBM3, PyTorch 2.13.0: forward+backward"
    )
    assert lines[2:8] == [
        "| N | timing | torch F.rms_norm | Triton (this site) | Liger-Kernel |",
        "| --- | --- | --- | --- | --- |",
        "| 4096 | GPU time | 2,000 | 1,000 (2.00×) | 4,000 (0.50×) |",  # not N = 512
        "| 4096 | from Python | 2,000 | 3,000 (0.67×) | 6,000 (0.33×) |",
        "| 16384 | GPU time | 2,000 | 1,000 (2.00×) | 4,000 (0.50×) |",
        "| 16384 | from Python | 2,000 | 3,000 (0.67×) | 6,000 (0.33×) |",
    ]
    said = lines[9]
    graph = "Fastest in GPU time (a CUDA graph replayed): at N = 4096 the site's kernel"
    assert f"{graph} at 2.00×;" in said
    eager = "Fastest launched from Python (host time included): at N = 4096 F.rms_norm"
    assert f"{eager} (the site's kernel 0.67×);" in said
    assert "Host time" not in said  # not measured in these results
    # The host's time per call, where it was measured, beside the eager figures.
    host = {page.KERNEL: {"forward+backward": 61.4}, page.REFERENCE: {"forward": 9.0}}
    results |= {"host_calls": 1000, "host_shape": [16, 1024], "host_us": host}
    assert "Host time" not in page.headline(results, page.WORDS["en"])[9]
    host[page.REFERENCE]["forward+backward"] = 20.6
    said = page.headline(results, page.WORDS["en"])[9]
    assert (
        "Host time per forward+backward call (the median of 1000 calls made back to back "
        "on a 16 × 1024 input): 61 µs for the site's kernel, 21 µs for F.rms_norm. "
        "Made back to back, a call seems to cost the host more than one made "
        "alone, so the host times compare implementations, not the time of one call. M is"
        in said
    )
    # Benchmark results shows two GPUs' headlines: how to read them is said once, last.
    both = page.headlines([("a", results), ("b", results)], "en").split("\n\n")
    assert sum(part.count("M is the number of rows") for part in both) == 1
    assert both[-1].startswith("Made back to back, a call seems to cost the host")
    # "The fastest" ranks medians, and the rounds may overlap.
    assert "the fastest is the fastest by median" in said
    assert "overlapping another's" not in said  # made-up runs without rounds
    # Where the fastest's rounds overlap another's, the saying says so.
    for entry in results["runs"]:
        if entry["timing"] == "eager" and entry["n"] == 16384:
            entry["ms_min"], entry["ms_max"] = 0.9 * entry["ms"], 1.1 * entry["ms"]
    said = page.headline(results, page.WORDS["en"])[9]
    assert "at N = 4096 F.rms_norm (the site's kernel" in said
    assert "at N = 16384 F.rms_norm (the site's kernel" in said  # apart
    for entry in results["runs"]:
        if entry["timing"] == "eager" and entry["n"] == 16384:
            entry["ms_min"], entry["ms_max"] = 0.5 * entry["ms"], 1.5 * entry["ms"]
    said = page.headline(results, page.WORDS["en"])[9]
    assert (
        "at N = 16384 F.rms_norm, its rounds overlapping another's (the site's "
        "kernel 0.67×)" in said
    )
    # The rounds' largest spread in each timing, which the table leaves out: none in GPU
    # time here (made-up figures without rounds), 1.5 - 0.5 of the median from Python.
    assert (
        "In the table, the spread of a figure's rounds, as a share of its median, reaches"
        " 100% launched from Python; the tables per GPU give every range." in said
    )
    assert (
        "라운드 범위 폭은 중앙값 대비 Python에서 띄운 시간에서 최대 100%입니다."
        in (page.headline(results, page.WORDS["ko"])[9])
    )
    assert "at N = 4096 F.rms_norm (the site's kernel" in said
    assert (
        "N = 16384에서 F.rms_norm(다른 구현과 라운드 범위가 겹침, 이 사이트의 커널은 0.67배)"
        in (page.headline(results, page.WORDS["ko"])[9])
    )
    korean_host = page.headline(results, page.WORDS["ko"])[9]
    assert "1000번 연달아 호출해 잰" in korean_host
    assert "이 사이트의 커널이 61 µs, F.rms_norm이 21 µs입니다. 연달아" in korean_host
    # A name with a parenthesis of its own reads without another around its speed.
    korean = page.WORDS["ko"]
    compiled = made_up(lambda *_: 0.5, ["torch.compile naive"], shapes)["runs"]
    said = page.headline(results | {"runs": results["runs"] + compiled}, korean)[9]
    assert "N = 4096에서 식 그대로(torch.compile) 4.00배(이 사이트의 커널은" in said
    results["runs"] = [  # a failed figure says so; without F.rms_norm, no headline
        {**run, "error": "boom"} if run["implementation"] == "Liger-Kernel" else run
        for run in results["runs"]
    ]
    assert "| 4096 | GPU time | 2,000 | 1,000 (2.00×) | failed |" in page.headline(
        results, page.WORDS["en"]
    )
    results["runs"] = [
        r for r in results["runs"] if r["implementation"] != page.REFERENCE
    ]
    assert page.headline(results, page.WORDS["en"]) == []


@pytest.mark.parametrize("path", GPU_RESULTS, ids=lambda path: path.stem)
@pytest.mark.parametrize("language", page.WORDS)
def test_a_headline_links_nothing(path, language):
    # It stands on a GPU's page and, again, on Benchmark results: each links a term at its
    # first use in its own text, above the headline.
    results = json.loads(path.read_text())
    lines = page.headline(results, page.WORDS[language])
    assert lines and not [line for line in lines if "](" in line]


def test_only_a_fused_figure_that_ran_and_failed_is_called_failed():
    names = [page.FUSED, page.UNFUSED, page.FUSED_PEER]
    results = made_up(
        lambda name, shape, mode: 1.0 if name == page.FUSED else 2.0,
        names,
        rows(1024, 2048),
        adds=names,
    )
    fused_at_2048 = [
        r
        for r in results["runs"]
        if (r["implementation"], r["n"]) == (page.FUSED, 2048)
    ]
    for entry in fused_at_2048:
        entry["error"] = "RuntimeError('boom')"
    lines = page.targets(results, "en")
    for title in [FUSED_FORWARD, FUSED_BACKWARD]:
        assert target(lines, title).endswith("**missed**: N = 2048: failed."), title
    assert "**missed**: forward, N = 2048: failed" in target(lines, FUSED_PEER)
    # A figure never run (no entry at all) is not one that failed.
    results["runs"] = [r for r in results["runs"] if r not in fused_at_2048]
    lines = page.targets(results, "en")
    for title in [FUSED_FORWARD, FUSED_BACKWARD, FUSED_PEER]:
        assert "failed" not in target(lines, title), title


def test_the_fused_kernel_is_held_to_liger_at_every_n():
    def status(peer_ms):
        names = [page.FUSED, page.FUSED_PEER]

        def ms(name, shape, mode):
            return peer_ms(shape[1], mode) if name == page.FUSED_PEER else 1.0

        results = made_up(ms, names, rows(1024, 2048, 4096), adds=names)
        return target(page.targets(results, "en"), FUSED_PEER)

    assert "**met** (forward, N = 1024: 1.0000 ms, Liger" in status(lambda n, mode: 1.1)
    missed = status(lambda n, mode: 0.9 if (n, mode) == (4096, "backward") else 1.1)
    assert missed.endswith(
        "**missed**: backward, N = 4096: 1.0000 ms, Liger-Kernel add+RMSNorm 0.9000 ms"
        " (1.11× slower)."
    )
    assert "**missed**: forward, N = 1024" in status(lambda n, mode: 0.5)  # every N
    # Slower by less than 1 in 2000: digits enough to show it is no tie.
    assert "(1.0004× slower)" in status(lambda n, mode: 1 / 1.0004)
    assert "**met**" in status(lambda n, mode: 1.0)  # as fast: met


def test_a_verdict_by_medians_says_where_the_rounds_ranges_overlap():
    words = page.WORDS["en"]
    figure = {"ms": 1.01, "ms_min": 0.99, "ms_max": 1.05}
    apart = {"ms": 0.9, "ms_min": 0.88, "ms_max": 0.95}
    close = {
        "ms": 1.0,
        "ms_min": 0.97,
        "ms_max": 0.99,
    }  # touches figure's fastest round
    assert page._versus(figure, apart, words) == "1.12× slower"
    overlap = ", the rounds' ranges overlap"
    assert page._versus(figure, close, words) == "1.01× slower" + overlap
    assert page._versus(close, figure, words) == "1.01× faster" + overlap
    korean = page._versus(figure, close, page.WORDS["ko"])
    assert korean == "보다 1.01배 느림(라운드 범위가 겹침)"
    assert page._versus({"ms": 1.0}, close, words) == "as fast"  # no rounds, no note


def test_the_decode_target_holds_the_kernel_to_f_rms_norm_and_liger():
    def status(kernel_ms):
        def ms(name, shape, mode):
            if name == page.KERNEL:
                return kernel_ms
            return 0.004 if (name, shape[0]) == ("Liger-Kernel", 16) else 0.005

        names = [page.KERNEL, "torch F.rms_norm", "Liger-Kernel", "torch.compile naive"]
        shapes = [(1, 4096), (16, 4096), (256, 4096)]
        results = made_up(ms, names, shapes, group="decode")
        return target(page.targets(results, "en"), DECODE)

    # In µs, as the decode tables give them.
    assert "**met** (forward, M = 1: 4.0 µs, torch F.rms_norm 5.0 µs" in status(0.004)
    missed = status(0.0045)  # slower than Liger-Kernel at M = 16 only
    assert "**missed**: forward, M = 16: 4.5 µs, Liger-Kernel 4.0 µs" in missed
    assert "M = 1:" not in missed and "M = 256:" not in missed


def test_the_eager_target_holds_the_kernel_to_the_fastest_peer_from_n_4096():
    def status(kernel_ms):
        def ms(name, shape, mode):
            if name == page.KERNEL:
                return kernel_ms
            if name == "Liger-Kernel" and (shape[1], mode) == (8192, "backward"):
                return 0.9
            return 5.0 if shape[1] < page.EAGER_FROM else 1.0  # below: not counted

        names = [page.KERNEL, "torch F.rms_norm", "Liger-Kernel"]
        results = made_up(ms, names, rows(2048, 4096, 8192), timing="eager")
        return target(page.targets(results, "en"), EAGER)

    missed = status(0.95)
    assert missed.endswith(
        "**missed**: backward, N = 8192: 0.9500 ms, Liger-Kernel 0.9000 ms (1.06× slower)."
    )
    assert "N = 2048" not in missed
    met = status(0.9)  # as fast as Liger-Kernel where it is the fastest
    assert "**met** (forward, N = 4096: 0.9000 ms, torch F.rms_norm 1.0000" in met


def test_a_shape_not_measured_from_n_4096_misses_the_eager_target():
    def status(unmeasured_n, graph_copy=False):
        names = [page.KERNEL, "torch F.rms_norm"]
        results = made_up(
            lambda name, shape, mode: 0.9 if name == page.KERNEL else 1.0,
            names,
            rows(2048, 4096, 8192),
            timing="eager",
        )
        results["runs"] = [r for r in results["runs"] if r["n"] != unmeasured_n]
        results["copy"] = [c for c in results["copy"] if c["n"] != unmeasured_n]
        if graph_copy:  # measured in the other timing only
            place = {"dtype": "torch.bfloat16", "group": "rows", "timing": "graph"}
            results["copy"].append(place | {"m": 16384, "n": unmeasured_n})
        return target(page.targets(results, "en"), EAGER)

    assert "**met**" in status(2048)  # below N = 4096: not held to it
    assert status(4096).endswith("**missed**: bfloat16, N = 4096: not measured.")
    assert status(8192, graph_copy=True).endswith(
        "**missed**: bfloat16, N = 8192: not measured."
    )


def test_a_figure_exactly_at_its_target_meets_it(smoke_results, monkeypatch):
    results = json.loads(smoke_results.read_text())
    group_names = page.WORDS["en"]["group_names"]
    for group, mode, percent in page.COPY_TARGETS:
        title = f"Graph, {group_names[group]}, {mode}, bfloat16: at least {percent}%"
        at = page.targets(with_kernel_at(results, percent), "en")
        assert "**met**" in target(at, title), title
        below = page.targets(with_kernel_at(results, percent - 0.01), "en")
        assert "**missed**" in target(below, title), title
    # Speedups that floats hold exactly: 3 ms against 2 ms is 1.5×.
    monkeypatch.setattr(page, "FUSED_SPEEDUP", {"forward": 1.5, "backward": 1.5})
    names = [page.FUSED, page.UNFUSED]
    for fused_ms, verdict in [(2.0, "**met**"), (2.001, "**missed**")]:
        results = made_up(
            lambda name, shape, mode, f=fused_ms: f if name == page.FUSED else 3.0,
            names,
            rows(1024),
            adds=names,
        )
        lines = page.targets(results, "en")
        assert verdict in target(
            lines, "the fused add and norm, forward: at least 1.5×"
        )
        assert verdict in target(
            lines, "the fused add and norm, backward: at least 1.5×"
        )


def test_the_lowest_figure_is_the_one_shown_and_the_fastest_is_named():
    lowest = {(2048, "forward"): 96.5}

    def ms(name, shape, mode):
        if name == page.KERNEL:
            return 100 / lowest.get((shape[1], mode), 99.0)
        return 1.0 if shape[1] == 1024 else 2.0

    names = [page.KERNEL, "torch F.rms_norm"]
    results = made_up(ms, names, rows(1024, 2048, 4096))
    # LayerNorm, faster still, is a yardstick beside the RMSNorms and never ranked.
    layer_norm = made_up(lambda *_: 0.5, ["LayerNorm eager"], rows(1024, 2048, 4096))
    results["runs"] += layer_norm["runs"]
    line = target(page.targets(results, "en"), ROWS_FORWARD)
    assert "**met** (lowest 96.5%: bfloat16, N = 2048)" in line
    words = page.WORDS["en"]
    said = page.sayings(results, words, "torch.bfloat16", "graph")
    assert (
        "- forward: the site's kernel at 96.5%–99.0% of the copy across N; fastest"
        " RMSNorm: torch F.rms_norm at N = 1024; Triton (this site) at N = 2048, 4096."
    ) in said
    # Where the fastest one's slowest round is slower than another's fastest, it says so:
    # the ranking there is of medians.
    for entry in results["runs"]:
        if entry["n"] == 4096 and entry["mode"] == "forward":
            entry["ms_min"], entry["ms_max"] = 0.5 * entry["ms"], 1.5 * entry["ms"]
    said = page.sayings(results, words, "torch.bfloat16", "graph")
    assert "at N = 2048, 4096 (rounds overlapping another's)." in "\n".join(said)
    for entry in results["runs"]:  # rounds that only touch overlap too
        if entry["n"] == 4096 and entry["mode"] == "forward":
            mine = entry["implementation"] == page.KERNEL
            entry["ms_min"], entry["ms_max"] = (1.0, 1.5) if mine else (1.5, 2.5)
    said = page.sayings(results, words, "torch.bfloat16", "graph")
    assert "at N = 2048, 4096 (rounds overlapping another's)." in "\n".join(said)
    # Not only the runner-up's: a third implementation's wider range may reach past it.
    three = made_up(lambda *_: 1.0, [*names, "Liger-Kernel"], rows(4096))

    def said_with(rounds):
        for entry in three["runs"]:
            low, high = rounds[entry["implementation"]]
            entry |= {"ms": (low + high) / 2, "ms_min": low, "ms_max": high}
        return "\n".join(page.sayings(three, words, "torch.bfloat16", "graph"))

    rounds = {page.KERNEL: (0.95, 1.05), names[1]: (1.15, 1.25), "Liger-Kernel": (1, 2)}
    said = said_with(rounds)
    assert "Triton (this site) at N = 4096 (rounds overlapping another's)." in said
    clear = said_with(rounds | {"Liger-Kernel": (1.1, 2)})  # clear of the fastest's
    assert "Triton (this site) at N = 4096." in clear


def test_only_a_figure_above_100_percent_gets_the_note_on_the_copy():
    def table(percent):
        results = made_up(lambda *_: 100 / percent, [page.KERNEL], rows(1024))
        for entry in results["runs"] + results["copy"]:
            entry |= {"bytes": 1, "gbps": 1.0, "peak_percent": None}
        for entry in results["runs"]:
            low, high = percent - 1, percent + 1
            entry |= {"copy_percent_min": low, "copy_percent_max": high}
        words = page.WORDS["en"]
        return page._table(
            results, words, "torch.bfloat16", "graph", "forward", "rows", "norm"
        )

    assert page.WORDS["en"]["above_copy"] in table(100.5)
    assert page.WORDS["en"]["above_copy"] not in table(100.0)


def test_a_failed_kernel_misses_its_targets(smoke_results):
    results = json.loads(smoke_results.read_text())
    for entry in results["runs"]:
        if entry["implementation"] == page.KERNEL:
            entry["error"] = "RuntimeError('boom')"
    results["host_us"][page.KERNEL] = {"error": "RuntimeError('boom')"}
    lines = page.targets(results, "en")
    assert "**missed**: bfloat16, N = 100: failed" in target(lines, ROWS_FORWARD)
    assert "**missed**: bfloat16, N = 300: failed" in target(lines, WIDE_BOTH)
    assert "**missed**: forward, N = 64: failed" in target(lines, DECODE)
    for title in [HOST_FORWARD, HOST_BOTH, BARE_FORWARD, BARE_BOTH]:
        assert "**missed**: failed" in target(lines, title), title


def test_a_failed_copy_leaves_its_figures_without_a_percentage(smoke_results):
    results = json.loads(smoke_results.read_text())
    for entry in results["copy"]:
        if entry["group"] == "wide" and entry["dtype"] == "torch.bfloat16":
            entry.clear()
            entry.update(group="wide", dtype="torch.bfloat16", m=2, n=300, bytes=1)
            entry.update(timing="graph", error="OutOfMemoryError()")
    for entry in results["runs"]:
        if entry["group"] == "wide" and entry["dtype"] == "torch.bfloat16":
            entry["copy_percent"] = None
    lines = page.targets(results, "en")
    assert "**missed**: bfloat16, N = 300: failed" in target(lines, WIDE_FORWARD)
    section = "\n".join(page.gpu_section("smoke", results, "en"))
    assert (
        "- copy, bfloat16, wide rows, N = 300, graph: `OutOfMemoryError()`" in section
    )


def test_the_copy_fit_recovers_a_made_up_bandwidth_and_fixed_cost():
    # Copies taking bytes / 2,500 GB/s + 4 µs, one of them 0.5 µs late.
    shapes = rows(1024, 2048, 4096, 8192)
    results = made_up(lambda name, shape, mode: 1.0, [page.KERNEL], shapes)
    for entry in results["copy"]:
        entry["bytes"] = 4 * entry["m"] * entry["n"]
        entry["ms"] = (entry["bytes"] / 2500e3 + 4) / 1e3
    results["copy"][-1]["ms"] += 0.5e-3
    fit = page.copy_fit(results)
    assert fit["count"] == 4 and fit["smallest_us"] == pytest.approx(30.8436, abs=1e-3)
    assert fit["gbps"] == pytest.approx(2500, rel=0.02)
    assert fit["fixed_us"] == pytest.approx(4, abs=0.5)
    assert 0.1 < fit["worst_us"] < 0.5  # the line takes up some of the delay
    results["peak_gbps"] = 3350
    (text, _) = page._copy_fit_text(results, page.WORDS["en"])
    assert "4 copies timed in a CUDA graph in bfloat16" in text
    bound = float(text.split("comes within ")[1].split(" µs")[0])
    assert fit["worst_us"] <= bound < fit["worst_us"] + 0.1
    assert "% of the datasheet's" in text
    results["copy"] = results["copy"][:2]  # two copies fit any line
    assert (
        page.copy_fit(results) is None
        and page._copy_fit_text(results, page.WORDS["en"]) == []
    )


def test_percentages_of_peak_are_shown_where_the_peak_is_known(smoke_results):
    results = json.loads(smoke_results.read_text())
    results["peak_gbps"], results["peak_source"] = (
        3350,
        "Made-up GPU datasheet: 3.35 TB/s",
    )
    for entry in results["runs"] + results["copy"]:
        if "gbps" in entry:
            entry["peak_percent"] = 100 * entry["gbps"] / 3350
    section = "\n".join(page.gpu_section("smoke", results, "en"))
    assert (
        "Each percentage of peak is of 3,350 GB/s (Made-up GPU datasheet: 3.35 TB/s)."
        in section
    )
    assert "GB/s (% of copy, lowest–highest round; % of datasheet peak)." in section
    entry = next(r for r in results["runs"] if r["group"] == "wide" and "gbps" in r)
    low, high = entry["copy_percent_min"], entry["copy_percent_max"]
    percents = f"{entry['copy_percent']:.1f}%, {low:.1f}–{high:.1f}"
    assert f"({percents}; {entry['peak_percent']:.1f}%)" in section
    korean = "\n".join(page.gpu_section("smoke", results, "ko"))
    # The source, recorded in English, names its datasheet in the page's language.
    assert (
        "데이터시트 대역폭 대비 백분율의 기준은 3,350 GB/s(Made-up GPU 데이터시트: 3.35 TB/s)입니다."
        in korean
    )


def test_parts_of_a_gpu_run_measure_host_time_once():
    gpu = run.SETUPS["gpu"]
    bf16 = run.part_setup(gpu, ["bfloat16"])
    assert bf16.dtypes == (torch.bfloat16,) and bf16.host_calls == gpu.host_calls
    assert bf16.groups == gpu.groups
    fp32 = run.part_setup(gpu, ["float32"], [1024, 4096])
    assert fp32.host_calls == 0
    assert fp32.groups == {
        "rows": ((16384, 1024), (16384, 4096)),
        "decode": ((1, 4096), (16, 4096), (256, 4096)),
    }
    wide = run.part_setup(gpu, ["bfloat16"], groups=["wide", "qk-norm"])
    assert wide.host_calls == 0  # host_us goes with the group "rows"
    assert wide.groups == {"qk-norm": gpu.groups["qk-norm"], "wide": gpu.groups["wide"]}
    assert run.part_setup(gpu, sizes=[128], groups=["rows"]).groups == {}
    assert run.part_setup(gpu) == gpu


def test_parts_of_a_gpu_run_merge_into_one_file():
    part = {key: "same" for key in run.SAME_IN_PARTS} | {"kind": "gpu"}
    host = {"host_calls": 1000, "host_shape": [16, 1024], "host_us": {"a": 1}}
    fp32 = {
        "dtype": "torch.float32", "group": "rows", "m": 16384, "n": 1024,
        "bytes": 2**27, "timing": "graph",
    }  # fmt: skip
    bf16 = fp32 | {"dtype": "torch.bfloat16"}
    first = part | {"copy": [fp32], "runs": ["fp32"]}
    second = part | {"copy": [bf16], "runs": ["bf16"]} | host
    merged = run.merge([first, second])
    assert merged["runs"] == ["fp32", "bf16"] and merged["copy"][1] == bf16
    assert {key: merged[key] for key in host} == host
    # A merged file, committed, takes a part measured later at its commit.
    later = part | {"copy": [fp32 | {"group": "wide"}], "runs": ["wide"]}
    assert run.merge([merged, later])["runs"] == ["fp32", "bf16", "wide"]
    with pytest.raises(ValueError, match="no part measured host_us"):
        run.merge([first, first])
    twice = "two parts measured torch.float32, rows M = 16384, N = 1024, graph"
    with pytest.raises(ValueError, match=twice):
        run.merge([first, first | host])  # a part run twice: its figures would be too
    # Another group, or the same group at another shape or with another copy: merged.
    for other in [{"group": "decode"}, {"m": 1}, {"n": 2048}, {"timing": "eager"}]:
        third = part | {"copy": [fp32 | other], "runs": []}
        assert len(run.merge([first, second, third])["copy"]) == 3
    another_copy = part | {"copy": [fp32 | {"bytes": 2**28}], "runs": []}
    with pytest.raises(ValueError, match=twice):  # the same shape and timing
        run.merge([first, second, another_copy])
    for key in ["git_commit", "python", "cpu"]:  # eager figures include host time
        with pytest.raises(ValueError, match=f"{key} differ"):
            run.merge([first, second | {key: "another"}])
    with pytest.raises(ValueError, match="only GPU runs"):
        run.merge([first | {"kind": "smoke"}])


def test_parts_agree_on_everything_but_their_figures_and_date(smoke_results):
    part = json.loads(smoke_results.read_text()) | {"kind": "gpu"}
    their_own = {"date", "copy", "runs", "host_calls", "host_shape", "host_us"}
    for key in sorted(part.keys() - their_own):
        other = part | {key: "another", "copy": [], "runs": []}
        with pytest.raises(ValueError, match=f"{key} differ"):
            run.merge([part, other])


def test_a_part_of_a_run_is_never_written_among_the_results(capsys):
    for part in [["--dtypes", "bfloat16"], ["--groups", "wide"], ["--sizes", "1024"]]:
        for out in [[], ["--out", str(run.RESULTS / "h100.json")]]:
            with pytest.raises(SystemExit):
                run.main([*part, *out])
            assert "a part of a run" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run.main(["--smoke", "--groups", "rows", "--sizes", "64"])
    assert "no shape of this run" in capsys.readouterr().err


def test_targets_count_what_a_part_left_unmeasured_as_missed(smoke_results):
    results = with_kernel_at(json.loads(smoke_results.read_text()), 96)
    part = copy.deepcopy(results)
    part["runs"] = [r for r in part["runs"] if r["group"] != "wide"]
    part["copy"] = [c for c in part["copy"] if c["group"] != "wide"]
    lines = page.targets(part, "en")
    unmeasured = "every shape: **missed**: bfloat16, N = 300: not measured"
    assert unmeasured in target(lines, WIDE_FORWARD)
    assert "**met**" in target(lines, ROWS_FORWARD)
    assert "**met**" in target(page.targets(results, "en"), WIDE_FORWARD)  # measured
    # On the H200, every dtype of the run's grid: a shape or a whole dtype no part
    # measured is a miss of the rows' target, not left out of it.
    h200 = copy.deepcopy(results) | {"device": "NVIDIA H200"}
    rows_forward = "Graph, rows, forward, every dtype"
    for lost in [
        lambda e: (e["dtype"], e["group"], e["n"]) == ("torch.float32", "rows", 256),
        lambda e: e["dtype"] == "torch.float32",
    ]:
        h200["runs"] = [r for r in h200["runs"] if not lost(r)]
        h200["copy"] = [c for c in h200["copy"] if not lost(c)]
        said = target(page.targets(h200, "en"), rows_forward)
        assert "**missed**" in said and "float32, N = 256: not measured" in said


def test_a_figure_measured_twice_is_refused(smoke_results):
    results = json.loads(smoke_results.read_text())
    results["runs"] += results["runs"][:1]
    with pytest.raises(ValueError, match="a figure appears twice"):
        page.gpu_section("h100", results, "en")


def test_cpu_table_shows_every_figure_and_the_layer_norm_ratios(tmp_path):
    setup = replace(TINY, kind="cpu", timings=("eager",), host_calls=0)
    found, skipped = run.implementations("cpu")
    found = {name: impl for name, impl in found.items() if not impl.compiled}
    results = run.run(setup, found, skipped)
    check_figures(results)
    path = tmp_path / "cpu.json"
    path.write_text(json.dumps(results))
    written = generate(path, tmp_path)
    assert [p.name for p in written] == ["table.en.md", "table.ko.md"]
    for language in LANGUAGES:
        table = (tmp_path / f"table.{language}.md").read_text()
        words = page.WORDS[language]
        # The CPU as the page names it: this machine's own name, "(R)" and "(TM)" left out.
        assert page._cpu_name(results) in table and results["torch"] in table
        for entry in results["runs"]:
            cell = f"{entry['ms']:.2f} ({entry['ms_min']:.2f}–{entry['ms_max']:.2f})"
            name = page._row_name(entry["implementation"], words)
            assert f"| {name} |" in table and cell in table
            if entry["implementation"] != "LayerNorm eager":
                # Round by round, over LayerNorm's time in the same round.
                layer_norm = next(
                    e
                    for e in results["runs"]
                    if e["implementation"] == "LayerNorm eager"
                    and e["mode"] == entry["mode"]
                )
                ratios = [
                    mine / theirs
                    for mine, theirs in zip(entry["ms_rounds"], layer_norm["ms_rounds"])
                ]
                low, high = min(ratios), max(ratios)
                assert (
                    f"{statistics.median(ratios):.2f}× ({low:.2f}–{high:.2f})" in table
                )


@pytest.mark.parametrize("language", LANGUAGES)
def test_page_includes_the_results_it_has(language):
    text = read(DOCS / language / "benchmark.md")
    results_page = read(DOCS / language / "benchmark_results.md")  # the summary's page
    for benchmark in page.SECTIONS:  # the FP8 and compiled-layer tables, when measured
        tables = f"snippets/benchmark/results/{benchmark}/tables.{language}.md"
        measured = (ROOT / tables).exists()
        assert (tables in results_page) == measured, f"{tables}: measured {measured}"
    # Each GPU's figures on a page of its own, which the summary links.
    pages = {path.name: read(path) for path in (DOCS / language).glob("*.md")}
    for results in GPU_RESULTS:
        figures = f"snippets/benchmark/results/{results.stem}.{language}.md"
        including = [name for name, page_text in pages.items() if figures in page_text]
        assert len(including) == 1, f"{figures} is included by {including}"
        assert f"]({including[0]})" in results_page, f"no link to {including[0]}"
    if not GPU_RESULTS:
        assert not list(page.PLOTS.glob("*.svg")), "plots without GPU results"
        assert not list(page.TABLES.glob("*.md")), "figures without GPU results"
        no_figures = {"en": "No GPU figures are published yet", "ko": "아직 공개된 GPU"}
        assert no_figures[language] in text
    else:
        # The summary opens with a reader's first question, RMSNorm against LayerNorm; the
        # headline tables follow it, below the In short box (whose bullets answer first),
        # before Which to use; the method's page points to it first.
        headline = f"snippets/benchmark/results/headline.{language}.md"
        first = results_page.index("\n    - **")
        assert (
            "LayerNorm"
            in results_page[first : results_page.index("\n    - **", first + 1)]
        )
        below = f'{{ #at-a-glance }}\n\n--8<-- "{headline}"'
        assert below in results_page, "not in its section below the In short box"
        assert headline not in text, "the headline twice: on the summary's page only"
        assert "](benchmark_results.md)" in text[: text.index("\n- ")]
    cpu_table = f"snippets/benchmark/results/cpu/table.{language}.md"
    heading = {"en": "## On a CPU\n", "ko": "## CPU에서 { #on-a-cpu }\n"}[language]
    assert heading in text and cpu_table in text


def test_committed_tables_and_plots_are_the_generators_output(tmp_path):
    """Both languages' at once (the generator writes them together)."""
    if GPU_RESULTS:
        fresh = page.write(GPU_RESULTS, tmp_path / "gpu", tmp_path / "gpu")
        committed = {page.PLOTS / p.name for p in fresh if p.suffix == ".svg"}
        assert set(page.PLOTS.glob("*.svg")) == committed, "plots of other results"
        committed = {page.TABLES / p.name for p in fresh if p.suffix == ".md"}
        assert set(page.TABLES.glob("*.md")) == committed, "text of other results"
        for path in fresh:
            folder = page.PLOTS if path.suffix == ".svg" else page.TABLES
            assert (folder / path.name).read_bytes() == path.read_bytes(), path.name
    assert len(CPU_RESULTS) == 1, "one CPU results file feeds the section On a CPU"
    for path in page.write(CPU_RESULTS, tmp_path / "cpu"):
        committed = page.CPU_TABLES / path.name
        assert committed.read_bytes() == path.read_bytes(), f"{committed} is stale"


def test_the_tuning_sweep_times_every_setting_and_the_kernels_own(
    tmp_path, capsys, triton_launches
):
    for n in tune.SIZES["gpu"]:  # today's settings are among those the sweep tries
        forward, backward = tune.current(n, sms=132)
        assert forward in tune.forward_settings(n), n
        assert backward in tune.backward_settings(n, sms=132), n
    # From 16384 on the wide kernels are tried too, at the rows the tables hold whole.
    assert {s.wide for s in tune.backward_settings(16384, sms=132)} == {False, True}
    assert {s.wide for s in tune.forward_settings(262144)} == {True}
    out = tmp_path / "tune.json"
    assert tune.main(["--smoke", "--out", str(out)]) == 0
    found = json.loads(out.read_text())["sizes"]
    (n,) = tune.SIZES["smoke"]
    assert [s["n"] for s in found] == [n]
    sms = kernel.sm_count(torch.device("cpu"))
    assert len(found[0]["backward"]) == len(tune.backward_settings(n, sms))
    assert len(found[0]["forward"]) == len(tune.forward_settings(n))
    assert all(
        entry["copy_percent"] > 0
        for mode in ("forward", "backward")
        for entry in found[0][mode]
    )
    # Each setting was launched as it says, not the kernel's own setting each time.
    m = found[0]["m"]
    launched = {
        ("forward" if "forward" in name else "backward", "wide" in name, *settings)
        for name, *settings in triton_launches
    }
    assert launched == {
        ("forward", s.wide, s.block_n, s.block_m, s.num_warps, -(-m // s.block_m))
        for s in tune.forward_settings(n)
    } | {
        (
            "backward",
            s.wide,
            s.block_n,
            s.block_m,
            s.num_warps,
            min(s.most, -(-m // s.block_m)),
        )
        for s in tune.backward_settings(n, sms)
    }
    printed = capsys.readouterr().out
    assert f"N={n:<6} forward  best" in printed and "backward best" in printed


@pytest.mark.parametrize("phone, shown_px", [(False, 748), (True, PHONE_COLUMN_PX)])
def test_plot_text_is_at_least_11_px_where_it_is_shown(phone, shown_px):
    """Drawn at the size the page shows it (Material's column on a 1280 px desktop, a 390 px
    phone's), every label of a plot is 11 px or more."""
    results = made_up(lambda name, shape, mode: 1.0, [page.KERNEL], rows(1024, 4096))
    results |= {"timings": {"graph": "cuda-graph-replay"}, "copy": []}
    for figure in results["runs"]:
        figure |= {"copy_percent_min": 99.0, "copy_percent_max": 101.0}
    with matplotlib.rc_context(page.PLOT_TEXT):
        figure = page.plot(results, "torch.bfloat16", "graph", "norm", "en", phone)
        figure.draw_without_rendering()
    scale = shown_px / (figure.get_figwidth() * 96)  # CSS px per px of the SVG
    sizes = [t.get_fontsize() for t in figure.findobj(Text) if t.get_text()]
    assert min(sizes) * 96 / 72 * scale >= 11


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_plot_legends_fit_inside_their_figures(phone):
    """Every legend of the committed results' plots, in both languages, lies inside its
    figure: a legend wider than a phone's figure is cut off at both edges in the SVG. The
    results with the most implementations stand for all (theirs are the longest legends)."""
    if not GPU_RESULTS:
        pytest.skip("no GPU results published")
    every = [json.loads(path.read_text()) for path in GPU_RESULTS]
    results = max(every, key=lambda r: len({e["implementation"] for e in r["runs"]}))
    for language in LANGUAGES:
        for family in page.FAMILIES:
            with (
                page.svg_style(language, salt="benchmark"),
                matplotlib.rc_context(page.PLOT_TEXT),
            ):
                figure = page.plot(
                    results, page.PLOTTED, "graph", family, language, phone
                )
                figure.draw_without_rendering()
            (legend,) = figure.legends
            box = legend.get_window_extent()
            where = f"{results['device']}, {family}, {language}"
            assert box.x0 >= 0 and box.x1 <= figure.bbox.x1, where


def test_the_host_probe_runs_each_way_with_and_without_device_threads(capsys):
    host_probe.main(["--smoke"])
    lines = capsys.readouterr().out.splitlines()[1:]
    assert len(lines) == 2 * len(host_probe.WAYS)
    # Every way timed, but on a CPU the ATen op's backward (no CPU kernel): its failure said.
    failed = [
        line.split(" failed: ")[0].strip() for line in lines if " failed: " in line
    ]
    on_a_cpu = [] if torch.cuda.is_available() else ["ATen ops, Python backward"] * 2
    assert failed == on_a_cpu, lines
    timed = [line for line in lines if " failed: " not in line]
    assert all(
        re.search(
            r"device threads o(n |ff) +\d+\.\d back to back, +\d+\.\d alone$", line
        )
        for line in timed
    ), lines
    assert torch.autograd.is_multithreading_enabled()  # left as found
