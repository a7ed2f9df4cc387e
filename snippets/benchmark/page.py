"""The benchmark pages' tables, text and plots, generated from the results files of run.py,
fp8.py and model.py.

    python -m snippets.benchmark.page snippets/benchmark/results/*.json
    python -m snippets.benchmark.page snippets/benchmark/results/cpu/<cpu>.json
    python -m snippets.benchmark.page snippets/benchmark/results/fp8/*.json
    python -m snippets.benchmark.page snippets/benchmark/results/model/*.json

A GPU's file snippets/benchmark/results/<gpu>.json gives <gpu>.en.md and <gpu>.ko.md beside
it, which that GPU's page includes: the targets, what the figures say, a tab per dtype and
timing holding, for the group of shapes "rows", a table per pass for the norm and for the
residual add with the norm, then a table per pass of each other group (decode in µs per call,
QK-norm and wide rows in GB/s), every percentage of the copy of equal bytes and of the GPU's
peak where known; and the host cost; and the plots (the group "rows")
docs/assets/benchmark/<gpu>-<dtype>-<timing>-<family>-<language>.svg. All GPU files give
headline.en.md and headline.ko.md, Benchmark results' first table. A CPU file gives
snippets/benchmark/results/cpu/table.en.md and table.ko.md. FP8 files (fp8.py's, one per
GPU) give snippets/benchmark/results/fp8/tables.en.md and tables.ko.md: a tab per timing, a
table per group and scaling; and summary.en.md and summary.ko.md, what the rows say in GPU
time, for the FP8 page. The same JSON gives the same files, byte for byte.
"""

import argparse
import json
import math
import re
import statistics
from html import escape
from pathlib import Path

import matplotlib
from matplotlib.figure import Figure

from snippets.placement.plots import save_svg, svg_style

