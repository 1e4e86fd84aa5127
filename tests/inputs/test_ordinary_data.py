"""Ordinary data a new user passes: empty tables, polars LazyFrames, misspelt metric names."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankmeter as rm


def _empty_tables():
    pd = pytest.importorskip("pandas")
    out = [pd.DataFrame({"user_id": [], "item_id": [], "rank": []})]  # object columns: pandas' empty default
    out.append(pd.DataFrame({"user_id": [], "item_id": [], "score": []}))
    pl = pytest.importorskip("polars")
    out.append(pl.DataFrame({"user_id": [], "item_id": [], "rank": []}))
    pa = pytest.importorskip("pyarrow")
    out.append(
        pa.table(
            {
                "user_id": pa.array([], pa.string()),
                "item_id": pa.array([], pa.int64()),
                "score": pa.array([], pa.float64()),
            }
        )
    )
    return out


@pytest.mark.parametrize("n", range(4))
def test_an_empty_recommendations_table_means_no_recommendations(n):
    recs = _empty_tables()[n]
    truth = {"a": {1: 1}, "b": {2: 1}}
    res = rm.evaluate(truth, recs, ["ndcg@5", "precision@5"], empty="zero")
    want = rm.evaluate(truth, {}, ["ndcg@5", "precision@5"], empty="zero")
    assert res["ndcg@5"] == want["ndcg@5"] == 0.0 and res.meta["n_missing_recs"] == 2
    with pytest.raises(ValueError, match="no column 'user_id'"):  # its columns are still checked
        rm.evaluate(truth, _renamed(recs), ["ndcg@5"])


def _renamed(t):
    """The table with its user column renamed to 'who' (pyarrow, polars or pandas)."""
    if hasattr(t, "rename_columns"):
        return t.rename_columns(["who", *t.column_names[1:]])
    if type(t).__module__.startswith("polars"):
        return t.rename({"user_id": "who"})
    return t.rename(columns={"user_id": "who"})


def test_an_empty_truth_table_has_no_users():
    pd = pytest.importorskip("pandas")
    truth = pd.DataFrame({"user_id": [], "item_id": [], "relevance": []})
    res = rm.evaluate(truth, {"a": [1]}, ["ndcg@5"])
    assert res.meta["n_users"] == 0 and res.meta["n_ignored_recs"] == 1


def test_a_polars_lazyframe_is_read_as_its_collected_table():
    pl = pytest.importorskip("polars")
    truth = pl.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 20], "relevance": [1.0, 2.0, 1.0]})
    recs = pl.DataFrame({"user_id": [1, 1, 2], "item_id": [11, 12, 20], "rank": [1, 2, 1]})
    want = rm.evaluate(truth, recs, ["ndcg@2", "ap"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning of polars' leaks out
        got = rm.evaluate(truth.lazy(), recs.lazy(), ["ndcg@2", "ap"], user_col="user_id")
    assert got["ndcg@2"] == want["ndcg@2"] and got["ap"] == want["ap"]
    assert np.array_equal(got.per_user["ap"], want.per_user["ap"])


@pytest.mark.parametrize(("typo", "meant"), [("ndgc@10", "ndcg"), ("precison", "precision"), ("recal@5", "recall")])
def test_a_misspelt_metric_gets_a_did_you_mean(typo, meant):
    with pytest.raises(ValueError, match=f"did you mean '{meant}'"):
        rm.evaluate({1: {2: 1}}, {1: [2]}, [typo])


def test_a_missing_context_argument_names_no_other_entry_point(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"user_id": [1], "item_id": [2], "rank": [1]}), tmp_path / "r.parquet")
    with pytest.raises(ValueError, match="pass catalog=") as e:
        rm.evaluate_stream({1: {2: 1}}, str(tmp_path / "r.parquet"), ["coverage@5"])
    assert "evaluate()" not in str(e.value)
