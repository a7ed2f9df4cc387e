"""The site's diagrams, drawn once per language from one layout: SVG files in
docs/assets/diagrams/ (`<name>.svg` in English, `<name>.ko.svg` in Korean).

    .venv/bin/python -m scripts.diagrams    # rewrite them after editing this file

Each diagram is a list of shapes placed by hand on a grid of pixels; the words are looked up
in the page's language. They are dark on white, like the plots, which the site's CSS inverts
in the dark scheme (docs/assets/stylesheets/extra.css). tests/test_diagrams.py checks that
the files are what this script writes and that both pages of each show theirs.
"""

from contextlib import contextmanager
from functools import partial
from html import escape
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "docs" / "assets" / "diagrams"
FONTS = {
    "en": "DejaVu Sans, Helvetica, Arial, sans-serif",
    # Latin letters and symbols (r⁻¹, √) from DejaVu, whose superscripts Nanum lacks.
    "ko": "DejaVu Sans, NanumGothic, Noto Sans CJK KR, Malgun Gothic, Apple SD Gothic Neo, sans-serif",
}
INK, MUTED, NORM, BLOCK, PATH = "#1a1a1a", "#555555", "#cfe3ff", "#eeeeee", "#1f5fbf"


class Drawing:
    """Shapes in SVG, in the order drawn (later ones on top)."""

    def __init__(self, width: int, height: int, language: str):
        self.width, self.height, self.language = width, height, language
        self.parts: list[str] = []

    def box(self, x, y, w, h, label, fill=BLOCK, code=False):
        """A rounded box centred on (x, y) with one or two lines of text. A blue box gets a
        blue edge too: in the dark scheme, inverted, its fill is about as dark as a grey
        box's."""
        edge = PATH if fill == NORM else INK
        self.parts.append(
            f'<rect x="{x - w / 2}" y="{y - h / 2}" width="{w}" height="{h}" rx="6" '
            f'fill="{fill}" stroke="{edge}" stroke-width="1.2"/>'
        )
        lines = label.split("\n")
        for i, line in enumerate(lines):
            # 18 px apart: a 14 px line's underscores (BLOCK_M) clear the line below.
            self.text(x, y + 5 + 18 * (i - (len(lines) - 1) / 2), line, code=code,
                      size=13 if code else 14)  # fmt: skip

    @contextmanager
    def moved(self, dx, dy):
        """What is drawn inside, shifted by (dx, dy)."""
        self.parts.append(f'<g transform="translate({dx} {dy})">')
        yield
        self.parts.append("</g>")

    def plus(self, x, y):
        self.parts.append(
            f'<circle cx="{x}" cy="{y}" r="11" fill="white" stroke="{INK}" '
            'stroke-width="1.2"/>'
            f'<path d="M{x - 6} {y}h12M{x} {y - 6}v12" stroke="{INK}" stroke-width="1.6"/>'
        )

    def line(self, *points, color=INK, width=1.4, arrow=True, dashed=False):
        """A polyline through the points, with an arrowhead at the last one."""
        path = " ".join(f"{x},{y}" for x, y in points)
        head = f' marker-end="url(#head-{color[1:]})"' if arrow else ""
        dash = ' stroke-dasharray="5 4"' if dashed else ""
        self.parts.append(
            f'<polyline points="{path}" fill="none" stroke="{color}" '
            f'stroke-width="{width}"{dash}{head}/>'
        )

    def text(self, x, y, words, anchor="middle", size=14, color=INK, code=False,
             bold=False):  # fmt: skip
        family = ' font-family="DejaVu Sans Mono, monospace"' if code else ""
        weight = ' font-weight="bold"' if bold else ""
        self.parts.append(
            f'<text x="{x}" y="{y}" text-anchor="{anchor}" font-size="{size}" '
            f'fill="{color}"{family}{weight}>{escape(words)}</text>'
        )

    def mark(self, x, y, mark):
        """A step of the rounding table: R rounded to bfloat16 (a filled dot), F kept in
        float32 (a ring), anything else no such step (a dash)."""
        if mark == "R":
            self.parts.append(f'<circle cx="{x}" cy="{y}" r="8" fill="{PATH}"/>')
        elif mark == "F":
            self.parts.append(
                f'<circle cx="{x}" cy="{y}" r="8" fill="white" stroke="{PATH}" '
                'stroke-width="1.6"/>'
            )
        else:
            self.line((x - 8, y), (x + 8, y), width=2, arrow=False)

    def note(self, x, y, *lines, anchor="start", color=MUTED):
        """Small text beside a shape, one line under another."""
        for i, line in enumerate(lines):
            self.text(x, y + 16 * i, line, anchor=anchor, size=13, color=color)

    def svg(self, title: str, split: tuple[int, int] | None = None) -> str:
        """The drawing; with `split` = (left, middle), a phone's version: the part between
        x = left and middle, and below it the part right of middle, each clipped to its
        side (the panels side by side become panels one above the other; `left` drops
        the first panel's empty margin, which would make the version wider)."""
        markers = "".join(
            f'<marker id="head-{color[1:]}" viewBox="0 0 10 10" refX="9" refY="5" '
            f'markerWidth="9" markerHeight="9" markerUnits="userSpaceOnUse" '
            f'orient="auto-start-reverse">'
            f'<path d="M0 0L10 5L0 10z" fill="{color}"/></marker>'
            for color in (INK, PATH, MUTED)
        )
        width, height, body = self.width, self.height, "".join(self.parts)
        if split:
            left, middle = split
            right = self.width - middle
            markers += (
                f'<clipPath id="left"><rect x="{left}" width="{middle - left}" '
                f'height="{height}"/></clipPath>'
                f'<clipPath id="right"><rect x="{middle}" width="{right}" '
                f'height="{height}"/></clipPath>'
            )
            body = (
                f'<g transform="translate({-left} 0)">'
                f'<g clip-path="url(#left)">{body}</g></g>'
                f'<g transform="translate({-middle} {height})">'
                f'<g clip-path="url(#right)">{body}</g></g>'
            )
            width, height = max(middle - left, right), 2 * height
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} '
            f'{height}" width="{width}" height="{height}" role="img" '
            f'font-family="{FONTS[self.language]}">'
            f"<title>{escape(title)}</title><defs>{markers}</defs>"
            f'<rect width="100%" height="100%" fill="white"/>' + body + "</svg>\n"
        )