ROOT = Path(__file__).resolve().parents[2]
TABLES = Path(__file__).resolve().parent / "results"
CPU_TABLES = TABLES / "cpu"
FP8_TABLES = TABLES / "fp8"
MODEL_TABLES = TABLES / "model"
PLOTS = ROOT / "docs" / "assets" / "benchmark"
MODES = ["forward", "backward", "forward+backward"]  # run.py's passes
# The norm alone, and the residual add with the norm: each compared within its own family.
FAMILIES = ["norm", "add"]
# 8.5 points are 11.3 px where a plot is shown at its own size, as plot() draws it.
PLOT_TEXT = {"font.size": 8.5}
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
        "commit": "commit",
        "no_version": "not installed",
        "host_mode": "host time",
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
        "plot_families": {
            "norm": "RMSNorm alone, with LayerNorm",
            "add": "residual add + RMSNorm",
        },
        "families": {
            "norm": "RMSNorm alone, with LayerNorm",
            "add": "the residual add and the norm, h = x + r, y = RMSNorm(h)",
        },
        # The groups of shapes: their tables' titles, and their names in the targets.
        "groups": {
            "decode": "Decode (M rows: a token for each of M sequences), µs per call "
            "(its range over the rounds)",
            "qk-norm": "QK-norm (a row per head of each token)",
            "wide": "Wide rows",
        },
        "group_names": {
            "rows": "rows",
            "decode": "decode",
            "qk-norm": "QK-norm rows",
            "wide": "wide rows",
        },
        "timings": {
            "cuda-graph-replay": "graph (a CUDA graph replayed: GPU time only)",
            "python-calls": "eager (launched from Python: host time included)",
            "cpu-stand-in-direct-calls": "graph stand-in (no CUDA graph on a CPU: "
            "the pass called directly)",
        },
        "short": {"graph": "graph", "eager": "eager"},
        "unit": "GB/s (% of copy, lowest–highest round)",
        "unit_peak": "GB/s (% of copy, lowest–highest round; % of datasheet peak)",
        "headline": "{device}, PyTorch {torch}: forward+backward, bfloat16, M = {m} rows of N "
        "elements, µs per call (in parentheses, the speed against F.rms_norm's: above 1× is "
        "faster)",
        "headline_timing": "timing",
        "headline_timings": {"graph": "GPU time", "eager": "from Python"},
        "headline_in": {
            "graph": "Fastest in GPU time (a CUDA graph replayed): ",
            "eager": "Fastest launched from Python (host time included): ",
        },
        "headline_spread": "In the table, the spread of a figure's rounds, as a share of "
        "its median, reaches {spreads}; the tables per GPU give every range. ",
        "headline_spread_in": {
            "graph": "{percent} in GPU time",
            "eager": "{percent} launched from Python",
        },
        "headline_spread_join": " and ",
        "headline_host": "Host time per forward+backward call (the median of {calls} "
        "calls made back to back on a {shape} input): {kernel} µs for the site's kernel, "
        "{reference} µs for F.rms_norm. ",
        "headline_host_note": "Made back to back, a call seems to cost the host more than "
        "one made alone, so the host times compare implementations, not the time of one "
        "call. ",
        "headline_note": "M is the number of rows and N their length. In parentheses, "
        "F.rms_norm's time over each one's. Each time is the median of its rounds, and "
        "the fastest is the fastest by median: where two implementations' rounds overlap, "
        "their order is not settled.",
        "headline_best": "at N = {n} the site's kernel at {x}×{unsettled_alone}",
        "headline_other": "at N = {n} {best} at {y}×{unsettled} (the site's kernel {x}×)",
        "headline_reference": "at N = {n} F.rms_norm{unsettled} (the site's kernel {x}×)",
        "headline_unsettled": ", its rounds overlapping another's",
        "headline_unsettled_alone": ", its rounds overlapping another's",
        "headline_join": "; ",
        "headline_ends": ("", ""),  # of a saying inside a sentence, of its last
        "plot_y": "% of copy bandwidth",
        "plot_x": "N (row length, log scale)",
        "alt": "Percent of the copy's bandwidth against N on the {device}, {dtype}, {timing}, "
        "{family}: "
        "forward, backward and forward+backward side by side, one line per "
        "implementation, the range of the rounds as error bars. {site} runs at {ranges}; "
        "the tables above give every line's figures.",
        "alt_range": "{low:.0f}–{high:.0f}% of the copy in the {mode}",
        "targets": "Set for an H100, each in bfloat16 unless it says otherwise, and stated "
        "as met or missed with the figures that decide it:",
        "targets_h200": "Set for an H100, but for the two copy targets on rows, held to "
        "thresholds of the H200's own in every dtype; each in bfloat16 unless it says "
        "otherwise, and stated as met or missed with the figures that decide it:",
        "met": "**met**",
        "missed": "**missed**",
        "none": "**not measured**",
        "lowest": "lowest {value}: {where}",
        "highest": "highest {value}: {where}",
        # A target's line: its title, then the verdict with what it rests on.
        "target": "- {title}: {verdict}{detail}.",
        "met_detail": " ({})",
        "missed_detail": ": {}",
        "case_value": "{where} ({value})",
        "case_state": "{where}: {state}",  # failed, not measured
        "copy_target": "Graph, {group}, {mode}, {dtypes}: at least {percent}% of the copy "
        "of equal bytes at every shape",
        "every_dtype": "every dtype",
        "yardstick": "Each percentage of copy is of a copy that moves as many bytes as the "
        "pass (a Triton kernel reading half and writing half), timed the same way in the "
        "same rounds.",
        "peak": "Each percentage of peak is of {gbps} GB/s ({source}).",
        "datasheet": "datasheet",
        "decode": "Graph, decode, bfloat16, every pass: at most the time of F.rms_norm and "
        "of Liger-Kernel at every M",
        "eager": "Eager, rows, bfloat16, N ≥ {n}: at least as fast as the fastest "
        "peer (F.rms_norm, torch.compile, Liger-Kernel, QuACK where present) in every "
        "pass",
        "versus_case": "{mode}, {shape}: {ms} {unit}, {peer} {peer_ms} {unit} ({versus})",
        "slower": "{ratio}× slower",
        "faster": "{ratio}× faster",
        "rounds_overlap": ", the rounds' ranges overlap",
        "as_fast": "as fast",
        "join": "; ",
        "paren": " ({})",
        "fused_speedup": "Graph, bfloat16, the fused add and norm, {mode}: at least "
        "{limit}× as fast as the add followed by the site's lone kernel at every N",
        "speedup_case": "{shape}: {ratio}×",
        "fused_peer": "Graph, bfloat16: the fused add and norm at least as fast "
        "as Liger-Kernel's in every pass at every N",
        "host": "Host time, {mode}, at most {limit}× F.rms_norm's",
        "host_case": "{us} µs, {ratio}× F.rms_norm's {ref} µs",
        "host_bare": "Host time, {mode}, at most {bare} + {extra} µs",
        "bare": {
            "forward": "the forward kernel's bare launch",
            "forward+backward": "the bare launches of the forward and backward kernels",
        },
        "bare_case": "{us} µs, bare {bare} µs",
        "host_close": "; decided by {margin} µs, within the more than 10 µs between the "
        "two GPUs' hosts' bare launches, so not settled",
        "ceiling": "The yardstick, not the kernel: no figure above {limit}% of its copy "
        "(rows, QK-norm rows, wide rows: every dtype measured, implementation, pass and "
        "timing)",
        "figure_case": "{name}, {where}, {mode}, {timing}",
        "more": "{count} more",
        # The headings of a GPU's page, by their anchors (the same in both languages).
        "sections": {
            "against-f-rms-norm": "Against F.rms_norm",
            "device-and-versions": "Device and versions",
            "targets": "Targets",
            "tables-and-plots": "Tables and plots",
            "host-time-per-call": "Host time per call",
            "not-run-or-failed": "Not run or failed",
        },
        "say": "What the figures say",
        "say_line": "{mode}: {kernel} at {low}–{high} of the copy across N; fastest "
        "{family}: {fastest}",
        "kernels": {"norm": "the site's kernel", "add": "the site's fused kernel"},
        # What the fastest is ranked among (LayerNorm is a yardstick, never ranked).
        "ranked": {"norm": "RMSNorm", "add": "add and norm"},
        "vs_layer_norm": "{mode}: RMSNorm's time over LayerNorm's, each run the same way, "
        "across N (below 1×: RMSNorm is faster): {ratios}",
        "ratio_of": "{name} {low}×–{high}×",
        "at": "{name} at N = {sizes}",
        "overlapping": "{n} (rounds overlapping another's)",
        "at_join": "; ",
        "host_title": "Host time per call (µs): {calls} calls on x of {shape} "
        "bfloat16 made back to back, the GPU otherwise idle; the median (a burst "
        "overstates one call: compare implementations, not calls)",
        "times_ref": "× F.rms_norm",
        "cpu_unit": "ms (range). ÷ LayerNorm: the time over LayerNorm's in the same "
        "round (compiled over LayerNorm compiled)",
        "vs_ln": "÷ LayerNorm",
        "cpu_say": "{mode}: eager, RMSNorm took {low}× to {high}× LayerNorm's time "
        "(the medians of {count} eager forms); compiled, {compiled}× ({range}).",
        "cpu_device": "{cpu}, {cores} cores ({threads} threads; torch uses "
        "{torch_threads})",
        "x": "x",
        # Raw HTML: a phone gets a variant of its own, below extra.css's phone width (as
        # hooks/phone_figures.py serves the other figures'). Relative to the page's folder.
        "image": '<picture><source media="(max-width: 44.9375em)" '
        'srcset="../assets/benchmark/{phone}"><img src="../assets/benchmark/{name}" '
        'alt="{alt}" loading="lazy"></picture>',
        "copy_fit": "Why a copy's GB/s grows with its bytes: a line through the {count} "
        "copies timed in a CUDA graph in {dtype} (each one's time as its bytes over a "
        "bandwidth plus a fixed cost per call) comes within {worst} µs of every one: "
        "{gbps} GB/s{peak} and {fixed} µs a call. That fixed cost is {share} of the smallest "
        "copy on rows ({smallest} µs), so on small inputs a % of copy mixes bandwidth with "
        "what a call costs besides its bytes (what that cost is made of, the launch or the "
        "timing's own overhead, is not measured).",
        "copy_fit_peak": " ({percent} of the datasheet's)",
        "above_copy": "Above 100%: the copy is a speed to reach, not a bound (one Triton "
        "kernel with fixed launch settings), and a pass can move its bytes faster "
        "([What is measured](benchmark.md#what-is-measured)).",
        "not_installed": "not installed",
        "reasons": {},
        # The implementation names are run.py's identifiers; on a page some say more.
        # "uncompiled", not "eager": eager is also a timing, beside the CUDA graph's.
        "names": {
            "eager naive": "formula as written (uncompiled)",
            "eager Hugging Face": "Hugging Face form (uncompiled)",
            "torch.compile naive": "formula as written (torch.compile)",
            "LayerNorm eager": "LayerNorm (uncompiled)",
            "eager add + F.rms_norm": "add + F.rms_norm (uncompiled)",
            "LayerNorm compiled": "LayerNorm (torch.compile)",
        },
        # The compiled layer's section (model.py's results).
        "model": {
            "title": "A transformer layer compiled whole (torch.compile), bfloat16, "
            "{sequences} sequences of {length} tokens, ms per call",
            "name": "the layer's norms",
            "group": "the layer",
            "column": "{mode}, {timing}",
            "note": "Each figure: the median (the range over the rounds) and, after the "
            "comma, the time of the layer with F.rms_norm over this one's: above 1× is "
            "faster. The layer is transformers' LlamaDecoderLayer ({hidden} hidden, "
            "{heads} heads, {kv} key-value heads, MLP {mlp}); only its two norms differ.",
            "overlap_all": "In every cell the rounds overlap those of the layer with "
            "F.rms_norm: no difference from it is settled.",
            "overlap_some": "Cells whose rounds do not overlap those of the layer with "
            "F.rms_norm: {cells}.",
        },
        # The FP8 section (fp8.py's results): these words replace the ones above there.
        "fp8": {
            "title": "The residual add, RMSNorm and FP8 quantization, bfloat16, forward "
            "(inference)",
            "modes": {
                "per-token": "a scale per token",
                "per-group": "a scale per {group} features",
            },
            "groups": {
                "rows": "Rows (M = {m} tokens)",
                "decode": "Decode (M rows: a token for each of M sequences), µs per call "
                "(its range over the rounds)",
            },
            "say_line": "{mode}: the fused kernel at {low}–{high} of the copy across N; "
            "fastest: {fastest}",
            "versus_line": "{mode}: the fastest other way's time over the fused kernel's, "
            "{low}× to {high}× across N (above 1×: the fused kernel is faster)",
            "bytes": "GB/s counts, for every implementation, the fused kernel's fewest "
            "bytes: x and r read, h, the FP8 values and the scales written. The unfused "
            "ways move more than that, which is what fusing saves.",
            "summary": "**{device}**, bfloat16 rows (M = {m} tokens), {timing}:",
            "summary_more": "Every figure, launched from Python too and at decode: "
            "[Benchmark results](benchmark_results.md#{anchor}).",
        },
    },
    "ko": {
        "device": "장치",
        "driver": "드라이버",
        "commit": "커밋",
        "no_version": "설치되지 않음",
        "host_mode": "호스트 시간",
        "rounds": "라운드 {count}번 측정(각 수치는 라운드별 측정값의 중앙값과 최저–최고 "
        "범위)",
        "name": "구현",
        "copy": "복사",
        "failed": "실패",
        "unmeasured": "미측정",
        "skipped": "실행하지 않은 구현",
        "failures": "실패한 측정",
        "modes": {
            "forward": "순전파",
            "backward": "역전파",
            "forward+backward": "순전파+역전파",
        },
        "plot_families": {
            "norm": "RMSNorm 단독과 비교용 LayerNorm",
            "add": "잔차 덧셈 + RMSNorm",
        },
        "families": {
            "norm": "RMSNorm 단독(비교용 LayerNorm 포함)",
            "add": "잔차 덧셈과 정규화, h = x + r, y = RMSNorm(h)",
        },
        "groups": {
            "decode": "디코드(행 M개: 시퀀스 M개마다 토큰 하나), 호출당 µs(괄호 안은 "
            "라운드 범위)",
            "qk-norm": "QK-norm(각 토큰의 헤드마다 한 행)",
            "wide": "긴 행",
        },
        "group_names": {
            "rows": "일반 행",
            "decode": "디코드",
            "qk-norm": "QK-norm 행",
            "wide": "긴 행",
        },
        "timings": {
            "cuda-graph-replay": "CUDA 그래프(재생해 GPU 시간만 측정)",
            "python-calls": "즉시 실행(매번 Python에서 띄워 호스트 시간까지 측정)",
            "cpu-stand-in-direct-calls": "CUDA 그래프 대용(CPU에는 CUDA 그래프가 "
            "없어 패스를 직접 호출)",
        },
        "short": {"graph": "CUDA 그래프", "eager": "즉시 실행"},
        "unit": "표의 값: GB/s(복사 대비 %, 라운드 범위)",
        "unit_peak": "표의 값: GB/s(복사 대비 %, 라운드 범위 / 데이터시트 대역폭 대비 %)",
        "headline": "{device}, PyTorch {torch}: 순전파+역전파, bfloat16, M = {m}개 행(행마다 "
        "원소 N개), 호출당 µs(괄호 "
        "안은 F.rms_norm 대비 속도로, 1배보다 크면 더 빠름)",
        "headline_timing": "측정 방식",
        "headline_timings": {"graph": "GPU 시간", "eager": "Python에서 띄움"},
        "headline_in": {
            "graph": "CUDA 그래프를 재생해 GPU 시간만 재면 가장 빠른 구현과 그 속도(F.rms_norm "
            "대비)는 ",
            "eager": "Python에서 즉시 실행해 호스트 시간까지 재면 가장 빠른 구현과 그 속도"
            "(F.rms_norm 대비)는 ",
        },
        "headline_spread": "표에 있는 각 수치의 라운드 범위 폭은 중앙값 대비 {spreads}입니다. "
        "모든 범위는 GPU별 표에 있습니다. ",
        "headline_spread_in": {
            "graph": "GPU 시간에서 최대 {percent}",
            "eager": "Python에서 띄운 시간에서 최대 {percent}",
        },
        "headline_spread_join": ", ",
        "headline_host": "{shape} 입력으로 {calls}번 연달아 호출해 잰 순전파+역전파 호출당 "
        "호스트 시간의 중앙값은 이 사이트의 커널이 {kernel} µs, F.rms_norm이 {reference} "
        "µs입니다. ",
        "headline_host_note": "연달아 호출하면 호출 하나의 호스트 시간이 한 번만 따로 "
        "호출할 때보다 길게 나오는 것으로 보이므로, 이 호스트 시간은 호출 한 번의 시간이 "
        "아니라 구현끼리 견주는 값입니다. ",
        "headline_note": "M은 행의 개수, N은 행 하나의 원소 수입니다. 괄호 안의 값은 "
        "F.rms_norm의 시간을 각 구현의 시간으로 나눈 것입니다. 시간은 모두 라운드의 "
        "중앙값이고, 가장 빠르다는 말도 중앙값 기준입니다. 두 구현의 라운드 범위가 겹치면 "
        "어느 쪽이 빠른지 가릴 수 없습니다.",
        "headline_best": "N = {n}에서 이 사이트의 커널 {x}배{unsettled_alone}{end}",
        "headline_other": "N = {n}에서 {best} {y}배({unsettled}이 사이트의 커널은 {x}배)"
        "{end}",
        "headline_reference": "N = {n}에서 F.rms_norm({unsettled}이 사이트의 커널은 {x}배)"
        "{end}",
        "headline_unsettled": "다른 구현과 라운드 범위가 겹침, ",
        "headline_unsettled_alone": "(다른 구현과 라운드 범위가 겹침)",
        "headline_join": ", ",
        "headline_ends": ("", "입니다"),
        "plot_y": "복사 대역폭 대비 %",
        "plot_x": "N(행 길이, 로그 스케일)",
        "alt": "{device}, {dtype}, {timing}, {family}에서 N에 따른 복사 대역폭 대비 백분율을 "
        "그린 그림입니다. 순전파, 역전파, 순전파+역전파를 나란히 그렸고, 구현마다 선이 "
        "하나이며, 오차 막대는 라운드 범위입니다. {site}의 속도는 복사 대비 "
        "{ranges}이며, 각 선의 수치는 위의 표에 있습니다.",
        "alt_range": "{mode} {low:.0f}–{high:.0f}%",
        "targets": "H100에 맞춰 정한 목표입니다. 따로 적지 않은 목표는 bfloat16 수치로 "
        "판정하며, 각 목표의 달성 여부를 판정 근거가 된 수치와 함께 적습니다.",
        "targets_h200": "H100에 맞춰 정한 목표입니다. 다만 일반 행에서 복사와 비교하는 두 "
        "목표에는 모든 dtype에서 H200 고유의 기준치를 적용합니다. 따로 적지 않은 목표는 "
        "bfloat16 수치로 판정하며, 각 목표의 달성 여부를 판정 근거가 된 수치와 함께 "
        "적습니다.",
        "met": "**달성**",
        "missed": "**미달**",
        "none": "**미측정**",
        "lowest": "{where}에서 최저 {value}",
        "highest": "{where}에서 최고 {value}",
        # The verdict first, for scanning; what it rests on after "근거:" (grounds), not in
        # parentheses, since implementation names carry their own.
        "target": "- {verdict} — {title}{detail}.",
        "met_detail": ". 근거: {}",
        "missed_detail": ". 근거: {}",
        "case_value": "{where}에서 {value}",
        "case_state": "{where}에서 {state}",
        "copy_target": "CUDA 그래프, {group}, {mode}, {dtypes}: 모든 모양에서 같은 양의 "
        "바이트를 옮기는 복사 대비 {percent}% 이상",
        "every_dtype": "모든 dtype",
        "yardstick": "복사 대비 백분율의 기준은 그 패스와 같은 양의 바이트를 옮기는 "
        "복사(절반을 읽고 절반을 쓰는 Triton 커널)이며, 이 복사도 같은 방식으로 같은 "
        "라운드에서 쟀습니다.",
        "peak": "데이터시트 대역폭 대비 백분율의 기준은 {gbps} GB/s({source})입니다.",
        "datasheet": "데이터시트",
        "decode": "CUDA 그래프, 디코드, bfloat16, 모든 패스: 모든 M에서 F.rms_norm과 "
        "Liger-Kernel보다 느리지 않음",
        "eager": "즉시 실행, 일반 행, bfloat16, N ≥ {n}: 모든 패스에서 비교 "
        "대상(F.rms_norm, torch.compile, Liger-Kernel, 설치되어 있으면 QuACK) 가운데 "
        "가장 빠른 것보다 느리지 않음",
        # "순전파, M = 1에서 0.0066 ms로 Liger-Kernel 0.0061 ms보다 1.09배 느림"
        "versus_case": "{mode}, {shape}에서 {ms} {unit}로 {peer} {peer_ms} {unit}{versus}",
        "slower": "보다 {ratio}배 느림",
        "faster": "보다 {ratio}배 빠름",
        "rounds_overlap": "(라운드 범위가 겹침)",
        "as_fast": "와 같음",
        # Korean prose does not use semicolons, nor a space before a parenthesis.
        "join": " / ",
        "paren": "({})",
        "fused_speedup": "CUDA 그래프, bfloat16, 퓨즈드 덧셈·정규화, {mode}: 모든 N에서 "
        "PyTorch 덧셈 뒤에 이 사이트의 단독 커널을 실행할 때보다 {limit}배 이상 빠름",
        "speedup_case": "{shape}에서 {ratio}배",
        "fused_peer": "CUDA 그래프, bfloat16: 퓨즈드 덧셈·정규화가 모든 N과 모든 "
        "패스에서 Liger-Kernel 덧셈+RMSNorm보다 느리지 않음",
        "host": "호스트 시간, {mode}: F.rms_norm의 {limit}배 이하",
        "host_case": "{us} µs로, {ref} µs인 F.rms_norm의 {ratio}배",
        "host_bare": "호스트 시간, {mode}: {bare}보다 {extra} µs 넘게 길지 않음",
        "bare": {
            "forward": "순전파 커널만 띄우는 시간",
            "forward+backward": "순전파 커널과 역전파 커널만 띄우는 시간",
        },
        "bare_case": "{us} µs, 커널만 띄우면 {bare} µs",
        "host_close": ". 다만 판정을 가른 차이({margin} µs)가 두 GPU의 호스트에서 커널만 "
        "띄운 시간의 차이(10 µs 초과)보다 작아 이 판정은 확정되지 않았습니다",
        "ceiling": "커널이 아니라 기준을 점검하는 목표: 일반 행, QK-norm 행, 긴 행에서 잰 모든 dtype과 모든 구현, 패스, 측정 방식에 걸쳐 어떤 "
        "수치도 복사 대비 {limit}%를 넘지 않음",
        "figure_case": "{name}, {where}, {mode}, {timing}",
        "more": "외 {count}개",
        "sections": {
            "against-f-rms-norm": "F.rms_norm과 비교",
            "device-and-versions": "장치와 버전",
            "targets": "목표",
            "tables-and-plots": "표와 그래프",
            "host-time-per-call": "호출당 호스트 시간",
            "not-run-or-failed": "실행하지 않았거나 실패한 측정",
        },
        "say": "수치에서 알 수 있는 점",
        "say_line": "{mode}: {kernel} N에 따라 복사 속도의 {low}에서 {high}를 냈고, 가장 빠른 "
        "{family} 구현은 {fastest}입니다",
        "ranked": {"norm": "RMSNorm", "add": "덧셈·정규화"},
        "kernels": {
            "norm": "이 사이트의 커널은",
            "add": "이 사이트의 퓨즈드 덧셈·정규화 커널은",
        },
        "vs_layer_norm": "{mode}: RMSNorm 시간을 같은 방식으로 실행한 LayerNorm 시간으로 "
        "나눈 값(1배보다 작으면 RMSNorm이 더 빠름)은 N에 따라 {ratios}입니다",
        "ratio_of": "{name} {low}배에서 {high}배",
        # 는 sets one group of sizes against the next, where there are several.
        "at": "N = {sizes}에서{contrast} {name}",
        "overlapping": "{n}(다른 구현과 라운드 범위가 겹침)",
        "at_join": "이고, ",
        "host_title": "호출당 호스트 시간(µs): 다른 GPU 작업이 없는 상태에서 {shape} "
        "bfloat16 텐서 x로 {calls}번 연달아 호출해 잰 시간의 중앙값(연달아 호출하면 호출 한 "
        "번의 비용이 부풀려지므로 구현끼리 비교하는 값)",
        "times_ref": "F.rms_norm 대비 배수",
        "cpu_unit": "단위는 ms, 괄호 안은 범위입니다. ÷ LayerNorm 열은 시간을 같은 "
        "라운드의 LayerNorm 시간으로 나눈 값이며, 컴파일한 구현은 컴파일한 LayerNorm "
        "시간으로 나눕니다",
        "vs_ln": "÷ LayerNorm",
        "cpu_say": "{mode}: 컴파일하지 않으면 RMSNorm 형태 {count}개의 중앙값이 LayerNorm "
        "시간의 {low}배에서 {high}배였고, 컴파일하면 {compiled}배({range})였습니다.",
        "cpu_device": "{cpu}, 코어 {cores}개(스레드 {threads}개, torch는 "
        "{torch_threads}개 사용)",
        "x": "입력 x",
        # A Korean page is served one folder deeper (/ko/...): a path relative to it.
        "image": '<picture><source media="(max-width: 44.9375em)" '
        'srcset="../../assets/benchmark/{phone}"><img src="../../assets/benchmark/{name}" '
        'alt="{alt}" loading="lazy"></picture>',
        "copy_fit": "옮기는 바이트가 많을수록 복사의 GB/s가 커지는 까닭: CUDA 그래프로 잰 "
        "{dtype} 복사 {count}개의 시간을 '바이트 ÷ 대역폭 + 호출마다 드는 고정 비용'의 "
        "직선으로 맞추면 모든 복사가 직선에서 {worst} µs 이내에 놓입니다. 이 직선의 대역폭은 "
        "{gbps} GB/s{peak}, 고정 비용은 호출당 {fixed} µs입니다. 고정 비용은 일반 행에서 "
        "가장 작은 복사 시간({smallest} µs)의 {share}이므로, 작은 입력에서는 복사 대비 백분율에 "
        "대역폭뿐 아니라 바이트와 무관하게 호출마다 드는 비용도 섞입니다. 그 비용이 커널 "
        "런치 때문인지, 시간 측정 자체의 오버헤드 때문인지는 재지 않았습니다.",
        "copy_fit_peak": "(데이터시트 대역폭의 {percent})",
        "above_copy": "100%를 넘는 수치: 복사는 실행 설정을 고정한 Triton 커널 하나로 잰 "
        "것으로, 도달 목표로 삼는 속도이지 상한이 아닙니다. 그래서 패스가 같은 양의 바이트를 "
        "복사보다 빠르게 옮길 수도 있습니다([측정 대상](benchmark.md#what-is-measured)).",
        # The implementation names are run.py's identifiers; only the words in one are Korean.
        "names": {
            "eager naive": "식 그대로(컴파일 없음)",
            "eager Hugging Face": "Hugging Face 형태(컴파일 없음)",
            "torch.compile naive": "식 그대로(torch.compile)",
            "LayerNorm eager": "LayerNorm(컴파일 없음)",
            "LayerNorm compiled": "LayerNorm(torch.compile)",
            "eager add + F.rms_norm": "덧셈 후 F.rms_norm(컴파일 없음)",
            "torch.compile add+norm": "덧셈+정규화(torch.compile)",
            "Triton (this site)": "Triton(이 사이트)",
            "add + Triton RMSNorm (this site)": "덧셈 후 Triton RMSNorm(이 사이트)",
            "Triton add+RMSNorm (this site)": "Triton 덧셈+RMSNorm(이 사이트)",
            "Liger-Kernel add+RMSNorm": "Liger-Kernel 덧셈+RMSNorm",
            "bare launch (Triton)": "커널만 띄움(Triton)",
            "PyTorch add, norm, quantize": "덧셈·정규화·양자화(컴파일 없음)",
            "torch.compile add, norm, quantize": "덧셈·정규화·양자화(torch.compile)",
            "Triton add+RMSNorm (this site), compiled quantize": "Triton "
            "덧셈+RMSNorm(이 사이트) 후 양자화(torch.compile)",
            "Triton add+RMSNorm+FP8 (this site)": "Triton 덧셈+RMSNorm+FP8(이 사이트)",
            "LlamaRMSNorm (transformers)": "transformers의 LlamaRMSNorm",
            "Triton (this site), as an operator": "Triton(이 사이트, 연산자로 등록)",
        },
        "not_installed": "설치되지 않음",
        "model": {
            "title": "torch.compile로 통째로 컴파일한 트랜스포머 층, bfloat16, "
            "토큰 {length}개짜리 시퀀스 {sequences}개, 호출당 ms",
            "name": "정규화 층 구현",
            "group": "층",
            "column": "{mode}, {timing}",
            "note": "각 수치는 중앙값(괄호 안은 라운드 범위)이고, 쉼표 뒤의 값은 F.rms_norm을 "
            "쓴 층의 시간을 그 줄의 층의 시간으로 나눈 것입니다. 1배보다 크면 그 줄의 층이 "
            "F.rms_norm을 쓴 층보다 빠르다는 뜻입니다. 층은 transformers의 "
            "LlamaDecoderLayer([은닉 차원 크기](glossary.md#hidden-size) {hidden}, 헤드 "
            "{heads}개, 키/값 헤드 {kv}개, MLP 중간 차원 {mlp})이며, 줄마다 다른 것은 두 정규화 "
            "층뿐입니다.",
            "overlap_all": "모든 칸에서 라운드 범위가 F.rms_norm을 쓴 층의 라운드 범위와 겹치므로, "
            "F.rms_norm과의 차이는 어느 칸에서도 확정되지 않습니다.",
            "overlap_some": "라운드 범위가 F.rms_norm을 쓴 층의 라운드 범위와 겹치지 않는 칸: {cells}.",
        },
        "fp8": {
            "title": "잔차 덧셈, RMSNorm, FP8 양자화, bfloat16, 순전파(추론)",
            "modes": {
                "per-token": "토큰마다 스케일 하나",
                "per-group": "특성 {group}개마다 스케일 하나",
            },
            "groups": {
                "rows": "일반 행(M = {m}, 토큰마다 한 행)",
                "decode": "디코드(행 M개: 시퀀스 M개마다 토큰 하나), 호출당 µs(괄호 안은 "
                "라운드 범위)",
            },
            "say_line": "{mode}: 단일 커널은 N에 따라 복사 속도의 {low}에서 {high}를 냈고, 가장 "
            "빠른 구현은 {fastest}입니다",
            "versus_line": "{mode}: 다른 방식 가운데 가장 빠른 것의 시간을 단일 커널의 "
            "시간으로 나누면 N에 따라 {low}배에서 {high}배입니다(1배보다 크면 단일 커널이 "
            "더 빠름)",
            "bytes": "GB/s는 모든 구현에서 단일 커널의 최소 바이트 수(x와 r을 읽고 h, FP8 "
            "값, 스케일을 쓰는 양)를 걸린 시간으로 나눈 값입니다. 퓨즈하지 않은 방식은 실제로 "
            "이보다 많이 옮기며, 그 차이가 퓨전으로 아끼는 양입니다.",
            "summary": "**{device}**, bfloat16 일반 행(M = {m}, 토큰마다 한 행), {timing}:",
            "summary_more": "Python에서 띄운 시간과 디코드를 포함한 모든 수치는 "
            "[벤치마크 결과](benchmark_results.md#{anchor})에 있습니다.",
        },
        # run.py's reasons for leaving an implementation out, in Korean.
        "reasons": {
            "GPU kernels": "GPU 전용 커널",
            "a GPU kernel (on a CPU only Triton's interpreter)": "GPU 전용 커널(CPU에서는 "
            "Triton 인터프리터로만 돌릴 수 있음)",
            "not in a smoke run: compiling for each shape takes minutes": "스모크 "
            "실행에서는 제외: 모양마다 컴파일하는 데 몇 분이 걸림",
        },
    },
}

