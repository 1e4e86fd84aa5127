"""rows="evidently", ties="evidently" and the Evidently options of the beyond-accuracy metrics against the pure-Python
restatement of Evidently's code (tests/support/reference_evidently.py), per user, edge cases included."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.support import reference_beyond as refb
from tests.support import reference_evidently as ref

ROWS = "short_lists=evidently,rows=evidently"
ACCURACY: list[tuple[str, dict]] = [
    ("precision", {"short_lists": "evidently", "rows": "evidently"}),
    ("ap", {"short_lists": "evidently", "rows": "evidently"}),
    ("ar", {"short_lists": "evidently", "rows": "evidently"}),
    ("ndcg", {"rows": "evidently"}),
    ("ndcg", {"rows": "evidently", "gain": "binary"}),
]
# the plain metrics that ties="evidently" ranks at floored average positions
TIED: list[tuple[str, dict]] = [
    ("hits", {}),
    ("precision", {}),
    ("precision", {"short_lists": "evidently"}),
    ("recall", {}),
    ("recall", {"denominator": "min_relevant_k"}),
    ("fbeta", {"beta": 2.0}),
    ("ap", {"short_lists": "evidently"}),
    ("ar", {"short_lists": "evidently"}),
    ("ndcg", {}),
    ("ndcg", {"gain": "exponential"}),
    ("hit_rate", {}),
    ("rr", {}),
]


def name(base: str, opts: dict, k) -> str:
    o = ",".join(f"{a}={b}" for a, b in opts.items())
    return base + (f"({o})" if o else "") + ("" if k is None else f"@{k}")


@st.composite
def scenarios(draw, scored: bool):
    n_users = draw(st.integers(0, 6))
    truth: dict = {}
    recs: dict = {}
    grades = st.sampled_from([-2, -1, 0, 0, 1, 1, 2, 3, 0.5, 2.25])
    for u in range(n_users):
        items = draw(st.lists(st.integers(0, 12), max_size=8, unique=True))
        truth[u] = {i: draw(grades) for i in items}
        if draw(st.integers(0, 5)):
            listed = draw(st.lists(st.integers(0, 14), max_size=10, unique=True))
            if scored:
                # scores descending with runs of equal values (the lists are given best first)
                steps = [draw(st.sampled_from([0.0, 0.0, 1.0])) for _ in listed]
                s = 10.0 - np.cumsum(steps)
                recs[u] = {i: float(x) for i, x in zip(listed, s)}
            else:
                recs[u] = listed
    return truth, recs


def _expected(v: float, has_rel: bool, empty: str, base: str) -> float:
    if has_rel or empty == "zero" or (empty == "one" and base == "hits"):
        return v
    return math.nan if empty == "skip" else 1.0


def _close(got: float, want: float) -> bool:
    return (math.isnan(want) and math.isnan(got)) or math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.booleans().flatmap(lambda s: st.tuples(st.just(s), scenarios(s))),
    st.sampled_from([None, 1, 2, 3, 7, 40]),
    st.sampled_from([None, 2.0, 0.0, -1.0]),
    st.sampled_from(["skip", "zero", "one"]),
    st.sampled_from(["input", "evidently"]),
)
def test_evidently_rows_and_ties_match_the_reference(drawn, k, min_rel, empty, ties):
    scored, (truth, recs) = drawn
    variants = ACCURACY + (TIED if ties == "evidently" else [])
    metrics = [name(b, o, k) for b, o in variants]
    res = rm.evaluate(truth, recs, metrics, ties=ties, min_relevance=min_rel, empty=empty)
    for (base, opts), m in zip(variants, metrics):
        for idx, u in enumerate(truth):
            given_list = recs.get(u, [])
            ranked = list(given_list)
            scores = list(given_list.values()) if scored and u in recs else None
            rank = ref.ranks(ranked, scores, ties)
            grades = {i: float(g) for i, g in truth[u].items()}
            v, has_rel = ref.user_value(base, opts, k, ranked, grades, min_rel, rank)
            want = _expected(v, has_rel, empty, base)
            got = float(res.per_user[m][idx])
            assert _close(got, want), (m, u, truth[u], given_list, got, want)


def test_evidently_ranks_floor_the_average_position_of_a_tie_group():
    assert ref.ranks(list("abcde"), [3.0, 2.0, 2.0, 2.0, 1.0], "evidently") == [1, 3, 3, 3, 5]
    assert ref.ranks(list("abc"), [2.0, 2.0, 1.0], "evidently") == [1, 1, 3]
    truth = {"u": {"a": 1, "b": 0, "c": 1}}
    recs = {"u": {"a": 2.0, "b": 2.0, "c": 1.0}}  # a and b share rank floor(1.5) = 1
    res = rm.evaluate(truth, recs, ["hits@1", "precision@1", "rr@2", "ap(short_lists=evidently)@2"], ties="evidently")
    assert res["hits@1"] == 1.0
    assert res["precision@1"] == 1.0
    assert res["rr@2"] == 1.0
    # rel_1 and rel_2 are those of b (the last row at or above rank 1 and 2): not relevant, so AP@2 = 0
    assert res["ap(short_lists=evidently)@2"] == 0.0
    plain = rm.evaluate(truth, recs, ["ap(short_lists=evidently)@2"], ties="input")
    assert plain["ap(short_lists=evidently)@2"] == pytest.approx(0.5)


def test_evidently_rows_count_truth_items_not_listed():
    """A user's rows are the list plus its truth items not listed: precision@k divides by min(rows, k)."""
    truth = {"u": {"a": 1, "x": 1, "y": 1}}
    recs = {"u": ["a"]}
    res = rm.evaluate(truth, recs, [f"precision({ROWS})@3", "precision(short_lists=evidently)@3"])
    assert res[f"precision({ROWS})@3"] == pytest.approx(1 / 3)  # rows a, x, y: min(3, 3)
    assert res["precision(short_lists=evidently)@3"] == 1.0  # min(n = 1, 3)


