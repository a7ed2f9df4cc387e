"""The Benchmark page's tables, text and plots, generated from the results files of run.py.

    python -m snippets.benchmark.page snippets/benchmark/results/*.json
    python -m snippets.benchmark.page snippets/benchmark/results/cpu/<cpu>.json

GPU files (one per GPU, in the order of their names) give snippets/benchmark/results/
tables.en.md and tables.ko.md: for each GPU the targets, what the figures say, a tab per dtype
and timing holding a table per pass for the norm and for the residual add with the norm, and
the host cost; and the plots docs/assets/benchmark/<file>-<dtype>-<timing>-<family>-<language>
.svg. A CPU file gives snippets/benchmark/results/cpu/table.en.md and table.ko.md. The same
JSON gives the same files, byte for byte.
"""

import argparse
import json
import statistics
from pathlib import Path

from matplotlib.figure import Figure

from snippets.placement.plots import save_svg, svg_style

ROOT = Path(__file__).resolve().parents[2]
TABLES = Path(__file__).resolve().parent / "results"
CPU_TABLES = TABLES / "cpu"
PLOTS = ROOT / "docs" / "assets" / "benchmark"
MODES = ["forward", "backward", "forward+backward"]  # run.py's passes
# The norm alone, and the residual add with the norm: each compared within its own family.
FAMILIES = ["norm", "add"]
PLOTTED = (
    "torch.bfloat16"  # the dtype of the plots (the targets' dtype); tables: every one
)
DTYPE_ORDER = ["torch.bfloat16", "torch.float16", "torch.float32"]
# A CPU table compares each RMSNorm with LayerNorm run the same way.
LAYER_NORMS = {"eager": "LayerNorm eager", "compiled": "LayerNorm compiled"}
NOT_INSTALLED = "not installed"  # run.py's reason, followed by the import error

