"""The worked examples of docs/metrics.md §10 (all but FCP: tests/metrics/test_beyond.py), with
their numbers printed to three decimals.

Each tolerance is half a unit of the last printed decimal (plus a hair), so a
value that would print differently fails. The comments re-derive every
expected number by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import rankmeter as rm


def tol(decimals: int) -> float:
    """Half a unit of the last printed decimal."""
    return 0.5 * 10.0 ** (-decimals) + 1e-12


# --------------------------------------------------------------------------- DCG / IDCG / NDCG
# grades by rank [3, 1, 0, 2, 0], truth {A:3, B:1, D:2}, linear gain:
# DCG@5  = 3/log2(2) + 1/log2(3) + 0 + 2/log2(5) + 0 = 4.4923
# IDCG@5 = 3/log2(2) + 2/log2(3) + 1/log2(4)         = 4.7619
# NDCG@5 = 0.9434
DCG_TRUTH = {"q": {"A": 3, "B": 1, "D": 2}}
DCG_LIST = {"q": ["A", "B", "X", "D", "Y"]}


def test_dcg_at_5():
    res = rm.evaluate(DCG_TRUTH, DCG_LIST, ["dcg@5"])
    assert res["dcg@5"] == pytest.approx(4.492, abs=tol(3))


def test_idcg_at_5_is_dcg_of_the_ideal_order():
    # IDCG is the DCG of the truth sorted by grade: A(3), D(2), B(1).
    res = rm.evaluate(DCG_TRUTH, {"q": ["A", "D", "B"]}, ["dcg@5", "ndcg@5"])
    assert res["dcg@5"] == pytest.approx(4.762, abs=tol(3))
    assert res["ndcg@5"] == 1.0


def test_ndcg_at_5():
    res = rm.evaluate(DCG_TRUTH, DCG_LIST, ["ndcg@5"])
    assert res["ndcg@5"] == pytest.approx(0.943, abs=tol(3))
    # and it is DCG/IDCG of the two numbers above
    dcg = rm.evaluate(DCG_TRUTH, DCG_LIST, ["dcg@5"])["dcg@5"]
    idcg = rm.evaluate(DCG_TRUTH, {"q": ["A", "D", "B"]}, ["dcg@5"])["dcg@5"]
    assert res["ndcg@5"] == pytest.approx(dcg / idcg, rel=1e-12)


def test_dcg_example_all_input_forms_agree():
    # Same example from integer CSR buffers and a padded 2-D array.
    # items: A=0, B=1, D=3, X=7, Y=8
    truth = (np.array([0, 3]), np.array([0, 1, 3]), np.array([3.0, 1.0, 2.0]))
    recs = np.array([[0, 1, 7, 3, 8, -1]])
    res = rm.evaluate(truth, recs, ["dcg@5", "ndcg@5"])
    assert res["dcg@5"] == pytest.approx(4.492, abs=tol(3))
    assert res["ndcg@5"] == pytest.approx(0.943, abs=tol(3))


# --------------------------------------------------------------------------- recall / precision
def test_recall_precision_at_5():
    truth = {"u": ["A", "B", "C", "D"]}
    recs = {"u": ["A", "X", "Y", "C", "Z"]}
    res = rm.evaluate(truth, recs, ["recall@5", "precision@5"])
    assert res["recall@5"] == 0.5
    assert res["precision@5"] == 0.4


# --------------------------------------------------------------------------- MRR
def test_mrr_first_relevant_at_3_1_3_none():
    truth = {1: ["r"], 2: ["r"], 3: ["r"], 4: ["r"]}
    recs = {
        1: ["a", "b", "r", "c"],
        2: ["r", "a", "b", "c"],
        3: ["a", "b", "r", "c"],
        4: ["a", "b", "c", "d"],
    }
    res = rm.evaluate(truth, recs, ["mrr"])
    assert res["mrr"] == pytest.approx(0.4167, abs=tol(4))
    assert list(res.per_user["mrr"]) == [1 / 3, 1.0, 1 / 3, 0.0]


# --------------------------------------------------------------------------- AP
def test_ap_at_6_hits_at_1_4_5():
    # (1/1 + 2/4 + 3/5) / 3 = 0.7
    truth = [["r1", "r2", "r3"]]
    recs = [["r1", "x", "y", "r2", "r3", "z"]]
    res = rm.evaluate(truth, recs, ["ap@6"])
    assert res["ap@6"] == pytest.approx(0.7, abs=1e-12)


# --------------------------------------------------------------------------- CG / NDCG of gains (2,0,3,2)
# A list of 4 items whose grades by rank are 2, 0, 3, 2 and a truth holding
# exactly those grades (the 0 is a judged non-relevant item). CG = 7.
# DCG = 2 + 0 + 3/log2(4) + 2/log2(5) = 4.3614; ideal order 3, 2, 2, 0 gives
# IDCG = 3 + 2/log2(3) + 2/log2(4) + 0 = 5.2619; NDCG = 0.8289.
GAINS_TRUTH = {"u": {"a": 2, "b": 0, "c": 3, "d": 2}}
GAINS_LIST = {"u": ["a", "b", "c", "d"]}


def test_cg_of_gains_2_0_3_2():
    res = rm.evaluate(GAINS_TRUTH, GAINS_LIST, ["cg", "cg@4"])
    assert res["cg"] == 7.0
    assert res["cg@4"] == 7.0


def test_ndcg_of_gains_2_0_3_2():
    # ideal=cut over the whole list (no cutoff: k = n = 4)
    res = rm.evaluate(GAINS_TRUTH, GAINS_LIST, ["ndcg", "ndcg(ideal=cut)@4", "ndcg(ideal=all)"])
    assert res["ndcg"] == pytest.approx(0.83, abs=tol(2))
    assert res["ndcg(ideal=cut)@4"] == res["ndcg"]
    assert res["ndcg(ideal=all)"] == res["ndcg"]  # the truth has only 4 items


def test_ideal_dcg_of_gains_2_0_3_2():
    # the ideal order 3, 2, 2, 0 has DCG 5.26
    res = rm.evaluate(GAINS_TRUTH, {"u": ["c", "a", "d", "b"]}, ["dcg", "ndcg"])
    assert res["dcg"] == pytest.approx(5.26, abs=tol(2))
    assert res["ndcg"] == 1.0
    # the ratio of the printed DCGs is the printed NDCG
    dcg = rm.evaluate(GAINS_TRUTH, GAINS_LIST, ["dcg"])["dcg"]
    assert dcg / res["dcg"] == pytest.approx(0.83, abs=tol(2))


# --------------------------------------------------------------------------- two systems
@pytest.mark.parametrize(
    "system, ap",
    [([6, 2, 1, 0, 3], 1.0), ([4, 1, 7, 2, 6], 0.325)],
    ids=["A", "B"],
)
def test_two_systems_relevant_2_6(system, ap):
    truth = [[2, 6]]
    res = rm.evaluate(truth, [system], ["precision@5", "recall@5", "ap@5"])
    assert res["precision@5"] == 0.4
    assert res["recall@5"] == 1.0
    assert res["ap@5"] == pytest.approx(ap, abs=1e-12)


def test_two_systems_as_one_evaluation_each_per_user():
    # both systems as two users of one keyed evaluation
    truth = {"A": [2, 6], "B": [2, 6]}
    recs = {"B": [4, 1, 7, 2, 6], "A": [6, 2, 1, 0, 3]}
    res = rm.evaluate(truth, recs, ["ap@5", "precision@5", "recall@5"])
    assert list(res.users) == ["A", "B"]
    assert res.per_user["ap@5"].tolist() == pytest.approx([1.0, 0.325], abs=1e-12)
    assert res.per_user["precision@5"].tolist() == [0.4, 0.4]
    assert res.per_user["recall@5"].tolist() == [1.0, 1.0]
    assert res["ap@5"] == pytest.approx((1.0 + 0.325) / 2, abs=1e-12)
    assert math.isclose(res["ap@5"], 0.6625, abs_tol=1e-12)
