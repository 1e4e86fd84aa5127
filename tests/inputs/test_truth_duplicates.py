"""truth_duplicates=: repeated (user, item) truth rows combined by max, sum, first or last, or an error
naming the option."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.support.reference import reference_evaluate

HOW = ("max", "sum", "first", "last")


def _combine_reference(rows: list, how: str) -> dict:
    """{user: {item: grade}} from (user, item, grade) rows, repeats combined row by row."""
    out: dict = {}
    for u, i, g in rows:
        d = out.setdefault(u, {})
        if i not in d:
            d[i] = g
        elif how == "max":
            d[i] = max(d[i], g)
        elif how == "sum":
            d[i] = d[i] + g
        elif how == "last":
            d[i] = g
    return out


rows_st = st.lists(
    st.tuples(st.integers(0, 5), st.sampled_from([1, 2, 3, 2**62, 7]), st.sampled_from([0.0, 1.0, 2.0, 3.5])),
    max_size=40,
)


@settings(deadline=None)
@given(rows=rows_st, how=st.sampled_from(HOW), string_ids=st.booleans(), threads=st.integers(1, 3))
def test_repeated_truth_rows_are_combined_as_asked(rows, how, string_ids, threads):
    pd = pytest.importorskip("pandas")
    if string_ids:
        rows = [(f"u{u}", f"i{i}", g) for u, i, g in rows]
    table = pd.DataFrame(rows, columns=["user_id", "item_id", "relevance"])
    if not rows:
        table = table.astype({"user_id": "int64", "item_id": "int64", "relevance": "float64"})
    truth = _combine_reference(rows, how)
    users = list(truth)
    recs = {u: list(truth[u])[::-1] + (["zz"] if string_ids else [99]) for u in users}
    metrics = ["ndcg@3", "ap", "precision@2", "num_rel"]
    if not users:
        return
    got = rm.evaluate(table, recs, metrics, truth_duplicates=how, threads=threads, empty="zero")
    _, want, meta = reference_evaluate(truth, recs, metrics, empty="zero")
    assert got.users.tolist() == list(meta["users"])
    for m in metrics:
        for n, u in enumerate(got.users.tolist()):
            a, b = float(got.per_user[m][n]), want[m][n]
            assert (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15), (m, u, a, b)


def test_repeated_truth_rows_are_an_error_naming_the_option_by_default():
    pd = pytest.importorskip("pandas")
    table = pd.DataFrame({"user_id": [1, 1], "item_id": [5, 5], "relevance": [1.0, 2.0]})
    with pytest.raises(ValueError, match=r"rows 0 and 1.*truth_duplicates='max', 'sum', 'first' or 'last'"):
        rm.evaluate(table, {1: [5]}, ["ndcg@2"])
    with pytest.raises(ValueError, match="truth_duplicates"):
        rm.evaluate((np.array([0, 2]), np.array([5, 5])), [[5]], ["ndcg@2"])
    with pytest.raises(ValueError, match="`truth_duplicates` must be one of"):
        rm.evaluate(table, {1: [5]}, ["ndcg@2"], truth_duplicates="mean")


def test_a_binary_truth_summed_counts_the_repeats():
    """Implicit logs: the same interaction twice is grade 2 under "sum", grade 1 otherwise."""
    indptr, items = np.array([0, 3]), np.array([7, 7, 8])
    res = rm.evaluate((indptr, items), [[8, 7]], ["dcg@2"], truth_duplicates="sum", per_user=True)
    assert res["dcg@2"] == pytest.approx(1.0 + 2.0 / math.log2(3))
    res = rm.evaluate((indptr, items), [[8, 7]], ["dcg@2"], truth_duplicates="max")
    assert res["dcg@2"] == pytest.approx(1.0 + 1.0 / math.log2(3))


def test_combining_leaves_the_callers_arrays_alone():
    indptr, items, grades = np.array([0, 3]), np.array([7, 7, 8]), np.array([1.0, 3.0, 2.0])
    before = [a.copy() for a in (indptr, items, grades)]
    rm.evaluate((indptr, items, grades), [[8, 7]], ["ndcg@2"], truth_duplicates="sum")
    assert all(np.array_equal(a, b) for a, b in zip((indptr, items, grades), before))