WORDS = {
    "en": {
        "placement": "Pre-norm and post-norm residual blocks",
        "pre": "Pre-norm (LLaMA and most models since)",
        "post": "Post-norm (the original Transformer)",
        "sublayer": "sublayer F\n(attention or MLP)",
        "input": "block input x",
        "output": "to the next block",
        "identity": "identity path:",
        "identity2": "additions only",
        "through": "every path goes",
        "through2": "through the norm",
        "final": "after the last block:",
        "final2": "final norm, then the output head",
        "ends": "the stack ends normalized:",
        "ends2": "no final norm needed",
        "kernel": "The kernel's data flow, forward and backward",
        "forward": "Forward: one program per BLOCK_M rows",
        "backward": "Backward: P programs, each over many tiles",
        "x_rows": "x: M rows of N",
        "program": "program {p}",
        "registers": "a BLOCK_M × BLOCK_N tile\nin registers, float32",
        "sum": "mean of squares per row\n→ r⁻¹ = 1 / √(mean + ε)",
        "y": "y = x · r⁻¹ · w\n(one rounding)",
        "rstd": "r⁻¹ saved: M floats",
        "tiles": "tiles p, p + P, p + 2P, …",
        "inputs": "x, dy and r⁻¹ of the tile",
        "dx": "dx for the tile's rows",
        "partial": "dw partial += Σ dy · x̂\n(float32, in registers)",
        "partials": "P partials of dw, written once",
        "dw": "dw = their sum",
        "kernel_key": "blue: one program's rows, and\nthe float32 values it keeps from them",
        "models": "Where the norms sit in a LLaMA-style and a Gemma 3 decoder layer",
        "llama": "LLaMA-style layer (gain w)",
        "gemma": "Gemma 3 layer (gain 1 + w)",
        "attention": "self-attention",
        "qk": "self-attention\nq_norm, k_norm per head",
        "mlp": "MLP",
        "layer_in": "layer input",
        "norm_key": "a norm",
        "layer_out": "next layer; after the last, the final norm",
        "rounding": "Where each rounding convention rounds to bfloat16",
        "steps": ["residual add", "gain 1 + w", "x̂ = x · r⁻¹", "output"],
        "conventions": [
            "(a) LlamaRMSNorm",
            "(b) F.rms_norm, Transformer Engine",
            "(c) GemmaRMSNorm",
            "(d) 1 + w in bfloat16 (mlx-lm's gain)",
            "(e) zero_centered_gamma",
            "(f) ε outside the root",
            "(g1) add and norm, float32 sum",
            "(g2) add and norm, rounded sum",
        ],
        "rounded": "rounded to bfloat16",
        "kept": "kept in float32",
        "absent": "no such step",
        "beyond": "The residual blocks of DeepNorm, Peri-LN, nGPT and DyT",
        "next": "to the next block",
        "f_beta": "F\n(weights × β at init)",
        "f_is": (
            "F: the sublayer (attention or MLP)",
            "blue box: a norm, or what takes its place",
            "thick blue line: the identity path",
        ),
        "f_is_phone": (  # the key on a phone, where a line holds about half as much
            "F: the sublayer (attention or MLP)",
            "blue box: a norm, or what",
            "takes its place",
            "thick blue line: the identity path",
        ),
        "deepnorm": ("post-norm, with", "the residual × α"),
        "peri": ("pre-norm's identity", "path, F's output", "normalized too"),
        "ngpt": ("h stays on the", "unit sphere"),
        "l2": "L2 norm",
        "norm": "Norm",
        "dyt": ("DyT is elementwise:", "no sum over", "the features"),
    },
    "ko": {
        "placement": "pre-norm과 post-norm 잔차 블록",
        "pre": "pre-norm(LLaMA와 이후 대부분의 모델)",
        "post": "post-norm(원래 트랜스포머)",
        "sublayer": "서브층 F\n(어텐션 또는 MLP)",
        "input": "블록 입력 x",
        "output": "다음 블록으로",
        "identity": "항등 경로:",
        "identity2": "덧셈만 거침",
        "through": "모든 경로가",
        "through2": "정규화 층을 지남",
        "final": "마지막 블록 뒤:",
        "final2": "최종 정규화 층, 그다음 출력 헤드",
        "ends": "스택이 정규화된 채 끝나므로",
        "ends2": "최종 정규화 층이 필요 없음",
        "kernel": "커널의 데이터 흐름: 순전파와 역전파",
        "forward": "순전파: 프로그램마다 행 BLOCK_M개",
        "backward": "역전파: 프로그램 P개가 각각 여러 타일을 처리",
        "x_rows": "x: 길이 N인 행 M개",
        "program": "프로그램 {p}",
        "registers": "BLOCK_M × BLOCK_N 타일을\nfloat32로 레지스터에 올림",
        "sum": "행마다 제곱의 평균\n→ r⁻¹ = 1 / √(평균 + ε)",
        "y": "y = x · r⁻¹ · w\n(반올림 한 번)",
        "rstd": "r⁻¹ 저장: float M개",
        "tiles": "타일 p, p + P, p + 2P, …",
        "inputs": "타일의 x, dy, r⁻¹",
        "dx": "타일 안 행들의 dx",
        "partial": "dw 부분합 += Σ dy · x̂\n(float32, 레지스터에)",
        "partials": "dw 부분합 P개를 한 번씩 씀",
        "dw": "dw = 부분합들의 합",
        "kernel_key": "파란색: 프로그램 하나가 맡은 행과,\n그 행에서 구해 float32로 두는 값",
        "models": "LLaMA 방식과 Gemma 3 디코더 층에서 정규화 층의 위치",
        "llama": "LLaMA 방식의 층(게인 w)",
        "gemma": "Gemma 3의 층(게인 1 + w)",
        "attention": "셀프 어텐션",
        "qk": "셀프 어텐션\n헤드마다 q_norm, k_norm",
        "mlp": "MLP",
        "layer_in": "층 입력",
        "norm_key": "정규화 층",
        "layer_out": "다음 층으로. 마지막 층 다음에는 최종 정규화 층으로",
        "rounding": "각 반올림 방식이 bfloat16으로 반올림하는 단계",
        "steps": ["잔차 덧셈", "게인 1 + w", "x̂ = x · r⁻¹", "출력"],
        "conventions": [
            "(a) LlamaRMSNorm",
            "(b) F.rms_norm, Transformer Engine",
            "(c) GemmaRMSNorm",
            "(d) bfloat16으로 만든 1 + w, mlx-lm의 게인",
            "(e) zero_centered_gamma",
            "(f) 제곱근 밖의 ε",
            "(g1) 덧셈과 정규화, float32 합",
            "(g2) 덧셈과 정규화, 반올림한 합",
        ],
        "rounded": "bfloat16으로 반올림",
        "kept": "float32로 유지",
        "absent": "해당 단계 없음",
        "beyond": "DeepNorm, Peri-LN, nGPT, DyT의 잔차 블록",
        "next": "다음 블록으로",
        "f_beta": "F\n(초기 가중치 × β)",
        "f_is": (
            "F: 서브층(어텐션 또는 MLP)",
            "파란 상자: 정규화 층이나 그 자리를 대신하는 것",
            "굵은 파란 선: 항등 경로",
        ),
        "f_is_phone": (
            "F: 서브층(어텐션 또는 MLP)",
            "파란 상자: 정규화 층이나",
            "그 자리를 대신하는 것",
            "굵은 파란 선: 항등 경로",
        ),
        "deepnorm": ("잔차에 α를 곱한", "post-norm"),
        "peri": ("항등 경로는", "pre-norm처럼 두고", "F의 출력도 정규화"),
        "ngpt": ("h는 늘", "단위 구 위에 머묾"),
        "l2": "L2 정규화",
        "norm": "정규화",
        "dyt": ("DyT는 원소별 연산:", "특성에 걸친", "합 없음"),
    },
}