def _name(name: str, words) -> str:
    """An implementation's name as the tables in this language show it."""
    return words["names"].get(name, name)

def _row_name(name: str, words) -> str:
    """The name heading a table's row, which may also break before a parenthesis (a
    Korean name has no space there): on a phone the name column is as wide as its
    longest unbroken part, and a narrow one leaves a figure room to be seen whole."""
    return re.sub(r"(?<=\S)\(", "<wbr>(", _name(name, words))

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
        if where.items() <= r.items()  # every key of `where` with its value
        and (family is None or (r["implementation"] in adds) == (family == "add"))
    ]

def _shape(results, group, m, n) -> str:
    """A shape as its group's tables and targets name it: by what varies in the group."""
    grid = results["grid"]["groups"][group]
    if len({shape[0] for shape in grid}) == 1:
        return f"N = {n}"
    if len({shape[1] for shape in grid}) == 1:
        return f"M = {m}"
    return f"{m} × {n}"

def _where(results, run) -> str:
    """An entry's dtype and shape, as the targets name them."""
    shape = _shape(results, run["group"], run["m"], run["n"])
    return f"{_short(run['dtype'])}, {shape}"

def _unmeasured(results, words, timing, dtypes, group, from_n=0) -> list[str]:
    """The (dtype, shape) of the group in the run's whole grid that these results lack (a
    part of a run, or a run cut short): a target holds only where it was measured, so each
    is a miss."""
    measured = {
        (c["dtype"], c["group"], c["m"], c["n"])
        for c in results["copy"]
        if c["timing"] == timing
    }
    return [
        words["case_state"].format(
            where=f"{_short(dtype)}, {_shape(results, group, m, n)}",
            state=words["unmeasured"],
        )
        for dtype in dtypes
        for m, n in results["grid"]["groups"].get(group, [])
        if n >= from_n and (dtype, group, m, n) not in measured
    ]

