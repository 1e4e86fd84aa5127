"""preset="capri" nDCG against a restatement of CAPRI's code path (CAPRI is not on PyPI, so it is not run).

CAPRI (github.com/CapriRecSys/CAPRI), Evaluations/evaluator.py calls ``ndcgk(actual, predicted[:topK])`` per user;
Evaluations/metrics/accuracy.py computes it in float32 and returns ``round(rdcg / idcg, 4)`` (a numpy float32),
0.0 when the list's DCG is 0. ``capri_ndcgk`` below restates those numpy calls one user at a time; rankmeter's
``ndcg(gain=binary,ideal=all,rounding=capri)`` (what the preset sets) must give the same float32 value for every
user, bit for bit.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import rankmeter as rm


def _capri_dcg(scores):
    return np.sum(
        np.divide(np.power(2, scores) - 1, np.log(np.arange(scores.shape[0], dtype=np.float32) + 2)), dtype=np.float32
    )


def capri_ndcgk(actual, predicted, at=None):
    """CAPRI's ndcgk with relevance=None, restated (ids as ints, as CAPRI's np.ones_like(actual) needs)."""
    actual, predicted = np.asarray(list(actual)), np.asarray(list(predicted))
    relevance = np.ones_like(actual)
    item2rel = dict(zip(actual.tolist(), relevance.tolist()))
    rank_scores = np.asarray([item2rel.get(it, 0.0) for it in predicted[:at].tolist()], dtype=np.float32)
    idcg = _capri_dcg(np.sort(relevance)[::-1])
    rdcg = _capri_dcg(rank_scores)
    if rdcg == 0.0:
        return 0.0
    return round(rdcg / idcg, 4)


def _random(seed, n_users=400, n_items=60, max_len=25, max_rel=20):
    g = np.random.default_rng(seed)
    truth, recs = {}, {}
    for u in range(n_users):
        rel = g.choice(n_items, int(g.integers(1, max_rel)), replace=False)
        truth[u] = {int(i): 1 for i in rel}
        if g.random() < 0.05:
            continue  # no list: missing='zero' scores 0, as an empty predicted list does in CAPRI
        lst = g.choice(n_items, int(g.integers(0, max_len)), replace=False)
        recs[u] = [int(i) for i in lst]
    return truth, recs


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 3, 5, 10, 30])
def test_capri_ndcg_per_user_bit_for_bit(seed, k):
    truth, recs = _random(seed)
    res = rm.evaluate(truth, recs, [f"ndcg@{k}"], preset="capri")
    got = dict(zip(res.users.tolist(), np.asarray(res.per_user[f"ndcg@{k}"]).tolist()))
    want = {u: capri_ndcgk(list(truth[u]), recs.get(u, [])[:k]) for u in truth}
    for u in truth:
        assert got[u] == float(want[u]), (u, got[u], want[u])  # the same float32 value
    # the mean: rankmeter's exact mean of those values; CAPRI's np.mean (float32 when no user scores 0)
    values = [float(want[u]) for u in truth]
    assert res[f"ndcg@{k}"] == pytest.approx(math.fsum(values) / len(values), rel=1e-15)
    assert res[f"ndcg@{k}"] == pytest.approx(float(np.mean([want[u] for u in truth])), rel=1e-6)


def test_capri_rounding_is_not_plain_rounding():
    """Per user the value is float32: round(x, 4) of the float64 NDCG differs from it (and for some users even
    beyond float32's precision, where CAPRI's float32 sums land on the other side of a 4th-decimal midpoint)."""
    truth, recs = _random(0)
    a = rm.evaluate(truth, recs, ["ndcg@10"], preset="capri").per_user["ndcg@10"]
    b = rm.evaluate(truth, recs, ["ndcg(gain=binary,ideal=all)@10"], preset="capri").per_user[
        "ndcg(gain=binary,ideal=all)@10"
    ]
    assert not np.array_equal(a, np.round(b, 4))
    assert np.all(np.abs(a - b) <= 5e-5 + 1e-7)


def test_capri_edge_cases():
    # empty truth user (0), empty list (0), k beyond the list, one user, huge and string ids
    truth = {"a": {1: 1, 2: 1}, "b": {}, "c": {3: 1}, "d": {2**62: 1, 5: 1}}
    recs = {"a": [2, 7, 1], "b": [1], "c": [], "d": [9, 2**62]}
    res = rm.evaluate(truth, recs, ["ndcg@5", "ndcg"], preset="capri")
    want = [capri_ndcgk([1, 2], [2, 7, 1]), 0.0, 0.0, capri_ndcgk([2**62, 5], [9, 2**62])]
    assert res.per_user["ndcg@5"].tolist() == [float(w) for w in want]
    assert res.per_user["ndcg"].tolist() == [float(w) for w in want]
    s = rm.evaluate({"x": {"i1": 1, "i2": 1}}, {"x": ["i9", "i2"]}, ["ndcg@2"], preset="capri")
    assert s["ndcg@2"] == float(capri_ndcgk([1, 2], [9, 2]))
    one = rm.evaluate({0: {4: 1}}, {0: [4]}, ["ndcg@3"], preset="capri")
    assert one["ndcg@3"] == 1.0
    none = rm.evaluate({}, {}, ["ndcg@3"], preset="capri")
    assert math.isnan(none["ndcg@3"])
    # max_items truncates first; padded 2-D recs and scored dicts give the same
    t2 = {0: {1: 1, 2: 1}, 1: {3: 1}}
    assert (
        rm.evaluate(t2, {0: [9, 8, 1, 2], 1: [3]}, ["ndcg@4"], preset="capri", max_items=3)["ndcg@4"]
        == rm.evaluate(t2, {0: [9, 8, 1], 1: [3]}, ["ndcg@4"], preset="capri")["ndcg@4"]
    )
    padded = rm.evaluate(t2, np.array([[9, 1, 2], [3, -1, -1]]), ["ndcg@3"], preset="capri")
    scored = rm.evaluate(t2, {0: {9: 3.0, 1: 2.0, 2: 1.0}, 1: {3: 1.0}}, ["ndcg@3"], preset="capri")
    assert (
        padded.per_user["ndcg@3"].tolist()
        == scored.per_user["ndcg@3"].tolist()
        == [float(capri_ndcgk([1, 2], [9, 1, 2])), 1.0]
    )


def test_capri_rounding_options_are_checked():
    with pytest.raises(ValueError, match="rounding='capri'"):
        rm.evaluate({0: [1]}, {0: [1]}, ["ndcg(rounding=capri)@3"])  # linear gain, ideal=cut: not CAPRI's
    with pytest.raises(ValueError, match="duplicates='first'"):
        rm.evaluate({0: [1]}, {0: [1, 1]}, ["ndcg@3"], preset="capri", duplicates="first")
    with pytest.raises(ValueError, match="tie-averaged"):
        rm.evaluate({0: [1]}, {0: {1: 1.0}}, ["ndcg@3"], preset="capri", ties="average")
    with pytest.raises(ValueError, match="more than once"):
        rm.evaluate({0: [1]}, {0: [1, 1]}, ["ndcg@3"], preset="capri", duplicates="error")


def test_capri_states_merge_to_the_same_mean():
    truth, recs = _random(5, n_users=120)
    whole = rm.evaluate(truth, recs, ["ndcg@10"], preset="capri")["ndcg@10"]
    users = list(truth)
    parts = [
        rm.partial(
            {u: truth[u] for u in users[i::3]},
            {u: recs[u] for u in users[i::3] if u in recs},
            ["ndcg@10"],
            preset="capri",
            missing="zero",
        )
        for i in range(3)
    ]
    assert rm.State.merge_all(parts).finalize()["ndcg@10"] == whole


def capri_mapk(actual, predicted, k=10):
    """CAPRI's mapk (Evaluations/metrics/accuracy.py), restated: a prediction counts when it is in actual and not
    already listed above it (a repeat keeps its position), the sum of precisions at those positions divided by
    min(len(actual), k); 0 for an empty actual. evaluator.py passes predicted[:topK]."""
    score, hits = 0.0, 0.0
    for i, p in enumerate(predicted):
        if p in actual and p not in predicted[:i]:
            hits += 1.0
            score += hits / (i + 1.0)
    if not actual:
        return 0.0
    return score / min(len(actual), k)


def capri_precisionk(actual, recommended):
    """CAPRI's precisionk, restated: distinct recommended items that are relevant / len(recommended)."""
    return 1.0 * len(set(actual) & set(recommended)) / len(recommended)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k", [1, 3, 10])
