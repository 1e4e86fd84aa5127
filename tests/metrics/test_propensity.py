"""Propensity-weighted metrics (docs/metrics.md 3.19.21-3.19.26) against the naive references
(tests/support/reference_propensity.py) on hypothesis-generated data with every edge (users without a relevant
item or without a list, empty and short lists, relevant items without a propensity or with p = 0, caps), thread /
batch / row-order determinism, exact merging, and the checks of the ``propensity`` argument and the options."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankmeter as rm
from tests.metrics.test_beyond import ITEMS, SETTINGS, _call, workload
from tests.support import reference_propensity as rp
from tests.support.same import close

PROPENSITY_METRICS = [
    "ips_precision@3",
    "ips_precision",
    "ips_recall@3",
    "ips_recall(normalize=snips)",
    "ips_ndcg@3",
    "ips_ndcg(normalize=snips)@2",
    "ips_ndcg(cap=3)",
    "ips_rr@3",
    "ips_rr(normalize=snips,cap=2.5)@4",
    "ips_hit_rate@3",
    "ips_hit_rate(cap=4)",
    "ips_ap@3",
    "ips_ap(normalize=snips)",
    "ips_precision(normalize=snips)@2",
    "ips_hit_rate(normalize=snips)@2",
]


def _with(metric, option):
    """``metric`` with one more option (``"ips_ndcg@3"``, ``"unknown=zero"`` -> ``"ips_ndcg(unknown=zero)@3"``)."""
    head, at, k = metric.partition("@")
    head = head[:-1] + "," + option + ")" if head.endswith(")") else head + "(" + option + ")"
    return head + at + k


# with items of no propensity among the relevant ones: weighed 0
ZERO_METRICS = [_with(m, "unknown=zero") for m in PROPENSITY_METRICS]


def _reference(truth, lists, prop, metric, empty="skip"):
    m = rm.metrics.parse(metric)
    o = m.options
    per = []
    for u in truth:
        v = rp.ips(m.name[4:], lists.get(u, []), truth[u], prop, m.k, o["normalize"], o["cap"], o["unknown"])
        per.append({"skip": math.nan, "zero": 0.0, "one": 1.0}[empty] if v is None else v)
    vals = [v for v in per if not math.isnan(v)]
    return per, (math.fsum(vals) / len(vals) if vals else math.nan)


@st.composite
def propensities(draw, conv, complete):
    """item -> propensity over ITEMS: every item (complete) or some, with zeros when not complete."""
    out = {}
    for i in ITEMS:
        if not complete and draw(st.integers(0, 3)) == 0:
            continue
        choices = [0.5, 0.1, 0.02, 0.9, 1.0, 0.3] + ([] if complete else [0.0])
        out[conv(i)] = draw(st.sampled_from(choices))
    return out


def _check(data, prop, metrics, empty="skip"):
    truth, lists, scores, train, feats, sim, conv = data
    res = _call(truth, lists, scores, train, feats, sim, conv, metrics, empty=empty, propensity=prop)
    for metric in metrics:
        per, mean = _reference(truth, lists, prop, metric, empty=empty)
        assert close(res[metric], mean), (metric, res[metric], mean)
        got = res.per_user[metric].tolist()
        assert len(got) == len(per)
        assert all(close(a, b) for a, b in zip(got, per)), (metric, got, per)


@SETTINGS
@given(st.data())
def test_ips_metrics_match_reference_int_ids(data):
    w = data.draw(workload())
    _check(w, data.draw(propensities(w[6], True)), PROPENSITY_METRICS)


@SETTINGS
@given(st.data())
def test_ips_metrics_match_reference_string_ids(data):
    w = data.draw(workload(string_ids=True))
    _check(w, data.draw(propensities(w[6], True)), PROPENSITY_METRICS)


@SETTINGS
@given(st.data())
def test_items_without_a_propensity_weigh_zero_under_unknown_zero(data):
    w = data.draw(workload(string_ids=data.draw(st.booleans())))
    _check(w, data.draw(propensities(w[6], False)), ZERO_METRICS)


@pytest.mark.parametrize("empty", ["zero", "one"])
@SETTINGS
@given(data=st.data())
def test_users_without_a_relevant_item_score_the_empty_value(data, empty):
    w = data.draw(workload())
    _check(w, data.draw(propensities(w[6], True)), ["ips_ndcg@3", "ips_recall(normalize=snips)"], empty=empty)


@SETTINGS
@given(st.data())
def test_popularity_propensity_is_yangs_power_of_the_train_counts(data):
    w = data.draw(workload())
    truth, lists, scores, train, feats, sim, conv = w
    gamma = data.draw(st.sampled_from([1.0, 2.0, 0.0, -0.5]))
    ids, p = rm.popularity_propensity(train, gamma=gamma)
    ref = rp.popularity_propensity(train, gamma)
    assert sorted(ref) == ids.tolist()
    assert all(close(ref[i], x) for i, x in zip(ids.tolist(), p.tolist()))
    if gamma == 1.0 and ids.size:
        metrics = ["ips_recall(unknown=zero)@3", "ips_ndcg(unknown=zero,normalize=snips)"]
        a = _call(truth, lists, scores, train, feats, sim, conv, metrics, propensity="popularity")
        b = _call(truth, lists, scores, train, feats, sim, conv, metrics, propensity=(ids, p))
        for m in metrics:
            assert a.per_user[m].tobytes() == b.per_user[m].tobytes()


@pytest.fixture(scope="module")
def medium():
    w = rm.datasets.w1(6000, n_items=500, seed=4)
    train = (w.truth_indptr, (w.truth_items + 7) % 500)
    return w, train


DETERMINISM = [
    "ips_ndcg(unknown=zero)@10",
    "ips_ap(unknown=zero,normalize=snips)@20",
    "ips_rr(unknown=zero,cap=50)",
    "ips_precision(unknown=zero)@5",
    "ips_recall(unknown=zero)@10",
    "ips_hit_rate(unknown=zero)@10",
]


def _evaluate(w, train, threads=None):
    return rm.evaluate(
        (w.truth_indptr, w.truth_items, w.truth_grades),
        rm.Recs.from_csr(w.recs_indptr, w.recs_items),
        DETERMINISM,
        train=train,
        propensity="popularity",
        threads=threads,
    )


def test_ips_metrics_bit_identical_across_threads(medium):
    w, train = medium
    base = _evaluate(w, train, threads=1)
    for threads in (2, 3):
        res = _evaluate(w, train, threads=threads)
        for m in DETERMINISM:
            assert res[m] == base[m], m
            assert res.per_user[m].tobytes() == base.per_user[m].tobytes(), m


def test_ips_metrics_merge_exactly_over_user_batches_in_any_row_order(medium):
    w, train = medium
    ti, tt, tg, ri, rr = w.truth_indptr, w.truth_items, w.truth_grades, w.recs_indptr, w.recs_items
    n = ti.size - 1
    truth = {u: dict(zip(tt[ti[u] : ti[u + 1]].tolist(), tg[ti[u] : ti[u + 1]].tolist())) for u in range(n)}
    recs = {u: rr[ri[u] : ri[u + 1]].tolist() for u in range(n)}
    prop = rm.popularity_propensity(train)
    one = rm.evaluate(truth, recs, DETERMINISM, propensity=prop)
    rev = rm.evaluate(dict(reversed(list(truth.items()))), recs, DETERMINISM, propensity=prop)
    states = []
    for lo, hi in ((0, 1000), (1000, 3500), (3500, n)):
        part = range(lo, hi)
        states.append(rm.partial({u: truth[u] for u in part}, {u: recs[u] for u in part}, DETERMINISM, propensity=prop))
    merged = rm.State.merge_all(states[::-1]).finalize()
    for m in DETERMINISM:
        assert merged[m] == one[m] == rev[m], m


def test_states_of_different_propensities_do_not_merge():
    a = rm.partial({1: {10: 1}}, {1: [10]}, ["ips_recall@2"], propensity={10: 0.5})
    b = rm.partial({2: {10: 1}}, {2: [10]}, ["ips_recall@2"], propensity={10: 0.25})
    with pytest.raises(ValueError):
        rm.State.merge_all([a, b])


def test_worked_example():
    # relevant a (p 0.5, w 2), b (p 0.1, w 10), c (p 0.25, w 4); list b x a, k = 3
    truth = {1: {"a": 1, "b": 1, "c": 1}}
    recs = {1: ["b", "x", "a"]}
    prop = {"a": 0.5, "b": 0.1, "c": 0.25, "x": 0.9}
    names = [
        "ips_precision@3",
        "ips_recall@3",
        "ips_recall(normalize=snips)@3",
        "ips_rr@3",
        "ips_hit_rate@3",
        "ips_ap@3",
        "ips_ndcg@3",
        "ips_recall(cap=5)@3",
    ]
    res = rm.evaluate(truth, recs, names, propensity=prop)
    assert close(res["ips_precision@3"], 12 / 3)
    assert close(res["ips_recall@3"], 12 / 3)
    assert close(res["ips_recall(normalize=snips)@3"], 12 / 16)
    assert close(res["ips_rr@3"], 10.0)
    assert close(res["ips_hit_rate@3"], 12.0)
    assert close(res["ips_ap@3"], (10 * 1 + 2 * (2 / 3)) / 3)
    idcg = 1 + 1 / math.log2(3) + 1 / 2
    assert close(res["ips_ndcg@3"], (10 + 2 / 2) / idcg)
    assert close(res["ips_recall(cap=5)@3"], (5 + 2) / 3)


def test_propensity_given_but_unread_is_refused():
    with pytest.raises(ValueError, match="`propensity` is read by the propensity-weighted metrics only"):
        rm.evaluate({1: {10: 1}}, {1: [10]}, ["ndcg@3"], propensity={10: 0.5})


def test_ips_metric_without_propensity_is_refused():
    with pytest.raises(ValueError, match="needs `propensity`"):
        rm.evaluate({1: {10: 1}}, {1: [10]}, ["ips_ndcg@3"])


@pytest.mark.parametrize(
    ("prop", "exc", "match"),
    [
        ({10: -0.1}, ValueError, "finite numbers >= 0"),
        ({10: float("nan")}, ValueError, "finite numbers >= 0"),
        ({10: "a"}, TypeError, "must map items to numbers"),
        ("popular", ValueError, "must be 'popularity'"),
        (([10, 11], [0.5]), ValueError, "one propensity per item"),
        (([10, 10], [0.5, 0.2]), ValueError, "gives an item twice"),
        (3.0, TypeError, "`propensity` must be"),
        ({1.5: 0.5}, TypeError, None),
    ],
)
def test_bad_propensity_names_the_argument(prop, exc, match):
    with pytest.raises(exc, match=match):
        rm.evaluate({1: {10: 1}}, {1: [10]}, ["ips_ndcg@3"], propensity=prop)


def test_popularity_needs_train():
    with pytest.raises(ValueError, match="pass train="):
        rm.evaluate({1: {10: 1}}, {1: [10]}, ["ips_ndcg@3"], propensity="popularity")


def test_relevant_item_without_propensity_is_an_error_naming_it_and_the_fix():
    with pytest.raises(ValueError, match=r"relevant item 11 of user 1 has no propensity.*unknown='zero'"):
        rm.evaluate({1: {10: 1, 11: 2}}, {1: [10]}, ["ips_ndcg@3"], propensity={10: 0.5})
    with pytest.raises(ValueError, match=r"relevant item 11 of user 1 has no propensity"):
        rm.evaluate({1: {10: 1, 11: 2}}, {1: [10]}, ["ips_ndcg@3"], propensity={10: 0.5, 11: 0.0})
    # a non-relevant item or a listed item needs none
    res = rm.evaluate({1: {10: 1, 11: 0}}, {1: [12, 10]}, ["ips_ndcg@3"], propensity={10: 0.5})
    assert close(res["ips_ndcg@3"], 2 / math.log2(3))


def test_negative_cap_is_refused():
    with pytest.raises(ValueError, match="cap="):
        rm.evaluate({1: {10: 1}}, {1: [10]}, ["ips_ndcg(cap=-1)@3"], propensity={10: 0.5})


def test_string_ids_against_int_propensity_ids_are_refused():
    with pytest.raises((TypeError, ValueError)):
        rm.evaluate({1: {"a": 1}}, {1: ["a"]}, ["ips_ndcg@3"], propensity={10: 0.5})


def test_gamma_is_checked():
    with pytest.raises(TypeError, match="gamma"):
        rm.popularity_propensity({1: [1]}, gamma="2")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="gamma"):
        rm.popularity_propensity({1: [1]}, gamma=float("inf"))
    ids, p = rm.popularity_propensity({}, gamma=2.0)
    assert ids.size == 0 and p.size == 0
    np.testing.assert_allclose(rm.popularity_propensity({1: [1, 2], 2: [1]}, gamma=3.0)[1], [4 / 5, 1 / 5])


def test_relevant_item_without_propensity_is_refused_before_the_accuracy_pass(monkeypatch):
    import rankmeter.evaluation._evaluate as ev

    def boom(*a, **kw):  # pragma: no cover - must not run
        raise AssertionError("the accuracy pass ran before the propensity check")

    monkeypatch.setattr(ev, "accuracy_pass", boom)
    with pytest.raises(ValueError, match="relevant item 'b' of user 2 has no propensity"):
        rm.evaluate({1: {"a": 1}, 2: {"b": 1}}, {1: ["a"], 2: ["b"]}, ["ndcg@3", "ips_ndcg@3"], propensity={"a": 0.5})


@SETTINGS
@given(st.data())
def test_min_relevance_decides_which_items_are_weighed(data):
    w = data.draw(workload())
    truth, lists, scores, train, feats, sim, conv = w
    prop = data.draw(propensities(conv, True))
    metrics = ["ips_recall@3", "ips_ndcg(normalize=snips)", "ips_ap@4"]
    res = _call(truth, lists, scores, train, feats, sim, conv, metrics, propensity=prop, min_relevance=2.0)
    for metric in metrics:
        m = rm.metrics.parse(metric)
        o = m.options
        want = [
            rp.ips(m.name[4:], lists.get(u, []), truth[u], prop, m.k, o["normalize"], o["cap"], o["unknown"], 2.0)
            for u in truth
        ]
        got = res.per_user[metric].tolist()
        assert all(close(a, math.nan if b is None else b) for a, b in zip(got, want)), (metric, got, want)


@SETTINGS
@given(st.data())
def test_two_batches_merge_into_the_one_call_value(data):
    w = data.draw(workload())
    truth, lists, conv = w[0], w[1], w[6]
    prop = data.draw(propensities(conv, True))
    users = list(truth)
    cut = data.draw(st.integers(0, len(users)))
    one = rm.evaluate(truth, lists, PROPENSITY_METRICS, propensity=prop) if truth and lists else None
    parts = [
        rm.partial(
            {u: truth[u] for u in part}, {u: lists[u] for u in part if u in lists}, PROPENSITY_METRICS, propensity=prop
        )
        for part in (users[:cut], users[cut:])
        if any(u in lists for u in part)
    ]
    if one is None or len(parts) < 2:
        return
    merged = parts[0].merge(parts[1]).finalize()
    for m in PROPENSITY_METRICS:
        assert merged[m] == one[m] or (math.isnan(merged[m]) and math.isnan(one[m])), m


def test_every_form_of_the_propensity_argument_gives_the_same_values():
    import pandas as pd

    truth = {"u1": {"a": 1, "b": 2, "c": 0}, "u2": {"c": 1}}
    recs = {"u1": ["c", "b", "a"], "u2": ["a", "c"]}
    prop = {"a": 0.5, "b": 0.2, "c": 0.1}
    metrics = ["ips_ndcg@2", "ips_recall(normalize=snips)@3", "ips_ap"]
    base = rm.evaluate(truth, recs, metrics, propensity=prop)
    forms = [
        pd.Series(prop),
        (list(prop), list(prop.values())),
        (np.array(list(prop), dtype=object), np.array(list(prop.values()))),
    ]
    for form in forms:
        res = rm.evaluate(truth, recs, metrics, propensity=form)
        for m in metrics:
            assert res.per_user[m].tobytes() == base.per_user[m].tobytes(), (type(form), m)
    train = {"x": ["a", "a", "b"], "y": ["c", "a"]}
    a = rm.evaluate(truth, recs, metrics, train=train, propensity="popularity")
    b = rm.evaluate(truth, recs, metrics, propensity=rm.popularity_propensity(train))
    c = rm.evaluate(truth, recs, metrics, propensity={"a": 3 / 5, "b": 1 / 5, "c": 1 / 5})
    for m in metrics:
        assert a.per_user[m].tobytes() == b.per_user[m].tobytes() == c.per_user[m].tobytes(), m
