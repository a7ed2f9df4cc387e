"""Where the site's plots go (all but the Benchmark pages'), and how they are saved in each
language.

Text is written as paths (matplotlib's default svg.fonttype), so a reader's fonts do not
matter; drawing the Korean labels needs a Korean font on the machine that draws them. The
Benchmark page's generator saves its plots with the same fonts and settings.
"""

import math
import warnings
from pathlib import Path

import matplotlib
from matplotlib import font_manager

# Relative to the working directory: the site's plots when run from the repository root;
# a copied script writes its own docs/assets/plots/ wherever it runs.
PLOTS = Path("docs") / "assets" / "plots"
KOREAN_FONT = "NanumGothic"  # Debian's fonts-nanum
# A phone's version of each figure: its panels stacked, 4.5 inches wide (a 390 px phone's
# column holds 4.6 at the 0.8 scale the site shows figures at there).
PHONE_WIDTH, PANEL_HEIGHT = 4.5, 2.8

def fonts(language: str) -> list[str]:
    """DejaVu Sans (matplotlib's own) for Latin, and a Korean font for Hangul."""
    if language != "ko":
        return ["DejaVu Sans"]
    try:
        font_manager.findfont(KOREAN_FONT, fallback_to_default=False)
    except ValueError as error:
        # Matplotlib lists the fonts once: one installed since is found after its
        # cache is deleted.
        raise RuntimeError(
            f"the Korean plots need the font {KOREAN_FONT} (Debian: fonts-nanum); if it "
            f"is installed, delete matplotlib's font cache in {matplotlib.get_cachedir()}"
        ) from error
    return ["DejaVu Sans", KOREAN_FONT]

def svg_style(language: str, salt: str):
    """Settings to draw and save a figure in: its fonts, and a fixed salt for element ids."""
    return matplotlib.rc_context({"svg.hashsalt": salt, "font.family": fonts(language)})

def save_svg(fig, path) -> None:
    """Save with no date or creator in the metadata: the same figure, the same bytes."""
    fig.savefig(path, metadata={"Date": None, "Creator": None})

def stacked(fig):
    """The figure's panels one above another at a phone's width, each with its own tick
    labels and y label, and a legend beside them moved below them."""
    panels = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    rows = fig.add_gridspec(len(panels), 1)
    for row, ax in zip(rows, panels):
        ax.set_subplotspec(row)
        ax.tick_params(labelleft=True, labelbottom=True)  # sharey hid the right one's
        if not ax.get_ylabel() and ax.get_shared_y_axes().joined(ax, panels[0]):
            ax.set_ylabel(panels[0].get_ylabel())
    height = PANEL_HEIGHT * len(panels)
    for legend in list(fig.legends):
        labels = [text.get_text() for text in legend.texts]
        legend.remove()
        fig.legend(legend.legend_handles, labels, loc="outside lower center", ncols=2)
        height += 0.25 * math.ceil(len(labels) / 2)  # a line for each row of two
    fig.set_size_inches(PHONE_WIDTH, height)
    return fig

def save_svgs(draw, name, korean):
    """Draw the figure once per language, `draw(translate)` with translate(English text)
    giving a label in that language (`korean` maps each label's English text to its
    Korean), and save each under PLOTS, byte for byte the same whenever the numbers are, with a phone's
    version beside it (name-phone). Without the Korean font the Korean figures are skipped,
    with a warning."""
    PLOTS.mkdir(parents=True, exist_ok=True)
    labels = {"en": lambda text: text, "ko": korean.__getitem__}  # by English text
    for language, translate in labels.items():
        ending = ".svg" if language == "en" else f".{language}.svg"
        try:
            style = svg_style(language, salt="placement")
        except RuntimeError as error:
            warnings.warn(f"{name}{ending} not drawn: {error}", stacklevel=2)
            continue
        with style:
            save_svg(draw(translate), PLOTS / f"{name}{ending}")
            save_svg(stacked(draw(translate)), PLOTS / f"{name}-phone{ending}")
