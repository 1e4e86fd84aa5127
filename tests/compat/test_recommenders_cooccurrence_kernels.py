"""_core.cooccurrence_pair_sums and _core.cooccurrence_row_sums, the C++ passes behind
rankmeter.compat.recommenders' co-occurrence diversity and serendipity, against a plain Python reference of
Recommenders' counting: co-occurrence counts over pairs of one user's train rows (repeats counted, equal items
never), similarity = count / (sqrt(n_a) * sqrt(n_b)), sums added in the row order of the Python version (so the
same bits, compared with ==), whatever the thread count; bad codes refused before any work."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter import _core


def _csr(groups: list) -> tuple[np.ndarray, np.ndarray]:
    indptr = np.zeros(len(groups) + 1, dtype=np.int64)
    np.cumsum([len(g) for g in groups], out=indptr[1:])
    return indptr, np.array([x for g in groups for x in g], dtype=np.int64)


def _sim(train: list, n_items: int):
    rows = [0] * n_items
    count: dict = {}
    for g in train:
        for x in g:
            rows[x] += 1
        for r in range(len(g)):
            for j in range(r + 1, len(g)):
                a, b = g[r], g[j]
                if a != b:
                    key = (min(a, b), max(a, b))
                    count[key] = count.get(key, 0) + 1

    def sim(a: int, b: int) -> float:
        key = (min(a, b), max(a, b))
        if a == b or key not in count:
            return 0.0
        return count[key] / (math.sqrt(rows[key[0]]) * math.sqrt(rows[key[1]]))

    return sim


N_ITEMS = 6
groups_st = st.lists(st.lists(st.integers(0, N_ITEMS - 1), max_size=9), max_size=8)


@settings(max_examples=200, deadline=None)
@given(train=groups_st, recs=groups_st, threads=st.sampled_from([1, 2, 3]))
def test_pair_sums_add_every_pair_of_different_items_in_row_order(train, recs, threads):
    sim = _sim(train, N_ITEMS)
    t_ip, t_it = _csr(train)
    r_ip, r_it = _csr(recs)
    total, count = _core.cooccurrence_pair_sums(t_ip, t_it, r_ip, r_it, N_ITEMS, threads)
    for g, lst in enumerate(recs):
        s, c = 0.0, 0
        for p in range(len(lst)):
            for q in range(p + 1, len(lst)):
                if lst[p] != lst[q]:
                    c += 1
                    s += sim(lst[p], lst[q])
        assert count[g] == c
        assert total[g] == s  # the same additions in the same order: the same bits


@settings(max_examples=200, deadline=None)
@given(train=groups_st, data=st.data(), threads=st.sampled_from([1, 2, 3]))
def test_row_sums_add_the_similarities_to_the_groups_train_rows_in_order(train, data, threads):
    sim = _sim(train, N_ITEMS)
    t_ip, t_it = _csr(train)
    n_groups = max(len(train), 1)
    if not train:
        t_ip = np.zeros(2, dtype=np.int64)  # one empty group
    rows = data.draw(st.lists(st.tuples(st.integers(0, n_groups - 1), st.integers(0, N_ITEMS - 1)), max_size=20))
    r_groups = np.array([r[0] for r in rows], dtype=np.int64)
    r_items = np.array([r[1] for r in rows], dtype=np.int64)
    got = _core.cooccurrence_row_sums(t_ip, t_it, r_groups, r_items, N_ITEMS, threads)
    for r, (g, item) in enumerate(rows):
        s = 0.0
        for t in train[g] if train else []:
            s += sim(item, t)
        assert got[r] == s


def test_codes_out_of_range_are_refused():
    ip = np.array([0, 2], dtype=np.int64)
    ok = np.array([0, 1], dtype=np.int64)
    bad = np.array([0, 5], dtype=np.int64)
    with pytest.raises(ValueError, match="out of range"):
        _core.cooccurrence_pair_sums(ip, bad, ip, ok, 3, 1)
    with pytest.raises(ValueError, match="out of range"):
        _core.cooccurrence_pair_sums(ip, ok, ip, bad, 3, 1)
    with pytest.raises(ValueError, match="group out of range"):
        _core.cooccurrence_row_sums(ip, ok, np.array([1], dtype=np.int64), np.array([0], dtype=np.int64), 3, 1)
    with pytest.raises(ValueError, match="item code out of range"):
        _core.cooccurrence_row_sums(ip, ok, np.array([0], dtype=np.int64), np.array([3], dtype=np.int64), 3, 1)