def _figure(results, **where) -> dict | None:
    """The one entry at `where` that has a figure (not an error), if any."""
    found = [r for r in _runs(results, **where) if "error" not in r]
    return found[0] if found else None

def _of_copy(run) -> float | None:
    """A figure's % of its copy: None if it failed, or its copy did."""
    return None if "error" in run else run.get("copy_percent")

def _copy_percents(results, name, **where) -> list[float]:
    """name's figures at `where` as % of their copies (those that have one)."""
    percents = [_of_copy(r) for r in _runs(results, implementation=name, **where)]
    return [p for p in percents if p is not None]

def _percent(value: float) -> str:
    return f"{value:.1f}%"

def _cell(entry, words) -> str:
    """A figure: µs per call (its range) in the group "decode", else GB/s (% of its copy
    and the range; % of peak where known). A copy is 100% of itself."""
    if "error" in entry:
        return words["failed"]
    if entry["group"] == "decode":
        low, high = 1e3 * entry["ms_min"], 1e3 * entry["ms_max"]
        return f"{1e3 * entry['ms']:.1f} ({low:.1f}–{high:.1f})"
    if "implementation" not in entry:
        percents = ["100%"]  # the copy
    elif entry["copy_percent"] is None:
        percents = []  # its copy failed
    else:
        low, high = entry["copy_percent_min"], entry["copy_percent_max"]
        percents = [f"{_percent(entry['copy_percent'])}, {low:.1f}–{high:.1f}"]
    if entry["peak_percent"] is not None:
        percents.append(_percent(entry["peak_percent"]))
    inside = f" ({words['join'].join(percents)})" if percents else ""
    return f"{entry['gbps']:,.0f}{inside}"

def _versions(results, words) -> str:
    labels = [
        (words["driver"], "driver"),
        ("CUDA", "cuda"),
        ("torch", "torch"),
        ("triton", "triton"),
        ("Liger-Kernel", "liger-kernel"),
        ("QuACK", "quack-kernels"),
        ("Python", "python"),
    ]
    if "transformers" in results:  # the compiled layer's (model.py)
        labels.insert(-1, ("transformers", "transformers"))
    return ", ".join(
        f"{label} {results[key] or words['no_version']}" for label, key in labels
    )

def _cpu_name(results) -> str:
    """The CPU as its vendor names it, without the "(R)" and "(TM)" that would nest
    parentheses where the name is given in some."""
    return re.sub(r"\((R|TM)\)", "", results["cpu"], flags=re.IGNORECASE)

def _header(results, words) -> str:
    commit = (results["git_commit"] or "-")[:12]
    device = f"**{results['device']}**" + words["paren"].format(
        f"CPU: {_cpu_name(results)}"
    )
    parts = [
        f"{words['device']}: {device}",
        _versions(results, words),
        results["date"],
        f"{words['commit']} `{commit}`",
        words["rounds"].format(count=results["rounds"]),
    ]
    return words["join"].join(parts) + "."

# --8<-- [start:targets]
KERNEL = "Triton (this site)"
PEERS = ["torch F.rms_norm", "torch.compile naive", "Liger-Kernel", "QuACK"]
REFERENCE = "torch F.rms_norm"  # the host-time yardstick
BARE = "bare launch (Triton)"  # run.py's host time of the kernels' launches alone
FUSED = "Triton add+RMSNorm (this site)"
UNFUSED = "add + Triton RMSNorm (this site)"  # PyTorch's add, then the lone kernel
FUSED_PEER = "Liger-Kernel add+RMSNorm"
# The targets, set for an H100, in bfloat16 unless stated. Graph: the kernel's % of the
# copy of equal bytes at every shape of a group, in a pass:
COPY_TARGETS = [
    ("rows", "forward", 95),
    ("rows", "forward+backward", 88),
    ("wide", "forward", 90),
    ("wide", "forward+backward", 80),
    ("qk-norm", "forward", 85),
]
H200_ROWS = {"forward": 93, "forward+backward": 85}  # an H200: every dtype measured
DECODE_PEERS = ["torch F.rms_norm", "Liger-Kernel"]  # graph, decode: at most their µs
EAGER_FROM = 4096  # eager, rows, N >= 4096: at least as fast as the best peer
HOST_LIMIT = {"forward": 2.0, "forward+backward": 1.5}  # x F.rms_norm's host time
BARE_EXTRA_US = 10  # host time: at most the bare launches' + 10 µs
# The two GPUs' hosts, running the same code, gave bare launches more than this many µs
# apart (the Benchmark page's "Host time"): a host verdict decided by less is flagged.
HOST_SPREAD_US = 10
BARE_LAUNCHES = {"forward": ["forward"], "forward+backward": ["forward", "backward"]}
# Graph, rows: the fused kernel this many times as fast as UNFUSED, and at least as fast
# as FUSED_PEER, at every N.
FUSED_SPEEDUP = {"forward": 1.2, "backward": 1.4}
CEILING = 101  # no figure above 101% of its copy: the copy is a yardstick to reach
CEILING_GROUPS = ["rows", "qk-norm", "wide"]  # decode: launch latency, not bandwidth
CEILING_SHOWN = 5  # the highest figures named of those above CEILING

def _status(words, misses: list[str], shown: str | None) -> tuple[str, str]:
    """The verdict, and the cases it rests on: those missed, or what was met by."""
    if misses:
        return words["missed"], words["missed_detail"].format(
            words["join"].join(misses)
        )
    if shown is None:
        return words["none"], ""
    return words["met"], words["met_detail"].format(shown)

def _ratio_shown(value: float) -> str:
    """A ratio above 1 to two decimals, or to as many more (up to five) as show that it
    is not 1 (1.00 and 1.000 would read as a tie)."""
    for digits in range(2, 6):
        shown = f"{value:.{digits}f}"
        if shown.rstrip("0") != "1.":
            break
    return shown

def _versus(figure, peer, words) -> str:
    """How much slower or faster than the peer, in words, by the medians; and, where the
    ranges of their rounds overlap, that they do (the verdict follows the medians)."""
    ms, peer_ms = figure["ms"], peer["ms"]
    if ms > peer_ms:
        said = words["slower"].format(ratio=_ratio_shown(ms / peer_ms))
    elif ms < peer_ms:
        said = words["faster"].format(ratio=_ratio_shown(peer_ms / ms))
    else:
        said = words["as_fast"]
    if _overlap(figure, peer):
        said += words["rounds_overlap"]
    return said

def _overlap(figure, other) -> bool:
    """Whether the ranges of two figures' rounds overlap (their order is then unsettled)."""
    lo, hi, other_lo, other_hi = (
        entry.get(key) for entry in (figure, other) for key in ("ms_min", "ms_max")
    )
    return (
        None not in (lo, hi, other_lo, other_hi) and lo <= other_hi and other_lo <= hi
    )

