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
    """Joint integer codes of the items (Python equality), and how many distinct items there are."""
    if not flat:
        return np.zeros(0, dtype=np.int64), 0
    kinds = set(map(type, flat))
    if len(kinds) == 1 or kinds <= {int, float, bool, np.int64, np.float64, np.int32}:
        arr = np.asarray(flat)
        if arr.ndim == 1 and arr.dtype.kind in "iufbUS":
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

    ``k`` must be a positive integer here (the callers handle other values as the originals do)."""
    n = min(len(actual), len(predicted))
    if len(actual) != n:
        actual = actual[:n]
    if len(predicted) != n:
        predicted = predicted[:n]
    la, lp = _lengths(actual, n), _lengths(predicted, n)
    flat_a = list(chain.from_iterable(actual))
    flat_p = list(chain.from_iterable(predicted))
    codes, n_codes = _codes(flat_a + flat_p)
    a_codes, p_codes = codes[: len(flat_a)], codes[len(flat_a) :]

    # truth: distinct items per user (first occurrence kept)
    a_user = np.repeat(np.arange(n, dtype=np.int64), la)
    key = a_user * max(n_codes, 1) + a_codes
    _, first = np.unique(key, return_index=True)
    keep = np.zeros(key.size, dtype=bool)
    keep[first] = True
    t_items = a_codes[keep]
    n_relevant = np.bincount(a_user[keep], minlength=n).astype(np.int64)
    t_indptr = np.concatenate(([0], np.cumsum(n_relevant)))

    # predictions: cut at k, repeats replaced by codes no truth holds
    start = np.concatenate(([0], np.cumsum(lp)))[:-1]
    p_user = np.repeat(np.arange(n, dtype=np.int64), lp)
    pos = np.arange(p_codes.size, dtype=np.int64) - np.repeat(start, lp)
    cut = pos < k
    p_user, p_codes = p_user[cut], p_codes[cut]
    kept_len = np.minimum(lp, k)
    key = p_user * max(n_codes, 1) + p_codes
    _, first = np.unique(key, return_index=True)
    repeat = np.ones(key.size, dtype=bool)
    repeat[first] = False
    p_items = p_codes.copy()
    p_items[repeat] = n_codes + np.arange(int(repeat.sum()), dtype=np.int64)
    p_indptr = np.concatenate(([0], np.cumsum(kept_len)))

    res = evaluate(Truth.from_csr(t_indptr, t_items), Recs.from_csr(p_indptr, p_items), metrics, empty="zero")
    return Batch(n, la, n_relevant, res)


def check_k(k: Any) -> None:
    """``k`` as the originals take it: ``predicted[:k]`` raises TypeError for a non-integer k (when a list is
    longer than k); the batched path needs an integer >= 1."""
    if isinstance(k, numbers.Integral) and not isinstance(k, bool) and k >= 1:
        return
    raise _Fallback()


class _Fallback(Exception):
    """k outside the batched path: the caller runs the original semantics row by row."""
