"""docs/fairness.md's worked example is what docs/examples/segments.py prints and draws today: the tables in
the page are re-made by running the script (a change of rankmeter's numbers, or of the script, shows here)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_fairness_page_shows_what_the_segments_example_prints(tmp_path):
    pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    png = tmp_path / "groups.png"
    out = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "examples" / "segments.py"), str(png)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    page = (ROOT / "docs" / "fairness.md").read_text()
    block = re.search(r"## A worked example.*?```text\n(.*?)\n```", page, re.S)
    assert block is not None, "docs/fairness.md lost its worked example"
    assert block.group(1).rstrip() == out.rstrip()
    assert png.stat().st_size > 10_000
    assert (ROOT / "docs" / "fairness_groups.png").exists()
