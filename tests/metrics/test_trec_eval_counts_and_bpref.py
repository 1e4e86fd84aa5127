"""bpref's `negative=` option and the counts `num_ret` / `num_q` (docs/metrics.md 3.14.1, 3.14.2, 3.15).

The C++ pass against the pure-Python reference (tests/support/reference.py) on random truth with
negative, zero, fractional and -0.0 grades, relevance thresholds on both sides of zero, truncated
lists, dropped repeats and every `empty=` policy; plus the hand-checked cases the docs state and
the trec_eval preset's choice of `negative="unjudged"`.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.metrics.test_accuracy import SETTINGS, check
from tests.support import reference as ref

GRADES = [-2, -1, -0.5, -0.0, 0, 0.5, 1, 2, 3]
METRICS = [
    "bpref",
    "bpref(negative=unjudged)",
    "bpref(negative=nonrelevant)@2",
    "bpref(negative=unjudged)@1",
    "bpref(negative=unjudged)@3",
    "num_ret",
    "num_q",
]


@st.composite
def cases(draw):
    pool = list(range(12))
    n_users = draw(st.integers(1, 6))
    truth, recs = {}, {}
    for u in range(n_users):
        items = draw(st.lists(st.sampled_from(pool), max_size=8, unique=True))
        if items or draw(st.booleans()):
            truth[u] = {i: draw(st.sampled_from(GRADES)) for i in items}
        if draw(st.integers(0, 5)):
            lst = draw(st.lists(st.sampled_from(pool), max_size=10, unique=True))
            if lst and draw(st.booleans()):
                lst.insert(draw(st.integers(1, len(lst))), lst[0])  # a repeat (duplicates="first" drops it)
            recs[u] = lst
    truth = {u: t for u, t in truth.items() if t}
    if not truth:
        truth = {0: {0: 1}}
    if not set(recs) & set(truth):  # rankmeter refuses inputs without a user in common
        recs[next(iter(truth))] = []
    opts = dict(
        empty=draw(st.sampled_from(["zero", "one", "skip"])),
        min_relevance=draw(st.sampled_from([None, None, 1, 2, 0.5, 0, -0.5, -1])),
        max_items=draw(st.sampled_from([None, None, 1, 3])),
        duplicates="first",
        missing=draw(st.sampled_from(["zero", "skip"])),
    )
    metrics = draw(st.lists(st.sampled_from(METRICS), min_size=1, max_size=len(METRICS), unique=True))
    return truth, recs, metrics, opts


@settings(max_examples=400, **SETTINGS)
@given(cases())
def test_bpref_negative_and_trec_counts_match_the_reference(case):
    truth, recs, metrics, opts = case
    check(truth, recs, metrics, **opts)


@settings(max_examples=150, **SETTINGS)
@given(cases())
def test_bpref_negative_and_trec_counts_match_the_reference_on_whole_lists(case):
    # preset="trec_eval" (bpref gets negative="unjudged" unless the metric says otherwise)
    truth, recs, metrics, opts = case
    check(truth, recs, metrics, whole_lists=True, **opts)


def test_a_negative_grade_is_unjudged_for_bpref_only_with_negative_unjudged():
    truth = {"q": {"a": 1, "b": -1, "c": 0}}
    recs = {"q": ["b", "a", "c"]}
    res = rm.evaluate(truth, recs, ["bpref", "bpref(negative=unjudged)"])
    assert res["bpref"] == 0.0  # b is judged non-relevant and ranked above a: N = 2, R = 1
    assert res["bpref(negative=unjudged)"] == 1.0  # b is ignored: nothing judged non-relevant above a
    assert ref.bpref(recs["q"], truth["q"], None, None, negative="unjudged") == 1.0
    # the denominator min(N, R) counts the judged non-relevant rows only: N = 1 (c) with unjudged, 2 without
    truth2 = {"q": {"a": 1, "b": 1, "n": 0, "m": -2, "o": 0}}
    recs2 = {"q": ["n", "a", "m", "b"]}
    res2 = rm.evaluate(truth2, recs2, ["bpref", "bpref(negative=unjudged)"])
    assert math.isclose(res2["bpref"], ((1 - 1 / 2) + (1 - 2 / 2)) / 2)
    assert math.isclose(res2["bpref(negative=unjudged)"], ((1 - 1 / 2) + (1 - 1 / 2)) / 2)


def test_a_relevant_negative_grade_stays_relevant():
    # min_relevance=-1: grade -1 is relevant, and a relevant row is never unjudged
    truth = {"q": {"a": -1, "b": -2, "c": 0}}
    recs = {"q": ["b", "c", "a"]}
    res = rm.evaluate(truth, recs, ["bpref(negative=unjudged)", "bpref", "num_rel"], min_relevance=-1)
    assert res["num_rel"] == 2.0  # a and c
    # negative="unjudged": b (not relevant, negative) is ignored, N = 0: c and a each add 1
    assert res["bpref(negative=unjudged)"] == 1.0
    # default: b is judged non-relevant (N = 1) and above both: each adds 1 - min(1, 2) / min(1, 2) = 0
    assert res["bpref"] == 0.0
    assert ref.bpref(recs["q"], truth["q"], None, -1) == 0.0


def test_trec_eval_preset_counts_negative_grades_as_unjudged_for_bpref():
    preset = rm.evaluation.get_preset("trec_eval")
    assert preset is not None
    assert str(rm.metrics.parse("bpref", preset.metric_options)) == "bpref(negative=unjudged)"
    assert str(rm.metrics.parse("bpref(negative=nonrelevant)", preset.metric_options)) == "bpref"
    truth = {"q": {"a": 1, "b": -1}}
    recs = {"q": {"b": 2.0, "a": 1.0}}
    assert rm.evaluate(truth, recs, ["bpref"], preset="trec_eval")["bpref"] == 1.0
    assert (
        rm.evaluate(truth, recs, ["bpref(negative=nonrelevant)"], preset="trec_eval")["bpref(negative=nonrelevant)"]
        == 0.0
    )


def test_num_ret_counts_the_list_read_and_num_q_counts_users():
    truth = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}, "q4": {"d": 0}}
    recs = {"q1": ["a", "x", "y", "x", "z"], "q2": [], "q4": ["d", "e"]}
    res = rm.evaluate(truth, recs, ["num_ret", "num_q"], duplicates="first", empty="zero")
    # the repeat of x is dropped; q3 has no list; q4 (no relevant item) keeps its counts under empty="zero"
    assert res.per_user["num_ret"].tolist() == [4.0, 0.0, 0.0, 2.0]
    assert res.per_user["num_q"].tolist() == [1.0, 1.0, 1.0, 1.0]
    capped = rm.evaluate(truth, recs, ["num_ret"], duplicates="first", max_items=2, empty="zero")
    assert capped.per_user["num_ret"].tolist() == [2.0, 0.0, 0.0, 2.0]
    one = rm.evaluate(truth, recs, ["num_ret", "num_q"], duplicates="first", empty="one")
    assert one.per_user["num_ret"].tolist() == [4.0, 0.0, 0.0, 2.0]  # counts: empty="one" keeps them
    assert one.per_user["num_q"].tolist() == [1.0, 1.0, 1.0, 1.0]
    skip = rm.evaluate(truth, recs, ["num_q", "num_ret"], duplicates="first", empty="skip")
    assert skip["num_q"] == 1.0 and math.isnan(skip.per_user["num_q"][3]) and math.isnan(skip.per_user["num_ret"][3])
    with pytest.raises(ValueError, match="takes no cutoff"):
        rm.evaluate(truth, recs, ["num_ret@3"])
