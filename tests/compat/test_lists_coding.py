"""The coding of ``zip(actual, predicted)`` shared by the ml_metrics and recmetrics drop-ins: a truth item
listed twice is kept once, at its first occurrence, and never merged across users."""

from __future__ import annotations

from itertools import accumulate

from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.compat._lists import coded

ids = st.one_of(st.integers(-3, 3), st.integers(2**62, 2**62 + 2), st.sampled_from(["a", "b", "c"]))
rows = st.lists(st.lists(ids, max_size=6), max_size=8)


def _reference(actual: list) -> tuple[list, list]:
    kept, counts = [], []
    for row in actual:
        seen: list = []
        for x in row:
            if x not in seen:
                seen.append(x)
        kept.append(seen)
        counts.append(len(seen))
    return kept, counts


@settings(max_examples=400, deadline=None)
@given(rows, st.data())
def test_repeated_truth_items_are_kept_once_per_user_in_first_order(actual, data):
    kinds = {type(x) for row in actual for x in row}
    if kinds == {int, str}:  # a mix of kinds is coded by the Python passes: one kind per draw here
        actual = [[x for x in row if isinstance(x, int)] for row in actual]
    predicted = data.draw(st.lists(st.lists(ids, max_size=3), min_size=len(actual), max_size=len(actual)))
    predicted = [[x for x in row if type(x) in {type(y) for r in actual for y in r} or not actual] for row in predicted]
    lists = coded(actual, predicted, 10)
    indptr, codes, n_relevant = lists.unique_truth()
    kept, counts = _reference(actual)
    assert n_relevant.tolist() == counts
    assert indptr.tolist() == [0, *accumulate(counts)]
    # the codes of the kept items, row by row, are the codes of the reference's items in its order
    all_codes = lists.a_codes.tolist()
    flat = [x for row in actual for x in row]
    code_of = dict(zip(flat, all_codes))
    assert codes.tolist() == [code_of[x] for row in kept for x in row]


def test_the_same_item_ending_one_list_and_starting_the_next_is_kept_in_both():
    lists = coded([["y"], ["y", "y"], [], ["y", "z"]], [["x"], ["y"], [], ["z"]], 5)
    indptr, _codes, n_relevant = lists.unique_truth()
    assert n_relevant.tolist() == [1, 1, 0, 2]
    assert indptr.tolist() == [0, 1, 2, 2, 4]
