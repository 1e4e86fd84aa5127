"""Column keywords resolved per table: a keyword names the column in each table that has it, the other table
keeps its default; per-side keywords where both differ; a keyword no table takes is an error."""

from __future__ import annotations

from typing import Any

import pytest

import rankmeter as rm

pd = pytest.importorskip("pandas")


def _tables():
    truth = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 12], "rating": [1.0, 2.0, 1.0]})
    recs = pd.DataFrame({"uid": [1, 1, 2, 2], "iid": [11, 10, 13, 12], "pred": [0.9, 0.5, 0.8, 0.1]})
    return truth, recs


def _want():
    truth = {1: {10: 1.0, 11: 2.0}, 2: {12: 1.0}}
    recs = {1: [11, 10], 2: [13, 12]}
    return rm.evaluate(truth, recs, ["ndcg@2", "precision@2"])


def test_a_shared_keyword_names_the_column_of_the_table_that_has_it():
    truth, recs = _tables()
    res = rm.evaluate(
        truth,
        recs,
        ["ndcg@2", "precision@2"],
        user_col="uid",
        item_col="iid",
        score_col="pred",
        relevance_col="rating",
    )
    want = _want()
    assert res["ndcg@2"] == want["ndcg@2"] and res["precision@2"] == want["precision@2"]


def test_tables_that_name_a_column_differently_are_passed_as_truth_and_recs_objects():
    truth, recs = _tables()
    truth = truth.rename(columns={"user_id": "customer", "item_id": "sku"})
    t = rm.Truth.from_frame(truth, user_col="customer", item_col="sku", relevance_col="rating")
    res = rm.evaluate(t, recs, ["ndcg@2"], user_col="uid", item_col="iid", score_col="pred")
    assert res["ndcg@2"] == _want()["ndcg@2"]


def test_a_missing_column_names_the_table_its_columns_and_the_fix():
    truth, recs = _tables()
    recs = recs.rename(columns={"uid": "who"})
    with pytest.raises(ValueError) as e:
        rm.evaluate(truth, recs, ["ndcg@2"], item_col="iid", score_col="pred", relevance_col="rating")
    msg = str(e.value)
    assert "`recs` table has no column 'user_id'" in msg and "'who'" in msg
    assert "user_col=" in msg and "Recs.from_frame" in msg


def test_a_keyword_no_table_takes_is_an_error():
    truth, recs = _tables()
    recs2 = recs.rename(columns={"uid": "user_id"})
    with pytest.raises(ValueError, match=r"user_col='nobody'.*no table has"):
        rm.evaluate(
            truth, recs2, ["ndcg@2"], user_col="nobody", item_col="iid", score_col="pred", relevance_col="rating"
        )
    with pytest.raises(ValueError, match=r"relevance_col='grade'.*truth table does not have"):
        rm.evaluate(truth, recs, ["ndcg@2"], user_col="uid", item_col="iid", score_col="pred", relevance_col="grade")


def test_parquet_and_csv_paths_resolve_their_columns_from_the_file(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    truth, recs = _tables()
    pacsv.write_csv(pa.Table.from_pandas(truth, preserve_index=False), tmp_path / "t.csv")
    pq.write_table(pa.Table.from_pandas(recs, preserve_index=False), tmp_path / "r.parquet")
    pacsv.write_csv(pa.Table.from_pandas(recs, preserve_index=False), tmp_path / "r.csv")
    want = _want()
    res = rm.evaluate(
        str(tmp_path / "t.csv"),
        str(tmp_path / "r.csv"),
        ["ndcg@2"],
        user_col="uid",
        item_col="iid",
        score_col="pred",
        relevance_col="rating",
    )
    assert res["ndcg@2"] == want["ndcg@2"]  # CSV ids are text on both sides
    t = rm.Truth.from_frame(truth, relevance_col="rating")
    res = rm.evaluate(t, str(tmp_path / "r.parquet"), ["ndcg@2"], user_col="uid", item_col="iid", score_col="pred")
    assert res["ndcg@2"] == want["ndcg@2"]


def test_per_side_keywords_where_both_tables_differ_from_the_defaults():
    truth = pd.DataFrame({"userId": [1, 1, 2], "movieId": [10, 11, 12], "rating": [1.0, 2.0, 1.0]})
    recs = pd.DataFrame({"uid": [1, 1, 2, 2], "iid": [11, 10, 13, 12], "pred": [0.9, 0.5, 0.8, 0.1]})
    kw: dict[str, Any] = dict(relevance_col="rating", score_col="pred")
    res = rm.evaluate(
        truth,
        recs,
        ["ndcg@2", "precision@2"],
        truth_user_col="userId",
        truth_item_col="movieId",
        recs_user_col="uid",
        recs_item_col="iid",
        **kw,
    )
    want = _want()
    assert res["ndcg@2"] == want["ndcg@2"] and res["precision@2"] == want["precision@2"]
    # a per-side keyword wins over the shared one for its table; train keeps the shared one
    train = pd.DataFrame({"u": [1, 2], "movieId": [10, 12]})
    both = rm.evaluate(
        truth,
        recs,
        ["ndcg@2", "novelty@2"],
        user_col="u",
        item_col="movieId",
        truth_user_col="userId",
        recs_user_col="uid",
        recs_item_col="iid",
        train=train,
        **kw,
    )
    assert both["ndcg@2"] == want["ndcg@2"]
    # the column a per-side keyword names must be in its table
    with pytest.raises(ValueError, match=r"`truth_user_col='user'` names a column the truth table does not have"):
        rm.evaluate(truth, recs, ["ndcg@2"], truth_user_col="user", truth_item_col="movieId", **kw)
    # a missing user column names the per-side keyword as a fix
    with pytest.raises(ValueError, match=r"truth_user_col=\.\.\. \(this table only\)"):
        rm.evaluate(truth, recs, ["ndcg@2"], recs_user_col="uid", recs_item_col="iid", truth_item_col="movieId", **kw)
