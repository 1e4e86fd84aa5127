"""The AUC family (docs/metrics.md 3.19.10-3.19.12): auc, gauc, lauc against the pairwise references of
tests/support/reference_auc.py (score ties, users without a positive or a negative, empty lists, int, str
and huge ids, threads 1 and 2), worked examples, input errors, and batches merged equal to one call."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.support import reference_auc as ra

AUC_METRICS = [
    "auc",
    "auc@3",
    "auc(negatives=catalog)",
    "auc(negatives=catalog,seen=keep)@2",
    "auc(max_fpr=0.5)",
    "auc(max_fpr=0.25,negatives=catalog)@4",
    "auc(one_class=zero)",
    "auc(one_class=one,negatives=catalog)",
    "gauc",
    "gauc@2",
    "gauc(negatives=catalog)",
    "gauc(negatives=catalog,seen=keep)",
    "lauc@3",
    "lauc",
    "lauc(seen=keep,one_class=zero)@2",
    # ties=: a tied (positive, negative) pair counts 0 (strict) or 1 (optimistic) instead of 1/2
    "auc(ties=strict)",
    "auc(ties=optimistic)@3",
    "auc(ties=strict,max_fpr=0.5)",
    "auc(ties=optimistic,max_fpr=0.25,negatives=catalog)@4",
    "auc(ties=strict,negatives=catalog,seen=keep)",
    "auc(ties=strict,one_class=zero)@2",
    "gauc(ties=strict)",
    "gauc(ties=optimistic,negatives=catalog)@3",
    "lauc(ties=strict)@3",
    "lauc(ties=optimistic,seen=keep)",
]
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
ID_KINDS = {
    "int": lambda i: i,
    "str": lambda i: f"item-{i}",
    "huge": lambda i: (1 << 62) + 977 * i,  # ids far beyond any dense code
}


@st.composite
def auc_case(draw):
    conv = ID_KINDS[draw(st.sampled_from(sorted(ID_KINDS)))]
    n_items = draw(st.integers(1, 9))
    items = list(range(n_items))
    truth, recs, train = {}, {}, {}
    for u in range(draw(st.integers(1, 6))):
        t = draw(st.lists(st.sampled_from(items), max_size=5, unique=True))
        truth[u] = {conv(i): draw(st.sampled_from([0.0, 1.0, 2.0])) for i in t}
        lst = draw(st.lists(st.sampled_from(items), max_size=n_items, unique=True))
        # few distinct scores: ties in every other draw
        recs[u] = {conv(i): draw(st.sampled_from([0.0, 0.5, 1.0, 2.5, -1.0])) for i in lst}
        if draw(st.booleans()):
            train[u] = [conv(i) for i in draw(st.lists(st.sampled_from(items), max_size=4))]
    catalog = [conv(i) for i in draw(st.lists(st.sampled_from(items), min_size=1, unique=True))]
    return truth, recs, train, catalog


def _ranked(recs_u):
    """The list rankmeter reads from a score dict under ties="input": score descending, equal scores in the
    dict's order."""
    order = sorted(range(len(recs_u)), key=lambda j: -list(recs_u.values())[j])
    keys = list(recs_u)
    return [keys[j] for j in order], [recs_u[keys[j]] for j in order]


def _expected(truth, recs, train, catalog, metric, empty="skip"):
    m = rm.metrics.parse(metric)
    o, k = m.options, m.k
    neg = "catalog" if m.name == "lauc" else o["negatives"]
    per, terms = [], []
    for u in truth:
        lst, sc = _ranked(recs.get(u, {}))
        seen = train.get(u, []) if neg == "catalog" and o["seen"] == "exclude" else []
        if m.name == "gauc":
            a, w = ra.gauc_terms(truth[u], lst, sc, k, neg, catalog, seen, ties=o["ties"])
            per.append(a)
            terms.append((a, w))
        elif m.name == "lauc":
            per.append(ra.lauc(truth[u], lst, k, catalog, seen, o["one_class"], empty, ties=o["ties"]))
        else:
            per.append(
                ra.auc(truth[u], lst, sc, k, neg, catalog, seen, o["max_fpr"], o["one_class"], empty, ties=o["ties"])
            )
    if m.name == "gauc":
        return per, ra.gauc(terms)
    vals = [v for v in per if not math.isnan(v)]
    return per, math.fsum(vals) / len(vals) if vals else math.nan