def placement(language: str) -> tuple[Drawing, str]:
    words = WORDS[language]
    d = Drawing(780, 430, language)
    # Pre-norm: the stream runs straight up; the branch reads a normalized copy.
    d.text(200, 26, words["pre"], bold=True)
    d.line((160, 400), (160, 60), color=PATH, width=3.5)
    d.plus(160, 120)
    d.line((160, 330), (290, 330), (290, 292))
    d.box(290, 272, 150, 36, "RMSNorm", fill=NORM)
    d.line((290, 254), (290, 226))
    d.box(290, 196, 170, 56, words["sublayer"])
    d.line((290, 168), (290, 120), (175, 120))
    d.text(160, 418, words["input"])
    d.text(160, 48, words["output"])
    d.note(150, 236, words["identity"], words["identity2"], anchor="end", color=PATH)
    d.note(200, 370, words["final"], words["final2"])
    # Post-norm: the norm sits on the stream, after the addition.
    d.text(590, 26, words["post"], bold=True)
    d.line((520, 400), (520, 201))
    d.plus(520, 190)
    d.line((520, 330), (650, 330), (650, 262))
    d.box(650, 232, 170, 56, words["sublayer"])
    d.line((650, 204), (650, 190), (535, 190))
    d.line((520, 179), (520, 132))
    d.box(520, 112, 150, 36, words["norm"], fill=NORM)
    d.line((520, 94), (520, 60))
    d.text(520, 418, words["input"])
    d.text(520, 48, words["output"])
    d.note(605, 108, words["through"], words["through2"])
    d.note(580, 370, words["ends"], words["ends2"])
    return d, words["placement"]


