"""int32 item ids are read in place (issue 16, item 1: ids in the dtype given, no widened copy).

Truth and Recs built from int32 CSR arrays or an int32 padded array keep the caller's array;
the accuracy pass reads it as int32 on both sides. Every result must equal, bit for bit, the
result on the int64 copy of the same ids, on the scalar and the vector scan and at any
thread count; anything else that needs int64 ids (beyond-accuracy kernels, score ties) gets
a widened copy made once, on demand.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.support.reference import reference_evaluate
from tests.support.same import assert_same_result

ACCURACY = [
    "precision@3", "recall@5", "f1@4", "ap@5", "ar", "ndcg@3", "ndcg", "dcg@5", "hit_rate@2", "rr@5",
    "arhr@5", "r_precision", "num_rel", "bpref", "rbp(p=0.8)", "err@4", "judged@3", "cg@5",
]  # fmt: skip

I32_MIN, I32_MAX = int(np.iinfo(np.int32).min), int(np.iinfo(np.int32).max)


def _case(rng: np.random.Generator, n_users: int, n_items: int = 30, extremes: bool = False, dups: float = 0.0):
    """Random CSR truth and recs (int64 ids), with a few duplicates in the lists; `extremes` maps
    the ids onto values at the edges of int32 (negative ones included)."""
    t_len = rng.integers(0, 8, n_users)
    r_len = rng.integers(0, 12, n_users)
    t_items = np.concatenate([rng.choice(n_items, k, replace=False) for k in t_len] or [np.zeros(0, np.int64)])
    rows = []
    for k in r_len:
        row = rng.choice(n_items, k, replace=False)
        if k > 1 and rng.random() < dups:
            row[-1] = row[0]  # a duplicate (an error, or dropped with duplicates="first")
        rows.append(row)
    r_items = np.concatenate(rows or [np.zeros(0, np.int64)])
    if extremes:
        ids = np.array([I32_MIN, I32_MIN + 1, -5, -1, 0, 1, 65535, 65536, 2**20, I32_MAX - 1, I32_MAX])
        ids = np.concatenate([ids, rng.integers(I32_MIN, I32_MAX, n_items, endpoint=True)])[:n_items]
        ids = np.unique(ids)
        if ids.size < n_items:
            ids = np.concatenate([ids, np.arange(100, 100 + n_items - ids.size)])
        t_items, r_items = ids[t_items], ids[r_items]
    g = rng.choice(np.array([0.0, 1.0, 2.0, 3.0, -1.0, 2.5]), t_items.size)
    ti = np.concatenate([[0], np.cumsum(t_len)]).astype(np.int64)
    ri = np.concatenate([[0], np.cumsum(r_len)]).astype(np.int64)
    return ti, t_items.astype(np.int64), g, ri, r_items.astype(np.int64)


def _run_both(make, metrics, **kw):
    """evaluate on the int32 and the int64 form of the same ids: both results, or both errors."""
    out: list = []
    for dt in (np.int32, np.int64):
        truth, recs = make(dt)
        try:
            out.append(rm.evaluate(truth, recs, metrics, **kw))
        except ValueError as e:
            out.append(str(e))
    return out


def test_int32_ids_are_kept_without_a_copy():
    rng = np.random.default_rng(0)
    ti, tit, g, ri, rit = _case(rng, 60, dups=0.2)
    t32, r32 = tit.astype(np.int32), rit.astype(np.int32)
    truth, recs = rm.Truth.from_csr(ti, t32, g), rm.Recs.from_csr(ri, r32)
    assert truth.items_native.dtype == np.int32 and np.shares_memory(truth.items_native, t32)
    assert recs.items_native.dtype == np.int32 and np.shares_memory(recs.items_native, r32)
    res = rm.evaluate(truth, recs, ACCURACY, empty="zero", duplicates="first")
    # the accuracy pass read the int32 arrays in place: no int64 copy was made
    assert truth._items64 is None and recs._items64 is None
    # those who ask for int64 ids get a copy, made once, equal to the widened values
    assert truth.items.dtype == np.int64 and truth.items is truth.items
    np.testing.assert_array_equal(truth.items, tit)
    assert t32.dtype == np.int32 and r32.dtype == np.int32  # the caller's arrays are untouched
    ref = rm.evaluate(rm.Truth.from_csr(ti, tit, g), rm.Recs.from_csr(ri, rit), ACCURACY, empty="zero",
                      duplicates="first")  # fmt: skip
    assert_same_result(res, ref, ACCURACY)


def test_int32_padded_array_is_kept_without_a_copy():
    arr = np.array([[3, 1, -1], [2, -1, -1], [5, 4, 1]], dtype=np.int32)
    recs = rm.Recs.from_array(arr)
    assert recs.items_native.dtype == np.int32 and np.shares_memory(recs.items_native, arr)
    assert recs.n_users == 3 and recs.n_entries == 9 and recs._items64 is None
    truth = rm.Truth.from_lists([[1, 3], [2], [4, 9]])
    res = rm.evaluate(truth, recs, ["precision@2", "ndcg@3", "rr"])
    assert res.per_user["precision@2"].tolist() == [1.0, 0.5, 0.5]
    ref = rm.evaluate(truth, rm.Recs.from_array(arr.astype(np.int64)), ["precision@2", "ndcg@3", "rr"])
    assert_same_result(res, ref, ["precision@2", "ndcg@3", "rr"])


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_users=st.integers(0, 40),
    extremes=st.booleans(),
    form=st.sampled_from(["csr", "padded", "mixed", "keyed"]),
    duplicates=st.sampled_from(["error", "first"]),
    dups=st.sampled_from([0.0, 0.02, 0.3]),
    threads=st.sampled_from([1, 2, 3, 8]),
    simd=st.sampled_from(["0", "1"]),
    max_items=st.sampled_from([None, 4]),
)
def test_int32_ids_give_the_int64_results_bit_for_bit(
    seed, n_users, extremes, form, duplicates, dups, threads, simd, max_items
):
    rng = np.random.default_rng(seed)
    ti, tit, g, ri, rit = _case(rng, n_users, extremes=extremes, dups=dups)
    users = rng.permutation(n_users) * 7 + 3 if form == "keyed" else None
    pad = I32_MIN if extremes and rng.random() < 0.5 else -1

    def make(dt):
        t_ids = tit.astype(dt) if form != "mixed" else tit.astype(np.int32)
        r_ids = rit.astype(dt) if form != "mixed" else rit.astype(np.int64)
        truth = rm.Truth.from_csr(ti, t_ids, g, users=users)
        if form == "padded":
            lens = np.diff(ri)
            width = max(int(lens.max(initial=0)), 1)
            arr = np.full((n_users, width), pad, dtype=dt)
            keep = np.arange(width)[None, :] < lens[:, None]
            arr[keep] = r_ids
            return truth, rm.Recs.from_array(arr, pad=pad)
        r_users = None if users is None else users[::-1] if n_users else users
        r_ip, r_ids_k = ri, r_ids
        if users is not None and n_users:  # the recs in another user order (aligned by user id)
            order = np.arange(n_users)[::-1]
            parts = [r_ids[ri[u] : ri[u + 1]] for u in order]
            r_ids_k = np.concatenate([*parts, np.zeros(0, dtype=r_ids.dtype)]).astype(r_ids.dtype)
            r_ip = np.concatenate([[0], np.cumsum([p.size for p in parts])]).astype(np.int64)
        return truth, rm.Recs.from_csr(r_ip, r_ids_k, users=r_users)

    if form == "padded" and pad in rit:
        return  # the padding value is an id of a list here: not a valid padded form
    old = os.environ.get("RANKMETER_SIMD")
    os.environ["RANKMETER_SIMD"] = simd
    try:
        a, b = _run_both(make, ACCURACY, empty="zero", duplicates=duplicates, threads=threads, max_items=max_items)
    finally:
        if old is None:
            os.environ.pop("RANKMETER_SIMD", None)
        else:
            os.environ["RANKMETER_SIMD"] = old
    if isinstance(a, str) or isinstance(b, str):
        assert a == b  # the same error, naming the same user and item
        return
    assert_same_result(a, b, ACCURACY)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_users=st.integers(1, 25))
def test_int32_ids_equal_the_reference(seed, n_users):
    rng = np.random.default_rng(seed)
    ti, tit, g, ri, rit = _case(rng, n_users, extremes=True, dups=0.2)
    truth = rm.Truth.from_csr(ti, tit.astype(np.int32), g)
    recs = rm.Recs.from_csr(ri, rit.astype(np.int32))
    metrics = ["precision@3", "recall@5", "ap", "ndcg@4", "rr", "hit_rate@2", "bpref"]
    res = rm.evaluate(truth, recs, metrics, empty="zero", duplicates="first")
    truth_d = [dict(zip(tit[ti[u] : ti[u + 1]].tolist(), g[ti[u] : ti[u + 1]].tolist())) for u in range(n_users)]
    recs_d = [rit[ri[u] : ri[u + 1]].tolist() for u in range(n_users)]
    _, ref, _ = reference_evaluate(truth_d, recs_d, metrics, empty="zero", duplicates="first")
    for m in metrics:
        np.testing.assert_allclose(res.per_user[m], ref[m], rtol=1e-12, atol=1e-15, err_msg=m)


def test_int32_ids_with_scores_ties_and_beyond_metrics():
    rng = np.random.default_rng(11)
    ti, tit, g, ri, rit = _case(rng, 200)
    ri2, rit2 = ri, rit  # _case without dups: no id twice in a list (scored lists need that)
    scores = rng.choice(np.array([0.1, 0.5, 0.9, -0.2]), rit2.size)  # many equal scores
    train = rm.Truth.from_csr(ti, tit)
    metrics = ["ndcg@5", "precision@3", "coverage@5", "novelty@5", "map@4"]
    for ties in ("trec", "average", "input", "item_desc"):
        ms = ["ndcg@5", "dcg@4"] if ties == "average" else metrics
        a, b = _run_both(
            lambda dt: (
                rm.Truth.from_csr(ti, tit.astype(dt), g),
                rm.Recs.from_csr(ri2, rit2.astype(dt), scores=scores, by_score=True),
            ),
            ms,
            empty="zero",
            ties=ties,
            train=train,
        )
        assert not isinstance(a, str), a
        assert_same_result(a, b, ms)


def test_int32_ids_hit_scores_positive_and_missing_skip():
    rng = np.random.default_rng(5)
    ti, tit, g, ri, rit = _case(rng, 80)
    ri2, rit2 = ri, rit  # _case without dups: no id twice in a list (scored lists need that)
    scores = np.linspace(1.0, -1.0, rit2.size)
    users = np.arange(80) * 3
    a, b = _run_both(
        lambda dt: (
            rm.Truth.from_csr(ti, tit.astype(dt), g, users=users),
            rm.Recs.from_csr(ri2[:41], rit2[: ri2[40]].astype(dt), scores=scores[: ri2[40]], users=users[:40]),
        ),
        ["precision(hit_scores=positive)@3", "ndcg@4"],
        empty="zero",
        missing="skip",
    )
    assert_same_result(a, b, ["precision(hit_scores=positive)@3", "ndcg@4"])


@pytest.mark.parametrize("side", ["truth", "recs"])
def test_int32_duplicate_errors_name_the_id(side):
    t = np.array([5, 7, 9] if side == "recs" else [5, 7, 5], dtype=np.int32)
    r = np.array([7, 8, 7] if side == "recs" else [7, 8, 6], dtype=np.int32)
    truth = rm.Truth.from_csr([0, 3], t, users=["u0"])
    recs = rm.Recs.from_csr([0, 3], r, users=["u0"])
    with pytest.raises(ValueError, match=r"item 7 more than once for user 'u0'" if side == "recs" else r"item 5"):
        rm.evaluate(truth, recs, ["ndcg@3"])
