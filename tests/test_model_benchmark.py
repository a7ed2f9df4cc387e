"""The compiled-layer benchmark (snippets/benchmark/model.py) and its table (page.py).

- The layers differ in their norms only: the same weights under the same names, and the same
  output to float32 rounding.
- A smoke run works on this machine's CPU: torch.compile traces each whole layer with no
  graph break, and every pass and timing has a figure, the median and range of its rounds.
- Results record the code they measured, so that a change to it makes them stale; a run
  without a GPU never writes GPU results.
- The generator shows every figure and its ratio to the layer with F.rms_norm in both
  languages, names a failure where it happened, and never publishes a smoke run; the
  committed tables are exactly those of the committed results (none without them).
"""

import copy
import json
import statistics

import pytest
import torch
import transformers
from site_layout import LANGUAGES, imported_files

from snippets.benchmark import model, page, run

COMMITTED = sorted(model.OWN.folder.glob("*.json"))
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
# One worker runs this file (with the benchmark's): the smoke run below happens once.
pytestmark = pytest.mark.xdist_group("benchmark")


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("model") / "smoke.json"
    with (
        pytest.MonkeyPatch.context() as patch
    ):  # on a GPU: traced, not compiled (quicker)
        patch.setattr(model, "BACKEND", "eager")
        assert model.main(["--smoke", "--out", str(out)]) == 0
    return json.loads(out.read_text())


def test_the_layers_differ_in_their_norms_only():
    found, config = model.layers("smoke", torch.float32, DEVICE)
    assert list(found) == list(model.NORMS)
    x = torch.randn(2, 16, config.hidden_size, device=DEVICE)
    positions = torch.arange(16, device=DEVICE).expand(2, -1)
    rotary = model.LlamaRotaryEmbedding(config).to(DEVICE)
    reference = found["LlamaRMSNorm (transformers)"]
    with torch.no_grad():
        embeddings = rotary(x, positions)
        expected = reference(x, position_embeddings=embeddings)
        for name, layer in found.items():
            assert list(layer.state_dict()) == list(reference.state_dict()), name
            for key, value in layer.state_dict().items():
                assert torch.equal(value, reference.state_dict()[key]), (name, key)
            output = layer(x, position_embeddings=embeddings)
            torch.testing.assert_close(output, expected, rtol=1e-5, atol=1e-5)
    norms = [type(found[name].input_layernorm).__name__ for name in found]
    assert norms == ["LlamaRMSNorm", "Norm", "Norm"]


def test_a_smoke_run_times_every_layer_compiled_whole(smoke):
    assert smoke["kind"] == "model-smoke"
    assert smoke["code_sha256"].keys() == set(model.CODE)
    assert smoke["backend"] == "eager"
    assert smoke["transformers"] == transformers.__version__  # the layer's code
    setup = model.MODEL_SETUPS["smoke"]
    keys = sorted((r["implementation"], r["mode"], r["timing"]) for r in smoke["runs"])
    assert keys == sorted(
        (name, mode, timing)
        for name in model.NORMS
        for mode in model.MODES
        for timing in setup.timings
    )
    for entry in smoke["runs"]:
        assert "error" not in entry, entry  # no graph break, no second compile
        assert (entry["m"], entry["n"]) == setup.groups["layer"][0]
        rounds = entry["ms_rounds"]
        assert len(rounds) == smoke["rounds"] >= 3
        assert entry["ms"] == statistics.median(rounds)
        assert (entry["ms_min"], entry["ms_max"]) == (min(rounds), max(rounds))


