"""The vector list scan (AVX2, RANKMETER_SIMD=1 where the CPU has it) against the scalar scan
(the default; RANKMETER_SIMD=0) and the pure-Python reference: bit-identical per-user values
and means, any thread count (issue 16, item 2). CI also runs the whole sanitizer suite with
RANKMETER_SIMD=1."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter as rm
from rankmeter import _core
from tests.support.reference import reference_evaluate
from tests.support.same import assert_same_result

METRICS = [
    "precision@3",
    "recall@10",
    "ap",
    "ap@7",
    "ndcg@5",
    "ndcg",
    "dcg@9",
    "hit_rate@2",
    "rr@6",
    "arhr",
    "r_precision",
    "bpref",
    "judged@4",
]


def _both(truth, recs, metrics, monkeypatch, **kw):
    monkeypatch.setenv("RANKMETER_SIMD", "1")
    vec = rm.evaluate(truth, recs, metrics, **kw)
    path = _core.simd_path()
    monkeypatch.setenv("RANKMETER_SIMD", "0")
    assert _core.simd_path() == "scalar"
    sca = rm.evaluate(truth, recs, metrics, **kw)
    monkeypatch.delenv("RANKMETER_SIMD")
    return vec, sca, path


def test_simd_path_names_the_scan(monkeypatch):
    monkeypatch.setenv("RANKMETER_SIMD", "0")
    assert _core.simd_path() == "scalar"
    monkeypatch.delenv("RANKMETER_SIMD")
    assert _core.simd_path() == "scalar"  # the default: the scalar scan measured faster
    monkeypatch.setenv("RANKMETER_SIMD", "1")
    has_avx2 = False
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            has_avx2 = " avx2" in f.read()
    assert _core.simd_path() == ("avx2" if has_avx2 else "scalar")


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n_users=st.integers(1, 30),
    max_len=st.integers(0, 23),
    n_items=st.sampled_from([3, 8, 40, 1000]),
    padded=st.booleans(),
    dup=st.sampled_from(["error", "first", "miss", "count"]),
    threads=st.sampled_from([1, 2, 3, 8]),
)
def test_vector_and_scalar_scans_are_bit_identical(seed, n_users, max_len, n_items, padded, dup, threads):
    monkeypatch = pytest.MonkeyPatch()
    try:
        rng = np.random.default_rng(seed)
        t_len = rng.integers(0, min(max_len, n_items) + 1, size=n_users)
        t_items = [rng.choice(n_items, size=k, replace=False) for k in t_len]
        t_grades = [rng.integers(0, 4, size=k).astype(float) for k in t_len]
        r_len = rng.integers(0, max_len + 1, size=n_users)
        rows = []
        for k in r_len:
            row = rng.integers(0, n_items, size=k)
            if rng.random() < 0.1 and k:  # ids outside the truth's range (and negative ones)
                row[rng.integers(0, k)] = int(rng.choice([n_items + 5, -3, 2**40]))
            if dup == "error" and rng.random() < 0.7:
                row = np.array(list(dict.fromkeys(row.tolist())), dtype=np.int64)
            rows.append(row)
        truth = rm.Truth.from_csr(
            np.concatenate([[0], np.cumsum(t_len)]).astype(np.int64),
            np.concatenate([*t_items, np.zeros(0, np.int64)]).astype(np.int64),
            np.concatenate([*t_grades, np.zeros(0)]),
        )
        if padded:
            width = max(int(r_len.max()), 1)
            arr = np.full((n_users, width), -1, dtype=np.int64)
            for u, row in enumerate(rows):
                arr[u, : row.size] = row
            if np.any(arr == -1) and rng.random() < 0.2:  # an item after the padding: an error on both paths
                u = int(np.argmax((arr == -1).any(axis=1)))
                arr[u, -1] = 1
            recs: Any = arr
        else:
            recs = rm.Recs.from_csr(
                np.concatenate([[0], np.cumsum([r.size for r in rows])]).astype(np.int64),
                np.concatenate([*rows, np.zeros(0, np.int64)]).astype(np.int64),
            )
        kw = dict(empty="zero", duplicates=dup, threads=threads)
        try:
            vec, sca, _ = _both(truth, recs, METRICS, monkeypatch, **kw)
        except ValueError as e:
            monkeypatch.setenv("RANKMETER_SIMD", "0")
            with pytest.raises(ValueError) as e2:
                rm.evaluate(truth, recs, METRICS, **kw)
            assert str(e) == str(e2.value)
            return
        assert_same_result(vec, sca, METRICS)
    finally:
        monkeypatch.undo()


def test_vector_scan_equals_reference_on_w1(monkeypatch):
    w = rm.datasets.w1(3000, seed=5)
    metrics = ["precision@10", "ap@100", "ndcg@10", "rr", "recall@50"]
    vec, sca, _ = _both(w.truth, w.recs, metrics, monkeypatch, empty="zero", threads=3)
    assert_same_result(vec, sca, metrics)
    ti, tp, tg = w.truth_items, w.truth_indptr, w.truth_grades
    truth_d = {u: dict(zip(ti[tp[u] : tp[u + 1]].tolist(), tg[tp[u] : tp[u + 1]].tolist())) for u in range(300)}
    recs_d = {u: w.recs_items[w.recs_indptr[u] : w.recs_indptr[u + 1]].tolist() for u in range(300)}
    small = rm.evaluate(truth_d, recs_d, metrics, empty="zero")
    _, ref, _ = reference_evaluate(truth_d, recs_d, metrics, empty="zero")
    for m in metrics:
        np.testing.assert_allclose(small.per_user[m], ref[m], rtol=1e-12, atol=1e-15)
        np.testing.assert_array_equal(small.per_user[m], vec.per_user[m][:300])


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_duplicates_found_in_and_across_groups_of_four(monkeypatch, threads):
    truth = {0: {1: 1}, 1: {1: 1}, 2: {1: 1}, 3: {9: 1}}
    for lst in ([5, 6, 5, 7], [5, 6, 7, 8, 9, 5], [1, 2, 3, 4, 4], [0, 1, 2, 3, 4, 5, 6, 7, 8, 7]):
        recs = {0: [1, 2], 1: [2, 3, 4, 1], 2: lst, 3: [9]}
        for path in ("1", "0"):  # vector, scalar
            monkeypatch.setenv("RANKMETER_SIMD", path)
            with pytest.raises(ValueError, match="more than once for user 2"):
                rm.evaluate(truth, recs, "ap", threads=threads)
            res = rm.evaluate(truth, recs, ["ap", "precision@3"], duplicates="first", threads=threads)
            assert res.per_user["ap"][3] == 1.0