def _copy_target(results, words, group, mode, threshold, dtypes) -> tuple[str, str]:
    """Met if the kernel's graph figure reaches `threshold` % of its copy at every shape
    of the group in each of the dtypes."""
    where = {"implementation": KERNEL, "group": group, "mode": mode, "timing": "graph"}
    runs = [run for run in _runs(results, **where) if run["dtype"] in dtypes]
    figures = [
        (_of_copy(run), _where(results, run))
        for run in runs
        if _of_copy(run) is not None
    ]
    misses = [
        words["case_state"].format(where=_where(results, run), state=words["failed"])
        for run in runs
        if _of_copy(run) is None  # it failed, or its copy did
    ]
    misses += [
        words["case_value"].format(where=where, value=_percent(value))
        for value, where in figures
        if value < threshold
    ]
    misses += _unmeasured(results, words, "graph", dtypes, group)
    lowest = min(figures, default=None)
    shown = lowest and words["lowest"].format(
        value=_percent(lowest[0]), where=lowest[1]
    )
    return _status(words, misses, shown)

def _not_slower(
    results, words, mine, peers, timing, group, from_n=0
) -> tuple[str, str]:
    """Met if, in bfloat16 at every shape of the group from N = from_n on, `mine` is in no
    pass slower than the fastest of `peers` (those measured)."""
    dtype = "torch.bfloat16"
    cases, misses = [], _unmeasured(results, words, timing, [dtype], group, from_n)
    shapes = [s for s in results["grid"]["groups"].get(group, []) if s[1] >= from_n]
    # Times as the group's tables give them: a decode call takes a few µs.
    unit, shown = (
        ("µs", lambda ms: f"{1e3 * ms:.1f}")
        if group == "decode"
        else ("ms", lambda ms: f"{ms:.4f}")
    )
    for mode in MODES:
        for m, n in shapes:
            where = {"dtype": dtype, "group": group, "m": m, "n": n, "mode": mode}
            where["timing"] = timing
            shape = _shape(results, group, m, n)
            figure = _figure(results, implementation=mine, **where)
            others = [_figure(results, implementation=p, **where) for p in peers]
            others = [p for p in others if p]
            if figure is None and _runs(results, implementation=mine, **where):
                place = f"{words['modes'][mode]}, {shape}"
                misses.append(
                    words["case_state"].format(where=place, state=words["failed"])
                )
            if figure is None or not others:
                continue
            best = min(others, key=lambda p: p["ms"])
            case = words["versus_case"].format(
                mode=words["modes"][mode],
                shape=shape,
                ms=shown(figure["ms"]),
                peer=_name(best["implementation"], words),
                peer_ms=shown(best["ms"]),
                unit=unit,
                versus=_versus(figure, best, words),
            )
            cases.append(case)
            if figure["ms"] > best["ms"]:
                misses.append(case)
    return _status(words, misses, words["join"].join(cases) or None)

def _speedup_target(results, words, mode) -> tuple[str, str]:
    """Met if the fused kernel is FUSED_SPEEDUP[mode] times as fast as UNFUSED at every N
    (graph, bfloat16, rows)."""
    dtype, group = "torch.bfloat16", "rows"
    cases, misses = [], _unmeasured(results, words, "graph", [dtype], group)
    for m, n in results["grid"]["groups"].get(group, []):
        where = {"dtype": dtype, "group": group, "m": m, "n": n, "mode": mode}
        where["timing"] = "graph"
        shape = _shape(results, group, m, n)
        fused = _figure(results, implementation=FUSED, **where)
        unfused = _figure(results, implementation=UNFUSED, **where)
        if fused is None and _runs(results, implementation=FUSED, **where):
            misses.append(
                words["case_state"].format(where=shape, state=words["failed"])
            )
        if fused is None or unfused is None:
            continue
        ratio = unfused["ms"] / fused["ms"]
        case = words["speedup_case"].format(shape=shape, ratio=f"{ratio:.2f}")
        cases.append(case)
        if ratio < FUSED_SPEEDUP[mode]:
            misses.append(case)
    return _status(words, misses, words["join"].join(cases) or None)

def _host_target(results, words, mode) -> tuple[str, str]:
    host = results.get("host_us", {})
    mine, ref = host.get(KERNEL, {}).get(mode), host.get(REFERENCE, {}).get(mode)
    failed = [words["failed"]] if "error" in host.get(KERNEL, {}) else []
    if mine is None or ref is None:
        return _status(words, failed, None)
    ratio = mine / ref
    case = words["host_case"].format(
        us=f"{mine:.1f}", ratio=f"{ratio:.2f}", ref=f"{ref:.1f}"
    ) + _host_close(mine - HOST_LIMIT[mode] * ref, words)
    return _status(words, [case] if ratio > HOST_LIMIT[mode] else [], case)

def _host_close(margin_us: float, words) -> str:
    """Said of a host verdict decided by less than the hosts' spread: not settled."""
    if abs(margin_us) >= HOST_SPREAD_US:
        return ""
    return words["host_close"].format(margin=f"{abs(margin_us):.1f}")

def _bare_target(results, words, mode) -> tuple[str, str]:
    """Met if the kernel's host time of the pass is at most its kernels' bare launches'
    plus BARE_EXTRA_US."""
    host = results.get("host_us", {})
    mine, bare = host.get(KERNEL, {}), host.get(BARE, {})
    failed = [words["failed"]] if "error" in mine or "error" in bare else []
    launches = [bare.get(launch) for launch in BARE_LAUNCHES[mode]]
    if mode not in mine or None in launches:
        return _status(words, failed, None)
    margin = mine[mode] - sum(launches) - BARE_EXTRA_US
    case = words["bare_case"].format(
        us=f"{mine[mode]:.1f}", bare=f"{sum(launches):.1f}"
    ) + _host_close(margin, words)
    missed = margin > 0
    return _status(words, [case] if missed else [], case)

def _ceiling_target(results, words) -> tuple[str, str]:
    """Met if no figure of CEILING_GROUPS passes CEILING % of its copy."""
    figures = [
        (
            run["copy_percent"],
            words["figure_case"].format(
                name=_name(run["implementation"], words),
                where=f"{words['group_names'][run['group']]}, {_where(results, run)}",
                mode=words["modes"][run["mode"]],
                timing=words["short"][run["timing"]],
            ),
        )
        for run in results["runs"]
        if run["group"] in CEILING_GROUPS and _of_copy(run) is not None
    ]
    above = sorted((f for f in figures if f[0] > CEILING), reverse=True)
    misses = [
        words["case_value"].format(where=where, value=_percent(value))
        for value, where in above[:CEILING_SHOWN]
    ]
    if len(above) > CEILING_SHOWN:
        misses.append(words["more"].format(count=len(above) - CEILING_SHOWN))
    highest = max(figures, default=None)
    shown = highest and words["highest"].format(
        value=_percent(highest[0]), where=highest[1]
    )
    return _status(words, misses, shown)

def targets(results, language: str) -> list[str]:
    """Each target, met or missed, computed from the results."""
    words = WORDS[language]
    h200 = "H200" in results["device"]
    lines = []
    for group, mode, percent in COPY_TARGETS:
        dtypes, scope = ["torch.bfloat16"], "bfloat16"
        if h200 and group == "rows":
            # The run's whole grid: a dtype no part measured is a miss, not left out.
            grid = results["grid"]["dtypes"]
            percent, dtypes = H200_ROWS[mode], [d for d in DTYPE_ORDER if d in grid]
            scope = words["every_dtype"]
        title = words["copy_target"].format(
            group=words["group_names"][group],
            mode=words["modes"][mode],
            dtypes=scope,
            percent=percent,
        )
        status = _copy_target(results, words, group, mode, percent, dtypes)
        lines.append((title, status))
    lines += [
        (
            words["decode"],
            _not_slower(results, words, KERNEL, DECODE_PEERS, "graph", "decode"),
        ),
        (
            words["eager"].format(n=EAGER_FROM),
            _not_slower(results, words, KERNEL, PEERS, "eager", "rows", EAGER_FROM),
        ),
    ]
    for mode, limit in HOST_LIMIT.items():
        title = words["host"].format(mode=words["modes"][mode], limit=f"{limit:g}")
        lines.append((title, _host_target(results, words, mode)))
        title = words["host_bare"].format(
            mode=words["modes"][mode], bare=words["bare"][mode], extra=BARE_EXTRA_US
        )
        lines.append((title, _bare_target(results, words, mode)))
    for mode, limit in FUSED_SPEEDUP.items():
        title = words["fused_speedup"].format(
            mode=words["modes"][mode], limit=f"{limit:g}"
        )
        lines.append((title, _speedup_target(results, words, mode)))
    lines += [
        (
            words["fused_peer"],
            _not_slower(results, words, FUSED, [FUSED_PEER], "graph", "rows"),
        ),
        (words["ceiling"].format(limit=CEILING), _ceiling_target(results, words)),
    ]
    targets = [
        words["target"].format(title=title, verdict=verdict, detail=detail)
        for title, (verdict, detail) in lines
    ]
    notes = [words["yardstick"], *_peak_note(results, words)]
    title = words["targets_h200" if h200 else "targets"]
    return [title, "", *targets, "", " ".join(notes)]

# --8<-- [end:targets]

def _peak_note(results, words) -> list[str]:
    """The sentence naming the peak bandwidth and its source (none without a peak). The
    source, recorded in English by run.py, gets the page's words for a datasheet."""
    if not results["peak_gbps"]:
        return []
    source = results["peak_source"].replace("datasheet", words["datasheet"])
    return [words["peak"].format(gbps=f"{results['peak_gbps']:,}", source=source)]

def _names(results, family, **where) -> list[str]:
    """The implementations of a family with entries at `where`, in the results' order."""
    return list(
        dict.fromkeys(r["implementation"] for r in _runs(results, family, **where))
    )

def _fastest(results, words, family, **where) -> str:
    """Which RMSNorm of the family was fastest at each N, grouped by name (LayerNorm, a
    yardstick beside them, is not ranked); an N where its rounds overlap another's (any
    other, not only the runner-up's: one with a wider range may reach past it) says so,
    the ranking there a matter of medians."""
    at = {}
    for n in sorted({r["n"] for r in _runs(results, family, **where)}):
        figures = [
            r
            for r in _runs(results, family, n=n, **where)
            if "error" not in r and r["implementation"] not in LAYER_NORMS.values()
        ]
        if figures:
            best, *others = sorted(figures, key=lambda r: r["ms"])
            close = any(_overlap(best, other) for other in others)
            size = words["overlapping"].format(n=n) if close else str(n)
            at.setdefault(best["implementation"], []).append(size)
    contrast = "는" if len(at) > 1 else ""  # Korean's contrast, set against the others
    return words["at_join"].join(
        words["at"].format(
            name=_name(name, words), sizes=", ".join(sizes), contrast=contrast
        )
        for name, sizes in at.items()
    )

# RMSNorm against LayerNorm run the same way (_layer_norm): PyTorch's kernel against
# PyTorch's, compiled against compiled.
AGAINST_LAYER_NORM = ("torch F.rms_norm", "torch.compile naive")