WORDS = {
    "en": {
        "device": "Device",
        "driver": "driver",
        "rows": "rows",
        "rounds": "{count} rounds, the median and the range (lowest–highest) of each figure",
        "name": "implementation",
        "copy": "copy",
        "failed": "failed",
        "unmeasured": "not measured",
        "skipped": "Not run",
        "failures": "Failed",
        "modes": {
            "forward": "forward",
            "backward": "backward",
            "forward+backward": "forward+backward",
        },
        "families": {
            "norm": "RMSNorm alone, with LayerNorm",
            "add": "the residual add and the norm, h = x + r, y = RMSNorm(h)",
        },
        "timings": {
            "cuda-graph-replay": "graph (a CUDA graph replayed: GPU time only)",
            "python-calls": "eager (launched from Python: host time included)",
            "cpu-stand-in-direct-calls": "graph stand-in (no CUDA graph on a CPU: "
            "the pass called directly)",
        },
        "short": {"graph": "graph", "eager": "eager"},
        "unit": "GB/s (% of copy; its range over the rounds)",
        "plot_y": "% of copy bandwidth",
        "plot_x": "N (row length)",
        "alt": "Percent of the copy's bandwidth against N, {dtype}, {timing}, {family}: "
        "forward, backward and forward+backward side by side, one line per "
        "implementation, the range of the rounds as error bars.",
        "targets": "Targets (set for an H100, M = 16384, N = 1024 to 16384)",
        "met": "**met**",
        "missed": "**missed**",
        "none": "**not measured**",
        "lowest": "lowest {value}: {where}",
        "graph_forward": "Graph, forward, at least {percent}% of the faster copy at every "
        "N and dtype",
        "graph_both": "Graph, forward+backward, at least {percent}% of the faster copy at "
        "every N and dtype",
        "faster_copy": "The faster copy is the copy of the same dtype and N replayed from "
        "a CUDA graph or launched from Python, whichever moved more GB/s.",
        "slow_copy": "Replayed from a CUDA graph, the copy ran slower than launched from "
        "Python at {cases}. The graph tables' percentages there are of that slower copy, "
        "which is why some pass 100%; the copy targets above count those figures against "
        "the eager copy instead.",
        "slow_copy_case": "{dtype}, N = {n} ({graph} against {eager} GB/s)",
        "eager": "Eager, bfloat16, N ≥ {n}: at least as fast as the fastest "
        "peer (F.rms_norm, torch.compile, Liger-Kernel, QuACK where present) in every "
        "pass",
        "versus_case": "{mode}, N = {n}: {ms} ms, {peer} {peer_ms} ms ({ratio}×)",
        "fused_speedup": "Graph, bfloat16, the fused add and norm, {mode}: at least "
        "{limit}× as fast as the add followed by the site's lone kernel at every N",
        "speedup_case": "N = {n}: {ratio}×",
        "fused_peer": "Graph, bfloat16, N ≥ {n}: the fused add and norm at least as fast "
        "as Liger-Kernel's in every pass",
        "host": "Host time, {mode}, at most {limit}× F.rms_norm's",
        "host_case": "{us} µs, {ratio}× F.rms_norm's {ref} µs",
        "say": "What the figures say",
        "say_line": "{mode}: {kernel} {low}–{high} of copy over N; fastest: {fastest}",
        "kernels": {"norm": "the site's kernel", "add": "the site's fused kernel"},
        "at": "{name} at N = {sizes}",
        "host_title": "Host time per call (µs): {calls} calls on x of {shape} "
        "bfloat16, the GPU otherwise idle; the median",
        "times_ref": "× F.rms_norm",
        "cpu_unit": "ms (range). ÷ LayerNorm: the time over LayerNorm's in the same "
        "round (compiled over LayerNorm compiled)",
        "vs_ln": "÷ LayerNorm",
        "cpu_say": "{mode}: eager, RMSNorm took {low}× to {high}× LayerNorm's time "
        "(the medians of {count} eager forms); compiled, {compiled}× ({range}).",
        "cpu_device": "{cpu}, {cores} cores ({threads} threads; torch uses "
        "{torch_threads})",
        "x": "x",
        "image": "![{alt}](../assets/benchmark/{name}){{ loading=lazy }}",
        "not_installed": "not installed",
        "reasons": {},
        "names": {},
    },
    "ko": {
        "device": "장치",
        "driver": "드라이버",
        "rows": "행",
        "rounds": "{count}라운드(각 수치는 라운드 간 중앙값과 최저–최고 범위)",
        "name": "구현",
        "copy": "복사",
        "failed": "실패",
        "unmeasured": "측정 없음",
        "skipped": "실행하지 않음",
        "failures": "실패",
        "modes": {
            "forward": "순전파",
            "backward": "역전파",
            "forward+backward": "순전파+역전파",
        },
        "families": {
            "norm": "RMSNorm 단독(비교용 LayerNorm 포함)",
            "add": "잔차 덧셈과 정규화, h = x + r, y = RMSNorm(h)",
        },
        "timings": {
            "cuda-graph-replay": "그래프(CUDA 그래프 재생: GPU 시간만)",
            "python-calls": "즉시 실행(매번 Python에서 띄움: 호스트 시간 포함)",
            "cpu-stand-in-direct-calls": "그래프 대용(CPU에는 CUDA 그래프가 없어 "
            "패스를 직접 호출)",
        },
        "short": {"graph": "그래프", "eager": "즉시 실행"},
        "unit": "GB/s (복사 대비 %, 라운드 간 범위)",
        "plot_y": "복사 대역폭 대비 %",
        "plot_x": "N (행 길이)",
        "alt": "N에 따른 복사 대역폭 대비 퍼센트, {dtype}, {timing}, {family}: 순전파, "
        "역전파, 순전파+역전파를 나란히, 구현마다 선 하나, 라운드 간 범위는 오차 막대.",
        "targets": "목표(H100, M = 16384, N = 1024–16384 기준)",
        "met": "**달성**",
        "missed": "**미달**",
        "none": "**측정 없음**",
        "lowest": "최저 {value}: {where}",
        "graph_forward": "그래프, 순전파: 모든 N과 dtype에서 더 빠른 복사 대비 {percent}% "
        "이상",
        "graph_both": "그래프, 순전파+역전파: 모든 N과 dtype에서 더 빠른 복사 대비 "
        "{percent}% 이상",
        "faster_copy": "더 빠른 복사란 같은 dtype과 N에서 CUDA 그래프로 재생한 복사와 "
        "Python에서 띄운 복사 가운데 GB/s가 더 높은 쪽입니다.",
        "slow_copy": "다음 경우에는 CUDA 그래프로 재생한 복사가 Python에서 띄운 복사보다 "
        "느렸습니다: {cases}. 이 경우 그래프 표의 백분율은 이 느린 복사를 기준으로 한 "
        "값이어서 100%를 넘는 것도 있습니다. 위의 복사 대비 목표에서는 이 수치들을 대신 "
        "즉시 실행 복사와 비교합니다.",
        "slow_copy_case": "{dtype}, N = {n} (그래프 {graph} GB/s, 즉시 실행 {eager} GB/s)",
        "eager": "즉시 실행, bfloat16, N ≥ {n}: 모든 패스에서 가장 빠른 비교 "
        "대상(F.rms_norm, torch.compile, Liger-Kernel, QuACK 중 있는 것)보다 느리지 "
        "않음",
        "versus_case": "{mode}, N = {n}: {ms} ms, {peer} {peer_ms} ms ({ratio}배)",
        "fused_speedup": "그래프, bfloat16, 퓨즈드 덧셈·정규화, {mode}: 모든 N에서 덧셈 "
        "뒤에 이 사이트의 단독 커널을 실행할 때보다 {limit}배 이상 빠름",
        "speedup_case": "N = {n}: {ratio}배",
        "fused_peer": "그래프, bfloat16, N ≥ {n}: 퓨즈드 덧셈·정규화가 모든 패스에서 "
        "Liger-Kernel의 구현보다 느리지 않음",
        "host": "호스트 시간, {mode}: F.rms_norm의 {limit}배 이하",
        "host_case": "{us} µs, F.rms_norm {ref} µs의 {ratio}배",
        "say": "수치 요약",
        "say_line": "{mode}: {kernel} N에 따라 복사 대비 {low}–{high}, 가장 빠른 구현은 "
        "{fastest}",
        "kernels": {"norm": "이 사이트의 커널은", "add": "이 사이트의 퓨즈드 커널은"},
        "at": "N = {sizes}에서 {name}",
        "host_title": "호출당 호스트 시간(µs): 다른 GPU 작업이 없는 상태에서 {shape} "
        "bfloat16 텐서 x로 {calls}번 호출해 잰 시간의 중앙값",
        "times_ref": "F.rms_norm 대비 배수",
        "cpu_unit": "ms(범위). ÷ LayerNorm: 같은 라운드에서 잰 LayerNorm 시간에 대한 "
        "비율(컴파일한 것은 컴파일한 LayerNorm에 대한 비율)",
        "vs_ln": "÷ LayerNorm",
        "cpu_say": "{mode}: 즉시 실행하면 RMSNorm은 LayerNorm 시간의 {low}배에서 "
        "{high}배가 걸렸고(즉시 실행 형태 {count}개 각각의 중앙값), 컴파일하면 "
        "{compiled}배({range})였습니다.",
        "cpu_device": "{cpu}, 코어 {cores}개(스레드 {threads}개, torch는 "
        "{torch_threads}개 사용)",
        "x": "x",
        # A Korean page is served one folder deeper (/ko/...): a path relative to it.
        "image": '<img src="../../assets/benchmark/{name}" alt="{alt}" loading="lazy">',
        # The implementation names are run.py's identifiers; only the words in one are Korean.
        "names": {
            "Triton (this site)": "Triton(이 사이트)",
            "add + Triton RMSNorm (this site)": "add + Triton RMSNorm(이 사이트)",
            "Triton add+RMSNorm (this site)": "Triton add+RMSNorm(이 사이트)",
        },
        "not_installed": "설치되지 않음",
        # run.py's reasons for leaving an implementation out, in Korean.
        "reasons": {
            "GPU kernels": "GPU 커널",
            "a GPU kernel (on a CPU only Triton's interpreter)": "GPU 커널(CPU에서는 "
            "Triton 인터프리터로만 실행)",
            "not in a smoke run: compiling for each shape takes minutes": "스모크 "
            "실행에서는 제외: 모양마다 컴파일하는 데 몇 분이 걸림",
        },
    },
}