def kernel(language: str) -> tuple[Drawing, str]:
    words = WORDS[language]
    d = Drawing(780, 515, language)
    # Forward: rows grouped by program, each group a tile in registers.
    d.text(190, 26, words["forward"], bold=True)
    d.text(70, 56, words["x_rows"], size=13)
    for row in range(8):
        # Program 0's rows blue with a blue edge, as blue boxes have (legible inverted).
        fill, edge = (NORM, PATH) if row < 2 else (BLOCK, INK)
        d.parts.append(
            f'<rect x="20" y="{66 + 14 * row}" width="110" height="11" fill="{fill}" '
            f'stroke="{edge}" stroke-width="0.8"/>'
        )
    d.text(138, 80, words["program"].format(p=0), anchor="start", size=13)
    d.text(138, 108, words["program"].format(p=1), anchor="start", size=13)
    d.text(138, 136, "…", anchor="start", size=13)
    d.line((75, 182), (75, 208))
    d.box(190, 236, 240, 48, words["registers"], fill=NORM)
    d.line((190, 260), (190, 288))
    d.box(190, 316, 240, 48, words["sum"])
    d.line((150, 340), (110, 390))
    d.line((230, 340), (270, 390))
    d.box(100, 414, 170, 44, words["y"])
    d.box(290, 414, 150, 44, words["rstd"], fill=NORM)
    # Backward: each program walks its tiles and keeps one dw partial.
    d.text(590, 26, words["backward"], bold=True)
    d.box(590, 76, 240, 40, words["inputs"])
    d.text(590, 118, words["tiles"], size=13, color=MUTED)
    d.line((590, 124), (590, 150))
    d.box(590, 176, 250, 44, words["registers"], fill=NORM)
    d.line((530, 198), (480, 238))
    d.line((650, 198), (690, 238))
    d.box(470, 262, 170, 40, words["dx"])
    d.box(690, 266, 170, 52, words["partial"], fill=NORM)
    d.line((690, 292), (690, 330))
    d.box(650, 356, 250, 40, words["partials"])
    d.line((650, 376), (650, 402))
    d.box(650, 424, 170, 36, words["dw"])
    # The key: blue is what belongs to one program.
    d.box(28, 482, 16, 12, "", fill=NORM)
    d.note(42, 487, *words["kernel_key"].split("\n"))
    return d, words["kernel"]