def _close(a, b):
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12 * max(1.0, abs(b))


@SETTINGS
@given(auc_case(), st.sampled_from(["skip", "zero", "one"]), st.sampled_from([1, 2]))
def test_auc_family_matches_the_pairwise_reference(case, empty, threads):
    truth, recs, train, catalog = case
    res = rm.evaluate(
        truth, recs, AUC_METRICS, train=train, catalog=catalog, empty=empty, threads=threads, ties="input"
    )
    for metric in AUC_METRICS:
        per, mean = _expected(truth, recs, train, catalog, metric, empty)
        got = res.per_user[metric].tolist()
        assert all(_close(a, b) for a, b in zip(got, per)), (metric, got, per)
        assert _close(res[metric], mean), (metric, res[metric], mean)


@SETTINGS
@given(auc_case(), st.data())
def test_auc_family_batches_merge_to_the_one_call_value(case, data):
    truth, recs, train, catalog = case
    one = rm.evaluate(truth, recs, AUC_METRICS, train=train, catalog=catalog)
    users = list(truth)
    cut = data.draw(st.integers(0, len(users)))
    parts = [
        rm.partial({u: truth[u] for u in chunk}, recs, AUC_METRICS, train=train, catalog=catalog)
        for chunk in (users[:cut], users[cut:])
        if chunk
    ]
    merged = parts[0] if len(parts) == 1 else parts[1].merge(parts[0])
    got = merged.finalize()
    for metric in AUC_METRICS:
        a, b = got[metric], one[metric]
        assert a == b or (math.isnan(a) and math.isnan(b)), (metric, a, b)


def test_auc_worked_example_with_a_tie():
    # positives a (0.9), c (0.5); negatives b (0.5), d (0.1): pairs (a,b) 1, (a,d) 1, (c,b) 1/2, (c,d) 1
    truth = {"u": {"a": 1, "c": 1}}
    recs = {"u": {"a": 0.9, "b": 0.5, "c": 0.5, "d": 0.1}}
    res = rm.evaluate(truth, recs, ["auc", "gauc", "auc@2"])
    assert res["auc"] == 3.5 / 4
    assert res["gauc"] == 3.5 / 4
    # the top 2 by score: a and one of the tied pair; recs order keeps b first: (a,b) = 1
    assert res["auc@2"] == 1.0


def test_gauc_weighs_users_by_their_positives():
    truth = {1: {"a": 1}, 2: {"a": 1, "b": 1, "c": 1}, 3: {"a": 1}}
    recs = {1: {"a": 1.0, "x": 2.0}, 2: {"a": 3.0, "b": 2.0, "x": 2.5, "c": 1.0}, 3: {"a": 1.0}}
    res = rm.evaluate(truth, recs, ["gauc", "auc"])
    # user 1: AUC 0 (1 positive); user 2: a > x, b < x, c < x -> 1/3 (3 positives); user 3: no negative (out)
    assert res.per_user["auc"].tolist()[:2] == [0.0, 1 / 3]
    assert math.isnan(res.per_user["auc"].tolist()[2])
    assert res["gauc"] == (0.0 * 1 + (1 / 3) * 3) / 4
    assert res["auc"] == (0.0 + 1 / 3) / 2


def test_lauc_ties_the_unranked_catalog_below_the_list():
    # catalog of 6 items; list [x, a, y]; positives a (found) and b (not listed)
    # negatives: x, y, c, d (4); a beats y, c, d (3); b ties c, d (1/2 each), loses to x and y
    res = rm.evaluate({"u": {"a": 1, "b": 1}}, {"u": ["x", "a", "y"]}, ["lauc@3"], catalog=list("xaybcd"))
    assert res["lauc@3"] == (3 + 1) / (2 * 4)
    # a cutoff of 1 leaves a among the unranked: every positive ties with c, d and y, loses to x
    res = rm.evaluate({"u": {"a": 1, "b": 1}}, {"u": ["x", "a", "y"]}, ["lauc@1"], catalog=list("xaybcd"))
    assert res["lauc@1"] == (2 * 3 * 0.5) / (2 * 4)