def test_evidently_ndcg_keeps_negative_grades_as_gains():
    truth = {"u": {"a": 2, "b": -1}}
    recs = {"u": ["b", "a"]}
    res = rm.evaluate(truth, recs, ["ndcg(rows=evidently)@2", "ndcg@2"])
    dcg = -1.0 + 2.0 / math.log2(3)
    assert res["ndcg(rows=evidently)@2"] == pytest.approx(dcg / (2.0 - 1.0 / math.log2(3)))
    assert res["ndcg@2"] == pytest.approx((2.0 / math.log2(3)) / 2.0)


@pytest.mark.parametrize(
    "metric, kwargs, match",
    [
        ("precision(rows=evidently)@3", {}, "short_lists"),
        ("ap(short_lists=evidently,rows=evidently,denominator=hits)@3", {}, "denominator"),
        ("ndcg(rows=evidently,gain=exponential)@3", {}, "gain"),
        ("ndcg(rows=evidently,ideal=all)@3", {}, "ideal"),
        ("precision(short_lists=evidently,rows=evidently,hit_scores=positive)@3", {}, "hit_scores"),
        ("precision(short_lists=evidently,rows=evidently)@3", {"duplicates": "first"}, "duplicates"),
        ("precision(short_lists=evidently,rows=evidently)@3", {"duplicates": "count"}, "duplicates"),
        ("precision@3", {"ties": "evidently", "max_items": 5}, "max_items"),
        ("bpref@3", {"ties": "evidently"}, "defined for"),
        ("ap@3", {"ties": "evidently"}, "short_lists"),
        ("fcp@3", {"ties": "evidently"}, "fcp"),
        ("serendipity(aggregate=sum,relevance=all)@3", {"train": {1: [1]}, "item_features": {1: [1.0]}}, "relevant"),
    ],
)
def test_evidently_options_reject_what_evidently_does_not_define(metric, kwargs, match):
    with pytest.raises(ValueError, match=match):
        rm.evaluate({1: {1: 1}}, {1: {1: 0.5, 2: 0.5}}, [metric], **kwargs)


