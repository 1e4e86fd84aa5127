"""What the documentation promises: every metric name is documented, and the user docs cite no
document that ships outside the repository."""

from __future__ import annotations

import re

import rankmeter as rm
from tests.support import ROOT


def test_every_metric_name_is_documented():
    doc = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    missing = [name for name in rm.metrics.list() if f"`{name}`" not in doc]
    assert not missing, f"docs/metrics.md does not name {missing}"


def test_user_docs_cite_no_document_outside_the_repository():
    # a user has only the repository: the docs and the CLI say what is meant instead of citing
    # a specification or seed document kept elsewhere
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "python" / "rankmeter" / "cli.py"]
    for f in files:
        text = f.read_text(encoding="utf-8")
        bad = re.findall(r"SPEC\s*§|the seeds?'|seed documents", text)
        assert not bad, (f.name, bad)


def test_the_stage_table_of_architecture_md_lists_each_accuracy_metric_under_its_registry_stage():
    from rankmeter.metrics import SPECS

    text = (ROOT / "docs" / "architecture.md").read_text()
    listed = {}
    for stage in ("snapshot", "ideal", "walk", "user"):
        row = re.search(rf"^\| `{stage}` \| [^|]* \| ([^|]*) \|$", text, re.M)
        assert row, f"docs/architecture.md has no row for the stage {stage!r}"
        listed[stage] = [w.strip() for w in row.group(1).split(",")]
    want = {stage: [n for n, s in SPECS.items() if s.family == "accuracy" and s.stage == stage] for stage in listed}
    assert listed == want