def test_results_are_stale_when_the_code_they_measured_changes():
    assert set(model.CODE) == imported_files("snippets/benchmark/model.py")
    old = {"kind": "model", "git_commit": "a6b8d27", "code_sha256": {}}
    reasons = run.stale(old)
    assert (
        "snippets/benchmark/model.py is not in commit a6b8d27 (or git is missing)"
        in (reasons)
    )
    assert (
        "snippets/kernel_in_practice/custom_op.py is not in commit a6b8d27"
        in "".join(reasons)
    )


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks a machine without a GPU")
def test_a_run_without_a_gpu_never_writes_gpu_results(capsys):
    for args, message in [
        (["--smoke", "--out", str(model.OWN.folder / "x.json")], "does not write"),
        (["--out", str(run.RESULTS / "x.json")], "does not write into"),
        ([], "needs a CUDA GPU"),
    ]:
        with pytest.raises(SystemExit):
            model.main(args)
        assert message in capsys.readouterr().err
    assert not (model.OWN.folder / "x.json").exists()


def test_the_table_shows_every_figure_in_both_languages(smoke, tmp_path):
    failed = copy.deepcopy(smoke)
    runs = failed["runs"]
    (i,) = [
        i
        for i, r in enumerate(runs)
        if (r["implementation"], r["mode"], r["timing"])
        == ("LlamaRMSNorm (transformers)", "forward", "eager")
    ]
    runs[i] = {key: runs[i][key] for key in page.WHERE}
    runs[i]["error"] = "RuntimeError('out of memory')"
    path = tmp_path / "model-smoke.json"
    path.write_text(json.dumps(failed))
    page.write([path], tmp_path)
    for language in LANGUAGES:
        words = page.WORDS[language]
        table = (tmp_path / f"tables.{language}.md").read_text()
        for entry in failed["runs"]:
            name = page._name(entry["implementation"], words)
            assert f"| {page._row_name(entry['implementation'], words)} |" in table
            if language == "ko" and entry["implementation"] != model.REFERENCE:
                assert name != entry["implementation"], "no Korean name"
            if "error" in entry:
                place = f"{name}, bfloat16, {words['model']['group']}, N = 64"
                assert f"- {place}, {words['modes']['forward']}, " in table
                continue
            cell = f"{entry['ms']:.3f} ({entry['ms_min']:.3f}–{entry['ms_max']:.3f})"
            reference = page._figure(
                failed,
                implementation=model.REFERENCE,
                mode=entry["mode"],
                timing=entry["timing"],
            )
            if entry["implementation"] != model.REFERENCE:
                cell += f", {reference['ms'] / entry['ms']:.3f}×"
            assert cell in table
        assert f"transformers {transformers.__version__}," in table
    with pytest.raises(SystemExit):
        page.main([str(path)])  # a smoke run is never published


def test_the_table_says_where_the_rounds_overlap_f_rms_norms(smoke):
    """Every cell overlapping F.rms_norm's layer's rounds: said once for all. One cell set
    apart: named."""
    together = copy.deepcopy(smoke)
    for figure in together["runs"]:
        figure["ms_min"], figure["ms_max"] = (
            0.0,
            1e9,
        )  # every range overlaps every other
    for language in LANGUAGES:
        words = page.WORDS[language]["model"]
        assert words["overlap_all"] in page.model_section("x", together, language)
    apart = copy.deepcopy(together)
    (figure,) = [
        r
        for r in apart["runs"]
        if (r["implementation"], r["mode"], r["timing"])
        == ("LlamaRMSNorm (transformers)", "forward", "eager")
    ]
    figure["ms_min"] = figure["ms_max"] = 2e9  # above F.rms_norm's layer's range
    lines = page.model_section("x", apart, "en")
    name = page._name("LlamaRMSNorm (transformers)", page.WORDS["en"])
    said = page.WORDS["en"]["model"]["overlap_some"].format(
        cells=f"{name}, forward, eager"
    )
    assert said in lines


def test_committed_model_tables_come_from_the_committed_results(tmp_path):
    committed = sorted(model.OWN.folder.glob("tables.*.md"))
    if not COMMITTED:
        assert committed == [], "tables of the compiled layer without its results"
        return
    for path in COMMITTED:
        results = json.loads(path.read_text())
        assert results["kind"] == "model"
        assert run.stale(results) == [], f"{path.name} is stale: rerun model.py"
    for path in page.write(COMMITTED, tmp_path):
        assert (model.OWN.folder / path.name).read_bytes() == path.read_bytes()
