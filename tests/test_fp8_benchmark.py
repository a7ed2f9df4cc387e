"""The FP8 benchmark (snippets/benchmark/fp8.py) and its tables (page.py's FP8 section).

- Every implementation computes the same h, scales and FP8 values (the unfused ones with y
  rounded to x's dtype on the way, within one FP8 step).
- A smoke run works on this machine's CPU and writes every figure: GB/s of the one kernel's
  fewest bytes, % of the copy of those bytes, medians and ranges of the rounds.
- Results record the code they measured, so that a change to it makes them stale; a run
  without a GPU never writes GPU results.
- The generator shows every figure in both languages (Korean names for every
  implementation), says how the one kernel compares, and never publishes a smoke run; the
  committed FP8 tables are exactly those of the committed FP8 results (none without them).
"""

import json
import statistics

import pytest
import torch
from site_layout import LANGUAGES, imported_files

from snippets.benchmark import fp8, page, run

COMMITTED = sorted(fp8.OWN.folder.glob("*.json"))
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
# One worker runs this file (with the benchmark's): the smoke run below happens once.
pytestmark = pytest.mark.xdist_group("benchmark")


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("fp8") / "smoke.json"
    with (
        pytest.MonkeyPatch.context() as patch
    ):  # on a GPU: traced, not compiled (quicker)
        for module in (run, fp8):
            patch.setattr(module, "BACKEND", "eager")
        assert fp8.main(["--smoke", "--out", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.mark.parametrize("scaling", fp8.SCALINGS)
def test_every_implementation_computes_the_same_output(scaling, monkeypatch):
    for module in (run, fp8):  # traced, not compiled: quicker
        monkeypatch.setattr(module, "BACKEND", "eager")
    group = fp8.SCALINGS[scaling]
    torch.manual_seed(0)
    # float16: the interpreter stores it rounded as a GPU does (bfloat16 it truncates).
    x = torch.randn(3, 512, dtype=torch.float16, device=DEVICE)
    residual = torch.randn_like(x)
    weight = torch.rand(512, dtype=x.dtype, device=DEVICE)
    found, skipped = fp8.implementations("gpu", group)
    assert not skipped and len(found) == 4
    with torch.no_grad(), torch._dynamo.config.patch(**run.ONE_COMPILE):
        outputs = {
            name: fn(x, weight, None, residual) for name, fn in run.ready(found).items()
        }
    q0, scales0, h0 = outputs["PyTorch add, norm, quantize"]
    y0 = q0.float().reshape(3, -1, group or 512) * scales0.reshape(3, -1, 1)
    for name, (q, scales, h) in outputs.items():
        assert q.dtype == torch.float8_e4m3fn and q.shape == x.shape, name
        assert torch.equal(h, h0), name
        # y rounded to float16 on the way moves a scale by 2**-11 at most
        torch.testing.assert_close(scales, scales0, rtol=2**-10, atol=0, msg=name)
        if name == page.FP8_KERNEL and DEVICE == "cpu":
            continue  # its FP8 values: tests/test_fp8.py (the interpreter's conversion)
        y = q.float().reshape(3, -1, group or 512) * scales.reshape(3, -1, 1)
        step = 2.0**-3 * y0.abs() + 2.0**-9 * scales0.reshape(3, -1, 1)  # one e4m3 step
        assert ((y - y0).abs() <= step).all(), name


def test_the_bytes_are_the_one_kernels_fewest():
    x = torch.empty(16384, 4096, dtype=torch.bfloat16)
    # x and r read, h written (2 bytes each), q written (1 byte), float32 scales
    assert fp8.fp8_bytes(x, None) == 16384 * 4096 * 7 + 16384 * 4
    assert fp8.fp8_bytes(x, 128) == 16384 * 4096 * 7 + 16384 * 32 * 4


def test_a_smoke_run_writes_every_figure(smoke):
    assert smoke["kind"] == "fp8-smoke"
    assert smoke["code_sha256"].keys() == set(fp8.CODE)
    setup = fp8.FP8_SETUPS["smoke"]
    found, skipped = fp8.implementations("smoke", None)
    assert smoke["skipped"] == skipped
    keys = [
        (r["group"], r["m"], r["n"], r["mode"], r["timing"], r["implementation"])
        for r in smoke["runs"]
    ]
    assert sorted(keys) == sorted(
        (group, m, n, mode, timing, name)
        for group, shapes in setup.groups.items()
        for m, n in shapes
        for mode in fp8.SCALINGS
        for timing in setup.timings
        for name in found
    )
    copies = {(c["m"], c["n"], c["bytes"], c["timing"]): c for c in smoke["copy"]}
    for entry in smoke["runs"]:
        assert "error" not in entry, entry
        x = torch.empty(entry["m"], entry["n"], dtype=torch.bfloat16)
        assert entry["bytes"] == fp8.fp8_bytes(x, fp8.SCALINGS[entry["mode"]])
        rounds = entry["ms_rounds"]
        assert len(rounds) == smoke["rounds"] >= 3
        assert entry["ms"] == statistics.median(rounds)
        assert (entry["ms_min"], entry["ms_max"]) == (min(rounds), max(rounds))
        copy = copies[(entry["m"], entry["n"], entry["bytes"], entry["timing"])]
        gbps = entry["bytes"] / entry["ms"] / 1e6
        assert entry["gbps"] == pytest.approx(gbps)
        assert entry["copy_percent"] == pytest.approx(100 * gbps / copy["gbps"])
        assert entry["copy_percent_min"] <= entry["copy_percent"]
        assert entry["copy_percent"] <= entry["copy_percent_max"]


def test_results_are_stale_when_the_code_they_measured_changes():
    assert set(fp8.CODE) == imported_files("snippets/benchmark/fp8.py")
    old = {"kind": "fp8", "git_commit": "a6b8d27", "code_sha256": {}}
    reasons = run.stale(old)
    assert (
        "snippets/benchmark/fp8.py is not in commit a6b8d27 (or git is missing)"
        in reasons
    )
    # Each file measured makes them stale (run.py's reason depends on git being there).
    assert {reason.split()[0].rstrip(":") for reason in reasons} == set(fp8.CODE)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks a machine without a GPU")
def test_a_run_without_a_gpu_never_writes_gpu_results(capsys):
    for args, message in [
        (["--smoke", "--out", str(fp8.OWN.folder / "x.json")], "does not write into"),
        (["--out", str(run.RESULTS / "x.json")], "does not write into"),
        ([], "needs a CUDA GPU"),
    ]:
        with pytest.raises(SystemExit):
            fp8.main(args)
        assert message in capsys.readouterr().err
    assert not (fp8.OWN.folder / "x.json").exists()
    assert fp8.OWN.smoke.parent == run.SMOKE


def test_the_tables_show_every_figure_in_both_languages(smoke, tmp_path):
    path = tmp_path / "fp8-smoke.json"
    path.write_text(json.dumps(smoke))
    written = page.write([path], tmp_path)
    assert [p.name for p in written] == [
        f"{name}.{lang}.md" for name in ("tables", "summary") for lang in LANGUAGES
    ]
    for language in LANGUAGES:
        words = page.WORDS[language]
        table = (tmp_path / f"tables.{language}.md").read_text()
        assert (
            f"`{(smoke['git_commit'] or '-')[:12]}`" in table
        )  # no git on a GPU machine
        for entry in smoke["runs"]:
            name = page._row_name(entry["implementation"], words)
            assert f"| {name} |" in table
            if language == "ko":
                assert name != entry["implementation"], "no Korean name"
            if entry["group"] == "decode":  # µs per call
                low, high = 1e3 * entry["ms_min"], 1e3 * entry["ms_max"]
                assert f"{1e3 * entry['ms']:.1f} ({low:.1f}–{high:.1f})" in table
            else:
                low, high = entry["copy_percent_min"], entry["copy_percent_max"]
                percents = f"{entry['copy_percent']:.1f}%, {low:.1f}–{high:.1f}"
                if (
                    entry["peak_percent"] is not None
                ):  # a GPU the code knows the peak of
                    percents += f"{words['join']}{entry['peak_percent']:.1f}%"
                assert f"{entry['gbps']:,.0f} ({percents})" in table
        for mode in fp8.SCALINGS:
            where = {"mode": mode, "timing": "eager", "group": "rows"}
            (ratio,) = page._versus_others(smoke, **where)  # one N in a smoke run
            mine = page._figure(smoke, implementation=page.FP8_KERNEL, **where)
            others = [
                r["ms"]
                for r in page._runs(smoke, **where)
                if r["implementation"] != page.FP8_KERNEL
            ]
            assert ratio == min(others) / mine["ms"]
            assert f"{ratio:.2f}" in table


def test_a_smoke_run_is_never_published_nor_mixed_with_results(smoke, tmp_path, capsys):
    path = tmp_path / "smoke.json"
    path.write_text(json.dumps(smoke))
    with pytest.raises(SystemExit):
        page.main([str(path)])
    assert "a smoke run's figures are never published" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        page.main([str(path), str(min(run.RESULTS.glob("*.json")))])
    assert "GPU ones only (of one benchmark" in capsys.readouterr().err


def test_committed_fp8_tables_come_from_the_committed_results(tmp_path):
    committed = sorted(fp8.OWN.folder.glob("tables.*.md"))
    if not COMMITTED:
        assert committed == [], "FP8 tables without FP8 results"
        return
    for path in COMMITTED:
        results = json.loads(path.read_text())
        assert results["kind"] == "fp8"
        assert run.stale(results) == [], f"{path.name} is stale: rerun fp8.py"
    for path in page.write(COMMITTED, tmp_path):
        assert (fp8.OWN.folder / path.name).read_bytes() == path.read_bytes(), path.name
