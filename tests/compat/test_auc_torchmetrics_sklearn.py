"""auc against the live torchmetrics RetrievalAUROC (with and without top_k and max_fpr, its
empty_target_action rules; float32 as torchmetrics computes, so to 1e-6) and scikit-learn's roc_auc_score per
user (with and without max_fpr, float64: to 1e-9), run in the `torch` peer venv; skipped without it (a failure
in CI). docs/metrics.md 3.19.10 says which option reproduces
which."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rankmeter as rm
from tests.conformance.recsys_helpers import peer_python
from tests.support.peers import run_peer_script

SCRIPT = r"""
import json, sys
import numpy as np
import torch
from sklearn.metrics import roc_auc_score
from torchmetrics.retrieval import RetrievalAUROC
from torchmetrics.functional.retrieval import retrieval_auroc

data = json.load(open(sys.argv[1]))
out = {}
for name, case in data.items():
    res = {}
    queries = case["queries"]
    for top_k in (None, 3):
        for max_fpr in (None, 0.3, 0.5):
            key = f"{top_k}|{max_fpr}"
            per = []
            for q in queries:
                p = torch.tensor(q["preds"], dtype=torch.float64)
                t = torch.tensor(q["target"], dtype=torch.long)
                per.append(float(retrieval_auroc(p, t, top_k=top_k, max_fpr=max_fpr)) if t.sum() else None)
            means = {}
            for action in ("neg", "pos", "skip"):
                m = RetrievalAUROC(empty_target_action=action, top_k=top_k, max_fpr=max_fpr)
                for i, q in enumerate(queries):
                    n = len(q["preds"])
                    m.update(torch.tensor(q["preds"], dtype=torch.float64), torch.tensor(q["target"]),
                             indexes=torch.full((n,), i, dtype=torch.long))
                means[action] = float(m.compute())
            res[key] = {"per": per, "means": means}
    sk = {}
    for max_fpr in (None, 0.3, 0.5):
        vals = []
        for q in queries:
            y = np.array(q["target"])
            vals.append(float(roc_auc_score(y, np.array(q["preds"]), max_fpr=max_fpr)) if 0 < y.sum() < y.size else None)
        sk[str(max_fpr)] = vals
    res["sklearn"] = sk
    out[name] = res
json.dump(out, open(sys.argv[2], "w"))
"""


def _cases() -> dict:
    rng = np.random.default_rng(3)
    cases = {}
    for name, tied in (("ties", True), ("distinct", False)):
        queries = []
        for _ in range(120):
            n = int(rng.integers(1, 12))
            # float32 values (torchmetrics computes in float32): both sides order the same numbers
            preds = (np.round(rng.random(n), 1) if tied else rng.random(n)).astype(np.float32).astype(np.float64)
            target = (rng.random(n) < rng.choice([0.0, 0.3, 0.6, 1.0], p=[0.1, 0.4, 0.4, 0.1])).astype(int)
            queries.append({"preds": preds.tolist(), "target": target.tolist()})
        cases[name] = {"queries": queries}
    return cases


@pytest.fixture(scope="module")
def peer(tmp_path_factory):
    py = peer_python("torch")
    cases = _cases()
    tmp = tmp_path_factory.mktemp("auc_peers")
    return cases, run_peer_script(py, SCRIPT, cases, tmp)


def _inputs(case):
    truth = {i: {j: float(t) for j, t in enumerate(q["target"])} for i, q in enumerate(case["queries"])}
    recs = {i: {j: float(s) for j, s in enumerate(q["preds"])} for i, q in enumerate(case["queries"])}
    return truth, recs


def _close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(1.0, abs(b))


@pytest.mark.parametrize("name", ["ties", "distinct"])
@pytest.mark.parametrize("top_k", [None, 3])
@pytest.mark.parametrize("max_fpr", [None, 0.3, 0.5])
def test_auc_equals_torchmetrics_retrieval_auroc(peer, name, top_k, max_fpr):
    cases, out = peer
    truth, recs = _inputs(cases[name])
    opts = "one_class=zero" + ("" if max_fpr is None else f",max_fpr={max_fpr}")
    metric = f"auc({opts})" + ("" if top_k is None else f"@{top_k}")
    want = out[name][f"{top_k}|{max_fpr}"]
    empty_of = {"neg": "zero", "pos": "one", "skip": "skip"}
    for action, empty in empty_of.items():
        # the top k as torch.topk picks it among tied scores (ties="torch_topk", docs/metrics.md 6.3)
        res = rm.evaluate(truth, recs, [metric], empty=empty, ties="torch_topk")
        # torchmetrics casts preds to float32 (utilities/checks.py) and computes the ROC curve and its area in
        # float32: equal to its own precision
        assert _close(res[metric], want["means"][action], rel=1e-6), (action, res[metric], want["means"][action])
        # per query, against retrieval_auroc on the query's own tensors; with tied scores and top_k its topk picks
        # among them by that layout, while RetrievalAUROC (the means above, and ties="torch_topk") reads each query
        # after torch.sort of the indexes
        if action == "skip" and not (top_k is not None and name == "ties"):
            got = res.per_user[metric].tolist()
            for g, w in zip(got, want["per"]):
                assert (w is None and math.isnan(g)) or _close(g, w, rel=1e-6), (g, w)


@pytest.mark.parametrize("name", ["ties", "distinct"])
@pytest.mark.parametrize("max_fpr", [None, 0.3, 0.5])
def test_auc_equals_sklearn_roc_auc_score_per_user(peer, name, max_fpr):
    cases, out = peer
    truth, recs = _inputs(cases[name])
    metric = "auc" if max_fpr is None else f"auc(max_fpr={max_fpr})"
    got = rm.evaluate(truth, recs, [metric]).per_user[metric].tolist()
    want = out[name]["sklearn"][str(max_fpr)]
    assert sum(w is not None for w in want) > 50
    for g, w in zip(got, want):
        assert (w is None and math.isnan(g)) or _close(g, w), (g, w)