def _against_layer_norm(results, words, **where) -> str:
    """Each RMSNorm's time over its LayerNorm's, the range over N (medians)."""
    ratios = []
    for name in AGAINST_LAYER_NORM:
        layer_norm, over = _layer_norm(name), []
        for n in sorted({r["n"] for r in _runs(results, **where)}):
            mine = _figure(results, implementation=name, n=n, **where)
            theirs = _figure(results, implementation=layer_norm, n=n, **where)
            if mine and theirs:
                over.append(mine["ms"] / theirs["ms"])
        if over:
            low, high = f"{min(over):.2f}", f"{max(over):.2f}"
            shown = _name(name, words)
            ratios.append(words["ratio_of"].format(name=shown, low=low, high=high))
    return ", ".join(ratios)

def sayings(results, words, dtype, timing) -> list[str]:
    """For one dtype and timing, in the group "rows": the site's kernels' range of % of
    copy over N, and the fastest implementation of their family at each N, per pass;
    then RMSNorm's time against LayerNorm's."""
    lines = []
    for family, kernel in [("norm", KERNEL), ("add", FUSED)]:
        for mode in MODES:
            where = {"dtype": dtype, "mode": mode, "timing": timing, "group": "rows"}
            mine = _copy_percents(results, kernel, **where)
            if mine:
                line = words["say_line"].format(
                    mode=words["modes"][mode],
                    kernel=words["kernels"][family],
                    family=words["ranked"][family],
                    low=_percent(min(mine)),
                    high=_percent(max(mine)),
                    fastest=_fastest(results, words, family, **where),
                )
                lines.append(f"- {line}.")
    for mode in MODES:
        where = {"dtype": dtype, "mode": mode, "timing": timing, "group": "rows"}
        ratios = _against_layer_norm(results, words, **where)
        if ratios:
            said = words["vs_layer_norm"]
            line = said.format(mode=words["modes"][mode], ratios=ratios)
            lines.append(f"- {line}.")
    return [f"**{words['say']}**", "", *lines, ""] if lines else []

def _table(results, words, dtype, timing, mode, group, family=None) -> list[str]:
    """One pass of one group (of one family in "rows"): a column per shape, the copy of
    the family's bytes first, then a row per implementation."""
    where = {"dtype": dtype, "timing": timing, "mode": mode, "group": group}
    runs = _runs(results, family, **where)
    shapes = sorted({(run["m"], run["n"]) for run in runs}, key=lambda s: (s[1], s[0]))
    moved = {(r["m"], r["n"]): r["bytes"] for r in runs if "bytes" in r}
    copies = {
        (c["m"], c["n"]): _cell(c, words)
        for c in results["copy"]
        if (c["dtype"], c["timing"], c["group"]) == (dtype, timing, group)
        and c["bytes"] == moved.get((c["m"], c["n"]))
    }
    title = words["families"][family] if family else words["groups"][group]
    columns = [_shape(results, group, m, n) for m, n in shapes]
    lines = [
        f"**{title}: {_short(dtype)}, {words['modes'][mode]}**",
        "",
        f"| {words['name']} | " + " | ".join(columns) + " |",
        "|" + " --- |" * (1 + len(shapes)),
        f"| {words['copy']} | " + " | ".join(copies.get(s, "") for s in shapes) + " |",
    ]
    for name in _names(results, family, **where):
        cells = {
            (r["m"], r["n"]): _cell(r, words)
            for r in runs
            if r["implementation"] == name
        }
        lines.append(
            f"| {_row_name(name, words)} | "
            + " | ".join(cells.get(s, "") for s in shapes)
            + " |"
        )
    lines.append("")
    # Decode tables show µs per call, not percentages of a copy.
    if group != "decode" and any((_of_copy(r) or 0) > 100 for r in runs):
        lines += [words["above_copy"], ""]
    return lines

def _plot_name(stem, dtype, timing, family, language, phone=False) -> str:
    variant = "-phone" if phone else ""
    return f"{stem}-{_short(dtype)}-{timing}-{family}{variant}-{language}.svg"

def _tab(title: str, lines: list[str]) -> list[str]:
    """A content tab (pymdownx.tabbed): its title, then its lines indented under it."""
    return [f'=== "{title}"', ""] + [f"    {line}".rstrip() for line in lines]

def copy_fit(results, dtype=PLOTTED) -> dict | None:
    """The graph-timed copies of `dtype` fitted by least squares as time = bytes / bandwidth
    + a fixed cost per call: the bandwidth (GB/s), the fixed cost and the largest distance
    of a copy from the line (µs), and the smallest copy on rows (µs). None under three.
    """
    copies = [
        c
        for c in results["copy"]
        if (c["timing"], c["dtype"]) == ("graph", dtype) and c.get("ms")
    ]
    if len(copies) < 3:
        return None
    size = [c["bytes"] for c in copies]
    us = [c["ms"] * 1e3 for c in copies]
    per_byte, fixed = statistics.linear_regression(size, us)
    on_rows = [c["ms"] * 1e3 for c in copies if c["group"] == "rows"]
    return {
        "count": len(copies),
        "gbps": 1e-3 / per_byte,  # bytes per µs are MB/s
        "fixed_us": fixed,
        "worst_us": max(abs(b * per_byte + fixed - t) for b, t in zip(size, us)),
        "smallest_us": min(on_rows) if on_rows else None,
    }

def _copy_fit_text(results, words) -> list[str]:
    """The copy fit's paragraph, where it fits three copies or more, some on rows."""
    fit = copy_fit(results)
    if fit is None or fit["smallest_us"] is None:
        return []
    peak = ""
    if results.get("peak_gbps"):
        percent = _percent(100 * fit["gbps"] / results["peak_gbps"])
        peak = words["copy_fit_peak"].format(percent=percent)
    text = words["copy_fit"].format(
        count=fit["count"],
        dtype=_short(PLOTTED),
        # Rounded up: a bound rounded down would not hold for the farthest copy.
        worst=f"{math.ceil(fit['worst_us'] * 10) / 10:.1f}",
        gbps=f"{fit['gbps']:,.0f}",
        peak=peak,
        fixed=f"{fit['fixed_us']:.1f}",
        share=_percent(100 * fit["fixed_us"] / fit["smallest_us"]),
        smallest=f"{fit['smallest_us']:.1f}",
    )
    return [text, ""]

def _timing_tab(stem, results, words, language, dtype, timing) -> list[str]:
    """One dtype and timing: the label; in "rows", a table per family and pass and a plot
    per family; then a table per pass of each other group measured."""
    label = words["timings"][results["timings"][timing]]
    unit = words["unit_peak" if results["peak_gbps"] else "unit"]
    lines = [f"{label}.", "", *sayings(results, words, dtype, timing)]
    lines += [f"{unit}.", ""]
    for family in FAMILIES:
        if not _runs(results, family, dtype=dtype, timing=timing, group="rows"):
            continue
        for mode in MODES:
            lines += _table(results, words, dtype, timing, mode, "rows", family)
        if dtype != PLOTTED:
            continue
        mine = {"norm": KERNEL, "add": FUSED}[family]
        where = {"dtype": dtype, "timing": timing, "group": "rows"}
        ranges = [
            words["alt_range"].format(
                mode=words["modes"][mode], low=min(p), high=max(p)
            )
            for mode in MODES
            if (p := _copy_percents(results, mine, mode=mode, **where))
        ]
        alt = words["alt"].format(
            device=results["device"],
            dtype=_short(dtype),
            timing=label,
            family=words["ranked"][family],
            site=_name(mine, words),
            ranges=", ".join(ranges),
        )
        name = _plot_name(stem, dtype, timing, family, language)
        phone = _plot_name(stem, dtype, timing, family, language, phone=True)
        image = words["image"].format(alt=escape(alt), name=name, phone=phone)
        lines += [image, ""]
    for group in results["grid"]["groups"]:
        if group != "rows" and _runs(results, dtype=dtype, timing=timing, group=group):
            for mode in MODES:
                lines += _table(results, words, dtype, timing, mode, group)
    return _once(lines, [words["above_copy"], ""])

def _once(lines: list[str], note: list[str]) -> list[str]:
    """The lines with the note (a run of lines) kept where it first comes, dropped after."""
    kept, seen, i = [], False, 0
    while i < len(lines):
        if lines[i : i + len(note)] == note:
            if not seen:
                kept += note
            seen, i = True, i + len(note)
        else:
            kept.append(lines[i])
            i += 1
    return kept

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
    for name, costs in host.items():  # the bare launches: a forward and a backward
        if "error" in costs:
            cells = [f"{words['failed']} | "] * len(MODES)
        else:
            cells = []
            for mode in MODES:
                us = costs.get(mode)
                ratio = us / ref[mode] if us and mode in ref else None
                cells.append(
                    (f"{us:.1f}" if us else "")
                    + " | "
                    + (f"{ratio:.2f}×" if ratio else "")
                )
        row = " | ".join(cells).rstrip()
        lines.append(f"| {_row_name(name, words)} | {row} |")
    return lines + [""]

def _reason(why: str, words) -> str:
    """run.py's reason for leaving an implementation out, in this language (an import
    error's own message as it is)."""
    error = why.removeprefix(NOT_INSTALLED)
    # " (No module named ...)", its parenthesis set as the language sets it.
    if error != why:
        return words["not_installed"] + words["paren"].format(error.strip()[1:-1])
    return words["reasons"].get(why, why)

# What places a figure: the keys of a run entry, in the order the failures name them.
WHERE = ["implementation", "dtype", "group", "m", "n", "mode", "timing"]

def _failure_place(results, words, run) -> str:
    """Where a failure happened, in the tables' words: name, dtype, group, shape, pass."""
    parts = [_name(run["implementation"], words)]
    if "dtype" in run:
        parts.append(_short(run["dtype"]))
    if "group" in run:
        parts.append(words["group_names"][run["group"]])
        parts.append(_shape(results, run["group"], run["m"], run["n"]))
    if run.get("mode") == "host":
        parts.append(words["host_mode"])
    elif "mode" in run:
        parts.append(words["modes"][run["mode"]])
    if "timing" in run:
        parts.append(words["short"][run["timing"]])
    return ", ".join(parts)

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
        {"implementation": words["copy"], **c}
        for c in results.get("copy", [])
        if "error" in c
    ]
    failures += [
        {"implementation": name, "mode": "host", "error": costs["error"]}
        for name, costs in results.get("host_us", {}).items()
        if "error" in costs
    ]
    if failures:
        lines += ["", f"{words['failures']}:", ""]
        for run in failures:
            where = _failure_place(results, words, run)
            error = run["error"].splitlines()[0].replace("|", "/")
            lines.append(f"- {where}: `{error}`")
    return lines

# The headline table: the pass training runs, at five hidden sizes (Qwen3 0.6B's and Llama
# 3.2 1B's, 1024 and 2048, where the host's time costs the most; Llama 3's 8B, 70B and
# 405B: 4096, 8192, 16384), in the GPU's time and launched from Python (where the host's
# time can reverse the order).
HEADLINE = {"dtype": "torch.bfloat16", "group": "rows", "mode": "forward+backward"}
HEADLINE_N = (1024, 2048, 4096, 8192, 16384)
HEADLINE_NAMES = [REFERENCE, KERNEL, "Liger-Kernel", "torch.compile naive", "QuACK"]