def _name(name: str, words) -> str:
    """An implementation's name as the tables in this language show it."""
    return words["names"].get(name, name)

def _dtypes(results) -> list[str]:
    present = {run["dtype"] for run in results["runs"]}
    return [dtype for dtype in DTYPE_ORDER if dtype in present]

def _short(dtype: str) -> str:
    return dtype.removeprefix("torch.")

def _runs(results, family=None, **where) -> list[dict]:
    """The entries at `where`, of one family's implementations if one is named."""
    adds = results.get("add_and_norm", [])
    return [
        r
        for r in results["runs"]
        if all(r[k] == v for k, v in where.items())
        and (family is None or (r["implementation"] in adds) == (family == "add"))
    ]

def _unmeasured(results, words, timing, dtypes=None, from_n=0) -> list[str]:
    """The (dtype, N) of the run's whole grid that these results lack (a part of a run, or
    a run cut short): a target holds only where it was measured, so each is a miss."""
    measured = {(c["dtype"], c["n"]) for c in results["copy"] if c["timing"] == timing}
    return [
        f"{_short(dtype)}, N = {n}: {words['unmeasured']}"
        for dtype in dtypes or results["grid"]["dtypes"]
        for n in results["grid"]["sizes"]
        if n >= from_n and (dtype, n) not in measured
    ]

def _figure(results, **where) -> dict | None:
    """The one entry at `where` that has a figure (not an error), if any."""
    found = [r for r in _runs(results, **where) if "error" not in r]
    return found[0] if found else None

def _percent(value: float) -> str:
    return f"{value:.1f}%"

def _cell(run, words) -> str:
    if "error" in run:
        return words["failed"]
    low, high = run["copy_percent_min"], run["copy_percent_max"]
    return f"{run['gbps']:,.0f} ({_percent(run['copy_percent'])}, {low:.1f}–{high:.1f})"

