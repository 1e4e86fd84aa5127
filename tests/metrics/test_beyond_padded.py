"""The beyond-accuracy metrics read a padded 2-D array of item ids in place, with the numbers of the same
lists given as CSR.

The reference is the CSR form of the same lists (whose beyond-accuracy kernels are checked against the
pure-Python references in tests/support/reference_beyond.py): every value must be bit-identical, with
duplicates under each policy, empty and full rows, users missing on either side (a rowmap), any pad value,
and any thread count. A padded row holding an item after the padding stays an error naming its user.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import rankmeter as rm

METRICS = [
    "coverage@3",
    "coverage",
    "gini@3",
    "personalization@3",
    "personalization(similarity=cosine)@3",
    "novelty@3",
    "novelty",
    "arp@2",
    "diversity@3",
    "serendipity@3",
    "fcp@4",
    "ndcg@3",
]


def outcome(fn):
    try:
        return fn()
    except (ValueError, TypeError) as e:
        return (type(e).__name__, str(e))


@st.composite
def padded(draw):
    n_users = draw(st.integers(2, 7))
    width = draw(st.integers(1, 6))
    pad = draw(st.sampled_from([-1, 0, 99, -(2**62)]))
    items = draw(st.sampled_from([[1, 2, 3, 4, 5, 6, 7], [10, 2**40, 7]]))
    rows = []
    for _ in range(n_users):
        n = draw(st.integers(0, width))
        rows.append([draw(st.sampled_from([i for i in items if i != pad])) for _ in range(n)])
    arr = np.full((n_users, width), pad, dtype=np.int64)
    for r, row in enumerate(rows):
        arr[r, : len(row)] = row
    return arr, pad, rows


@settings(max_examples=300, deadline=None)
@given(
    data=padded(),
    dups=st.sampled_from(["first", "count", "miss"]),
    threads=st.sampled_from([1, 2, 3]),
    keyed=st.booleans(),
)
def test_padded_lists_give_the_numbers_of_the_same_lists_as_csr(data, dups, threads, keyed):
    arr, pad, rows = data
    n = arr.shape[0]
    users = [f"u{j}" for j in range(n)]
    all_items = sorted({i for row in rows for i in row} | {1, 2, 3})
    truth_rows = {users[j]: {i: float(1 + (i + j) % 3) for i in all_items[j % 2 :: 2]} for j in range(n)}
    if keyed:  # one recs user without truth, one truth user without recs: a rowmap
        truth_rows.pop(users[0])
        truth_rows["absent"] = {1: 1.0}
    truth: Any = truth_rows if keyed else [list(truth_rows[u]) for u in users]
    history = [all_items[j % len(all_items) :: 3] or [1] for j in range(n)]  # each user's train items
    train = {u: history[j] for j, u in enumerate(users)} if keyed else history
    feats = {i: np.array([np.cos(i), np.sin(i), 0.5]) for i in all_items}
    kw = dict(train=train, item_features=feats, duplicates=dups, threads=threads, per_user=True)
    indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    flat = np.array([i for r in rows for i in r], dtype=np.int64)
    u_arg = users if keyed else None
    a = outcome(lambda: rm.evaluate(truth, rm.Recs.from_array(arr, pad=pad, users=u_arg), METRICS, **kw))
    b = outcome(lambda: rm.evaluate(truth, rm.Recs.from_csr(indptr, flat, users=u_arg), METRICS, **kw))
    if not isinstance(a, rm.Result) or not isinstance(b, rm.Result):  # the same error (a repeat under "count")
        event("the same error")
        assert a == b
        return
    event("the same numbers")
    for m in METRICS:
        assert a[m] == b[m] or (np.isnan(a[m]) and np.isnan(b[m])), m
        try:
            pa = a.per_user[m]
        except KeyError:  # a catalog-level metric: one value
            continue
        np.testing.assert_array_equal(pa, b.per_user[m])
    assert a.meta == b.meta


def test_a_padded_row_with_an_item_after_the_pad_names_its_user_for_beyond_metrics_alone():
    arr = np.array([[1, 2, -1], [3, -1, 4]], dtype=np.int64)
    with pytest.raises(ValueError, match="row of user 'b' has an item after the padding value -1"):
        rm.evaluate({"a": [1], "b": [3]}, rm.Recs.from_array(arr, users=["a", "b"]), ["coverage@2"])