def headline(results, words, note=True) -> list[str]:
    """The answer first: forward+backward in bfloat16 at N = 1024 to 16384 (HEADLINE_N; the
    group's N where those are missing), in GPU time and eager, µs per call and F.rms_norm's
    time over each implementation's, then sentences that say which is the fastest at each
    N, and the host time; with `note`, then how to read them (`headlines` says it once for
    all)."""
    runs = {
        (r["implementation"], r["n"], r["timing"]): r
        for r in _runs(results, **HEADLINE)
    }
    measured = sorted({n for _, n, _ in runs})
    sizes = [n for n in HEADLINE_N if n in measured] or measured
    timings = [t for t in results["timings"] if any(k[2] == t for k in runs)]
    names = [name for name in HEADLINE_NAMES if any(key[0] == name for key in runs)]
    if REFERENCE not in names:
        return []
    m = next(iter(runs.values()))["m"]
    title = words["headline"].format(
        device=results["device"], torch=results["torch"], m=m
    )
    lines = [f"**{title}**", ""]
    header = ["N", words["headline_timing"], *(_name(name, words) for name in names)]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + " --- |" * len(header))
    sayings = {timing: [] for timing in timings}
    for n in sizes:
        for timing in timings:
            cells, speedups = _headline_cells(runs, names, n, timing, words)
            label = words["headline_timings"][timing]
            lines.append(f"| {n} | {label} | " + " | ".join(cells) + " |")
            if KERNEL in speedups:
                sayings[timing].append((speedups, n))
    sentences = [
        words["headline_in"][timing]
        + words["headline_join"].join(
            _headline_saying(speedups, n, runs, timing, words, last=i == len(said) - 1)
            for i, (speedups, n) in enumerate(said)
        )
        + ". "
        for timing, said in sayings.items()
        if said
    ]
    shown = {k: run for k, run in runs.items() if k[0] in names and k[1] in sizes}
    said = "".join(sentences) + _headline_spread(shown, timings, words)
    said += _headline_host(results, words)
    if note:
        said += _headline_note([results], words)
    return [*lines, "", said.rstrip(), ""]

def _headline_spread(runs, timings, words) -> str:
    """How far the rounds of a figure in the table spread at most, as a share of its
    median, in each timing: the ranges the table leaves out."""
    spreads = {}
    for (_, _, timing), run in runs.items():
        if "ms_min" in run:  # measured, in rounds
            spread = (run["ms_max"] - run["ms_min"]) / run["ms"]
            spreads[timing] = max(spreads.get(timing, 0.0), spread)
    said_in = words["headline_spread_in"]
    # One decimal below 10%: 0.7% rounded to a whole percent read as 1%.
    shown = {t: f"{100 * s:.{1 if s < 0.1 else 0}f}%" for t, s in spreads.items()}
    parts = [
        said_in[timing].format(percent=shown[timing])
        for timing in timings
        if timing in spreads
    ]
    if not parts:
        return ""
    return words["headline_spread"].format(
        spreads=words["headline_spread_join"].join(parts)
    )

def _headline_host(results, words) -> str:
    """The host's time per forward+backward call (in the eager figures), the site's
    kernel's and F.rms_norm's, where both were measured."""
    costs = _host_costs(results)
    if costs is None:
        return ""
    shape = " × ".join(str(size) for size in results["host_shape"])
    kernel, reference = (f"{us:.0f}" for us in costs)
    return words["headline_host"].format(
        calls=results["host_calls"], shape=shape, kernel=kernel, reference=reference
    )

def _host_costs(results):
    """The site's kernel's and F.rms_norm's host µs per forward+backward call, or None."""
    host = results.get("host_us", {})
    costs = [host.get(name, {}).get("forward+backward") for name in (KERNEL, REFERENCE)]
    return None if None in costs else costs

def _headline_note(many: list[dict], words) -> str:
    """How to read the headlines of these results: host times made back to back (where
    one gives them), M and N, the parentheses, medians and overlapping rounds."""
    host = any(_host_costs(results) for results in many)
    return (words["headline_host_note"] if host else "") + words["headline_note"]

def _headline_cells(runs, names, n, timing, words):
    """A row's cells (µs, and F.rms_norm's time over each one's) and those ratios."""
    reference = runs.get((REFERENCE, n, timing))
    cells, speedups = [], {}
    for name in names:
        run = runs.get((name, n, timing))
        if run is None or "error" in run:
            cells.append(words["unmeasured" if run is None else "failed"])
            continue
        cell = f"{1e3 * run['ms']:,.0f}"
        if name != REFERENCE and reference and "error" not in reference:
            speedups[name] = reference["ms"] / run["ms"]
            cell += f" ({speedups[name]:.2f}×)"
        cells.append(cell)
    return cells, speedups

def _headline_saying(speedups, n, runs, timing, words, last) -> str:
    """Which is the fastest at N = n, whether its rounds overlap another's, and how
    fast the site's kernel is (ending as the last of a sentence's sayings or as one inside
    it)."""
    # F.rms_norm, the yardstick, competes too: at 1× its own speed.
    ranked = sorted({**speedups, REFERENCE: 1.0}.items(), key=lambda item: -item[1])
    (best, fastest), *others = ranked
    key = "headline_best" if best == KERNEL else "headline_other"
    if best == REFERENCE:
        key = "headline_reference"
    close = any(
        _overlap(runs[(best, n, timing)], runs[(name, n, timing)]) for name, _ in others
    )
    return words[key].format(
        n=n,
        x=f"{speedups[KERNEL]:.2f}",
        y=f"{fastest:.2f}",
        best=_name(best, words),
        unsettled=words["headline_unsettled"] if close else "",
        unsettled_alone=words["headline_unsettled_alone"] if close else "",
        end=words["headline_ends"][last],
    )

def headlines(sections: list[tuple[str, dict]], language: str) -> str:
    """The headline of each GPU, for the results page, below its In short; how to read
    them, once, after the last. The headlines link nothing: a term is linked at its first
    use, in the text above them."""
    words, lines = WORDS[language], []
    for _, results in sections:
        lines += headline(results, words, note=False)
    if lines:
        lines.append(_headline_note([results for _, results in sections], words))
    return "\n".join(lines).rstrip() + "\n"

def _heading(words, anchor: str) -> list[str]:
    return [f"## {words['sections'][anchor]} {{ #{anchor} }}", ""]

def gpu_section(stem, results, language: str) -> list[str]:
    """One GPU's page below its title and introduction: sections for its headline (also at
    the top of the Benchmark pages: `headlines`), the header (device and versions), the
    targets, the tabs of sayings, tables and plots, the host time and the notes.
    Its tables' figures are right-aligned by the site's CSS (.benchmark-results): a
    Markdown alignment would repeat a style attribute in each of a thousand cells."""
    words = WORDS[language]
    keys = [tuple(r[k] for k in WHERE) for r in results["runs"]]
    if len(keys) != len(set(keys)):
        raise ValueError(f"{stem}: a figure appears twice (parts merged that overlap)")
    lines = []
    if against := headline(results, words):
        lines += _heading(words, "against-f-rms-norm") + against
    lines += _heading(words, "device-and-versions") + [_header(results, words), ""]
    lines += _heading(words, "targets") + targets(results, language) + [""]
    lines += _heading(words, "tables-and-plots") + _copy_fit_text(results, words)
    for dtype in _dtypes(results):
        timings = []
        for timing in results["timings"]:
            tab = _timing_tab(stem, results, words, language, dtype, timing)
            timings += _tab(words["short"][timing], tab)
        lines += _tab(_short(dtype), timings)
    if "host_us" in results:
        lines += _heading(words, "host-time-per-call") + _host_table(results, words)
    if notes := _notes(results, words):
        lines += _heading(words, "not-run-or-failed") + notes
    return ['<div class="benchmark-results" markdown>', "", *lines, "", "</div>", ""]

# A colour and a marker per role, the same in the norm's plots and the add's: the site's
# kernels red diamonds (the add apart: hexagons, dashed), PyTorch's norm green squares,
# torch.compile purple triangles, Liger-Kernel grey pluses (matplotlib's C0-C9). The
# markers tell apart what the dark scheme's inverted colours bring close (red and brown,
# pink and purple); olive, inverted, would all but vanish.
DASHED = {"add + Triton RMSNorm (this site)"}
STYLES = {
    "eager naive": ("C0", "o"),
    "eager Hugging Face": ("C1", "v"),
    "torch F.rms_norm": ("C2", "s"),
    "eager add + F.rms_norm": ("C2", "s"),
    KERNEL: ("C3", "D"),
    FUSED: ("C3", "D"),
    "torch.compile naive": ("C4", "^"),
    "torch.compile add+norm": ("C4", "^"),
    "LayerNorm eager": ("C5", "<"),
    "LayerNorm compiled": ("C6", ">"),
    "Liger-Kernel": ("C7", "P"),
    FUSED_PEER: ("C7", "P"),
    "add + Triton RMSNorm (this site)": ("C3", "h"),
    "QuACK": ("C9", "*"),
}

