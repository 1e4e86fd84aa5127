"""Mistakes in the input that once gave silent zeros or wrong numbers (issue 11): a str where a list of
items belongs, ids of different kinds, non-finite grades and scores in tables, a table whose relevance
column is only guessed, item similarity and features keyed by id. Each is a clear error or warning
naming the user, column or row, or gives the numbers of a plain restatement."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import rankmeter as rm

pd = pytest.importorskip("pandas")


# --------------------------------------------------------------------------- 6. silent zeros
def test_str_row_is_not_a_list_of_items():
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


def test_user_ids_of_different_kinds_raise():
    with pytest.raises(ValueError, match=r"user ids are of different kinds.*'1'.*e\.g\. 1"):
        rm.evaluate({"1": [1], "2": [2]}, {1: [1], 2: [2]}, ["ndcg"])
    # a positional side's users are 0..n-1: against string keys that is a kind error too
    with pytest.raises(ValueError, match=r"positions 0\.\.n-1"):
        rm.evaluate([[1]], {"u": [1]}, ["ndcg"])
    # positional against keyed ints is fine
    assert rm.evaluate([[1], [2]], {1: [2], 0: [1]}, ["precision@1"])["precision@1"] == 1.0


def test_no_recs_user_matches_raises():
    with pytest.raises(ValueError, match=r"no `recs` user matches a `truth` user.*e\.g\. 1.*e\.g\. 7"):
        rm.evaluate({1: [1], 2: [2]}, {7: [1], 8: [2]}, ["ndcg"])
    # empty sides are fine
    assert rm.evaluate({}, {7: [1]}, ["ndcg"]).meta["n_ignored_recs"] == 1
    assert rm.evaluate({1: [1]}, {}, ["ndcg"])["ndcg"] == 0.0
    # one user in common is enough (the others are counted in meta)
    res = rm.evaluate({1: [1], 2: [2]}, {1: [1], 8: [2]}, ["ndcg"])
    assert res.meta["n_missing_recs"] == 1 and res.meta["n_ignored_recs"] == 1


def test_item_ids_of_different_kinds_raise():
    with pytest.raises(ValueError, match=r"item ids are of different kinds.*int item ids, e\.g\. 1.*str item ids"):
        rm.evaluate({0: [1, 2]}, {0: ["1", "2"]}, ["ndcg"])
    with pytest.raises(ValueError, match=r"item ids are of different kinds"):
        rm.evaluate({"u": ["a"]}, {"u": np.array([1, 2])}, ["ndcg"])
    # a mix of kinds on one side is allowed (ids are compared as they are)
    assert rm.evaluate({0: [1, "1"]}, {0: ["1"]}, ["hits"])["hits"] == 1.0
    # train (beyond-accuracy context) against the lists: same rule
    with pytest.raises(ValueError, match=r"`train` and `recs` item ids are of different kinds"):
        rm.evaluate({0: [1]}, {0: [1]}, ["novelty"], train={0: ["1"]})


def _tables(d: dict):
    """The same table as pandas, polars and pyarrow (those installed)."""
    out = [pd.DataFrame(d)]
    try:
        import polars as pl

        out.append(pl.DataFrame(d))
    except ImportError:  # pragma: no cover
        pass
    try:
        import pyarrow as pa

        out.append(pa.table(d))
    except ImportError:  # pragma: no cover
        pass
    return out


def test_table_without_relevance_but_numeric_columns_warns():
    d = {"user_id": [1, 1, 2], "item_id": [5, 6, 7], "rating": [1.0, 3.0, 2.0], "title": ["a", "b", "c"]}
    for table in _tables(d):
        with pytest.warns(UserWarning, match=r"no column 'relevance'.*'rating'.*relevance_col='rating'") as rec:
            rm.evaluate(table, {1: [5], 2: [7]}, ["ndcg"])
        assert len(rec) == 1  # once per call
    # naming the column (or having no other numeric column) is silent
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = rm.evaluate(pd.DataFrame(d), {1: [6, 5]}, ["dcg"], relevance_col="rating")
        assert res.per_user["dcg"][0] == pytest.approx(3.0 + 1.0 / math.log2(3))
        rm.evaluate(pd.DataFrame({"user_id": [1], "item_id": [5]}), {1: [5]}, ["ndcg"])
        # train tables carry weights and timestamps: no warning for them
        rm.evaluate({1: [5]}, {1: [5]}, ["novelty"], train=pd.DataFrame(d))


# --------------------------------------------------------------------------- 4. non-finite grades in tables
def test_nonfinite_grade_in_table_names_column_and_row():
    for bad in (float("nan"), float("inf")):
        d = {"u": [1009, 1009, 7], "i": [5064, 5065, 1], "rating": [1.0, bad, 2.0]}
        tables = _tables(d)[1:] if bad != bad else _tables(d)  # pandas reads NaN as a null (own message)
        for table in tables:
            with pytest.raises(
                ValueError,
                match=rf"`truth` column 'rating' has {bad} at row 1 \(user 1009, item 5065\); grades must be finite",
            ):
                rm.evaluate(table, {1009: [5065]}, ["ndcg"], user_col="u", item_col="i", relevance_col="rating")


def test_nonfinite_score_in_table_names_column_and_row():
    for bad in (float("inf"), float("-inf")):
        d = {"user_id": ["a", "a", "b"], "item_id": [1, 2, 3], "pred": [0.5, 0.2, bad], "rank": [1, 2, 1]}
        without_rank = {k: v for k, v in d.items() if k != "rank"}  # ranked by the scores
        for table in [*_tables(d), *_tables(without_rank)]:
            with pytest.raises(ValueError, match=rf"`recs` column 'pred' has {bad} at row 2 \(user 'b', item 3\)"):
                rm.evaluate({"a": [1]}, table, ["ndcg"], score_col="pred")


# --------------------------------------------------------------------------- 3. item similarity / features by id
def _plain_diversity_matrix(lists: dict, sim, k: int) -> dict:
    out = {}
    for u, lst in lists.items():
        top = lst[:k]
        pairs = list(itertools.combinations(top, 2))
        out[u] = 1.0 - sum(sim(a, b) for a, b in pairs) / len(pairs) if pairs else math.nan
    return out


def _plain_diversity_features(lists: dict, feats: dict, k: int) -> dict:
    def cos(a, b):
        fa, fb = np.asarray(feats[a], float), np.asarray(feats[b], float)
        na, nb = math.sqrt(fa @ fa), math.sqrt(fb @ fb)
        return 0.0 if na == 0 or nb == 0 else float(fa @ fb) / (na * nb)

    return _plain_diversity_matrix(lists, cos, k)


@pytest.mark.parametrize("ids", [["a", "b", "c", "d"], [40, 10, 30, 20]], ids=["str", "int"])
def test_item_similarity_by_id(ids):
    sp = pytest.importorskip("scipy.sparse")
    a, b, c, d = ids
    S = np.array([[1.0, 0.2, 0.5, 0.0], [0.2, 1.0, 0.9, 0.1], [0.5, 0.9, 1.0, 0.3], [0.0, 0.1, 0.3, 1.0]])
    recs = {"u": [a, b, c], "v": [c, a], "w": [d, b, a, c]}
    truth = {"u": [a], "v": [b], "w": [c]}
    pos = {x: j for j, x in enumerate(ids)}
    want = _plain_diversity_matrix(recs, lambda x, y: S[pos[x], pos[y]], 3)
    frame = pd.DataFrame(S, index=ids, columns=ids)
    as_dict = {x: {y: S[pos[x], pos[y]] for y in ids if y != x and S[pos[x], pos[y]]} for x in ids}
    one_way = {a: {b: 0.2, c: 0.5}, b: {c: 0.9, d: 0.1}, c: {d: 0.3}}  # mirrored pairs, missing ones 0
    forms = {
        "frame": frame,
        "frame, columns reordered": frame[[c, a, d, b]],
        "(ids, matrix)": (ids, S),
        "(matrix, ids)": (S, ids),
        "(scipy, ids)": (sp.csr_matrix(S), ids),
        "dict of dicts": as_dict,
        "dict, one direction": one_way,
    }
    name = "diversity(similarity=matrix)@3"
    for form, sim in forms.items():
        res = rm.evaluate(truth, recs, [name], item_similarity=sim)
        got = dict(zip(res.users.tolist(), res.per_user[name].tolist()))
        assert got == pytest.approx(want, rel=1e-12), form
    with pytest.raises(ValueError, match=r"same item ids as index and as columns"):
        rm.evaluate(truth, recs, [name], item_similarity=pd.DataFrame(S, index=ids, columns=[a, b, c, "zz"]))


@pytest.mark.parametrize("ids", [["a", "b", "c", "d"], [40, 10, 30, 20]], ids=["str", "int"])
def test_item_features_by_id(ids):
    a, b, c, d = ids
    F = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    feats = dict(zip(ids, F))
    recs = {"u": [a, b, c], "v": [c, a], "w": [d, b, a, c]}
    truth = {"u": [a], "v": [b], "w": [c]}
    want = _plain_diversity_features(recs, feats, 3)
    for form in (pd.DataFrame(F, index=ids), (ids, F), (F, ids), feats):
        res = rm.evaluate(truth, recs, ["diversity@3"], item_features=form)
        got = dict(zip(res.users.tolist(), res.per_user["diversity@3"].tolist()))
        assert got == pytest.approx(want, rel=1e-12)


# --------------------------------------------------------------------------- train given as (user, item) pairs
def test_train_as_user_item_pairs_warns_that_it_is_read_by_position():
    truth = {"a": {1: 1}, "b": {2: 1}}
    recs = {"a": [1, 2], "b": [2, 3]}
    pairs = [("a", 1), ("b", 2), ("a", 2)]
    with pytest.warns(UserWarning, match=r"`train` is a list of 3 two-entry lists, read as one list of items per user"):
        rm.evaluate(truth, recs, ["novelty@2"], train=pairs)
    with pytest.warns(UserWarning, match=r"If these are \(user, item\) pairs, pass \{user: \[items\]\}"):
        rm.activity_groups([(0, 1), (1, 2), (0, 2)])
    with pytest.warns(UserWarning, match=r"`train` is a list of 3 two-entry lists"):
        rm.evaluate(truth, recs, ["novelty@2"], train=[["a", 1], ["b", 2], ["a", 2]])
    # the fixes the warning names give the pairs' meaning, without a warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        as_dict = rm.evaluate(truth, recs, ["novelty@2"], train={"a": [1, 2], "b": [2]})
        as_table = rm.evaluate(truth, recs, ["novelty@2"], train=pd.DataFrame(pairs, columns=["user_id", "item_id"]))
        positional = rm.evaluate(truth, recs, ["novelty@2"], train=rm.Truth.from_lists([list(p) for p in pairs]))
    assert as_dict["novelty@2"] == as_table["novelty@2"]
    assert positional["novelty@2"] != as_dict["novelty@2"]


def test_positional_train_lists_of_other_lengths_do_not_warn():
    truth = {0: {1: 1}, 1: {2: 1}}
    recs = {0: [1, 2], 1: [2, 3]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rm.evaluate(truth, recs, ["novelty@2"], train=[[1, 2, 3], [2], [3, 4]])
        rm.evaluate(truth, recs, ["novelty@2"], train=[[1, 2], [2, 3]])  # two users of two items: too few rows to tell
        rm.evaluate(truth, recs, ["novelty@2"], train=[[1, 4], [2, 3], [3, 5]])  # lists of two int items each