def _versions(results, words) -> str:
    return ", ".join(
        f"{label} {results[key] or '-'}"
        for label, key in [
            (words["driver"], "driver"),
            ("CUDA", "cuda"),
            ("torch", "torch"),
            ("triton", "triton"),
            ("Liger-Kernel", "liger-kernel"),
            ("QuACK", "quack-kernels"),
            ("Python", "python"),
        ]
    )

def _header(results, words) -> str:
    commit = (results["git_commit"] or "-")[:12]
    return (
        f"{words['device']}: **{results['device']}** (CPU: {results['cpu']});"
        f" {_versions(results, words)}; {results['date']}; commit `{commit}`;"
        f" M = {results['rows']} {words['rows']};"
        f" {words['rounds'].format(count=results['rounds'])}."
    )

# --8<-- [start:targets]
KERNEL = "Triton (this site)"
PEERS = ["torch F.rms_norm", "torch.compile naive", "Liger-Kernel", "QuACK"]
REFERENCE = "torch F.rms_norm"  # the host-time yardstick
FUSED = "Triton add+RMSNorm (this site)"
UNFUSED = "add + Triton RMSNorm (this site)"  # PyTorch's add, then the lone kernel
FUSED_PEER = "Liger-Kernel add+RMSNorm"
# The targets, set for an H100 with M = 16384 and N = 1024 to 16384:
GRAPH_FORWARD = 95  # graph, forward: at least 95% of copy at every N and dtype
GRAPH_BOTH = 85  # graph, forward+backward: at least 85% of copy at every N and dtype
EAGER_FROM = 4096  # eager, bfloat16, N >= 4096: at least as fast as the best peer
HOST_LIMIT = {"forward": 2.0, "forward+backward": 1.5}  # x F.rms_norm's host time
# Graph, bfloat16: the fused kernel this many times as fast as UNFUSED at every N,
FUSED_SPEEDUP = {"forward": 1.2, "backward": 1.4}
FUSED_PEER_FROM = 2048  # and from this N on, at least as fast as FUSED_PEER

def _status(words, misses: list[str], shown: str | None) -> str:
    if misses:
        return f"{words['missed']}: " + "; ".join(misses)
    if shown is None:
        return words["none"]
    return f"{words['met']} ({shown})"

def _copy_gbps(results, dtype, n) -> dict:
    """timing -> the copy's GB/s at this dtype and N."""
    return {
        c["timing"]: c["gbps"]
        for c in results["copy"]
        if c["dtype"] == dtype and c["n"] == n and "gbps" in c
    }

def _of_faster_copy(results, run) -> float:
    """A graph figure as a percentage of the faster copy of its dtype and N: replayed
    from a CUDA graph, a large copy can run slower than launched from Python, and a figure
    would then pass 100% of a copy the GPU can beat."""
    copies = _copy_gbps(results, run["dtype"], run["n"])
    graph, fastest = copies.get("graph"), max(copies.values(), default=None)
    if graph is None or graph >= fastest:
        return run["copy_percent"]  # as it is: the graph copy is the faster
    return run["copy_percent"] * graph / fastest

def _copy_target(results, words, mode, threshold) -> str:
    """Met if the kernel's graph figure reaches `threshold` % of the faster copy at every
    N and dtype."""
    runs = _runs(results, implementation=KERNEL, mode=mode, timing="graph")
    figures = [
        (_of_faster_copy(results, run), f"{_short(run['dtype'])}, N = {run['n']}")
        for run in runs
        if "error" not in run
    ]
    failed = [
        f"{_short(run['dtype'])}, N = {run['n']}: {words['failed']}"
        for run in runs
        if "error" in run
    ]
    misses = failed + [
        f"{where} ({_percent(value)})" for value, where in figures if value < threshold
    ]
    misses += _unmeasured(results, words, "graph")
    lowest = min(figures, default=None)
    shown = lowest and words["lowest"].format(
        value=_percent(lowest[0]), where=lowest[1]
    )
    return _status(words, misses, shown)

def _not_slower(results, words, mine, peers, timing, from_n) -> str:
    """Met if, in bfloat16 from N = from_n on, `mine` is in no pass slower than the
    fastest of `peers` (those measured)."""
    cases, misses = [], _unmeasured(results, words, timing, ["torch.bfloat16"], from_n)
    sizes = sorted({r["n"] for r in results["runs"] if r["n"] >= from_n})
    for mode in MODES:
        for n in sizes:
            where = {"dtype": "torch.bfloat16", "n": n, "mode": mode, "timing": timing}
            figure = _figure(results, implementation=mine, **where)
            others = [_figure(results, implementation=p, **where) for p in peers]
            others = [p for p in others if p]
            if figure is None and _runs(results, implementation=mine, **where):
                misses.append(f"{words['modes'][mode]}, N = {n}: {words['failed']}")
            if figure is None or not others:
                continue
            best = min(others, key=lambda p: p["ms"])
            case = words["versus_case"].format(
                mode=words["modes"][mode],
                n=n,
                ms=f"{figure['ms']:.4f}",
                peer=_name(best["implementation"], words),
                peer_ms=f"{best['ms']:.4f}",
                ratio=f"{figure['ms'] / best['ms']:.2f}",
            )
            cases.append(case)
            if figure["ms"] > best["ms"]:
                misses.append(case)
    return _status(words, misses, "; ".join(cases) or None)

