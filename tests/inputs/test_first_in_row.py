"""_core.first_in_row: which entries of each list are the first of their value, and each list's distinct values (the list drop-ins keep a truth
item listed twice once), against a plain Python reference, on short lists (compared pairwise) and long ones
(sorted), whatever the thread count."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter import _core


def _reference(rows: list) -> tuple[list, int, list]:
    first = []
    for row in rows:
        seen: set = set()
        for x in row:
            first.append(x not in seen)
            seen.add(x)
    return first, first.count(False), [len(set(row)) for row in rows]


def _csr(rows: list) -> tuple[np.ndarray, np.ndarray]:
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=indptr[1:])
    codes = np.array([x for r in rows for x in r], dtype=np.int64)
    return indptr, codes


# lists of every length around the 32 where the kernel switches from pairwise compares to a sort; few distinct
# values, so repeats are common; huge and negative codes too
rows_st = st.lists(
    st.one_of(
        st.lists(st.integers(0, 5), max_size=40),
        st.lists(st.sampled_from([-(2**63), -1, 0, 2**63 - 1]), max_size=70),
        st.lists(st.integers(0, 200), min_size=30, max_size=100),
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(rows=rows_st, threads=st.sampled_from([1, 2, 3, 8]))
def test_first_in_row_marks_each_values_first_entry_per_list(rows, threads):
    indptr, codes = _csr(rows)
    first, repeats, distinct = _core.first_in_row(indptr, codes, threads)
    want, n_rep, n_distinct = _reference(rows)
    assert first.tolist() == want
    assert repeats == n_rep
    assert distinct.tolist() == n_distinct


def test_first_in_row_refuses_an_indptr_that_does_not_match():
    with pytest.raises(ValueError, match="indptr does not match codes"):
        _core.first_in_row(np.array([0, 3], dtype=np.int64), np.zeros(2, dtype=np.int64), 1)
    with pytest.raises(ValueError, match="non-decreasing"):
        _core.first_in_row(np.array([0, 2, 1, 2], dtype=np.int64), np.zeros(2, dtype=np.int64), 1)


def test_first_in_row_is_the_same_on_many_lists_whatever_the_thread_count():
    # 20,000 lists: enough users for the kernel to split them between threads (it keeps >= 2,048 per thread)
    g = np.random.default_rng(3)
    rows = [g.integers(0, 8, g.integers(0, 60)).tolist() for _ in range(20_000)]
    indptr, codes = _csr(rows)
    want, n_rep, n_distinct = _reference(rows)
    for threads in (1, 2, 4):
        first, repeats, distinct = _core.first_in_row(indptr, codes, threads)
        assert first.tolist() == want and repeats == n_rep and distinct.tolist() == n_distinct