def test_capri_mapk_and_precisionk_on_lists_with_repeats(seed, k):
    # the preset's duplicates="miss": a repeat keeps its position and is never a hit again, as CAPRI's mapk,
    # precisionk and recallk read it
    g = np.random.default_rng(100 + seed)
    truth, recs = {}, {}
    for u in range(300):
        truth[u] = {int(i): 1 for i in g.choice(30, int(g.integers(1, 8)), replace=False)}
        recs[u] = [int(i) for i in g.integers(0, 30, int(g.integers(1, 20)))]  # drawn with replacement: repeats
    assert any(len(set(r)) < len(r) for r in recs.values())
    res = rm.evaluate(truth, recs, [f"map@{k}"], preset="capri")
    want = [capri_mapk(list(truth[u]), recs[u][:k], k) for u in truth]
    assert res.per_user[f"map@{k}"].tolist() == pytest.approx(want, rel=1e-15)
    # precisionk(actual, predicted[:topK]): precision without cutoff over the first k positions
    prec = rm.evaluate(truth, recs, ["precision"], preset="capri", max_items=k)
    assert prec.per_user["precision"].tolist() == pytest.approx(
        [capri_precisionk(list(truth[u]), recs[u][:k]) for u in truth], rel=1e-15
    )
    # a repeat above a hit: CAPRI's mapk and the preset give (1 + 2/3) / 2; duplicates="first" would give 1
    one = rm.evaluate({0: {1: 1, 2: 1}}, {0: [1, 1, 2]}, ["map@3"], preset="capri")["map@3"]
    assert one == capri_mapk([1, 2], [1, 1, 2], 3) == (1 + 2 / 3) / 2