def _speedup_target(results, words, mode) -> str:
    """Met if the fused kernel is FUSED_SPEEDUP[mode] times as fast as UNFUSED at every N
    (graph, bfloat16)."""
    cases, misses = [], _unmeasured(results, words, "graph", ["torch.bfloat16"])
    where = {"dtype": "torch.bfloat16", "mode": mode, "timing": "graph"}
    for n in sorted({r["n"] for r in _runs(results, **where)}):
        fused = _figure(results, implementation=FUSED, n=n, **where)
        unfused = _figure(results, implementation=UNFUSED, n=n, **where)
        if fused is None and _runs(results, implementation=FUSED, n=n, **where):
            misses.append(f"N = {n}: {words['failed']}")
        if fused is None or unfused is None:
            continue
        ratio = unfused["ms"] / fused["ms"]
        case = words["speedup_case"].format(n=n, ratio=f"{ratio:.2f}")
        cases.append(case)
        if ratio < FUSED_SPEEDUP[mode]:
            misses.append(case)
    return _status(words, misses, "; ".join(cases) or None)

def _host_target(results, words, mode) -> str:
    host = results.get("host_us", {})
    mine, ref = host.get(KERNEL, {}).get(mode), host.get(REFERENCE, {}).get(mode)
    failed = [words["failed"]] if "error" in host.get(KERNEL, {}) else []
    if mine is None or ref is None:
        return _status(words, failed, None)
    ratio = mine / ref
    case = words["host_case"].format(
        us=f"{mine:.1f}", ratio=f"{ratio:.2f}", ref=f"{ref:.1f}"
    )
    return _status(words, [case] if ratio > HOST_LIMIT[mode] else [], case)

def targets(results, language: str) -> list[str]:
    """Each target, met or missed, computed from the results."""
    words = WORDS[language]
    lines = [
        (
            words["graph_forward"].format(percent=GRAPH_FORWARD),
            _copy_target(results, words, "forward", GRAPH_FORWARD),
        ),
        (
            words["graph_both"].format(percent=GRAPH_BOTH),
            _copy_target(results, words, "forward+backward", GRAPH_BOTH),
        ),
        (
            words["eager"].format(n=EAGER_FROM),
            _not_slower(results, words, KERNEL, PEERS, "eager", EAGER_FROM),
        ),
    ]
    for mode, limit in HOST_LIMIT.items():
        title = words["host"].format(mode=words["modes"][mode], limit=f"{limit:g}")
        lines.append((title, _host_target(results, words, mode)))
    for mode, limit in FUSED_SPEEDUP.items():
        title = words["fused_speedup"].format(
            mode=words["modes"][mode], limit=f"{limit:g}"
        )
        lines.append((title, _speedup_target(results, words, mode)))
    lines.append(
        (
            words["fused_peer"].format(n=FUSED_PEER_FROM),
            _not_slower(results, words, FUSED, [FUSED_PEER], "graph", FUSED_PEER_FROM),
        )
    )
    targets = [f"- {a}: {b}." for a, b in lines]
    return [f"**{words['targets']}**", "", *targets, "", words["faster_copy"]]

# --8<-- [end:targets]

def _names(results, family, **where) -> list[str]:
    """The implementations of a family with entries at `where`, in the results' order."""
    return list(
        dict.fromkeys(r["implementation"] for r in _runs(results, family, **where))
    )

def _fastest(results, words, family, **where) -> str:
    """Which implementation of the family was fastest at each N, grouped by name."""
    at = {}
    for n in sorted({r["n"] for r in _runs(results, family, **where)}):
        figures = [r for r in _runs(results, family, n=n, **where) if "error" not in r]
        if figures:
            best = min(figures, key=lambda r: r["ms"])
            at.setdefault(best["implementation"], []).append(str(n))
    return "; ".join(
        words["at"].format(name=_name(name, words), sizes=", ".join(sizes))
        for name, sizes in at.items()
    )

def sayings(results, words, dtype, timing) -> list[str]:
    """For one dtype and timing: the site's kernels' range of % of copy over N, and the
    fastest implementation of their family at each N, per pass."""
    lines = []
    for family, kernel in [("norm", KERNEL), ("add", FUSED)]:
        for mode in MODES:
            where = {"dtype": dtype, "mode": mode, "timing": timing}
            mine = [
                r["copy_percent"]
                for r in _runs(results, implementation=kernel, **where)
                if "error" not in r
            ]
            if mine:
                line = words["say_line"].format(
                    mode=words["modes"][mode],
                    kernel=words["kernels"][family],
                    low=_percent(min(mine)),
                    high=_percent(max(mine)),
                    fastest=_fastest(results, words, family, **where),
                )
                lines.append(f"- {line}.")
    return [f"**{words['say']}**", "", *lines, ""] if lines else []

