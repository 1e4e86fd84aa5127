"""float32 truth grades are read in place (docs/metrics.md §1: grades in the dtype given, never widened by a copy).

Every float32 value widens exactly to float64, so each result must equal, bit for bit, the
result on the float64 copy of the same grades; and the Truth must keep the caller's array.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.support.same import assert_same_result

ACCURACY = [
    "precision@3", "recall@5", "f1@4", "ap@5", "ar@5", "ndcg@3", "ndcg", "dcg@5", "hit_rate@2", "rr@5",
    "arhr@5", "r_precision", "num_rel", "bpref", "rbp(p=0.8)", "err@4", "judged@3", "cg@5",
]  # fmt: skip


def _case(rng: np.random.Generator, n_users: int, n_items: int = 30):
    t_len = rng.integers(0, 8, n_users)
    r_len = rng.integers(0, 12, n_users)
    t_items = np.concatenate([rng.choice(n_items, k, replace=False) for k in t_len] or [np.zeros(0, np.int64)])
    r_items = np.concatenate([rng.choice(n_items, k, replace=False) for k in r_len] or [np.zeros(0, np.int64)])
    # grades: small integers (the counting-sort ideal), zeros and negatives, and non-integer values
    g = rng.choice(np.array([0.0, 1.0, 2.0, 3.0, -1.0, 0.5, 2.75, 1e-3], dtype=np.float32), t_items.size)
    ti = np.concatenate([[0], np.cumsum(t_len)]).astype(np.int64)
    ri = np.concatenate([[0], np.cumsum(r_len)]).astype(np.int64)
    return ti, t_items.astype(np.int64), g, ri, r_items.astype(np.int64)


def test_float32_grades_are_kept_without_a_copy():
    rng = np.random.default_rng(0)
    ti, tit, g, _, _ = _case(rng, 50)
    t = rm.Truth.from_csr(ti, tit, g)
    assert t.grades_native is not None and t.grades_native.dtype == np.float32
    assert np.shares_memory(t.grades_native, g)
    # the float64 view others read is made once, on demand, and equals the widened values
    g64 = t.grades
    assert g64 is not None and g64.dtype == np.float64 and g64 is t.grades
    np.testing.assert_array_equal(g64, g.astype(np.float64))
    assert g.dtype == np.float32  # the caller's array is untouched


@pytest.mark.parametrize("empty", ["skip", "zero"])
@pytest.mark.parametrize("min_relevance", [None, 2.0])
@pytest.mark.parametrize("threads", [1, 3])
def test_float32_grades_give_the_float64_results_bit_for_bit(empty, min_relevance, threads):
    rng = np.random.default_rng(7)
    ti, tit, g, ri, rit = _case(rng, 400)
    kw = dict(empty=empty, min_relevance=min_relevance, threads=threads)
    r32 = rm.evaluate(rm.Truth.from_csr(ti, tit, g), rm.Recs.from_csr(ri, rit), ACCURACY, **kw)
    r64 = rm.evaluate(rm.Truth.from_csr(ti, tit, g.astype(np.float64)), rm.Recs.from_csr(ri, rit), ACCURACY, **kw)
    assert_same_result(r32, r64, ACCURACY)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_users=st.integers(0, 40), keyed=st.booleans())
def test_float32_grades_hypothesis(seed, n_users, keyed):
    rng = np.random.default_rng(seed)
    ti, tit, g, ri, rit = _case(rng, n_users)
    users = rng.permutation(n_users) * 7 + 3 if keyed else None
    t32 = rm.Truth.from_csr(ti, tit, g, users=users)
    t64 = rm.Truth.from_csr(ti, tit, g.astype(np.float64), users=users)
    recs = rm.Recs.from_csr(ri, rit, users=users)
    assert_same_result(rm.evaluate(t32, recs, ACCURACY), rm.evaluate(t64, recs, ACCURACY), ACCURACY)


def test_float32_grades_from_a_table_and_in_beyond_metrics():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    ti, tit, g, ri, rit = _case(rng, 120)
    tu = np.repeat(np.arange(120), np.diff(ti))
    ru = np.repeat(np.arange(120), np.diff(ri))
    rank = np.concatenate([np.arange(1, k + 1) for k in np.diff(ri)] or [np.zeros(0, np.int64)])
    recs = pd.DataFrame({"user_id": ru, "item_id": rit, "rank": rank})
    metrics = [*ACCURACY, "fcp@5", "serendipity@5"]
    feats = rng.normal(size=(30, 4))
    train = pd.DataFrame({"user_id": rng.integers(0, 120, 400), "item_id": rng.integers(0, 30, 400)})
    out = []
    for dtype in (np.float32, np.float64):
        truth = pd.DataFrame({"user_id": tu, "item_id": tit, "relevance": g.astype(dtype)})
        out.append(rm.evaluate(truth, recs, metrics, item_features=feats, train=train))
    assert_same_result(out[0], out[1], metrics)


def test_non_finite_float32_grades_are_a_clear_error():
    g = np.array([1.0, np.nan], dtype=np.float32)
    with pytest.raises(ValueError, match="grades must be finite; user 0 has grade nan for item 4"):
        rm.evaluate(rm.Truth.from_csr([0, 2], [3, 4], g), rm.Recs.from_csr([0, 1], [3]), ["ndcg@3"])