def test_catalog_negatives_leave_out_the_users_seen_items_by_default():
    truth, recs = {"u": {"a": 1}}, {"u": {"x": 0.9, "a": 0.5}}
    res = rm.evaluate(
        truth,
        recs,
        ["auc(negatives=catalog)", "auc(negatives=catalog,seen=keep)"],
        catalog=list("xabc"),
        train={"u": ["b"]},
    )
    # seen b left out: negatives x, c -> a beats c = 1/2; kept: x, b, c -> 2/3
    assert res["auc(negatives=catalog)"] == 1 / 2
    assert res["auc(negatives=catalog,seen=keep)"] == 2 / 3


def test_partial_auc_is_mcclish_standardised():
    # one positive at the top of 4 negatives: perfect, 1 for any max_fpr
    res = rm.evaluate({"u": {"p": 1}}, {"u": {"p": 4.0, "a": 3.0, "b": 2.0, "c": 1.0, "d": 0.0}}, ["auc(max_fpr=0.5)"])
    assert res["auc(max_fpr=0.5)"] == 1.0
    # the positive below 2 of 4 negatives: the ROC curve is 0 up to fpr 0.5: area 0 -> 0.5 (1 + (0 - 1/8) / (3/8))
    res = rm.evaluate({"u": {"p": 1}}, {"u": {"a": 4.0, "b": 3.0, "p": 2.0, "c": 1.0, "d": 0.0}}, ["auc(max_fpr=0.5)"])
    assert res["auc(max_fpr=0.5)"] == pytest.approx(0.5 * (1 + (0 - 1 / 8) / (3 / 8)), rel=1e-15)


def test_plain_ranked_lists_are_read_with_their_positions_as_scores():
    res = rm.evaluate({"u": {"b": 1}}, {"u": ["a", "b", "c", "d"]}, ["auc"])
    assert res["auc"] == 2 / 3


def test_auc_option_and_context_errors_name_the_fix():
    with pytest.raises(ValueError, match=r"max_fpr.*\(0, 1\]"):
        rm.evaluate({1: [1]}, {1: {1: 1.0}}, ["auc(max_fpr=0)"])
    with pytest.raises(ValueError, match=r"max_fpr"):
        rm.evaluate({1: [1]}, {1: {1: 1.0}}, ["auc(max_fpr=1.5)"])
    with pytest.raises(ValueError, match=r"lauc@3.*needs `catalog`"):
        rm.evaluate({1: [1]}, {1: [1, 2]}, ["lauc@3"])
    with pytest.raises(ValueError, match=r"needs `catalog`"):
        rm.evaluate({1: [1]}, {1: {1: 1.0}}, ["gauc(negatives=catalog)"])
    with pytest.raises(ValueError, match=r"user 2 has no relevant item in `truth` and empty='error'"):
        rm.evaluate({1: [1], 2: {3: 0.0}}, {1: {1: 1.0, 2: 0.0}, 2: {3: 1.0}}, ["auc"], empty="error")


def test_one_class_scores_users_whose_candidates_hold_one_class_and_empty_those_without_relevant_items():
    # user 1: relevant item 3 not scored (no positive candidate); user 2: only positives; user 3: nothing relevant
    truth = {1: {3: 1.0}, 2: {5: 1.0}, 3: {6: 0.0}}
    recs = {1: {4: 1.0}, 2: {5: 1.0}, 3: {6: 1.0, 7: 0.5}}
    for one_class, empty, want in (("skip", "zero", [None, None, 0.0]), ("zero", "one", [0.0, 0.0, 1.0])):
        res = rm.evaluate(truth, recs, [f"auc(one_class={one_class})"], empty=empty)
        got = res.per_user[f"auc(one_class={one_class})"].tolist()
        assert [None if math.isnan(v) else v for v in got] == want


def test_auc_same_values_for_any_thread_count_at_scale():
    w = rm.datasets.w1(3000, n_items=400, seed=7)
    rng = np.random.default_rng(7)
    scores = np.round(rng.random(w.recs_items.size), 2)  # many ties
    recs = rm.Recs.from_csr(w.recs_indptr, w.recs_items, scores)
    truth = (w.truth_indptr, w.truth_items, w.truth_grades)
    train = (w.truth_indptr, (w.truth_items + 11) % 400)
    ms = ["auc", "auc(negatives=catalog,max_fpr=0.1)@20", "gauc(negatives=catalog)", "lauc@10"]
    base = rm.evaluate(truth, recs, ms, train=train, threads=1)
    other = rm.evaluate(truth, recs, ms, train=train, threads=2)
    for m in ms:
        assert base.per_user[m].tobytes() == other.per_user[m].tobytes(), m
        assert base[m] == other[m], m