def _table(results, words, dtype, timing, mode, family) -> list[str]:
    runs = _runs(results, family, dtype=dtype, timing=timing, mode=mode)
    sizes = sorted({run["n"] for run in runs})
    copy = {
        c["n"]: c["gbps"]
        for c in results["copy"]
        if c["dtype"] == dtype and c["timing"] == timing
    }
    lines = [
        f"**{words['families'][family]}: {_short(dtype)}, {words['modes'][mode]}**",
        "",
        f"| {words['name']} | " + " | ".join(f"N = {n}" for n in sizes) + " |",
        "|" + " --- |" * (1 + len(sizes)),
        f"| {words['copy']} | "
        + " | ".join(f"{copy[n]:,.0f} (100%)" for n in sizes)
        + " |",
    ]
    for name in _names(results, family, dtype=dtype, timing=timing, mode=mode):
        cells = {r["n"]: _cell(r, words) for r in runs if r["implementation"] == name}
        lines.append(
            f"| {_name(name, words)} | "
            + " | ".join(cells.get(n, "") for n in sizes)
            + " |"
        )
    return lines + [""]

def _plot_name(stem, dtype, timing, family, language) -> str:
    return f"{stem}-{_short(dtype)}-{timing}-{family}-{language}.svg"

def _tab(title: str, lines: list[str]) -> list[str]:
    """A content tab (pymdownx.tabbed): its title, then its lines indented under it."""
    return [f'=== "{title}"', ""] + [f"    {line}".rstrip() for line in lines]

def _timing_tab(stem, results, words, language, dtype, timing) -> list[str]:
    """One dtype and timing: the label, a table per family and pass, a plot per family."""
    label = words["timings"][results["timings"][timing]]
    lines = [f"{label}.", "", *sayings(results, words, dtype, timing)]
    lines += [f"{words['unit']}.", ""]
    for family in FAMILIES:
        if not _runs(results, family, dtype=dtype, timing=timing):
            continue
        for mode in MODES:
            lines += _table(results, words, dtype, timing, mode, family)
        if dtype != PLOTTED:
            continue
        alt = words["alt"].format(
            dtype=_short(dtype), timing=label, family=words["families"][family]
        )
        name = _plot_name(stem, dtype, timing, family, language)
        lines += [words["image"].format(alt=alt, name=name), ""]
    return lines

def _host_table(results, words) -> list[str]:
    host = results["host_us"]
    shape = " × ".join(str(size) for size in results["host_shape"])
    title = words["host_title"].format(calls=results["host_calls"], shape=shape)
    columns = [f"{words['modes'][mode]} | {words['times_ref']}" for mode in MODES]
    lines = [
        f"**{title}**",
        "",
        f"| {words['name']} | " + " | ".join(columns) + " |",
        "|" + " --- |" * (1 + 2 * len(MODES)),
    ]
    ref = host.get(REFERENCE, {})
    for name, costs in host.items():
        if "error" in costs:
            cells = [f"{words['failed']} | "] * len(MODES)
        else:
            cells = []
            for mode in MODES:
                ratio = costs[mode] / ref[mode] if mode in ref else None
                cells.append(
                    f"{costs[mode]:.1f} | " + (f"{ratio:.2f}×" if ratio else "")
                )
        lines.append(f"| {_name(name, words)} | " + " | ".join(cells).rstrip() + " |")
    return lines + [""]

def _reason(why: str, words) -> str:
    """run.py's reason for leaving an implementation out, in this language (an import
    error's own message as it is)."""
    error = why.removeprefix(NOT_INSTALLED)
    if error != why:
        return words["not_installed"] + error
    return words["reasons"].get(why, why)

def _notes(results, words) -> list[str]:
    lines = []
    if results["skipped"]:
        reasons = sorted(results["skipped"].items())
        lines += [f"{words['skipped']}:", ""]
        lines += [
            f"- {_name(name, words)}: {_reason(why, words)}" for name, why in reasons
        ]
        lines.append("")
    failures = [r for r in results["runs"] if "error" in r]
    failures += [
        {"implementation": name, "mode": "host", "error": costs["error"]}
        for name, costs in results.get("host_us", {}).items()
        if "error" in costs
    ]
    if failures:
        lines += ["", f"{words['failures']}:", ""]
        for run in failures:
            where = ", ".join(
                str(run[key]) for key in ["implementation", "dtype", "n", "mode", "timing"]
                if key in run
            )  # fmt: skip
            error = run["error"].splitlines()[0].replace("|", "/")
            lines.append(f"- {where}: `{error}`")
    return lines