def layer(d: Drawing, words, x, title, groups, top=0) -> float:
    """A residual stream at x; each group of boxes (label, is a norm) is a branch that
    reads the stream and adds its output back. The title and the stream's top sit `top`
    lower; returns the height of the highest addition."""
    d.text(x + 140, top + 26, title, bold=True)
    d.text(x + 4, 565, words["layer_in"], anchor="start")
    d.text(x + 4, top + 52, words["layer_out"], size=13, color=MUTED, anchor="start")
    d.line((x, 550), (x, top + 64))
    branch, y = x + 150, 530
    for boxes in groups:
        d.line((x, y), (branch, y), (branch, y - 16))
        y -= 16
        for i, (label, norm) in enumerate(boxes):
            height = 40 if "\n" in label else 28
            d.box(branch, y - height / 2, 250, height, label, code=norm,
                  fill=NORM if norm else BLOCK)  # fmt: skip
            y -= height
            if i < len(boxes) - 1:
                d.line((branch, y), (branch, y - 12))
                y -= 12
        d.line((branch, y), (branch, y - 16), (x + 11, y - 16))
        d.plus(x, y - 16)
        y -= 46
    return y + 30


def models(language: str, layout: str = "page") -> tuple[Drawing, str]:
    """LLaMA's layer beside Gemma 3's; on a phone, one above the other, LLaMA's shorter
    stack drawn without the empty stream above it."""
    words = WORDS[language]
    llama = [
        [("input_layernorm", True), (words["attention"], False)],
        [("post_attention_layernorm", True), (words["mlp"], False)],
    ]
    gemma = [
        [
            ("input_layernorm", True),
            (words["qk"], False),
            ("post_attention_layernorm", True),
        ],
        [
            ("pre_feedforward_layernorm", True),
            (words["mlp"], False),
            ("post_feedforward_layernorm", True),
        ],
    ]
    if layout == "page":
        d = Drawing(780, 580, language)
        layer(d, words, 30, words["llama"], llama)
        layer(d, words, 420, words["gemma"], gemma)
        key = (660, 561)
    else:
        scratch = Drawing(780, 580, language)
        gap = layer(scratch, words, 30, "", llama) - layer(
            scratch, words, 420, "", gemma
        )
        d = Drawing(390, 2 * 580 - gap, language)
        with d.moved(0, -gap):
            layer(d, words, 30, words["llama"], llama, top=gap)
        with d.moved(-390, 580 - gap):
            layer(d, words, 420, words["gemma"], gemma)
        key = (660 - 390, 561 + 580 - gap)
    # The key: blue boxes are the norms (Gemma 3's q_norm and k_norm sit inside attention).
    d.box(key[0], key[1], 16, 12, "", fill=NORM)
    d.text(
        key[0] + 14, key[1] + 5, words["norm_key"], size=13, color=MUTED, anchor="start"
    )
    return d, words["models"]


