"""duplicates="miss" and duplicates="count" (docs/metrics.md 6.1) against the pure-Python reference.

"miss": a repeated item keeps its position (the items after it do not move up) but is never a hit
again (ml_metrics' apk, recmetrics, CAPRI's mapk). "count": every occurrence of a relevant item is a
hit at its position with its grade's gain (Spark's RankingMetrics), so hits can exceed |R| and recall,
AP or NDCG exceed 1. The reference (tests/support/reference.py, ``prepare_list``) keeps a "miss" repeat
as a placeholder no truth holds and a "count" repeat as the item itself; its metric functions read
each position. The C++ pass must give the reference's values on every path of the list scan (the dense
marker array and the hash table, the branch-free scan and its fallback, padded rows, int32 ids, the
AVX2 scan), for any thread count and any split of the users into batches merged with ``partial``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.support import reference_beyond as rb
from tests.support.reference import ALL_METRIC_BASES, Repeat, prepare_list, read_depth, reference_evaluate
from tests.support.same import close, same_bits

SETTINGS: dict[str, Any] = dict(
    deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
POLICIES = ("miss", "count")


# --------------------------------------------------------------------------- worked examples (by hand)
def test_miss_keeps_the_repeats_position_and_never_counts_it():
    # truth {a, b}; list a, a, x, b: the repeat of a sits at position 2 and is no hit
    truth, recs = {1: {"a": 1, "b": 1}}, {1: ["a", "a", "x", "b"]}
    res = rm.evaluate(truth, recs, ["hits@4", "precision@2", "recall@4", "ap@4", "rr", "ndcg@4"], duplicates="miss")
    assert res["hits@4"] == 2.0
    assert res["precision@2"] == 0.5  # one hit in two positions (first would close up: a, x, b)
    assert res["recall@4"] == 1.0
    assert res["ap@4"] == (1 / 1 + 2 / 4) / 2  # hits at positions 1 and 4
    assert res["rr"] == 1.0
    idcg = 1 + 1 / math.log2(3)
    assert res["ndcg@4"] == pytest.approx((1 + 1 / math.log2(5)) / idcg, rel=1e-15)
    # "first" closes the list up: b moves to position 3
    first = rm.evaluate(truth, recs, ["ap@4"], duplicates="first")
    assert first["ap@4"] == (1 / 1 + 2 / 3) / 2


def test_count_counts_every_occurrence_at_its_position():
    # Spark's RankingMetrics: truth {a, b}, list a, a, x, b
    truth, recs = {1: {"a": 1, "b": 1}}, {1: ["a", "a", "x", "b"]}
    res = rm.evaluate(
        truth, recs, ["hits@4", "precision@2", "recall@4", "ap@4", "ndcg@2", "r_precision"], duplicates="count"
    )
    assert res["hits@4"] == 3.0
    assert res["precision@2"] == 1.0
    assert res["recall@4"] == 1.5  # 3 hits / |R| = 2: recall above 1, as Spark's recallAt
    assert res["ap@4"] == (1 / 1 + 2 / 2 + 3 / 4) / 2
    assert res["ndcg@2"] == 1.0  # both of the first two positions gain 1, the ideal too
    assert res["r_precision"] == 1.0  # hits in the first |R| = 2 positions / 2
    over = rm.evaluate({1: {"a": 1}}, {1: ["a", "a"]}, ["ndcg@2", "recall@2"], duplicates="count")
    assert over["ndcg@2"] == pytest.approx(1 + 1 / math.log2(3), rel=1e-15)  # the ideal holds one gain
    assert over["recall@2"] == 2.0


def test_a_repeated_non_relevant_item_is_a_miss_under_both():
    truth, recs = {1: {"a": 1}}, {1: ["x", "x", "a"]}
    for d in POLICIES:
        res = rm.evaluate(truth, recs, ["rr", "hits@3", "precision@3"], duplicates=d)
        assert (res["rr"], res["hits@3"], res["precision@3"]) == (1 / 3, 1.0, 1 / 3), d


def test_cutoffs_read_positions_not_distinct_items():
    # the cutoff counts the repeat's position under miss and count; "first" reads 3 distinct items
    truth, recs = {1: {"c": 1}}, {1: ["a", "a", "b", "c"]}
    assert rm.evaluate(truth, recs, ["hits@3"], duplicates="miss")["hits@3"] == 0.0
    assert rm.evaluate(truth, recs, ["hits@3"], duplicates="count")["hits@3"] == 0.0
    assert rm.evaluate(truth, recs, ["hits@3"], duplicates="first")["hits@3"] == 1.0
    # repeats beyond the read part are never looked at, whatever the policy
    assert rm.evaluate(truth, {1: ["c", "a", "a"]}, ["hits@2"])["hits@2"] == 1.0


def test_grades_and_walk_metrics_follow_the_convention():
    truth, recs = {1: {"a": 3, "b": 0}}, {1: ["b", "a", "b", "a"]}
    miss = rm.evaluate(truth, recs, ["cg@4", "judged@4", "err@4"], duplicates="miss")
    count = rm.evaluate(truth, recs, ["cg@4", "judged@4", "err@4"], duplicates="count")
    assert miss["cg@4"] == 3.0 and count["cg@4"] == 6.0
    assert miss["judged@4"] == 0.5 and count["judged@4"] == 1.0
    # bpref, R = {a, c}, N = {b}: a, a (repeat), b, c: a adds 1 (nothing judged above it), its repeat adds 1
    # under count only, c adds 1 - min(1, 2) / min(1, 2) = 0; / R
    t2, r2 = {1: {"a": 3, "c": 2, "b": 0}}, {1: ["a", "a", "b", "c"]}
    assert rm.evaluate(t2, r2, ["bpref"], duplicates="miss")["bpref"] == 0.5
    assert rm.evaluate(t2, r2, ["bpref"], duplicates="count")["bpref"] == 1.0
    r = (2**3 - 1) / 2**4
    assert miss["err@4"] == pytest.approx(r / 2, rel=1e-15)
    assert count["err@4"] == pytest.approx(r / 2 + (1 - r) * r / 4, rel=1e-15)


def test_the_option_is_checked_and_named():
    with pytest.raises(ValueError, match="duplicates"):
        rm.evaluate({1: [1]}, {1: [1]}, ["hits"], duplicates="all")
    with pytest.raises(ValueError, match=r"more than once.*'miss'.*'count'"):
        rm.evaluate({1: [1]}, {1: [1, 1]}, ["hits"])


# --------------------------------------------------------------------------- random data against the reference
ID_KINDS = ("small", "huge", "string", "int32")


def _pool(kind: str, n: int) -> list:
    if kind == "huge":
        return [2**62 + 7 * i for i in range(n)]
    if kind == "string":
        return [f"i{i}" for i in range(n)]
    return list(range(n))


@st.composite
def repeat_scenarios(draw, kinds=ID_KINDS):
    """Users whose lists repeat items often (within and beyond the cutoffs), graded truth."""
    kind = draw(st.sampled_from(kinds))
    pool = _pool(kind, draw(st.sampled_from([3, 6, 12, 40])))
    n_users = draw(st.integers(1, 7))
    truth, recs = {}, {}
    for u in range(n_users):
        m = draw(st.integers(0, min(6, len(pool))))
        truth[u] = {i: draw(st.sampled_from([0, 1, 2, 3, 0.5, -1])) for i in draw(st.permutations(pool))[:m]}
        if draw(st.integers(0, 6)) == 0:
            continue  # a truth user without recommendations
        length = draw(st.sampled_from([0, 1, 2, 3, 5, 8, 13, 30]))
        recs[u] = [draw(st.sampled_from(pool)) for _ in range(length)]
    if not recs:
        recs[0] = [pool[0], pool[0]]
    k = draw(st.sampled_from([1, 2, 3, 5, 10]))
    bases = draw(st.lists(st.sampled_from(ALL_METRIC_BASES), min_size=1, max_size=8, unique=True))
    metrics = [f"{b}@{k}" for b in bases] + [f"{b}@{draw(st.integers(1, 12))}" for b in bases[:3]]
    if draw(st.booleans()):
        metrics += [draw(st.sampled_from(["ndcg", "ap", "precision", "r_precision", "num_rel", "bpref"]))]
    opts = dict(
        duplicates=draw(st.sampled_from(POLICIES)),
        empty=draw(st.sampled_from(["skip", "zero", "one"])),
        min_relevance=draw(st.sampled_from([None, None, 0, 1, 2])),
        max_items=draw(st.sampled_from([None, None, 2, 4, 9])),
    )
    return kind, truth, recs, sorted(set(metrics)), opts


def _recs_arg(kind: str, recs: dict):
    if kind != "int32":
        return recs
    users = list(recs)
    indptr = np.concatenate([[0], np.cumsum([len(recs[u]) for u in users])]).astype(np.int64)
    items = np.array([i for u in users for i in recs[u]], dtype=np.int32)
    return rm.Recs.from_csr(indptr, items, users=users)


def _truth_arg(kind: str, truth: dict):
    if kind != "int32":
        return truth
    users = list(truth)
    indptr = np.concatenate([[0], np.cumsum([len(truth[u]) for u in users])]).astype(np.int64)
    items = np.array([i for u in users for i in truth[u]], dtype=np.int32)
    grades = np.array([g for u in users for g in truth[u].values()], dtype=np.float64)
    return rm.Truth.from_csr(indptr, items, grades, users=users)


def _compare(res, metrics, per_user, means, users):
    assert res.users.tolist() == users
    for m in metrics:
        got = res.per_user[m].tolist()
        for u, g, e in zip(users, got, per_user[m]):
            assert close(g, e, rel=1e-12), (m, u, g, e)
        assert close(res[m], means[m], rel=1e-12), (m, res[m], means[m])


@settings(max_examples=400, **SETTINGS)
@given(repeat_scenarios())
def test_random_repeats_match_the_reference(scenario):
    kind, truth, recs, metrics, opts = scenario
    means, per_user, meta = reference_evaluate(truth, recs, metrics, **opts)
    res = rm.evaluate(_truth_arg(kind, truth), _recs_arg(kind, recs), metrics, **opts)
    _compare(res, metrics, per_user, means, meta["users"])
    assert res.meta["n_skipped"] == meta["n_skipped"]


@settings(max_examples=80, **SETTINGS)
@given(repeat_scenarios(), st.integers(1, 4))
def test_repeats_give_the_same_bits_for_any_thread_count_and_batch_split(scenario, n_parts):
    kind, truth, recs, metrics, opts = scenario
    whole = rm.evaluate(_truth_arg(kind, truth), _recs_arg(kind, recs), metrics, threads=1, **opts)
    for threads in (2, 4):
        other = rm.evaluate(_truth_arg(kind, truth), _recs_arg(kind, recs), metrics, threads=threads, **opts)
        for m in metrics:
            assert same_bits(whole.per_user[m], other.per_user[m]), (m, threads)
            assert same_bits(whole[m], other[m]), (m, threads)
    users = list(truth)
    parts = []
    for j in range(n_parts):
        mine = users[j::n_parts]
        t = {u: truth[u] for u in mine}
        r = {u: recs[u] for u in mine if u in recs}
        parts.append(rm.partial(t, r, metrics, **opts))
    merged = rm.State.merge_all(parts).finalize()
    for m in metrics:
        assert same_bits(merged[m], whole[m]), (m, merged[m], whole[m])


@settings(max_examples=60, **SETTINGS)
@given(repeat_scenarios(kinds=("small",)))
def test_padded_rows_read_repeats_as_lists_do(scenario):
    _, truth, recs, metrics, opts = scenario
    base = rm.evaluate(truth, recs, metrics, **opts)
    users = list(recs)
    width = max(len(v) for v in recs.values()) + 1
    arr = np.full((len(users), width), -1, dtype=np.int64)
    for j, u in enumerate(users):
        arr[j, : len(recs[u])] = recs[u]
    padded = rm.evaluate(truth, rm.Recs.from_array(arr, pad=-1, users=users), metrics, **opts)
    for m in metrics:
        assert same_bits(base.per_user[m], padded.per_user[m]), m


@pytest.mark.parametrize("simd", ["0", "1"])
@pytest.mark.parametrize("policy", POLICIES)
def test_scalar_and_vector_scans_find_the_same_repeats(monkeypatch, simd, policy):
    # repeats inside one group of four ids, across groups, of truth and non-truth items, beyond the cutoff
    rng = np.random.default_rng(3)
    truth, recs = {}, {}
    for u in range(300):
        truth[u] = {int(i): int(rng.integers(0, 4)) for i in rng.choice(60, int(rng.integers(0, 8)), replace=False)}
        lst = rng.integers(0, 60, int(rng.integers(0, 25))).tolist()
        recs[u] = lst
    metrics = ["hits@10", "ap@10", "ndcg@5", "rr@20", "precision@3", "recall", "bpref@10", "judged@4"]
    monkeypatch.setenv("RANKMETER_SIMD", simd)
    res = rm.evaluate(truth, recs, metrics, duplicates=policy, empty="zero")
    means, per_user, meta = reference_evaluate(truth, recs, metrics, duplicates=policy, empty="zero")
    _compare(res, metrics, per_user, means, meta["users"])


def test_the_reference_keeps_a_miss_repeat_as_a_placeholder():
    lst = prepare_list(1, ["a", "a", "b"], "miss", None)
    assert lst[0] == "a" and isinstance(lst[1], Repeat) and lst[2] == "b"
    assert prepare_list(1, ["a", "a", "b"], "count", None) == ["a", "a", "b"]
    assert prepare_list(1, ["a", "a", "b", "c"], "count", 2, 5) == ["a", "a"]
    assert read_depth(["hits@3", "ndcg@5"]) == 5


# --------------------------------------------------------------------------- beyond accuracy, ties, CAPRI
BEYOND_READ_AS_GIVEN = [
    "novelty@3",
    "novelty(unseen=zero,divide_by=k,popularity=interactions)@4",
    "arp@3",
    "diversity@3",
    "diversity(similarity=matrix)@4",
    "coverage@3",
    "coverage",
    "gini@3",
    "score_entropy@2",
]


@settings(max_examples=120, **SETTINGS)
@given(st.data())
def test_beyond_metrics_read_every_occurrence_under_miss_and_count(data):
    pool = list(range(8))
    n_users = data.draw(st.integers(1, 5))
    lists = {u: [data.draw(st.sampled_from(pool)) for _ in range(data.draw(st.integers(0, 7)))] for u in range(n_users)}
    scores = {
        u: sorted((data.draw(st.floats(-3, 3, allow_nan=False)) for _ in lst), reverse=True) for u, lst in lists.items()
    }
    truth = {u: {data.draw(st.sampled_from(pool)): 1} for u in range(n_users)}
    train = {100 + j: data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=5)) for j in range(3)}
    feats = {i: [float(data.draw(st.integers(-2, 2))) for _ in range(3)] for i in pool}
    sim = {(a, b): (1.0 if a == b else ((a * 7 + b * 7) % 5) / 4.0) for a in pool for b in pool}
    S = np.array([[sim[(a, b)] for b in pool] for a in pool])
    policy = data.draw(st.sampled_from(POLICIES))
    max_items = data.draw(st.sampled_from([None, 3]))
    users = list(range(n_users))
    indptr = np.concatenate([[0], np.cumsum([len(lists[u]) for u in users])]).astype(np.int64)
    recs = rm.Recs.from_csr(
        indptr,
        np.array([i for u in users for i in lists[u]], dtype=np.int64),
        np.array([s for u in users for s in scores[u]], dtype=np.float64),
    )
    res = rm.evaluate(
        truth,
        recs,
        BEYOND_READ_AS_GIVEN,
        duplicates=policy,
        max_items=max_items,
        train=train,
        item_features=feats,
        item_similarity=(np.array(pool), S),
    )
    given_ = {u: (lists[u][:max_items] if max_items else lists[u]) for u in users}
    given_scores = {u: (scores[u][:max_items] if max_items else scores[u]) for u in users}
    cat = rb.default_catalog(train, None)
    for metric in BEYOND_READ_AS_GIVEN:
        m = rm.metrics.parse(metric)
        k, o = m.k, m.options
        if m.name == "novelty":
            want = rb.mean(
                [rb.novelty(given_[u], k, train, o["unseen"], o["divide_by"], o["popularity"]) for u in users]
            )
        elif m.name == "arp":
            want = rb.mean([rb.arp(given_[u], k, train) for u in users])
        elif m.name == "diversity" and o["similarity"] == "features":
            want = rb.mean([rb.diversity_features(given_[u], k, feats) for u in users])
        elif m.name == "diversity":
            want = rb.mean([rb.diversity_matrix(given_[u], k, sim) for u in users])
        elif m.name == "coverage":
            want = rb.coverage(list(given_.values()), k, cat)
        elif m.name == "gini":
            want = rb.gini(list(given_.values()), k, cat)
        else:
            want = rb.score_entropy(list(given_scores.values()), k)
        assert close(res[metric], want), (metric, policy, res[metric], want)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("metric", ["personalization@3", "serendipity@3", "fcp"])
def test_set_and_hit_based_beyond_metrics_refuse_a_repeat(policy, metric):
    kw: dict[str, Any] = dict(train={9: [1, 2]}, item_features={1: [1.0], 2: [0.5], 3: [0.2]})
    with pytest.raises(ValueError, match=rf"more than once.*{metric.split('@')[0]}.*duplicates='{policy}'"):
        rm.evaluate({1: {1: 1}, 2: {2: 1}}, {1: [1, 1, 2], 2: [2, 3]}, ["hits@3", metric], duplicates=policy, **kw)
    # without a repeat they run
    rm.evaluate({1: {1: 1}, 2: {2: 1}}, {1: [1, 3, 2], 2: [2, 3]}, ["hits@3", metric], duplicates=policy, **kw)


def test_tie_averaged_dcg_follows_the_convention():
    # truth {1, 2}; list 1 (score 3), then 1 again and 3 tied at score 2, then 2 (score 1)
    import pandas as pd

    truth = {0: {1: 1, 2: 1}}
    df = pd.DataFrame({"user_id": [0, 0, 0, 0], "item_id": [1, 1, 3, 2], "score": [3.0, 2.0, 2.0, 1.0]})
    d23 = 1 / math.log2(3) + 1 / math.log2(4)
    idcg = 1 + 1 / math.log2(3)
    miss = rm.evaluate(truth, df, ["ndcg@3", "dcg@4"], ties="average", duplicates="miss")
    count = rm.evaluate(truth, df, ["ndcg@3", "dcg@4"], ties="average", duplicates="count")
    assert miss["ndcg@3"] == pytest.approx(1 / idcg, rel=1e-15)  # the tied repeat gains nothing
    assert count["ndcg@3"] == pytest.approx((1 + 0.5 * d23) / idcg, rel=1e-15)  # half of the group's gain
    assert count["dcg@4"] == pytest.approx(1 + 0.5 * d23 + 1 / math.log2(5), rel=1e-15)
    with pytest.raises(ValueError, match="duplicates='first'"):
        rm.evaluate(truth, df, ["ndcg@3"], ties="average", duplicates="first")


def test_capri_ndcg_reads_a_repeat_per_the_convention():
    from tests.compat.test_capri import capri_ndcgk

    truth, recs = {0: {1: 1, 2: 1}}, {0: [1, 1, 3, 2]}
    count = rm.evaluate(truth, recs, ["ndcg@4"], preset="capri", duplicates="count")
    assert count["ndcg@4"] == float(capri_ndcgk([1, 2], [1, 1, 3, 2]))  # ndcgk gains the repeat again
    miss = rm.evaluate(truth, recs, ["ndcg@4"], preset="capri")  # the preset's duplicates="miss"
    assert miss["ndcg@4"] == float(capri_ndcgk([1, 2], [1, 99, 3, 2]))  # the repeat's position gains nothing
