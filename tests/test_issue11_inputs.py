"""Regression tests for issue 11 (inputs): each test is named after the problem it pins."""

from __future__ import annotations

import itertools
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import rankmeter as rm

pd = pytest.importorskip("pandas")


# --------------------------------------------------------------------------- 6. silent zeros
def test_issue11_str_row_is_not_a_list_of_items():
    with pytest.raises(TypeError, match=r"`recs` for user 0 .*got str 'abc'; a str is never a list of items"):
        rm.evaluate([["a"], ["b"]], ["abc", "bcd"], ["precision@3"])
    with pytest.raises(TypeError, match=r"`truth` for user 1 .*got str 'bc'"):
        rm.evaluate([["a"], "bc"], [["a"], ["b"]], ["precision@3"])
    with pytest.raises(TypeError, match=r"`recs` for user 0 .*a list of file paths"):
        rm.evaluate([["a"]], ["part-0.parquet"], ["ndcg"])
    with pytest.raises(TypeError, match=r"`recs` for user 'u'"):
        rm.evaluate({"u": ["a"]}, {"u": "abc"}, ["ndcg"])
    # tuples and other iterables are still lists of items
    assert rm.evaluate([("a", "b")], [iter(["b", "a"])], ["precision@2"])["precision@2"] == 1.0


def test_issue11_user_ids_of_different_kinds_raise():
    with pytest.raises(ValueError, match=r"user ids are of different kinds.*'1'.*e\.g\. 1"):
        rm.evaluate({"1": [1], "2": [2]}, {1: [1], 2: [2]}, ["ndcg"])
    # a positional side's users are 0..n-1: against string keys that is a kind error too
    with pytest.raises(ValueError, match=r"positions 0\.\.n-1"):
        rm.evaluate([[1]], {"u": [1]}, ["ndcg"])
    # positional against keyed ints is fine
    assert rm.evaluate([[1], [2]], {1: [2], 0: [1]}, ["precision@1"])["precision@1"] == 1.0


def test_issue11_no_recs_user_matches_raises():
    with pytest.raises(ValueError, match=r"no `recs` user matches a `truth` user.*e\.g\. 1.*e\.g\. 7"):
        rm.evaluate({1: [1], 2: [2]}, {7: [1], 8: [2]}, ["ndcg"])
    # empty sides are fine
    assert rm.evaluate({}, {7: [1]}, ["ndcg"]).meta["n_ignored_recs"] == 1
    assert rm.evaluate({1: [1]}, {}, ["ndcg"])["ndcg"] == 0.0
    # one user in common is enough (the others are counted in meta)
    res = rm.evaluate({1: [1], 2: [2]}, {1: [1], 8: [2]}, ["ndcg"])
    assert res.meta["n_missing_recs"] == 1 and res.meta["n_ignored_recs"] == 1


def test_issue11_item_ids_of_different_kinds_raise():
    with pytest.raises(ValueError, match=r"item ids are of different kinds.*int item ids, e\.g\. 1.*str item ids"):
        rm.evaluate({0: [1, 2]}, {0: ["1", "2"]}, ["ndcg"])
    with pytest.raises(ValueError, match=r"item ids are of different kinds"):
        rm.evaluate({"u": ["a"]}, {"u": np.array([1, 2])}, ["ndcg"])
    # a mix of kinds on one side is allowed (ids are compared as they are)
    assert rm.evaluate({0: [1, "1"]}, {0: ["1"]}, ["hits"])["hits"] == 1.0
    # train (beyond-accuracy context) against the lists: same rule
    with pytest.raises(ValueError, match=r"`train` and `recs` item ids are of different kinds"):
        rm.evaluate({0: [1]}, {0: [1]}, ["novelty"], train={0: ["1"]})