def _slow_copies(results, words) -> list[str]:
    """Where the graph-replayed copy was the slower of the two: a paragraph, or none."""
    cases = []
    for dtype in _dtypes(results):
        for n in results["grid"]["sizes"]:
            copies = _copy_gbps(results, dtype, n)
            if len(copies) == 2 and copies["graph"] < copies["eager"]:
                cases.append(
                    words["slow_copy_case"].format(
                        dtype=_short(dtype),
                        n=n,
                        graph=f"{copies['graph']:,.0f}",
                        eager=f"{copies['eager']:,.0f}",
                    )
                )
    return [words["slow_copy"].format(cases="; ".join(cases)), ""] if cases else []

def gpu_section(stem, results, language: str) -> list[str]:
    """One GPU: heading, header, targets, sayings, tabs of tables and plots, host, notes.
    Its tables' figures are right-aligned by the site's CSS (.benchmark-results): a
    Markdown alignment would repeat a style attribute in each of a thousand cells."""
    words = WORDS[language]
    keys = [
        tuple(r[k] for k in ("implementation", "dtype", "n", "mode", "timing"))
        for r in results["runs"]
    ]
    if len(keys) != len(set(keys)):
        raise ValueError(f"{stem}: a figure appears twice (parts merged that overlap)")
    lines = [f"### {results['device']} {{ #{stem} }}", "", _header(results, words), ""]
    lines += targets(results, language) + [""] + _slow_copies(results, words)
    for dtype in _dtypes(results):
        timings = []
        for timing in results["timings"]:
            tab = _timing_tab(stem, results, words, language, dtype, timing)
            timings += _tab(words["short"][timing], tab)
        lines += _tab(_short(dtype), timings)
    if "host_us" in results:
        lines += _host_table(results, words)
    lines += _notes(results, words)
    return ['<div class="benchmark-results" markdown>', "", *lines, "", "</div>", ""]

def gpu_tables(sections: list[tuple[str, dict]], language: str) -> str:
    """The GPU results section: one part per (file stem, results) of a GPU."""
    lines = []
    for stem, results in sections:
        lines += gpu_section(stem, results, language)
    return "\n".join(lines).rstrip() + "\n"

def plot(results, dtype, timing, family, language) -> Figure:
    """% of copy against N, a panel per pass, a line per implementation of the family,
    the rounds' range as bars."""
    words = WORDS[language]
    fig = Figure(figsize=(13, 4))
    # Fixed margins, the legend on the right: quicker to draw than a computed layout.
    fig.subplots_adjust(left=0.06, right=0.79, bottom=0.13, top=0.84, wspace=0.08)
    axes = fig.subplots(1, len(MODES), sharey=True)
    sizes = sorted({r["n"] for r in _runs(results, dtype=dtype)})
    for ax, mode in zip(axes, MODES):
        where = {"dtype": dtype, "timing": timing, "mode": mode}
        runs = [r for r in _runs(results, family, **where) if "error" not in r]
        ax.axhline(100, color="black", linestyle="--", label=words["copy"])
        for name in _names(results, family, **where):
            mine = sorted(
                (
                    r["n"],
                    r["copy_percent"],
                    r["copy_percent_min"],
                    r["copy_percent_max"],
                )
                for r in runs
                if r["implementation"] == name
            )
            if not mine:
                continue  # it failed at every N
            n, mid, low, high = zip(*mine)
            bars = [
                [m - lo for m, lo in zip(mid, low)],
                [h - m for m, h in zip(mid, high)],
            ]
            ax.errorbar(
                n, mid, yerr=bars, marker="o", capsize=3, label=_name(name, words)
            )
        ax.set(xscale="log", xlabel=words["plot_x"], title=words["modes"][mode])
        ax.set_xticks(sizes, [str(n) for n in sizes])
        ax.minorticks_off()
    axes[0].set_ylabel(words["plot_y"])
    label = words["timings"][results["timings"][timing]]
    fig.suptitle(f"{_short(dtype)}, {label}, {results['device']}")
    legend = {}  # label -> handle, from every pass (one may lack a failed line)
    for ax in axes:
        legend |= dict(zip(*reversed(ax.get_legend_handles_labels()), strict=True))
    fig.legend(
        legend.values(), legend.keys(), loc="outside right center", fontsize="small"
    )
    return fig

def _layer_norm(name: str) -> str:
    return LAYER_NORMS["compiled" if "compile" in name else "eager"]

def _ratio(results, name, mode) -> tuple[float, float, float] | None:
    """name's time over its LayerNorm's, round by round: median, lowest, highest."""
    mine = _figure(results, implementation=name, mode=mode)
    theirs = _figure(results, implementation=_layer_norm(name), mode=mode)
    if mine is None or theirs is None or name in LAYER_NORMS.values():
        return None
    ratios = [a / b for a, b in zip(mine["ms_rounds"], theirs["ms_rounds"])]
    return statistics.median(ratios), min(ratios), max(ratios)