def test_ties_evidently_changes_nothing_on_ranked_lists():
    truth = {1: {1: 1, 3: 2}, 2: {2: 1}}
    recs = {1: [3, 2, 1], 2: [1, 2]}
    metrics = ["precision@2", "ndcg@2", "rr@3", "bpref@2"]
    a = rm.evaluate(truth, recs, metrics, ties="evidently")
    b = rm.evaluate(truth, recs, metrics)
    assert all(a[m] == b[m] for m in metrics)


# --------------------------------------------------------------------------- beyond accuracy
@st.composite
def beyond_scenarios(draw):
    n_users = draw(st.integers(1, 6))
    items = list(range(10))
    feats = {i: [float(draw(st.integers(0, 2))) for _ in range(3)] for i in items}  # some all-zero vectors
    truth, recs, train = {}, {}, {}
    for u in range(n_users):
        truth[u] = {i: draw(st.sampled_from([0, 1, 2])) for i in draw(st.lists(st.sampled_from(items), unique=True))}
        listed = draw(st.lists(st.sampled_from(items), max_size=7, unique=True))
        steps = [draw(st.sampled_from([0.0, 0.0, 1.0])) for _ in listed]
        recs[u] = {i: float(x) for i, x in zip(listed, 10.0 - np.cumsum(steps))}
        if draw(st.booleans()):
            train[u] = draw(st.lists(st.sampled_from(items), min_size=1, max_size=5, unique=True))
    return truth, recs, train, feats


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(beyond_scenarios(), st.sampled_from([1, 2, 3, 5]), st.sampled_from(["input", "evidently"]))
def test_evidently_beyond_options_match_the_reference(scenario, k, ties):
    truth, recs, train, feats = scenario
    metrics = [
        f"diversity(divide_by=items)@{k}",
        f"serendipity(aggregate=sum)@{k}",
        f"personalization(similarity=evidently)@{k}",
        f"novelty@{k}",
        f"arp@{k}",
        f"coverage@{k}",
        f"gini(over=recommended)@{k}",
        f"score_entropy@{k}",
    ]
    train_arg = train or {99: [0]}
    res = rm.evaluate(truth, recs, metrics, ties=ties, train=train_arg, item_features=feats)
    tops = {}
    for u in truth:
        lst, sc = list(recs[u]), list(recs[u].values())
        tops[u] = ref.top_evidently(lst, sc, k) if ties == "evidently" else lst[:k]
    for idx, u in enumerate(truth):
        t = tops[u]
        want_div = 0.0 if len(t) == 1 else ref.diversity_items(t, feats, refb.cos)
        assert _close(float(res.per_user[metrics[0]][idx]), want_div), (u, t)
        want_ser = ref.serendipity_sum(truth[u], t, train_arg.get(u, []), feats, refb.cos)
        assert _close(float(res.per_user[metrics[1]][idx]), want_ser), (u, t)
        assert _close(float(res.per_user[metrics[3]][idx]), refb.novelty(t, None, train_arg))
        assert _close(float(res.per_user[metrics[4]][idx]), refb.arp(t, None, train_arg))
    lists = [tops[u] for u in truth]
    assert _close(res[metrics[2]], ref.personalization(lists, k))
    catalog = refb.default_catalog(train_arg, None)
    assert _close(res[metrics[5]], refb.coverage(lists, None, catalog))
    assert _close(res[metrics[6]], refb.gini(lists, None, catalog, over="recommended"))
    scores = [[recs[u][i] for i in tops[u]] for u in truth]
    assert math.isclose(res[metrics[7]], refb.score_entropy(scores, None), rel_tol=1e-9, abs_tol=1e-12) or (
        math.isnan(res[metrics[7]]) and math.isnan(refb.score_entropy(scores, None))
    )


def test_evidently_personalization_counts_short_lists_as_k_items():
    recs = {1: [1, 2], 2: [1]}
    truth = {1: {1: 1}, 2: {1: 1}}
    res = rm.evaluate(truth, recs, ["personalization(similarity=evidently)@2", "personalization@2"])
    # c = (2, 1): 1 - (5 - 2 * 2) / (2 * 2 * 1) = 0.75; the default: 1 - (1 / 2) = 0.5
    assert res["personalization(similarity=evidently)@2"] == pytest.approx(0.75)
    assert res["personalization@2"] == pytest.approx(0.5)
