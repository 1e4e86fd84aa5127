"""preset="sklearn" on the inputs scikit-learn refuses or ranks its own way, against the live scikit-learn (venv
`torch`): what ``rankmeter.presets.describe("sklearn")`` lists as not reproduced is what scikit-learn does."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

import rankmeter as rm
from tests.conformance.recsys_helpers import peer_python
from tests.differential import sklearn as peer
from tests.differential.harness import run_worker
from tests.support.peers import peer_env


def _case(truth, recs, k=2):
    return {"truth": truth, "recs": recs, "empty_lists": [], "catalog": [], "k": k, "ks": [k], "on": []}


def test_sklearn_refuses_negative_grades_and_one_document_rows():
    peer_python("torch")
    negative = _case([[0, 1, -1], [0, 2, 1], [0, 3, 0]], [[0, 1, 1, 0.9], [0, 2, 2, 0.5], [0, 3, 3, 0.1]])
    single = _case([[0, 1, 1], [1, 1, 0]], [[0, 1, 1, 0.9], [1, 1, 1, 0.3]])
    out = run_worker(peer, [negative, single])
    assert out[0]["error"] == "ValueError" and "negative y_true" in out[0]["message"]
    assert out[1]["error"] == "ValueError" and "more than 1 document" in out[1]["message"]
    # rankmeter computes both (gains max(grade, 0)); the listed not-reproduced cases
    res = rm.evaluate({0: {1: -1, 2: 1, 3: 0}}, {0: {1: 0.9, 2: 0.5, 3: 0.1}}, ["ndcg@2"], preset="sklearn")
    assert res["ndcg@2"] == pytest.approx((1 / np.log2(3)) / 1.0)
    pre = rm.evaluation.get_preset("sklearn")
    assert pre is not None and any("negative y_true" in u for u in pre.unmatched)


_IGNORE_TIES = """
import json, sys
import numpy as np
from sklearn.metrics import dcg_score, ndcg_score
d = json.load(open(sys.argv[1]))
t, s = np.array(d["y_true"]), np.array(d["y_score"])
json.dump({"ndcg": ndcg_score(t, s, k=3, ignore_ties=True), "dcg": dcg_score(t, s, k=3, ignore_ties=True),
           "ndcg_avg": ndcg_score(t, s, k=3)}, open(sys.argv[2], "w"))
"""


def test_ignore_ties_is_the_plain_ranking_when_scores_are_distinct():
    """ndcg_score/dcg_score(ignore_ties=True) on rows without equal scores: ties='input' on the lists ranked by
    score (with equal scores numpy's unstable argsort decides, which the preset lists as not reproduced)."""
    py = peer_python("torch")
    g = np.random.default_rng(3)
    y_true = g.integers(0, 4, (30, 9)).astype(float)
    y_score = g.permutation(30 * 9).reshape(30, 9) / 7.0  # all distinct
    with tempfile.TemporaryDirectory() as d:
        src, dst, script = Path(d) / "in.json", Path(d) / "out.json", Path(d) / "s.py"
        src.write_text(json.dumps({"y_true": y_true.tolist(), "y_score": y_score.tolist()}))
        script.write_text(_IGNORE_TIES)
        proc = subprocess.run(
            [str(py), str(script), str(src), str(dst)], capture_output=True, text=True, timeout=600, env=peer_env()
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        want = json.loads(dst.read_text())
    truth = {r: {c: y_true[r, c] for c in range(9)} for r in range(30)}
    recs = {r: {c: y_score[r, c] for c in range(9)} for r in range(30)}
    res = rm.evaluate(truth, recs, ["ndcg@3", "dcg@3"], preset="sklearn", ties="input")
    assert res["ndcg@3"] == pytest.approx(want["ndcg"], rel=1e-12)
    assert res["dcg@3"] == pytest.approx(want["dcg"], rel=1e-12)
    assert rm.evaluate(truth, recs, ["ndcg@3"], preset="sklearn")["ndcg@3"] == pytest.approx(
        want["ndcg_avg"], rel=1e-12
    )
