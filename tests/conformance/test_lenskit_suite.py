"""LensKit 2025.8.1's own tests of its ranking metrics (tests/eval/test_rank_*.py of that release, vendored in
tests/conformance/vendored/lenskit/), run in LensKit's venv with every metric value computed by
``preset="lenskit"`` (the plugin tests/conformance/lenskit_suite.py)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import rankmeter
from tests.differential.harness import peer_python, require_peer
from tests.support.peers import peer_env, skip_if_sanitized

PYTHON_DIR = Path(rankmeter.__file__).resolve().parent.parent
REPO = Path(__file__).resolve().parents[2]
FILES = ("ndcg", "dcg", "precision", "recall", "hit", "mrr", "map", "rbp")
# LensKit's call_metric returns a metric's raw NaN for a list without test items; the preset gives what
# RunAnalysis reports for it, the NaN filled with 0 (describe("lenskit"))
RAW_NAN = {"test_rank_ndcg.py::test_ndcg_empty_truth_returns_nan", "test_rank_map.py::test_ap_empty_none"}


def test_lenskits_own_metric_tests_pass_on_the_preset():
    skip_if_sanitized()
    require_peer("lenskit")
    suite = REPO / "tests" / "conformance" / "vendored" / "lenskit"
    files = [f"tests/eval/test_rank_{f}.py" for f in FILES]
    flags = ["-q", "-rf", "-p", "no:cacheprovider", "-p", "tests.conformance.lenskit_suite"]
    proc = subprocess.run(
        [str(peer_python("lenskit")), "-m", "pytest", *flags, "-o", "addopts=", "-o", "doctest_plus=false", *files],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=suite,
        env=peer_env(PYTHONPATH=f"{PYTHON_DIR}:{REPO}"),
    )
    out = proc.stdout
    failed = {m.split("/")[-1] for m in re.findall(r"^FAILED (\S+?)(?: - |$)", out, re.M)}
    assert failed == RAW_NAN, out[-4000:] + proc.stderr[-2000:]
    passed = int(re.search(r"(\d+) passed", out).group(1))  # type: ignore[union-attr]
    covered = int(re.search(r"lenskit_suite: (\d+) metric values from rankmeter", out).group(1))  # type: ignore[union-attr]
    assert passed >= 80 and covered > 0, out[-4000:]
