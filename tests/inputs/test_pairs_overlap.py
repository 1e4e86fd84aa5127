"""_core.pairs_overlap: how many (user, item) rows of a second table equal a row of the first (the check of
rankmeter.compat.recommenders that no reco_df pair is in train_df, pandas' inner join counted on the reco side),
against a plain Python reference: users with short groups (scanned) and long ones (over 16 rows: sorted and
searched), repeated rows on either side, huge and negative item ids, users absent from either table, every
thread count; and bad user codes refused before any work."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter import _core


def _reference(a: list, b: list) -> int:
    first = set(a)
    return sum((u, i) in first for u, i in b)


items_st = st.one_of(st.integers(0, 6), st.sampled_from([-(2**63), -1, 0, 2**63 - 1]))
table_st = st.lists(st.tuples(st.integers(0, 4), items_st), max_size=80)


def _cols(rows: list) -> tuple[np.ndarray, np.ndarray]:
    u = np.array([r[0] for r in rows], dtype=np.int64)
    i = np.array([r[1] for r in rows], dtype=np.int64)
    return u, i


@settings(max_examples=300, deadline=None)
@given(a=table_st, b=table_st, threads=st.sampled_from([1, 2, 3]))
def test_pairs_overlap_counts_the_rows_of_the_second_table_found_in_the_first(a, b, threads):
    au, ai = _cols(a)
    bu, bi = _cols(b)
    assert _core.pairs_overlap(au, ai, bu, bi, 5, threads) == _reference(a, b)


def test_long_user_groups_are_searched_after_a_sort():
    rng = np.random.default_rng(0)
    a = [(0, int(x)) for x in rng.integers(0, 1000, 500)] + [(1, 3), (1, 3)]  # user 0: 500 rows, unsorted
    b = [(0, int(x)) for x in rng.integers(0, 1000, 800)] + [(1, 3), (1, 4), (2, 3)]
    au, ai = _cols(a)
    bu, bi = _cols(b)
    for threads in (1, 2):
        assert _core.pairs_overlap(au, ai, bu, bi, 3, threads) == _reference(a, b)
    assert ai.tolist() == [r[1] for r in a]  # the caller's arrays are not sorted in place


@pytest.mark.parametrize("bad", [-1, 3])
def test_user_codes_out_of_range_are_refused(bad):
    ok = np.array([0, 1], dtype=np.int64)
    wrong = np.array([0, bad], dtype=np.int64)
    with pytest.raises(ValueError, match="out of range"):
        _core.pairs_overlap(wrong, ok, ok, ok, 3, 1)
    with pytest.raises(ValueError, match="out of range"):
        _core.pairs_overlap(ok, ok, wrong, ok, 3, 1)


def test_columns_of_different_lengths_are_refused():
    x = np.array([0, 1], dtype=np.int64)
    with pytest.raises(ValueError, match="same length"):
        _core.pairs_overlap(x, x[:1], x, x, 2, 1)