def _times(value: tuple[float, float, float] | None) -> str:
    return f"{value[0]:.2f}× ({value[1]:.2f}–{value[2]:.2f})" if value else "—"

def cpu_table(results, language: str) -> str:
    """The CPU section: device, the ms of each pass and the ratio to LayerNorm."""
    words = WORDS[language]
    device = words["cpu_device"].format(
        cpu=results["cpu"],
        cores=results["cpu_cores"],
        threads=results["cpu_threads"],
        torch_threads=results["torch_threads"],
    )
    commit = (results["git_commit"] or "-")[:12]
    n = results["runs"][0]["n"]
    dtype = _short(results["runs"][0]["dtype"])
    columns = [f"{words['modes'][mode]} | {words['vs_ln']}" for mode in MODES]
    lines = [
        (
            f"{words['device']}: **{device}**; torch {results['torch']}, Python"
            f" {results['python']}; {results['date']}; commit `{commit}`;"
            f" {words['x']}: {dtype}, {results['rows']} × {n};"
            f" {words['rounds'].format(count=results['rounds'])}."
        ),
        "",
        f"{words['cpu_unit']}.",
        "",
        f"| {words['name']} | " + " | ".join(columns) + " |",
        "| --- |" + " ---: | ---: |" * len(MODES),
    ]
    names = list(dict.fromkeys(r["implementation"] for r in results["runs"]))
    for name in names:
        cells = []
        for mode in MODES:
            run = _runs(results, implementation=name, mode=mode)[0]
            if "error" in run:
                cells += [words["failed"], ""]
                continue
            ms = f"{run['ms']:.2f} ({run['ms_min']:.2f}–{run['ms_max']:.2f})"
            cells += [ms, _times(_ratio(results, name, mode))]
        lines.append(f"| {_name(name, words)} | " + " | ".join(cells) + " |")
    lines.append("")
    for mode in MODES:
        eager = [_ratio(results, name, mode) for name in names if "compile" not in name]
        eager = [ratio[0] for ratio in eager if ratio]
        compiled = _ratio(results, "torch.compile naive", mode)
        if eager and compiled:
            lines.append(
                "- "
                + words["cpu_say"].format(
                    mode=words["modes"][mode],
                    low=f"{min(eager):.2f}",
                    high=f"{max(eager):.2f}",
                    count=len(eager),
                    compiled=f"{compiled[0]:.2f}",
                    range=f"{compiled[1]:.2f}–{compiled[2]:.2f}",
                )
            )
    lines += [""] + _notes(results, words)
    return "\n".join(lines).rstrip() + "\n"

def write(paths: list[Path], folder: Path | None = None, plots: Path = PLOTS) -> list:
    """Write the Markdown (into `folder`) and the plots of one CPU results file or of the
    GPU ones; return the paths written."""
    every = [(path.stem, json.loads(path.read_text())) for path in sorted(paths)]
    kinds = {results["kind"] for _, results in every}
    if len(kinds) != 1 or ("cpu" in kinds and len(every) != 1):
        raise ValueError(f"one CPU results file, or GPU ones only; got {sorted(kinds)}")
    if kinds == {"smoke"} and folder is None:
        raise ValueError(
            "a smoke run's figures are never published; write them elsewhere"
        )
    written = []
    if kinds == {"cpu"}:
        folder = folder or CPU_TABLES
        folder.mkdir(parents=True, exist_ok=True)
        for language in WORDS:
            path = folder / f"table.{language}.md"
            path.write_text(cpu_table(every[0][1], language))
            written.append(path)
        return written
    folder = folder or TABLES
    folder.mkdir(parents=True, exist_ok=True)
    plots.mkdir(parents=True, exist_ok=True)
    for language in WORDS:
        path = folder / f"tables.{language}.md"
        path.write_text(gpu_tables(every, language))
        written.append(path)
        for stem, results in every:
            for timing in results["timings"]:
                for family in FAMILIES:
                    if not _runs(results, family, dtype=PLOTTED, timing=timing):
                        continue
                    path = plots / _plot_name(stem, PLOTTED, timing, family, language)
                    # The same JSON gives the same bytes (snippets/placement/plots.py).
                    with svg_style(language, salt="benchmark"):
                        save_svg(plot(results, PLOTTED, timing, family, language), path)
                    written.append(path)
    return written

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m snippets.benchmark.page")
    parser.add_argument(
        "results", type=Path, nargs="+", help="JSON files written by run.py"
    )
    args = parser.parse_args(argv)
    try:
        paths = write(args.results)
    except ValueError as error:
        parser.error(str(error))
    for path in paths:
        print(f"wrote {path.relative_to(ROOT)}")
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
