"""ties="last": every item of a group of equal scores at the group's last rank, for ap (Cornac's MAP), against
the pure-Python reference (tests/support/reference.py ap_tie_last), and its refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.support import reference as ref

DENOMINATORS = ["relevant", "min_relevant_k", "hits", "k", "min_listed"]


@st.composite
def scenarios(draw):
    """Truth {user: {item: grade}} (users without truth rows, all-zero grades, negative grades) and score dicts
    (users without a list, empty lists, one-item lists, few distinct scores: many ties)."""
    truth: dict = {}
    recs: dict = {}
    for u in range(draw(st.integers(0, 6))):
        if draw(st.integers(0, 5)):
            items = draw(st.lists(st.integers(0, 12), max_size=8, unique=True))
            truth[u] = {i: draw(st.sampled_from([-1, 0, 0, 1, 2])) for i in items}
        if draw(st.integers(0, 5)):
            scored = draw(st.lists(st.integers(0, 14), max_size=10, unique=True))
            recs[u] = {i: float(draw(st.integers(0, 3))) for i in scored}
    if not truth or not set(truth) & set(recs):  # evaluate needs a user on both sides
        truth[99], recs[99] = {0: 1}, {0: 1.0, 1: 1.0}
    return truth, recs


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    scenarios(),
    st.sampled_from([None, 1, 2, 3, 7, 50]),
    st.sampled_from([None, 1.0, 2.0]),
    st.sampled_from(["skip", "zero", "one"]),
    st.sampled_from([1, 2]),
)
def test_ap_with_tie_groups_at_their_last_rank_matches_the_reference(scenario, k, min_rel, empty, threads):
    truth, recs = scenario
    metrics = [f"ap(denominator={d})" + ("" if k is None else f"@{k}") for d in DENOMINATORS]
    res = rm.evaluate(truth, recs, metrics, ties="last", min_relevance=min_rel, empty=empty, threads=threads)
    for d, m in zip(DENOMINATORS, metrics):
        for idx, u in enumerate(res.users.tolist()):
            grades = {i: float(g) for i, g in truth[u].items()}
            if not ref.relevant_set(grades, min_rel) and empty != "zero":
                want = {"skip": math.nan, "one": 1.0}[empty]
            else:
                want = ref.ap_tie_last(recs.get(u, {}), grades, k, min_rel, denominator=d)
            got = float(res.per_user[m][idx])
            assert (math.isnan(want) and math.isnan(got)) or math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-15), (
                m,
                u,
                got,
                want,
            )
        vals = [v for v in res.per_user[m].tolist() if not math.isnan(v)]
        assert math.isclose(res[m], math.fsum(vals) / len(vals) if vals else math.nan, rel_tol=1e-12) or (
            math.isnan(res[m]) and not vals
        )


def test_a_tie_group_reads_the_precision_at_its_end():
    # b 0.9 relevant alone at rank 1: 1/1; a and c tie at ranks 2..3, c relevant: both at rank 3, 2/3
    truth = {"u": {"b": 1, "c": 1}}
    recs = {"u": {"a": 0.5, "b": 0.9, "c": 0.5, "d": 0.1}}
    res = rm.evaluate(truth, recs, ["ap", "ap@2", "ap@3"], ties="last")
    assert res["ap"] == (1 + 2 / 3) / 2
    assert res["ap@2"] == 1 / 2  # the tie group ends at rank 3, past the cutoff
    assert res["ap@3"] == (1 + 2 / 3) / 2
    # the order given within the group changes nothing
    again = rm.evaluate(truth, {"u": {"c": 0.5, "b": 0.9, "a": 0.5, "d": 0.1}}, ["ap"], ties="last")
    assert again["ap"] == res["ap"]


def test_lists_in_order_with_scores_group_their_runs_of_equal_scores():
    M = np.array([[0.5, 0.5, 0.9, 0.1]])
    res = rm.evaluate({0: {1: 1, 2: 1}}, rm.Recs.from_scores(M, k=4), ["ap"], ties="last")
    assert res["ap"] == (1 + 2 / 3) / 2


def test_a_per_metric_rule_leaves_the_other_metrics_alone():
    truth = {"u": {"b": 1, "c": 1}}
    recs = {"u": {"a": 0.5, "b": 0.9, "c": 0.5, "d": 0.1}}
    res = rm.evaluate(truth, recs, ["ap", "ndcg", "auc"], ties={"ap": "last", "*": "item"})
    alone = rm.evaluate(truth, recs, ["ndcg", "auc"], ties="item")
    assert res["ap"] == (1 + 2 / 3) / 2
    assert res["ndcg"] == alone["ndcg"] and res["auc"] == alone["auc"]


@pytest.mark.parametrize(
    "metrics, kw, words",
    [
        (["ap", "ndcg@2"], {}, "ap only"),
        (["ap(short_lists=evidently)@3"], {}, "short_lists"),
        (["ap(hit_scores=positive)"], {}, "hit_scores"),
        (["ap"], {"duplicates": "first"}, "duplicates='first'"),
        (["ap"], {"max_items": 2}, "max_items"),
    ],
)
def test_rejected_combinations_name_the_fix(metrics, kw, words):
    with pytest.raises(ValueError, match=words):
        rm.evaluate({0: {1: 1}}, {0: {1: 0.5, 2: 0.5}}, metrics, ties="last", **kw)


@pytest.mark.parametrize("duplicates, want", [("count", (1 + 2 / 3) / 2), ("miss", 1.0)])
def test_a_repeated_item_is_a_hit_at_its_own_tie_group_under_count_only(duplicates, want):
    # a at 0.9, then b and a again tied at 0.5 (ranks 2..3): under "count" the repeat is a hit at rank 3 with 2 hits
    # at or above it (Cornac's np.isin over its candidates), under "miss" it is no hit
    recs = rm.Recs.from_csr(np.array([0, 3]), np.array([7, 8, 7]), np.array([0.9, 0.5, 0.5]), users=np.array([0]))
    res = rm.evaluate({0: {7: 1}}, recs, ["ap(denominator=hits)"], ties="last", duplicates=duplicates)
    assert res["ap(denominator=hits)"] == want
