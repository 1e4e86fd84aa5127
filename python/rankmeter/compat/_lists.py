"""Lists of lists (``actual``, ``predicted``) -> one batched rankmeter call.

The list-based libraries (ml_metrics, recmetrics) take ``actual[u]`` (items in
any order) and ``predicted[u]`` (ranked) as Python lists of hashable items,
compare with ``==``, keep a repeated prediction's position without counting it
again, and count ``len(actual[u])`` with its repeats. Here the items are coded
jointly (so ``1 == 1.0`` as in Python), a repeated prediction is replaced by a
code no truth holds (its position stays, it never hits), truth repeats are
dropped (their count is kept for the denominators), and every user goes
through one ``evaluate`` call.
"""

from __future__ import annotations

import numbers
from itertools import chain
from typing import Any, Sequence

import numpy as np

from ..evaluation import evaluate
from ..inputs import Recs, Truth

__all__ = ["Batch", "batch"]


def _lengths(rows: Sequence[Any], n: int) -> np.ndarray:
    return np.fromiter(map(len, rows), dtype=np.int64, count=n)


def _codes(flat: list) -> tuple[np.ndarray, int]:
    """Integer codes of the items under Python equality, and a base such that ``base + j`` (j >= 0, j < len(flat))
    is no item's code. Plain integer ids are their own codes; anything else is coded jointly."""
    if not flat:
        return np.zeros(0, dtype=np.int64), 0
    try:
        arr = np.asarray(flat)
    except (ValueError, TypeError, OverflowError):
        arr = None
    if arr is not None and arr.ndim == 1 and arr.dtype == np.int64:
        # only Python ints and bools (True == 1 in Python too) make an int64 array
        top = int(arr.max())
        if top < 2**63 - 1 - len(flat):
            return arr, top + 1
    if arr is not None and arr.ndim == 1 and arr.dtype.kind in "iufbUS":
        kinds = set(map(type, flat))
        # one kind, or numbers only (1 == 1.0 as in Python; ints beyond 2**53 would collide as floats)
        if len(kinds) == 1 or (kinds <= {int, float, bool, np.int64, np.float64} and arr.dtype.kind != "f"):
            uniq, inv = np.unique(arr, return_inverse=True)
            return inv.astype(np.int64).ravel(), int(uniq.size)
    seen: dict = {}
    codes = np.fromiter((seen.setdefault(x, len(seen)) for x in flat), dtype=np.int64, count=len(flat))
    return codes, len(seen)


class Batch:
    """The per-user numbers the list-based libraries divide by, and the evaluate() result."""

    def __init__(self, n: int, len_actual: np.ndarray, n_relevant: np.ndarray, res: Any):
        self.n = n
        self.len_actual = len_actual  # len(actual[u]), repeats included
        self.n_relevant = n_relevant  # distinct items of actual[u]
        self.res = res

    def per_user(self, name: str) -> np.ndarray:
        return np.asarray(self.res.per_user[name], dtype=np.float64)


def batch(actual: Sequence[Any], predicted: Sequence[Any], k: int, metrics: list) -> Batch:
    """Evaluate ``zip(actual, predicted)`` (shortest wins, as zip does) with predicted lists cut at ``k``.

    ``k`` must be a positive integer here (the callers handle other values as the originals do). Lists without
    repeats go straight to ``evaluate``; when rankmeter reports a repeat, the lists are cleaned as described in
    the module docstring and evaluated again."""
    n = min(len(actual), len(predicted))
    if len(actual) != n:
        actual = actual[:n]
    if len(predicted) != n:
        predicted = predicted[:n]
    la, lp = _lengths(actual, n), _lengths(predicted, n)
    n_a = int(la.sum())
    codes, base = _codes(list(chain(chain.from_iterable(actual), chain.from_iterable(predicted))))
    a_codes, p_codes = codes[:n_a], codes[n_a:]
    a_indptr = np.concatenate(([0], np.cumsum(la)))
    kept_len = np.minimum(lp, k)
    if lp.size and int(lp.max()) > k:  # cut every list at k
        start = np.concatenate(([0], np.cumsum(lp)))[:-1]
        pos = np.arange(p_codes.size, dtype=np.int64) - np.repeat(start, lp)
        p_codes = p_codes[pos < k]
    p_indptr = np.concatenate(([0], np.cumsum(kept_len)))
    try:
        res = evaluate(Truth.from_csr(a_indptr, a_codes), Recs.from_csr(p_indptr, p_codes), metrics, empty="zero")
        return Batch(n, la, la, res)
    except ValueError as e:
        if "more than once" not in str(e):
            raise
    # repeats: truth keeps its first occurrences; a repeated prediction gets a code no item has
    a_user = np.repeat(np.arange(n, dtype=np.int64), la)
    order = np.lexsort((np.arange(a_codes.size), a_codes, a_user))
    first = np.ones(a_codes.size, dtype=bool)
    first[order[1:]] = (a_user[order[1:]] != a_user[order[:-1]]) | (a_codes[order[1:]] != a_codes[order[:-1]])
    n_relevant = np.bincount(a_user[first], minlength=n).astype(np.int64)
    t_indptr = np.concatenate(([0], np.cumsum(n_relevant)))
    p_user = np.repeat(np.arange(n, dtype=np.int64), kept_len)
    order = np.lexsort((np.arange(p_codes.size), p_codes, p_user))
    repeat = np.zeros(p_codes.size, dtype=bool)
    repeat[order[1:]] = (p_user[order[1:]] == p_user[order[:-1]]) & (p_codes[order[1:]] == p_codes[order[:-1]])
    p_items = p_codes.copy()
    p_items[repeat] = base + np.arange(int(repeat.sum()), dtype=np.int64)
    res = evaluate(Truth.from_csr(t_indptr, a_codes[first]), Recs.from_csr(p_indptr, p_items), metrics, empty="zero")
    return Batch(n, la, n_relevant, res)


def check_k(k: Any) -> None:
    """``k`` as the originals take it: ``predicted[:k]`` raises TypeError for a non-integer k (when a list is
    longer than k); the batched path needs an integer >= 1."""
    if isinstance(k, numbers.Integral) and not isinstance(k, bool) and int(k) >= 1:
        return
    raise _Fallback()


class _Fallback(Exception):
    """k outside the batched path: the caller runs the original semantics row by row."""
