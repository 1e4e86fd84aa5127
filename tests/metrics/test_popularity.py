"""Popularity and long-tail metrics (docs/metrics.md 3.19.13-3.19.19) against the naive references
(tests/support/reference_popularity.py) on hypothesis-generated data, plus thread / batch / row-order
determinism, exact merging of shannon_entropy, option checks and worked examples."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankmeter as rm
from tests.metrics.test_beyond import SETTINGS, _call, workload
from tests.support import reference_popularity as rp
from tests.support.same import close

POPULARITY_METRICS = [
    "shannon_entropy@3",
    "shannon_entropy",
    "shannon_entropy(log_base=2)@2",
    "shannon_entropy(normalize=distinct)@3",
    "tail_percentage@3",
    "tail_percentage(tail_ratio=0.5)",
    "tail_percentage(tail_ratio=2)@2",
    "aplt@3",
    "aplt(head_share=0.5,popularity=interactions)",
    "aplt(head_share=0)@2",
    "aclt@3",
    "aclt(head_share=1)",
    "aclt(head_share=0.3,popularity=interactions)@4",
    "surprisal@3",
    "surprisal",
    "epc@3",
    "epc(discount=none)",
    "epc(relevance=none)@2",
    "efd@3",
    "efd(discount=none,relevance=none)",
    "user_coverage@3",
    "user_coverage",
    "user_coverage(served=any)@2",
    "user_coverage(served=full)@3",
    "user_coverage(served=full)",
]


def _reference(truth, lists, train, metric, empty="skip"):
    m = rm.metrics.parse(metric)
    k, o = m.k, m.options
    users = list(truth)
    L = {u: lists.get(u, []) for u in users}
    if m.name == "shannon_entropy":
        return None, rp.shannon_entropy([L[u] for u in users], k, o["log_base"], o["normalize"])
    if m.name == "tail_percentage":
        per = [rp.tail_percentage(L[u], k, train, o["tail_ratio"]) for u in users]
    elif m.name in ("aplt", "aclt"):
        f = rp.aplt if m.name == "aplt" else rp.aclt
        per = [f(L[u], k, train, o["head_share"], o["popularity"]) for u in users]
    elif m.name == "surprisal":
        per = [rp.surprisal(L[u], k, train) for u in users]
    elif m.name in ("epc", "efd"):
        g = rp.epc if m.name == "epc" else rp.efd
        per = [g(truth[u], L[u], k, train, o["discount"], o["relevance"], empty) for u in users]
    else:
        per = [rp.user_coverage(truth[u], L[u], k, o["served"]) for u in users]
    vals = [v for v in per if not math.isnan(v)]
    return per, (math.fsum(vals) / len(vals) if vals else math.nan)


def _check(data, metrics, empty="skip"):
    truth, lists, scores, train, feats, sim, conv = data
    res = _call(truth, lists, scores, train, feats, sim, conv, metrics, empty=empty)
    for metric in metrics:
        per, mean = _reference(truth, lists, train, metric, empty=empty)
        assert close(res[metric], mean), (metric, res[metric], mean)
        if per is not None:
            got = res.per_user[metric].tolist()
            assert len(got) == len(per)
            assert all(close(a, b) for a, b in zip(got, per)), (metric, got, per)


@SETTINGS
@given(workload())
def test_popularity_metrics_match_reference_int_ids(data):
    _check(data, POPULARITY_METRICS)


@SETTINGS
@given(workload(string_ids=True))
def test_popularity_metrics_match_reference_string_ids(data):
    _check(data, POPULARITY_METRICS)


@SETTINGS
@given(workload())
def test_huge_int_ids_take_the_coded_path_with_the_same_values(data):
    truth, lists, scores, train, feats, sim, conv = data
    big = 2**40

    def shift(i):
        return i + big if isinstance(i, int) else i

    a = _call(truth, lists, scores, train, feats, sim, conv, POPULARITY_METRICS)
    b = _call(
        {u: {shift(i): g for i, g in t.items()} for u, t in truth.items()},
        {u: [shift(i) for i in lst] for u, lst in lists.items()},
        scores,
        {u: [shift(i) for i in items] for u, items in train.items()},
        {shift(i): f for i, f in feats.items()},
        {(shift(a), shift(b)): v for (a, b), v in sim.items()},
        lambda i: shift(conv(i)),
        POPULARITY_METRICS,
    )
    for m in POPULARITY_METRICS:
        assert close(a[m], b[m]), m


@pytest.mark.parametrize("empty", ["zero", "one"])
@SETTINGS
@given(data=workload())
def test_users_without_a_relevant_item_score_the_empty_value_in_epc_and_efd(data, empty):
    _check(data, ["epc@3", "efd", "epc(relevance=none)@2"], empty=empty)


@pytest.fixture(scope="module")
def medium():
    w = rm.datasets.w1(6000, n_items=500, seed=4)
    train = (w.truth_indptr, (w.truth_items + 7) % 500)
    return w, train


def _evaluate(w, train, threads=None, **kw):
    return rm.evaluate(
        (w.truth_indptr, w.truth_items, w.truth_grades),
        rm.Recs.from_csr(w.recs_indptr, w.recs_items),
        POPULARITY_METRICS,
        train=train,
        threads=threads,
        **kw,
    )


def test_popularity_metrics_bit_identical_across_threads(medium):
    w, train = medium
    base = _evaluate(w, train, threads=1)
    for threads in (2, 3, 8):
        res = _evaluate(w, train, threads=threads)
        for m in POPULARITY_METRICS:
            assert res[m] == base[m] or (math.isnan(res[m]) and math.isnan(base[m])), m
            if rm.metrics.parse(m).family == "user":
                assert res.per_user[m].tobytes() == base.per_user[m].tobytes(), m


def test_popularity_metrics_merge_exactly_over_user_batches(medium):
    w, train = medium
    ti, tt, tg, ri, rr = w.truth_indptr, w.truth_items, w.truth_grades, w.recs_indptr, w.recs_items
    n = ti.size - 1
    truth = {u: dict(zip(tt[ti[u] : ti[u + 1]].tolist(), tg[ti[u] : ti[u + 1]].tolist())) for u in range(n)}
    recs = {u: rr[ri[u] : ri[u + 1]].tolist() for u in range(n)}
    one = rm.evaluate(truth, recs, POPULARITY_METRICS, train=train)
    states = []
    for lo, hi in ((0, 1000), (1000, 3500), (3500, n)):
        part = range(lo, hi)
        states.append(
            rm.partial({u: truth[u] for u in part}, {u: recs[u] for u in part}, POPULARITY_METRICS, train=train)
        )
    merged = rm.State.merge_all(states[::-1]).finalize()
    for m in POPULARITY_METRICS:
        assert merged[m] == one[m] or (math.isnan(merged[m]) and math.isnan(one[m])), m


def test_shannon_entropy_worked_example():
    # counts over the top 2: a 2, b 1, c 1 -> p = (1/2, 1/4, 1/4): H = 1.5 bits = 1.5 ln 2 nats
    recs = {1: ["a", "b"], 2: ["a", "c"]}
    res = rm.evaluate({1: {"a": 1}, 2: {"c": 1}}, recs, ["shannon_entropy@2", "shannon_entropy(log_base=2)@2"])
    assert res["shannon_entropy(log_base=2)@2"] == 1.5
    assert close(res["shannon_entropy@2"], 1.5 * math.log(2))
    res = rm.evaluate({1: {"a": 1}, 2: {"c": 1}}, recs, ["shannon_entropy(normalize=distinct,log_base=2)@2"])
    assert res["shannon_entropy(normalize=distinct,log_base=2)@2"] == 0.5


def test_long_tail_worked_example():
    # popularity (distinct users): a 3, b 2, c 1, d 1 of 7; head at 0.5: a (3 < 3.5), b (5 >= 3.5) -> tail c, d, e
    train = {1: ["a", "b", "c"], 2: ["a", "b"], 3: ["a", "d"]}
    recs = {10: ["a", "c", "e"], 11: ["b", "d"]}
    truth = {10: {"c": 1}, 11: {"x": 1}}
    res = rm.evaluate(truth, recs, ["aplt(head_share=0.5)", "aclt(head_share=0.5)"], train=train)
    assert res.per_user["aplt(head_share=0.5)"].tolist() == [2 / 3, 1 / 2]
    assert res.per_user["aclt(head_share=0.5)"].tolist() == [2.0, 1.0]
    # RecBole's tail with tail_ratio=0.5: 2 of the 4 train items by (interactions, id): c, d; e is cold, not tail
    res = rm.evaluate(truth, recs, ["tail_percentage(tail_ratio=0.5)"], train=train)
    assert res.per_user["tail_percentage(tail_ratio=0.5)"].tolist() == [1 / 3, 1 / 2]


def test_epc_worked_example():
    # 3 train users; a held by 3, c by 1: EPC value 1 - 3/3 = 0 and 1 - 1/3; e cold: 1.
    train = {1: ["a", "b", "c"], 2: ["a", "b"], 3: ["a", "d"]}
    recs = {10: ["a", "c", "e"]}
    res = rm.evaluate({10: {"c": 1, "e": 1}}, recs, ["epc", "epc(discount=none)"], train=train)
    d = [1.0, 1 / math.log2(3), 0.5]
    assert close(res["epc"], (d[1] * (2 / 3) + d[2] * 1.0) / sum(d))
    assert close(res["epc(discount=none)"], (2 / 3 + 1.0) / 3)


def test_surprisal_matches_replays_docstring_example():
    # RePlay's Surprisal docstring: Surprisal(2) = 0.6845351232142715, per user {1: 1.0, 2: 0.369..., 3: 0.684...}
    recs = {1: [3, 7, 10, 11, 2], 2: [5, 8, 11, 1, 3], 3: [4, 9, 2]}
    train = {1: [5, 6, 8, 9, 2], 2: [5, 8, 11, 1, 3], 3: [4, 9, 2]}
    res = rm.evaluate({u: {0: 1} for u in recs}, recs, ["surprisal@2"], train=train)
    assert close(res["surprisal@2"], 0.6845351232142715)
    assert res.per_user["surprisal@2"].tolist()[0] == 1.0


def test_user_coverage_counts_users_without_a_relevant_item_as_uncovered():
    recs = {1: ["a", "b"], 2: ["c"], 3: []}
    truth = {1: {"a": 1}, 2: {"z": 1}, 3: {"q": 0}}
    res = rm.evaluate(
        truth, recs, ["user_coverage@2", "user_coverage(served=any)@2", "user_coverage(served=full)@2"], empty="skip"
    )
    assert res["user_coverage@2"] == 1 / 3
    assert res["user_coverage(served=any)@2"] == 2 / 3
    assert res["user_coverage(served=full)@2"] == 1 / 3


@pytest.mark.parametrize(
    ("metric", "message"),
    [
        ("aplt(head_share=1.5)", "head_share"),
        ("tail_percentage(tail_ratio=0)", "tail_ratio"),
        ("shannon_entropy(log_base=1)", "log_base"),
        ("epc(discount=linear)", "discount"),
        ("user_coverage(served=all)", "served"),
    ],
)
def test_bad_options_name_the_option(metric, message):
    with pytest.raises(ValueError, match=message):
        rm.evaluate({1: {1: 1}}, {1: [1]}, [metric], train={1: [1]})


@pytest.mark.parametrize("metric", ["aplt", "aclt@2", "tail_percentage", "surprisal", "epc", "efd@3"])
def test_train_metrics_without_train_name_the_argument(metric):
    with pytest.raises(ValueError, match="train"):
        rm.evaluate({1: {1: 1}}, {1: [1]}, [metric])


GIVEN_TAIL = ["aplt(tail=given)@3", "aclt(tail=given)", "tail_percentage(tail=given)@2"]


@SETTINGS
@given(workload(), st.sets(st.integers(0, 14)), st.booleans())
def test_given_tail_items_match_reference(data, tail, as_set):
    truth, lists, scores, train, feats, sim, conv = data
    tail_ids = [conv(i) for i in sorted(tail)]  # items 12-14 are never listed
    given_ids = set(tail_ids) if as_set else np.array(tail_ids)
    res = _call(truth, lists, scores, train, feats, sim, conv, GIVEN_TAIL, tail_items=given_ids)
    for metric in GIVEN_TAIL:
        m = rm.metrics.parse(metric)
        if m.name == "tail_percentage":
            per = [rp.tail_percentage(lists.get(u, []), m.k, train, tail_items=tail_ids) for u in truth]
        else:
            g = rp.aplt if m.name == "aplt" else rp.aclt
            per = [g(lists.get(u, []), m.k, train, tail_items=tail_ids) for u in truth]
        got = res.per_user[metric].tolist()
        assert all(close(a, b) for a, b in zip(got, per)), (metric, got, per)


def test_given_tail_items_worked_example():
    recs = {1: ["a", "b", "c"], 2: ["d"]}
    res = rm.evaluate(
        {1: {}, 2: {}}, recs, ["aplt(tail=given)", "aclt(tail=given)"], tail_items={"c", "d", "z"}, empty="zero"
    )
    assert res.per_user["aplt(tail=given)"].tolist() == [1 / 3, 1.0]
    assert res.per_user["aclt(tail=given)"].tolist() == [1.0, 1.0]


def test_states_of_different_tail_items_do_not_merge():
    a = rm.partial({1: {}}, {1: ["a"]}, ["aplt(tail=given)"], tail_items=["a"], empty="zero")
    b = rm.partial({2: {}}, {2: ["a"]}, ["aplt(tail=given)"], tail_items=["b"], empty="zero")
    with pytest.raises(ValueError, match="tail_items"):
        a.merge(b)


@pytest.mark.parametrize(
    ("kw", "metric", "error", "message"),
    [
        ({}, "aplt(tail=given)", ValueError, "tail_items"),
        ({"tail_items": [1]}, "aplt", ValueError, "tail=given"),
        ({"tail_items": [1]}, "aplt(tail=given,head_share=0.5)", ValueError, "head_share"),
        ({"tail_items": [1]}, "tail_percentage(tail=given,tail_ratio=0.3)", ValueError, "tail_ratio"),
        ({"tail_items": "abc"}, "aclt(tail=given)", TypeError, "tail_items"),
        ({"tail_items": [1.5]}, "aclt(tail=given)", (TypeError, ValueError), "tail_items"),
    ],
)
def test_tail_items_mistakes_name_the_argument(kw, metric, error, message):
    with pytest.raises(error, match=message):
        rm.evaluate({1: {1: 1}}, {1: [1]}, [metric], train={1: [1]}, **kw)


def test_a_repeated_item_counts_at_each_position_under_duplicates_count():
    # tail_items c: user 1 lists c twice in its top 3 -> aclt 2 under count, 1 under first (c kept once, then d)
    recs = {1: ["c", "a", "c", "d"]}
    res = {
        d: rm.evaluate({1: {"c": 1}}, recs, ["aclt(tail=given)@3"], tail_items=["c"], duplicates=d)
        for d in ("first", "count")
    }
    assert res["count"]["aclt(tail=given)@3"] == 2.0
    assert res["first"]["aclt(tail=given)@3"] == 1.0
