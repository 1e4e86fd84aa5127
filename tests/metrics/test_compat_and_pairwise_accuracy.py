"""`compat` and `pairwise_accuracy` (docs/metrics.md 3.18.20, 3.18.21): the C++ pass against the pure-Python
reference (tests/support/reference_irm.py) on random truth with graded, zero, negative and fractional grades,
users without truth rows or relevant rows, users missing on either side, empty and short lists, repeats, ties of
scores, int and string ids, every `empty=` policy and several thread counts; plus hand-checked values.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.metrics.test_accuracy import SETTINGS, check
from tests.support import reference_irm as ref

GRADES = [-1, -0.0, 0, 0, 0.5, 1, 1, 2, 3]
METRICS = [
    "compat",
    "compat(p=0.8)",
    "compat(p=0.5,normalize=none)",
    "compat(normalize=none)",
    "compat(p=1)",
    "compat(p=0)",
    "pairwise_accuracy",
    "pairwise_accuracy@1",
    "pairwise_accuracy@3",
    "pairwise_accuracy@10",
]


@st.composite
def cases(draw):
    strings = draw(st.booleans())
    pool = [f"d{i}" for i in range(10)] if strings else list(range(10))
    users = [f"u{u}" for u in range(5)] if strings else list(range(5))
    truth: dict = {}
    recs: dict = {}
    scored = draw(st.booleans())
    for u in users[: draw(st.integers(1, 5))]:
        items = draw(st.lists(st.sampled_from(pool), max_size=7, unique=True))
        if items or draw(st.booleans()):
            truth[u] = {i: draw(st.sampled_from(GRADES)) for i in items}
        if draw(st.integers(0, 5)):
            lst = draw(st.lists(st.sampled_from(pool), max_size=9, unique=True))
            if scored:  # scores with ties: the tie order of `ties=` decides
                recs[u] = {i: draw(st.sampled_from([0.0, 1.0, 1.0, 2.0])) for i in lst}
                continue
            if lst and draw(st.booleans()):
                lst.insert(draw(st.integers(1, len(lst))), lst[0])  # a repeat
            recs[u] = lst
    truth = {u: t for u, t in truth.items() if t}
    if not truth:
        truth = {users[0]: {pool[0]: 1}}
    if not set(recs) & set(truth):  # rankmeter refuses inputs without a user in common
        recs[next(iter(truth))] = {} if scored else []
    opts = dict(
        empty=draw(st.sampled_from(["zero", "one", "skip"])),
        min_relevance=draw(st.sampled_from([None, None, 1, 2, 0.5, 0])),
        max_items=draw(st.sampled_from([None, None, 1, 3])),
        duplicates=draw(st.sampled_from(["first", "first", "miss"])),
        missing=draw(st.sampled_from(["zero", "skip"])),
        threads=draw(st.sampled_from([1, 2, 4])),
    )
    if scored:
        opts["ties"] = draw(st.sampled_from(["trec", "input", "item_desc"]))
    metrics = draw(st.lists(st.sampled_from(METRICS), min_size=1, max_size=len(METRICS), unique=True))
    return truth, recs, metrics, opts


@settings(max_examples=400, **SETTINGS)
@given(cases())
def test_compat_and_pairwise_accuracy_match_the_reference(case):
    truth, recs, metrics, opts = case
    threads = opts.pop("threads")
    res = check(truth, recs, metrics, **opts)
    if res is not None:  # the same values on any number of threads
        again = rm.evaluate(truth, recs, metrics, threads=threads, **opts)
        for m in metrics:
            np.testing.assert_array_equal(again.per_user[m], res.per_user[m], err_msg=m)


@settings(max_examples=60, **SETTINGS)
@given(cases())
def test_compat_and_pairwise_accuracy_match_the_reference_on_whole_lists(case):
    truth, recs, metrics, opts = case
    opts.pop("threads")
    check(truth, recs, metrics, whole_lists=True, **opts)


def test_compat_hand_checked_value():
    # list a x b, ideal (by grade) b a: overlaps 0/1, 1/2, 2/3 at depths 1..3; the ideal's own 1/1, 2/2, 2/3
    truth = {"q": {"a": 1, "b": 2}}
    recs = {"q": ["a", "x", "b"]}
    p = 0.5
    norm = 1 + p + p * p
    raw = (0 + p * 1 / 2 + p * p * 2 / 3) / norm
    best = (1 + p * 1.0 + p * p * 2 / 3) / norm
    res = rm.evaluate(truth, recs, ["compat(p=0.5,normalize=none)", "compat(p=0.5)"])
    assert math.isclose(res["compat(p=0.5,normalize=none)"], raw, rel_tol=1e-15)
    assert math.isclose(res["compat(p=0.5)"], raw / best, rel_tol=1e-15)


def test_compat_ideal_keeps_truth_order_among_equal_grades():
    # a and b share a grade: the ideal is a b (truth order), so the list b a scores below the list a b at depth 1
    truth = {"q": {"a": 1, "b": 1}}
    first = rm.evaluate(truth, {"q": ["a", "b"]}, ["compat"])["compat"]
    second = rm.evaluate(truth, {"q": ["b", "a"]}, ["compat"])["compat"]
    assert first == 1.0
    assert second < 1.0
    assert math.isclose(second, ref.compat(["b", "a"], truth["q"], None, None), rel_tol=1e-15)


def test_pairwise_accuracy_hand_checked_values():
    # r x r y: relevant r1 before both others, r2 after x: 3 of 4 pairs
    truth = {"q": {"r1": 1, "r2": 2, "y": 0}}
    recs = {"q": ["r1", "x", "r2", "y"]}
    res = rm.evaluate(truth, recs, ["pairwise_accuracy", "pairwise_accuracy@1", "pairwise_accuracy@3"])
    assert res["pairwise_accuracy"] == 0.75
    assert res["pairwise_accuracy@1"] == 1.0  # no other item in the top 1
    assert res["pairwise_accuracy@3"] == 0.5  # r1 > x, x > r2


@pytest.mark.parametrize("threads", [1, 3])
def test_compat_and_pairwise_accuracy_are_deterministic_over_threads(threads):
    truth = {u: {i: (u + i) % 3 for i in range(u % 7 + 1)} for u in range(300)}
    recs = {u: [(u * 7 + j) % 11 for j in range(u % 9)] for u in range(300)}
    one = rm.evaluate(truth, recs, ["compat", "pairwise_accuracy@5"], threads=1)
    many = rm.evaluate(truth, recs, ["compat", "pairwise_accuracy@5"], threads=threads)
    for m in ("compat", "pairwise_accuracy@5"):
        np.testing.assert_array_equal(one.per_user[m], many.per_user[m])
