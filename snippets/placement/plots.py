"""Where the Placement page's plots go, and how they are saved."""

from pathlib import Path

import matplotlib

# docs/assets/plots/ of the repository this file is in (found from this module's path,
# which stays in the repository when a script that imports it is run from elsewhere).
PLOTS = Path(__file__).resolve().parents[2] / "docs" / "assets" / "plots"

def save_svg(fig, name):
    """Save a matplotlib Figure as PLOTS/name, byte for byte the same on every run."""
    PLOTS.mkdir(parents=True, exist_ok=True)
    # A fixed salt for the SVG's element ids, and no date or creator in its metadata.
    with matplotlib.rc_context({"svg.hashsalt": "placement"}):
        fig.savefig(PLOTS / name, metadata={"Date": None, "Creator": None})
