"""evaluate(per_user=False): the same exact means and state, no per-user columns (issue 16, item 3)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter as rm

ACCURACY = [
    "precision@3",
    "recall@5",
    "f1@3",
    "ap",
    "ar@4",
    "ndcg@3",
    "ndcg(gain=exponential)",
    "dcg@5",
    "hit_rate@2",
    "rr",
    "arhr@5",
    "r_precision",
    "num_rel",
    "bpref",
    "rbp",
    "err@5",
    "judged@3",
]
BEYOND = ["coverage@3", "gini@3", "novelty@3", "arp@3", "personalization@3"]


def _data(seed: int, n_users: int, max_len: int, dup: bool):
    rng = np.random.default_rng(seed)
    truth, recs = {}, {}
    for u in range(n_users):
        m = int(rng.integers(0, max_len + 1))
        items = rng.choice(30, size=m, replace=False)
        truth[u] = {int(i): float(rng.integers(0, 4)) for i in items}
        n = int(rng.integers(0, max_len + 1))
        lst = [int(x) for x in rng.integers(0, 30, size=n)]
        if not dup:
            lst = list(dict.fromkeys(lst))
        recs[u] = lst
    train = {u: [int(x) for x in rng.integers(0, 30, size=5)] for u in range(n_users)}
    return truth, recs, train


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n_users=st.integers(0, 40),
    max_len=st.integers(0, 12),
    empty=st.sampled_from(["skip", "zero", "one"]),
    beyond=st.booleans(),
    max_items=st.sampled_from([None, 1, 4]),
    threads=st.sampled_from([1, 2, 3]),
)
def test_means_and_state_are_the_same_without_per_user_values(
    seed, n_users, max_len, empty, beyond, max_items, threads
):
    truth, recs, train = _data(seed, n_users, max_len, dup=True)
    metrics = ACCURACY + (BEYOND if beyond else [])
    kw = dict(empty=empty, duplicates="first", max_items=max_items, threads=threads, train=train)
    full = rm.evaluate(truth, recs, metrics, **kw)
    lean = rm.evaluate(truth, recs, metrics, per_user=False, **kw)
    for name in metrics:
        a, b = full[name], lean[name]
        assert (np.isnan(a) and np.isnan(b)) or a == b, name
    assert lean.meta == full.meta
    assert list(lean.users) == list(full.users)
    assert lean.state.to_bytes() == full.state.to_bytes()


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_tie_averaged_ndcg_means_only(threads):
    rng = np.random.default_rng(3)
    truth = {u: {int(i): float(rng.integers(1, 4)) for i in rng.choice(20, 4, replace=False)} for u in range(50)}
    recs = {u: {int(i): float(rng.integers(0, 3)) for i in rng.choice(20, 8, replace=False)} for u in range(50)}
    kw = dict(ties="average", empty="zero", threads=threads)
    full = rm.evaluate(truth, recs, ["ndcg@5", "dcg"], **kw)
    lean = rm.evaluate(truth, recs, ["ndcg@5", "dcg"], per_user=False, **kw)
    assert full["ndcg@5"] == lean["ndcg@5"] and full["dcg"] == lean["dcg"]


def test_per_user_values_are_refused_with_a_clear_error():
    res = rm.evaluate({1: {5: 1}}, {1: [5, 6]}, ["precision@2", "coverage@2"], per_user=False, catalog=[5, 6, 7])
    assert res["precision@2"] == 0.5
    with pytest.raises(ValueError, match="per_user=False"):
        res.per_user["precision@2"]
    with pytest.raises(ValueError, match="per_user=False"):
        res.to_pandas()
    with pytest.raises(KeyError, match="was not evaluated"):
        res.per_user["ap"]
    assert list(res.per_user) == ["precision@2", "coverage@2"]


@pytest.mark.parametrize("bad", [None, 0, "no", 1.0])
def test_per_user_must_be_a_bool(bad):
    with pytest.raises(TypeError, match="per_user"):
        rm.evaluate({1: {5: 1}}, {1: [5]}, "ap", per_user=bad)


def test_errors_are_the_same_without_per_user_values():
    with pytest.raises(ValueError, match="more than once for user 1"):
        rm.evaluate({1: {5: 1}}, {1: [5, 5]}, "ap", per_user=False)
    with pytest.raises(ValueError, match="no relevant item"):
        rm.evaluate({1: {5: 0}}, {1: [5]}, "ap", empty="error", per_user=False)


def test_per_user_values_kept_with_beyond_metrics_in_the_call():
    res = rm.evaluate(
        {1: {5: 1}, 2: {6: 1}},
        {1: [5, 6], 2: [7]},
        ["ndcg@5", "hits", "coverage@2", "novelty@2"],
        catalog=[5, 6, 7],
        train={1: [5], 2: [6, 7]},
    )
    np.testing.assert_array_equal(res.per_user["ndcg@5"], [1.0, 0.0])
    np.testing.assert_array_equal(res.per_user["hits"], [1.0, 0.0])
    assert res.per_user["novelty@2"].shape == (2,)


def test_a_dropped_result_frees_its_per_user_columns_without_the_cyclic_collector():
    import gc
    import weakref

    w = rm.datasets.w1(2000, seed=1)
    gc.disable()
    try:
        res = rm.evaluate(w.truth, w.recs, ["ndcg@10", "ap@10"])
        ref = weakref.ref(res.per_user["ndcg@10"])
        assert ref() is not None
        del res
        assert ref() is None  # freed by reference counting: Result and its per_user view form no cycle
    finally:
        gc.enable()
