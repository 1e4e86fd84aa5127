"""preset="evidently" against Evidently 0.7 (venv `evidently`): means at k (Evidently reports no per-user values).

Rows are the listed items with their grade as target (Evidently's |R| counts rows only). NDCG and MRR are read at
the new API's rank k + 1 (its one-rank-off labels, docs/metrics.md 11.2). Lists shorter than k (SHORT) check the
short_lists="evidently" convention the preset sets on precision, ap and ar: Evidently's precision@k divides by
min(n, k) and its MAP/MAR keep adding P@n / R@n at ranks n+1..k when the last row is relevant.
"""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter as rm
from tests.conformance.recsys_helpers import as_inputs, check, run_peer


def _case(seed, n_users=30, k=5, n_items=40, string_ids=False, short=False):
    g = np.random.default_rng(seed)
    truth, recs = [], []
    for u in range(n_users):
        uid = f"u{u}" if string_ids else u
        low = 1 if short and u > 0 else k  # user 0 keeps k items: Evidently needs one list of >= k rows
        items = g.choice(n_items, int(g.integers(low, k + 5)), replace=False)
        for r, i in enumerate(items):
            iid = f"i{i}" if string_ids else int(i)
            grade = int(g.integers(0, 4)) if g.random() < 0.4 else 0
            truth.append([uid, iid, grade])
            recs.append([uid, iid, r + 1, float(100 - r)])
    return {"truth": truth, "recs": recs, "k": k}


CASES = [_case(s, k=k, string_ids=s == 2) for s in range(3) for k in (1, 3, 5, 9)]
SHORT = [_case(10 + s, k=k, string_ids=s == 1, short=True) for s in range(3) for k in (2, 5, 9, 14)]


@pytest.fixture(scope="module")
def peer():
    return run_peer("evidently", "evidently", CASES)


@pytest.mark.parametrize("n", range(len(CASES)))
def test_evidently_preset_means(peer, n):
    assert "ok" in peer[n], peer[n]
    out = peer[n]["ok"]
    truth, recs, _ = as_inputs(CASES[n])
    res = rm.evaluate(truth, recs, list(out), preset="evidently")
    for name, values in out.items():
        check(res, name, values, tag="evidently")


@pytest.fixture(scope="module")
def peer_short():
    return run_peer("evidently", "evidently", SHORT), run_peer("evidently", "evidently_legacy", SHORT)


@pytest.mark.parametrize("n", range(len(SHORT)))
def test_evidently_preset_short_lists(peer_short, n):
    """Lists of 1..k+4 items: the new API's PrecisionTopK, RecallTopK, MAP, NDCG, MRR, HitRate and the legacy
    MAPKMetric, MARKMetric and PrecisionTopKMetric (MAR has no new-API metric) against preset="evidently"."""
    new, legacy = (p[n] for p in peer_short)
    assert "ok" in new, new
    assert "ok" in legacy, legacy
    out = {**new["ok"], **legacy["ok"]}
    truth, recs, _ = as_inputs(SHORT[n])
    assert any(len(v) < SHORT[n]["k"] for v in recs.values())
    res = rm.evaluate(truth, recs, list(out), preset="evidently")
    for name, values in out.items():
        check(res, name, values, tag="evidently")
    for name in ("ap", "precision"):  # the same means from both APIs
        assert new["ok"][f"{name}@{SHORT[n]['k']}"]["mean"] == pytest.approx(
            legacy["ok"][f"{name}@{SHORT[n]['k']}"]["mean"], rel=1e-12
        )


def test_evidently_short_lists_differ_from_pad():
    """The convention matters on these cases (the test above could not pass with short_lists='pad')."""
    truth, recs, _ = as_inputs(SHORT[1])
    k = SHORT[1]["k"]
    a = rm.evaluate(truth, recs, [f"ap@{k}", f"ar@{k}", f"precision@{k}"], preset="evidently")
    b = rm.evaluate(
        truth,
        recs,
        [f"{m}(short_lists=pad,rows=list)@{k}" for m in ("ap", "ar", "precision")],
        preset="evidently",
    )
    assert a[f"ap@{k}"] > b[f"ap(short_lists=pad,rows=list)@{k}"]
    assert a[f"ar@{k}"] > b[f"ar(short_lists=pad,rows=list)@{k}"]
    assert a[f"precision@{k}"] > b[f"precision(short_lists=pad,rows=list)@{k}"]


def _div_case(seed, k):
    g = np.random.default_rng(seed)
    c = _case(seed, n_users=20, k=max(k, 2), n_items=30)
    c["k"] = k
    c["features"] = [[i, g.integers(0, 3, 4).tolist()] for i in range(30)]
    return c


DIV = [_div_case(s, k) for s in range(2) for k in (2, 4, 7)]


def test_evidently_diversity_divides_by_the_list_length():
    """Evidently's Diversity = mean over users of (sum of pairwise cosine distances in the top k) / n, which is
    rankmeter's diversity(divide_by=items), the preset's (docs/metrics.md 11.2): the per-user diversity * (n - 1) / 2."""
    out = run_peer("evidently", "evidently_diversity", DIV)
    for case, o in zip(DIV, out):
        assert "ok" in o, o
        k = case["k"]
        truth, recs, _ = as_inputs(case)
        feats = {i: np.asarray(v, dtype=float) for i, v in case["features"]}
        res = rm.evaluate(
            truth, recs, [f"diversity@{k}", f"diversity(divide_by=pairs)@{k}"], preset="evidently", item_features=feats
        )
        assert res[f"diversity@{k}"] == pytest.approx(o["ok"][f"diversity@{k}"]["mean"], rel=1e-9)
        n = np.array([min(len(recs[u]), k) for u in res.users], dtype=float)
        pairs = np.asarray(res.per_user[f"diversity(divide_by=pairs)@{k}"])
        assert float(np.mean(pairs * (n - 1) / 2)) == pytest.approx(res[f"diversity@{k}"], rel=1e-12)
