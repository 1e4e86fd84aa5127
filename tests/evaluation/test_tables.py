"""item_bias / user_bias / rec_cases against plain counting loops (the category tables of docs/metrics.md §3.19)."""

from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm

SETTINGS = settings(max_examples=80, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


def _as_dict(table):
    if hasattr(table, "to_dict"):
        return {c: list(table[c]) for c in table.columns}
    return {c: list(v) for c, v in table.items()}


def _naive_shares(train_cats, rec_cats):
    tc: dict = {}
    rc: dict = {}
    for c in train_cats:
        tc[c] = tc.get(c, 0) + 1
    for c in rec_cats:
        rc[c] = rc.get(c, 0) + 1
    out = {}
    for c in set(tc) | set(rc):
        ts = tc.get(c, 0) / len(train_cats) if train_cats else math.nan
        rs = rc.get(c, 0) / len(rec_cats) if rec_cats else math.nan
        out[c] = (tc.get(c, 0), ts, rc.get(c, 0), rs)
    return out


def _check(table, expected):
    d = _as_dict(table)
    got = {
        c: (a, b, x, y)
        for c, a, b, x, y in zip(d["category"], d["train_count"], d["train_share"], d["rec_count"], d["rec_share"])
    }
    assert set(got) == set(expected)
    for c, (a, b, x, y) in expected.items():
        ga, gb, gx, gy = got[c]
        assert ga == a and gx == x
        assert (math.isnan(gb) and math.isnan(b)) or math.isclose(gb, b)
        assert (math.isnan(gy) and math.isnan(y)) or math.isclose(gy, y)


lists_st = st.dictionaries(st.integers(0, 9), st.lists(st.integers(0, 11), max_size=6, unique=True), max_size=6)
train_st = st.dictionaries(st.integers(0, 12), st.lists(st.integers(0, 11), max_size=6), max_size=6)
cats_st = st.dictionaries(st.integers(0, 11), st.sampled_from(["a", "b", "c"]), max_size=12)


@SETTINGS
@given(lists_st, train_st, cats_st, st.sampled_from([None, 1, 2, 5]))
def test_item_bias_matches_counting(recs, train, cats, k):
    table = rm.item_bias(recs, train, cats, k=k)
    train_cats = [cats.get(i) for items in train.values() for i in items]
    rec_cats = [cats.get(i) for lst in recs.values() for i in (lst if k is None else lst[:k])]
    _check(table, _naive_shares(train_cats, rec_cats))


@SETTINGS
@given(lists_st, train_st, st.dictionaries(st.integers(0, 12), st.sampled_from(["x", "y"]), max_size=13))
def test_user_bias_matches_counting(recs, train, ucats):
    table = rm.user_bias(recs, train, ucats)
    train_cats = [ucats.get(u) for u, items in train.items() if items]
    rec_cats = [ucats.get(u) for u, lst in recs.items() if lst]
    _check(table, _naive_shares(train_cats, rec_cats))


def test_rec_cases_rows():
    recs = {1: {10: 0.2, 11: 0.9, 12: 0.5}, 2: {13: 1.0}}
    train = {1: [7, 8], 2: [9]}
    table = _as_dict(rm.rec_cases(recs, train, users=[1], k=2, truth={1: {12: 3, 99: 1}}))
    assert table["kind"] == ["history", "history", "rec", "rec"]
    assert table["item"] == [7, 8, 11, 12]
    assert table["rank"] == [0, 0, 1, 2]
    assert table["relevance"][2:] == [0.0, 3.0]
    some = _as_dict(rm.rec_cases(recs, train, n=1, seed=3))
    assert len(set(some["user"])) == 1
    with pytest.raises(ValueError, match="`users`"):
        rm.rec_cases(recs, train, users=[42])
    with pytest.raises(TypeError, match="item_categories"):
        rm.item_bias(recs, train, ["a"], k=2)


def test_user_bias_takes_a_truth_table_and_column_keywords():
    pd = pytest.importorskip("pandas")
    truth_df = pd.DataFrame({"uid": [1, 1, 2, 3], "iid": [5, 6, 7, 8], "rating": [4.0, 5.0, 3.0, 1.0]})
    train = pd.DataFrame({"uid": [1, 2, 2, 4], "iid": [5, 5, 6, 7], "rating": [1.0, 2.0, 3.0, 4.0]})
    cats_series = pd.Series({1: "new", 2: "old", 3: "old", 4: "new"})
    kw = dict(user_col="uid", item_col="iid", relevance_col="rating")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for cats in (cats_series, cats_series.to_frame("segment"), dict(cats_series)):
            out = rm.user_bias(truth_df, train, cats, **kw)
            got = dict(zip(out["category"], out["rec_count"]))
            assert got == {"new": 1, "old": 2}
            assert dict(zip(out["category"], out["train_count"])) == {"old": 1, "new": 2}
    with pytest.raises(ValueError, match=r"one column"):
        rm.user_bias(truth_df, train, pd.DataFrame({"a": [1], "b": [2]}), **kw)


def test_item_bias_and_rec_cases_take_column_keywords():
    pd = pytest.importorskip("pandas")
    recs = pd.DataFrame({"uid": [1, 1, 2], "iid": [5, 6, 5], "pos": [1, 2, 1]})
    train = pd.DataFrame({"uid": [1, 2], "iid": [5, 7]})
    cats = pd.DataFrame({"genre": ["x", "y", "y"]}, index=[5, 6, 7])
    out = rm.item_bias(recs, train, cats, k=2, user_col="uid", item_col="iid", rank_col="pos")
    assert dict(zip(out["category"], out["rec_count"])) == {"x": 2, "y": 1}
    assert dict(zip(out["category"], out["train_count"])) == {"x": 1, "y": 1}
    cases = rm.rec_cases(recs, train, users=[1], user_col="uid", item_col="iid", rank_col="pos")
    assert cases["item"].tolist() == [5, 5, 6] and cases["kind"].tolist() == ["history", "rec", "rec"]
