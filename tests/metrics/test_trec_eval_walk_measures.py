"""trec_eval's walk measures: num_nonrel_judged, unjudged, rprec_mult, iprec, rbp_resid, bin_g,
trec_g, ndcg_rel, rndcg, infap, iprec_avg (11pt_avg), set_map, utility and rbp's scale=max_grade
(docs/metrics.md 3.16, 3.18.1-3.18.13).

The C++ pass against the pure-Python reference (tests/support/reference.py) on random truth with
negative (unjudged), zero (judged non-relevant), fractional and -0.0 grades, users without truth
rows or relevant rows, empty and truncated lists, ties of scores, dropped repeats and every
`empty=` policy; plus hand-checked values.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.metrics.test_accuracy import SETTINGS, check
from tests.support import reference as ref

GRADES = [-2, -1, -0.5, -0.0, 0, 0.5, 1, 2, 3, 3, 4]
METRICS = [
    "num_nonrel_judged",
    "num_nonrel_judged@3",
    "unjudged",
    "unjudged@1",
    "unjudged@5",
    "rprec_mult",
    "rprec_mult(mult=0.2)",
    "rprec_mult(mult=0.5)",
    "rprec_mult(mult=2)",
    "iprec",
    "iprec(at=0.1)",
    "iprec(at=0.25)",
    "iprec(at=0.5)",
    "iprec(at=1)",
    "iprec(cut=trec9)",
    "iprec(at=0.1,cut=trec9)",
    "iprec(at=0.3,cut=trec9)",
    "iprec(at=0.5,cut=trec9)",
    "iprec(at=1,cut=trec9)",
    "rbp_resid",
    "rbp_resid(p=0.5)@3",
    "bin_g",
    "bin_g@2",
    "trec_g",
    "ndcg_rel",
    "rndcg",
    "infap",
    "iprec_avg",
    "iprec_avg(cut=trec9)",
    "set_map",
    "set_map@3",
    "utility",
    "utility@2",
    "utility(rel_ret=2,nonrel_ret=-1.5,rel_nonret=-0.25,nonrel_nonret=0.5,num_docs=30)",
    "rbp(p=0.9,gain=linear,scale=max_grade)",
    "rbp(gain=exponential,scale=max_grade)@3",
]


@st.composite
def cases(draw):
    pool = list(range(12))
    n_users = draw(st.integers(1, 6))
    truth: dict = {}
    recs: dict = {}
    scored = draw(st.booleans())
    for u in range(n_users):
        items = draw(st.lists(st.sampled_from(pool), max_size=8, unique=True))
        if items or draw(st.booleans()):
            truth[u] = {i: draw(st.sampled_from(GRADES)) for i in items}
        if draw(st.integers(0, 5)):
            lst = draw(st.lists(st.sampled_from(pool), max_size=10, unique=True))
            if scored:  # scores with ties: the tie order of `ties=` decides
                recs[u] = {i: draw(st.sampled_from([0.0, 1.0, 1.0, 2.0])) for i in lst}
                continue
            if lst and draw(st.booleans()):
                lst.insert(draw(st.integers(1, len(lst))), lst[0])  # a repeat (duplicates="first" drops it)
            recs[u] = lst
    truth = {u: t for u, t in truth.items() if t}
    if not truth:
        truth = {0: {0: 1}}
    if not set(recs) & set(truth):  # rankmeter refuses inputs without a user in common
        recs[next(iter(truth))] = {} if scored else []
    opts = dict(
        empty=draw(st.sampled_from(["zero", "one", "skip"])),
        min_relevance=draw(st.sampled_from([None, None, 1, 2, 0.5, 0])),
        max_items=draw(st.sampled_from([None, None, 1, 3])),
        duplicates="first",
        missing=draw(st.sampled_from(["zero", "skip"])),
    )
    if scored:
        opts["ties"] = draw(st.sampled_from(["trec", "input", "item_desc"]))
    metrics = draw(st.lists(st.sampled_from(METRICS), min_size=1, max_size=len(METRICS), unique=True))
    return truth, recs, metrics, opts


@settings(max_examples=400, **SETTINGS)
@given(cases())
def test_trec_eval_walk_measures_match_the_reference(case):
    truth, recs, metrics, opts = case
    check(truth, recs, metrics, **opts)


@settings(max_examples=100, **SETTINGS)
@given(cases())
def test_trec_eval_walk_measures_match_the_reference_on_whole_lists(case):
    truth, recs, metrics, opts = case
    check(truth, recs, metrics, whole_lists=True, **opts)


def test_hand_checked_values():
    # list: a (rel), x (no truth row), n (grade 0), u (grade -1, unjudged), b (rel); R = {a, b, c}
    truth = {"q": {"a": 1, "b": 2, "c": 1, "n": 0, "u": -1}}
    recs = {"q": ["a", "x", "n", "u", "b"]}
    ms = ["num_nonrel_judged", "unjudged@4", "unjudged@10", "rprec_mult", "rprec_mult(mult=0.2)"]
    ms += ["iprec", "iprec(at=0.5)", "iprec(at=1)", "rbp_resid(p=0.5)", "bin_g"]
    res = rm.evaluate(truth, recs, ms)
    assert res["num_nonrel_judged"] == 1.0  # n only: u is unjudged, x has no row
    assert res["unjudged@4"] == 2 / 4  # x and u
    assert res["unjudged@10"] == 2 / 10  # a short list divides by k
    assert res["rprec_mult"] == 1 / 3  # c = int(3 + 0.9) = 3: hits@3 = 1
    assert res["rprec_mult(mult=0.2)"] == 1.0  # c = int(0.6 + 0.9) = 1
    assert res["iprec"] == 1.0  # P at a = 1
    assert res["iprec(at=0.5)"] == 2 / 5  # round(1.5) = 2 relevant: P at b = 2/5
    assert res["iprec(at=1)"] == 0.0  # c is never found
    # unjudged positions 2 (x) and 4 (u), p = 0.5: 0.5^5 + 0.5 * (0.5 + 0.125)
    assert math.isclose(res["rbp_resid(p=0.5)"], 0.5**5 + 0.5 * (0.5 + 0.125))
    assert math.isclose(res["bin_g"], (1 / math.log2(2) + 1 / math.log2(2 + 3)) / 3)
    for m in ms:
        assert math.isclose(ref.metric_value(m, recs["q"], truth["q"], None), res[m]), m


def test_iprec_trec9_cut_rounds_the_level_up_from_one_tenth():
    # |R| = 3: at=0.3 needs round(0.9) = 1 relevant item under trec_eval 10.0 but int(0.9 + 0.9) = 1 under 9.0.x;
    # at=0.4: round(1.2) = 1 against int(1.2 + 0.9) = 2; at=0.5: round(1.5) = 2 against int(2.4) = 2
    truth = {"q": {"a": 1, "b": 1, "c": 1}}
    recs = {"q": ["a", "x", "y", "b", "c"]}  # P at a = 1, at b = 2/4, at c = 3/5
    res = rm.evaluate(truth, recs, ["iprec(at=0.4)", "iprec(at=0.4,cut=trec9)", "iprec(at=0.1,cut=trec9)"])
    assert res["iprec(at=0.4)"] == 1.0  # from the first relevant item on
    assert res["iprec(at=0.4,cut=trec9)"] == 3 / 5  # from the second on: max(2/4, 3/5)
    assert res["iprec(at=0.1,cut=trec9)"] == 1.0  # int(0.3 + 0.9) = 1


def test_rbp_resid_is_zero_when_every_item_read_is_judged():
    res = rm.evaluate({"q": {"a": 1, "b": 0}}, {"q": ["b", "a"]}, ["rbp_resid"])
    assert res["rbp_resid"] == 0.0


@pytest.mark.parametrize("bad", ["iprec(at=1.5)", "iprec(at=-0.1)", "rprec_mult(mult=0)", "rbp_resid(p=1)"])
def test_out_of_range_options_are_refused(bad):
    with pytest.raises(ValueError):
        rm.metrics.parse(bad)