# Per convention of the Numerics page, what happens at each step: R rounded to bfloat16,
# F kept in float32, - no such step (the order of WORDS' "steps").
ROUNDINGS = ["--RR", "--FR", "-FFR", "-RFR", "-FFR", "--FR", "F-FR", "R-FR"]


# The table's layout: on a page, each convention's name beside its row of marks and the key
# on one line; on a phone, the name above its row and the key one entry a line (split in
# two, the table would lose its columns), 400 wide (see PHONE_SPLITS), the title at 13.
LAYOUTS = {
    "page": {"size": (780, 420), "title": 14, "columns": [400, 500, 600, 700],
             "rows": (96, 32), "label": (20, 5), "line": (320, 730),
             "key": [(40, 380), (300, 380), (538, 380)]},
    "phone": {"size": (400, 560), "title": 13, "columns": [95, 190, 285, 370],
              "rows": (108, 46), "label": (20, -16), "line": (60, 390),
              "key": [(40, 488), (40, 514), (40, 540)]},
}  # fmt: skip
KEY_WORDS = {"R": "rounded", "F": "kept", "-": "absent"}


def rounding(language: str, layout: str = "page") -> tuple[Drawing, str]:
    words, at = WORDS[language], LAYOUTS[layout]
    width, height = at["size"]
    d = Drawing(width, height, language)
    d.text(width // 2, 26, words["rounding"], size=at["title"], bold=True)
    for x, step in zip(at["columns"], words["steps"]):
        d.text(x, 62, step, size=13)
    (top, gap), (dx, dy), (start, end) = at["rows"], at["label"], at["line"]
    for row, (label, marks) in enumerate(zip(words["conventions"], ROUNDINGS)):
        y = top + gap * row
        d.text(dx, y + dy, label, anchor="start", size=13)
        d.line((start, y), (end, y), color=MUTED, width=0.8, arrow=False)
        for x, mark in zip(at["columns"], marks):
            d.mark(x, y, mark)
    for (x, y), key in zip(at["key"], "RF-"):
        d.mark(x, y, key)
        d.text(x + 16, y + 5, words[KEY_WORDS[key]], anchor="start", size=13)
    return d, words["rounding"]


# Beyond's four blocks, each drawn at x = 60, 310, 560 or 810 (one row of four, read bottom
# to top) and moved: on a page two by two, on a phone one above another; then the key.
BLOCKS = {
    "page": {"size": (520, 950), "moves": [(0, 0), (0, 0), (-500, 440), (-500, 440)],
             "key": (260, 900, "middle", "f_is")},
    "phone": {"size": (260, 1890), "moves": [(0, 0), (-250, 440), (-500, 880), (-750, 1320)],
              "key": (10, 1784, "start", "f_is_phone")},
}  # fmt: skip


def beyond(language: str, layout: str = "page") -> tuple[Drawing, str]:
    words, at = WORDS[language], BLOCKS[layout]
    d = Drawing(*at["size"], language)
    deepnorm, peri, ngpt, dyt = (d.moved(*move) for move in at["moves"])
    for x, title, state, move in zip(
        [60, 310, 560, 810], ["DeepNorm", "Peri-LN", "nGPT", "DyT"], "xxhx", at["moves"]
    ):
        with d.moved(*move):
            d.text(x + 80, 26, title, bold=True)
            d.text(x, 418, state)
            d.text(x, 48, words["next"], size=13, color=MUTED)
    with deepnorm:  # Norm(α x + F(x)), F's weights started × β
        d.line((60, 400), (60, 322))
        d.box(60, 304, 56, 36, "× α")
        d.line((60, 286), (60, 201))
        d.plus(60, 190)
        d.line((60, 179), (60, 132))
        d.box(60, 112, 80, 36, words["norm"], fill=NORM)
        d.line((60, 94), (60, 60))
        d.line((60, 350), (170, 350), (170, 292))
        d.box(170, 262, 150, 56, words["f_beta"])
        d.line((170, 234), (170, 190), (71, 190))
        d.note(110, 120, *words["deepnorm"])
    with peri:  # x + Norm_out(F(Norm_in(x))), the stream never normalized
        d.line((310, 400), (310, 60), color=PATH, width=3.5)
        d.plus(310, 120)
        d.line((310, 380), (420, 380), (420, 362))
        d.box(420, 344, 150, 36, words["norm"], fill=NORM)
        d.line((420, 326), (420, 300))
        d.box(420, 272, 150, 56, "F")
        d.line((420, 244), (420, 218))
        d.box(420, 200, 150, 36, words["norm"], fill=NORM)
        d.line((420, 182), (420, 120), (325, 120))
        d.note(330, 66, *words["peri"], color=PATH)
    with ngpt:  # h <- Norm(h + α (Norm(F(h)) - h)), Norm the L2 norm
        d.line((560, 400), (560, 191))
        d.plus(560, 180)
        d.line((560, 169), (560, 132))
        d.box(560, 112, 80, 36, words["l2"], fill=NORM)
        d.line((560, 94), (560, 60))
        d.line((560, 390), (670, 390), (670, 372))
        d.box(670, 344, 150, 56, "F")
        d.line((670, 316), (670, 296))
        d.box(670, 278, 150, 36, words["l2"], fill=NORM)
        d.line((670, 260), (670, 240))
        d.box(670, 222, 150, 36, "α ⊙ (· − h)")
        d.line((670, 204), (670, 180), (571, 180))
        d.note(610, 120, *words["ngpt"])
    with dyt:  # pre-norm with γ tanh(α x) + β in the norm's place
        d.line((810, 400), (810, 60), color=PATH, width=3.5)
        d.plus(810, 140)
        d.line((810, 370), (920, 370), (920, 350))
        d.box(920, 322, 150, 56, "DyT\nγ ⊙ tanh(αx) + β", fill=NORM)
        d.line((920, 294), (920, 262))
        d.box(920, 234, 150, 56, "F")
        d.line((920, 206), (920, 140), (825, 140))
        d.note(830, 96, *words["dyt"])
    x, y, anchor, key = at["key"]
    d.note(x, y, *words[key], anchor=anchor)
    return d, words["beyond"]


DIAGRAMS = {
    "placement_norms": placement,
    "kernel_data_flow": kernel,
    "model_norms": models,
    "rounding_conventions": rounding,
    "beyond_blocks": beyond,
}
# Where a phone's version splits a diagram of two panels side by side (left, middle):
# between pre-norm and post-norm, the forward and the backward. At most about 420 wide:
# fitted to a 390 px phone's 358 px column, 13-unit text stays above 11 px.
PHONE_SPLITS = {"placement_norms": (25, 420), "kernel_data_flow": (0, 378)}
# A phone's version drawn apart, where splitting would not do: the table of rounding
# conventions, Beyond's blocks, two by two, one above another, and the two model layers,
# LLaMA's shorter one without its empty stream.
PHONE_DRAWINGS = {
    "model_norms": partial(models, layout="phone"),
    "rounding_conventions": partial(rounding, layout="phone"),
    "beyond_blocks": partial(beyond, layout="phone"),
}


def path(name: str, language: str, phone: bool = False) -> Path:
    stem = f"{name}-phone" if phone else name
    return FOLDER / (f"{stem}.svg" if language == "en" else f"{stem}.{language}.svg")


def write(folder: Path = FOLDER) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in DIAGRAMS.items():
        for language in WORDS:
            drawing, title = draw(language)
            svgs = {path(name, language): drawing.svg(title)}
            phone = path(name, language, phone=True)
            if name in PHONE_SPLITS:
                svgs[phone] = drawing.svg(title, PHONE_SPLITS[name])
            if name in PHONE_DRAWINGS:
                svgs[phone] = PHONE_DRAWINGS[name](language)[0].svg(title)
            for version, svg in svgs.items():
                target = folder / version.name
                target.write_text(svg, encoding="utf-8")
                written.append(target)
    return written


if __name__ == "__main__":
    import argparse

    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    for written in write():
        print(f"wrote {written.relative_to(ROOT)}")