def plot(results, dtype, timing, family, language, phone=False) -> Figure:
    """% of copy against N in the group "rows", a panel per pass, a line per
    implementation of the family, the rounds' range as bars. Drawn at the size it is
    shown (the page's column: 7.8 inches; a phone's: 3.8), so that its text is at least
    11 px there; on a phone the panels are stacked."""
    words = WORDS[language]
    rows, columns = (len(MODES), 1) if phone else (1, len(MODES))
    fig = Figure(figsize=(3.8, 10.4) if phone else (7.8, 3.9), layout="constrained")
    axes = fig.subplots(rows, columns, sharey=True)
    sizes = sorted({r["n"] for r in _runs(results, dtype=dtype, group="rows")})
    for ax, mode in zip(axes, MODES):
        where = {"dtype": dtype, "timing": timing, "mode": mode, "group": "rows"}
        runs = [r for r in _runs(results, family, **where) if _of_copy(r) is not None]
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
            color, marker = STYLES.get(name, (None, "o"))
            # The site's kernels drawn last but hollow: at a copy's speed they lie on
            # their peers, which show through. The add apart stays filled, beneath.
            hollow = name in (KERNEL, FUSED)
            ax.errorbar(
                n, mid, yerr=bars, marker=marker, capsize=3, label=_name(name, words),
                color=color, linestyle="--" if name in DASHED else "-",
                markerfacecolor="none" if hollow else None,
                markeredgewidth=1.5 if hollow else None,
                zorder=3 if hollow else 2,
            )  # fmt: skip
        ax.set(xscale="log", xlabel=words["plot_x"], title=words["modes"][mode])
        ax.set_xticks(sizes, [str(n) for n in sizes])
        ax.minorticks_off()
    for ax in axes if phone else axes[:1]:
        ax.set_ylabel(words["plot_y"])
    label = words["timings"][results["timings"][timing]]
    what = words["plot_families"][family]  # the norm's and the add's plots side by side
    # On a phone the device gets a line of its own: wrapped, "NVIDIA H200" split in two.
    where = f"{_short(dtype)}, {label}" + ("\n" if phone else ", ") + results["device"]
    fig.suptitle(f"{what}\n{where}", wrap=True)
    legend = {}  # label -> handle, from every pass (one may lack a failed line)
    for ax in axes:
        legend |= dict(zip(*reversed(ax.get_legend_handles_labels()), strict=True))
    fig.legend(
        legend.values(),
        legend.keys(),
        loc="outside lower center",
        ncols=1 if phone else 3,  # two columns of names are wider than a phone
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
        cpu=_cpu_name(results),
        cores=results["cpu_cores"],
        threads=results["cpu_threads"],
        torch_threads=results["torch_threads"],
    )
    commit = (results["git_commit"] or "-")[:12]
    m, n = results["runs"][0]["m"], results["runs"][0]["n"]
    dtype = _short(results["runs"][0]["dtype"])
    columns = [f"{words['modes'][mode]} | {words['vs_ln']}" for mode in MODES]
    parts = [
        f"{words['device']}: **{device}**",
        f"torch {results['torch']}, Python {results['python']}",
        results["date"],
        f"{words['commit']} `{commit}`",
        f"{words['x']}: {dtype}, {m} × {n}",
        words["rounds"].format(count=results["rounds"]),
    ]
    lines = [
        words["join"].join(parts) + ".",
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
        lines.append(f"| {_row_name(name, words)} | " + " | ".join(cells) + " |")
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
    # In the GPU sections' box: on a phone the names stay in view as the figures scroll
    body = "\n".join(lines).rstrip()
    return f'<div class="benchmark-results" markdown>\n\n{body}\n\n</div>\n'

FP8_KERNEL = "Triton add+RMSNorm+FP8 (this site)"  # fp8.py's one kernel
FP8_MODES = ["per-token", "per-group"]  # fp8.py's scalings, recorded as the mode

def _versus_others(results, **where) -> list[float]:
    """At each N where the one kernel has a figure: the fastest other implementation's time
    over the kernel's."""
    ratios = []
    for n in sorted({r["n"] for r in _runs(results, **where)}):
        figures = [r for r in _runs(results, n=n, **where) if "error" not in r]
        mine = [r["ms"] for r in figures if r["implementation"] == FP8_KERNEL]
        others = [r["ms"] for r in figures if r["implementation"] != FP8_KERNEL]
        if mine and others:
            ratios.append(min(others) / mine[0])
    return ratios

def _fp8_words(results, language: str) -> dict:
    """The words of a language with the FP8 section's scalings and groups filled in."""
    words = WORDS[language]
    fp8 = words["fp8"]
    rows_m = results["grid"]["groups"]["rows"][0][0]
    return {
        **words,
        "modes": {
            mode: text.format(group=results["group_size"])
            for mode, text in fp8["modes"].items()
        },
        "groups": {g: text.format(m=rows_m) for g, text in fp8["groups"].items()},
    }

def fp8_sayings(results, words, timing) -> list[str]:
    """What one timing's rows say, for each scaling: the one kernel's share of the copy and
    the fastest way, then the fastest other way's time over the one kernel's."""
    fp8, lines = words["fp8"], []
    for mode in FP8_MODES:
        where = {"mode": mode, "timing": timing, "group": "rows"}
        mine = _copy_percents(results, FP8_KERNEL, **where)
        if mine:
            line = fp8["say_line"].format(
                mode=words["modes"][mode],
                low=_percent(min(mine)),
                high=_percent(max(mine)),
                fastest=_fastest(results, words, None, **where),
            )
            lines.append(f"- {line}.")
        ratios = _versus_others(results, **where)
        if ratios:
            line = fp8["versus_line"].format(
                mode=words["modes"][mode],
                low=f"{min(ratios):.2f}",
                high=f"{max(ratios):.2f}",
            )
            lines.append(f"- {line}.")
    return lines

def fp8_section(stem, results, language: str) -> list[str]:
    """One GPU's FP8 figures (fp8.py): header, a tab per timing holding what the figures
    say and a table per group of shapes and scaling, then what was not run or failed."""
    words = _fp8_words(results, language)
    fp8 = words["fp8"]
    # The device alone in the heading: the table of contents stays short.
    heading = f"### {results['device']} {{ #fp8-{stem} }}"
    lines = [heading, "", f"**{fp8['title']}**", "", _header(results, words), ""]
    for timing in results["timings"]:
        tab = [f"{words['timings'][results['timings'][timing]]}.", ""]
        tab += fp8_sayings(results, words, timing)
        unit = words["unit_peak" if results["peak_gbps"] else "unit"]
        notes = [f"{unit}.", fp8["bytes"], *_peak_note(results, words)]
        tab += ["", " ".join(notes), ""]
        for dtype in _dtypes(results):
            for group in results["grid"]["groups"]:
                for mode in FP8_MODES:
                    tab += _table(results, words, dtype, timing, mode, group)
        lines += _tab(words["short"][timing], tab)
    lines += _notes(results, words)
    return ['<div class="benchmark-results" markdown>', "", *lines, "", "</div>", ""]

def fp8_summary(stem, results, language: str) -> list[str]:
    """What one GPU's rows say in GPU time, for the FP8 page, linking to all the figures."""
    words = _fp8_words(results, language)
    fp8 = words["fp8"]
    lead = fp8["summary"].format(
        device=results["device"],
        m=results["grid"]["groups"]["rows"][0][0],
        timing=words["timings"][results["timings"]["graph"]],
    )
    more = fp8["summary_more"].format(anchor=f"fp8-{stem}")
    return [lead, "", *fp8_sayings(results, words, "graph"), "", more, ""]

MODEL_REFERENCE = "torch F.rms_norm"  # model.py's layer the others are compared with
MODEL_MODES = ["forward", "forward+backward"]  # model.py's passes

def model_section(stem, results, language: str) -> list[str]:
    """One GPU's compiled layer (model.py): a table of ms per call, each pass and timing,
    with F.rms_norm's layer's time over each one's; then what failed."""
    words = WORDS[language]
    model = words["model"]
    names = words["group_names"] | {"layer": model["group"]}  # where a failure was
    words = {**words, "group_names": names}
    layer = results["layer"]
    (m, _), *_ = {(r["m"], r["n"]) for r in results["runs"]}
    title = model["title"].format(
        sequences=results["sequences"], length=m // results["sequences"]
    )
    heading = f"### {results['device']} {{ #model-{stem} }}"
    lines = [heading, "", f"**{title}**", "", _header(results, words), ""]
    columns = [(mode, timing) for mode in MODEL_MODES for timing in results["timings"]]
    header = [
        model["column"].format(mode=words["modes"][mode], timing=words["short"][timing])
        for mode, timing in columns
    ]
    lines += [f"| {model['name']} | " + " | ".join(header) + " |"]
    lines += ["|" + " --- |" * (1 + len(columns))]
    apart = []  # cells whose rounds and F.rms_norm's layer's do not overlap
    for name in dict.fromkeys(r["implementation"] for r in results["runs"]):
        cells = []
        for (mode, timing), column in zip(columns, header):
            where = {"mode": mode, "timing": timing}
            (run,) = _runs(results, implementation=name, **where)
            reference = _figure(results, implementation=MODEL_REFERENCE, **where)
            if "error" in run:
                cells.append(words["failed"])
                continue
            cell = f"{run['ms']:.3f} ({run['ms_min']:.3f}–{run['ms_max']:.3f})"
            if reference and name != MODEL_REFERENCE:
                cell += f", {reference['ms'] / run['ms']:.3f}×"
                if not _overlap(run, reference):
                    apart.append(f"{_name(name, words)}, {column}")
            cells.append(cell)
        lines.append(f"| {_row_name(name, words)} | " + " | ".join(cells) + " |")
    note = model["note"].format(
        hidden=layer["hidden_size"],
        heads=layer["num_attention_heads"],
        kv=layer["num_key_value_heads"],
        mlp=layer["intermediate_size"],
    )
    overlap = model["overlap_all"]
    if apart:
        overlap = model["overlap_some"].format(cells="; ".join(apart))
    lines += ["", note, "", overlap, ""] + _notes(results, words)
    return ['<div class="benchmark-results" markdown>', "", *lines, "", "</div>", ""]

# The benchmarks with a section of their own: where their files go, and what writes each.
SECTIONS = {
    "fp8": (FP8_TABLES, {"tables": fp8_section, "summary": fp8_summary}),
    "model": (MODEL_TABLES, {"tables": model_section}),
}

def write(paths: list[Path], folder: Path | None = None, plots: Path = PLOTS) -> list:
    """Write the Markdown (into `folder`) and the plots of one CPU results file or of the
    GPU ones (run.py's, fp8.py's or model.py's); return the paths written."""
    every = [(path.stem, json.loads(path.read_text())) for path in sorted(paths)]
    kinds = {results["kind"] for _, results in every}
    if len(kinds) != 1 or ("cpu" in kinds and len(every) != 1):
        raise ValueError(
            "one CPU results file, or GPU ones only (of one benchmark: run.py, fp8.py or"
            f" model.py); got {sorted(kinds)}"
        )
    if any(kind.endswith("smoke") for kind in kinds) and folder is None:
        raise ValueError(
            "a smoke run's figures are never published; write them elsewhere"
        )
    written = []
    (kind,) = kinds
    if kind.removesuffix("-smoke") in SECTIONS:
        default, sections = SECTIONS[kind.removesuffix("-smoke")]
        folder = folder or default
        folder.mkdir(parents=True, exist_ok=True)
        for name, section in sections.items():
            for language in WORDS:
                lines = [
                    line for stem, r in every for line in section(stem, r, language)
                ]
                path = folder / f"{name}.{language}.md"
                path.write_text("\n".join(lines).rstrip() + "\n")
                written.append(path)
        return written
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
        for stem, results in every:  # a page per GPU includes its own
            path = folder / f"{stem}.{language}.md"
            path.write_text(
                "\n".join(gpu_section(stem, results, language)).rstrip() + "\n"
            )
            written.append(path)
        path = folder / f"headline.{language}.md"
        path.write_text(headlines(every, language))
        written.append(path)
        for stem, results in every:
            for timing in results["timings"]:
                for family in FAMILIES:
                    where = {"dtype": PLOTTED, "timing": timing, "group": "rows"}
                    if not _runs(results, family, **where):
                        continue
                    for phone in (False, True):
                        name = _plot_name(
                            stem, PLOTTED, timing, family, language, phone
                        )
                        # The same JSON gives the same bytes (snippets/placement/plots.py).
                        with (
                            svg_style(language, salt="benchmark"),
                            matplotlib.rc_context(PLOT_TEXT),
                        ):
                            figure = plot(
                                results, PLOTTED, timing, family, language, phone
                            )
                            save_svg(figure, plots / name)
                        written.append(plots / name)
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
