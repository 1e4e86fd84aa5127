"""preset="torchmetrics" and preset="sklearn" against torchmetrics and scikit-learn (venv `torch`).

The documents of a query are its list (recs, ranked by score) and their grades its truth, so every truth item is
listed. Distinct scores: run with ties="input" (explicit: the order is then the same under every rule); tied
scores: the presets' own per-metric tie rules (tests/differential/torchmetrics.py and sklearn.py draw many more).
torchmetrics computes in float32: compared at relative 2e-6 (its precision), absolute 1e-7.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import rankmeter as rm
from tests.conformance.recsys_helpers import as_inputs, check, random_case, run_peer

SHAPES: list[dict[str, Any]] = [
    dict(n_users=30, k=5),
    dict(n_users=20, k=20, max_len=8),
    dict(n_users=40, k=1),
    dict(n_users=20, k=3, string_ids=True),
    dict(n_users=20, k=10, huge_ids=True),
]
DISTINCT = [random_case(s, all_listed=True, **sh) for s in range(3) for sh in SHAPES]
TIED = [random_case(100 + s, all_listed=True, ties=True, **sh) for s in range(2) for sh in SHAPES[:2]]
# every grade zero for one user, a one-document query
EDGE = [
    {
        "truth": [[1, 10, 0], [1, 11, 0], [2, 12, 2], [2, 13, 0]],
        "recs": [[1, 10, 1, 0.9], [1, 11, 2, 0.8], [2, 13, 1, 0.9], [2, 12, 2, 0.7]],
        "k": 4,
    }
]
TORCH_TOL: dict[str, Any] = dict(rel=2e-6, abs_=1e-7)


@pytest.fixture(scope="module")
def torch_out():
    return run_peer("torch", "torchmetrics", DISTINCT + EDGE + TIED)


@pytest.fixture(scope="module")
def sk_out():
    # scikit-learn's ndcg_score refuses one-document rows: the shapes above always list >= 2 documents
    return run_peer("torch", "sklearn", DISTINCT + EDGE + TIED)


def _eval(case, names, preset, **kw):
    truth, recs, _ = as_inputs(case, scored=True)
    return rm.evaluate(truth, recs, names, preset=preset, **kw)


@pytest.mark.parametrize("n", range(len(DISTINCT) + len(EDGE)))
def test_torchmetrics_preset_distinct_scores(torch_out, n):
    out = torch_out[n]["ok"]
    res = _eval((DISTINCT + EDGE)[n], list(out), "torchmetrics", ties="input")
    for name, values in out.items():
        check(res, name, values, **TORCH_TOL, tag="torchmetrics")


@pytest.mark.parametrize("n", range(len(DISTINCT) + len(EDGE)))
def test_sklearn_preset_distinct_scores(sk_out, n):
    out = sk_out[n]["ok"]
    res = _eval((DISTINCT + EDGE)[n], list(out), "sklearn", ties="input")
    for name, values in out.items():
        check(res, name, values, tag="sklearn")


@pytest.mark.parametrize("n", range(len(TIED)))
def test_torchmetrics_preset_tied_ndcg(torch_out, n):
    out = torch_out[len(DISTINCT) + len(EDGE) + n]["ok"]
    names = [m for m in out if m.startswith("ndcg")]
    res = _eval(TIED[n], names, "torchmetrics")
    for name in names:
        check(res, name, out[name], **TORCH_TOL)


@pytest.mark.parametrize("n", range(len(TIED)))
def test_sklearn_preset_tied_ndcg(sk_out, n):
    out = sk_out[len(DISTINCT) + len(EDGE) + n]["ok"]
    res = _eval(TIED[n], list(out), "sklearn")
    for name, values in out.items():
        check(res, name, values)


def test_torchmetrics_preset_defaults():
    pre = rm.evaluation.get_preset("torchmetrics")
    assert pre is not None
    assert pre.defaults["empty"] == "zero" and pre.defaults["missing"] == "skip"
    # torchmetrics ranks per metric: topk for precision/MAP/MRR, argsort for the rest, tie-averaged NDCG
    assert pre.defaults["ties"] == {
        "precision": "torch_topk",
        "ap": "torch_topk",
        "rr": "torch_topk",
        "ndcg": "torch_average",
        "dcg": "torch_average",
        "*": "torch",
    }
    assert str(rm.metrics.parse("map@5", pre.metric_options)) == "ap(denominator=hits,hit_scores=positive)@5"
    assert str(rm.metrics.parse("ndcg@5", pre.metric_options)) == "ndcg@5"  # NDCG keeps every hit


def _nonpositive(case, seed):
    """The same case with about half of the scores moved to <= 0 (some exactly 0), order unchanged."""
    g = np.random.default_rng(seed)
    recs = []
    for u, i, r, sc in case["recs"]:
        x = sc - 1.0  # scores were in (0.5, 1.5)
        recs.append([u, i, r, 0.0 if g.random() < 0.1 else x])
    by_user: dict = {}
    for row in recs:
        by_user.setdefault(row[0], []).append(row)
    for rows in by_user.values():  # keep the order strictly decreasing: exact zeros only where it stays so
        rows.sort(key=lambda row: row[2])
        for a, b in zip(rows, rows[1:]):
            if b[3] >= a[3]:
                b[3] = a[3] - 1e-3
    return {**case, "recs": recs}


NONPOS = [_nonpositive(random_case(300 + s, all_listed=True, **sh), s) for s in range(2) for sh in SHAPES]


@pytest.fixture(scope="module")
def torch_nonpos():
    return run_peer("torch", "torchmetrics", NONPOS)


@pytest.mark.parametrize("n", range(len(NONPOS)))
def test_torchmetrics_preset_nonpositive_scores(torch_nonpos, n):
    """Scores <= 0: torchmetrics' precision, recall, MAP and MRR never count such a document as relevant (it keeps
    its rank); hit rate, R-precision and NDCG do (the preset's hit_scores='positive' on precision, recall, ap, rr)."""
    out = torch_nonpos[n]["ok"]
    assert any(sc <= 0 for *_, sc in NONPOS[n]["recs"])
    res = _eval(NONPOS[n], list(out), "torchmetrics", ties="input")
    for name, values in out.items():
        check(res, name, values, **TORCH_TOL, tag="torchmetrics")
    # the option matters on these cases
    plain = _eval(NONPOS[n], ["precision(hit_scores=any)"], "torchmetrics", ties="input")
    assert plain["precision(hit_scores=any)"] > res["precision"]


def _topk_case(seed, n=40, classes=6, k=2):
    g = np.random.default_rng(seed)
    scores = np.round(g.random((n, classes)) * 4) / 4  # many ties
    labels = g.integers(0, classes, n)
    labels[:classes] = np.arange(classes)  # every class present (top_k_accuracy_score infers them otherwise)
    return {"labels": labels.tolist(), "scores": scores.tolist(), "k": k}


TOPK = [_topk_case(s, k=k) for s in range(2) for k in (1, 2, 4)]


def test_sklearn_top_k_accuracy_is_hit_rate_with_item_desc_ties():
    out = run_peer("torch", "sklearn_topk", TOPK)
    for case, o in zip(TOPK, out):
        o = o["ok"]
        truth = {u: {int(c): 1} for u, c in enumerate(case["labels"])}
        recs = {u: dict(enumerate(row)) for u, row in enumerate(case["scores"])}
        res = rm.evaluate(truth, recs, list(o), preset="sklearn", ties="item_desc")
        for name, values in o.items():
            check(res, name, values, tag="sklearn")
