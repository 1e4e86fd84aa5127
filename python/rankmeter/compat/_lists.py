"""Lists of lists (``actual``, ``predicted``) -> one batched rankmeter call.

The list-based libraries (ml_metrics, recmetrics) take ``actual[u]`` (items in
any order) and ``predicted[u]`` (ranked) as Python lists of hashable items,
compare with ``==``, and count ``len(actual[u])`` with its repeats. Here the
items are coded jointly (so ``1 == 1.0`` as in Python) and every user goes
through one ``evaluate`` call; a repeated prediction is read with the
``duplicates=`` option the caller names ("miss": it keeps its position and
never hits again, as ``p not in predicted[:i]`` does; "count": every
occurrence is a hit, as ``[v for v in predicted if v in actual]`` does). A
truth item listed twice, which rankmeter's truth refuses, is kept once; its
count stays in ``Batch.len_actual`` for the denominators.
"""

from __future__ import annotations

import numbers
from itertools import chain
from typing import Any, Optional, Sequence

import numpy as np

from .. import _core
from .._options import resolve_threads
from ..evaluation import evaluate
from ..inputs import Recs, Truth

__all__ = ["Batch", "Coded", "batch", "coded", "fused_ap"]


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


class Coded:
    """``zip(actual, predicted)`` as coded CSR: ``n`` users (the shorter argument wins, as zip does),
    ``len_actual`` (repeats included), the truth codes (``a_indptr``, ``a_codes``) and the predicted codes cut at
    ``k`` (``p_indptr``, ``p_codes``; ``k`` None: whole lists)."""

    def __init__(self, actual: Sequence[Any], predicted: Sequence[Any], k: Optional[int]):
        n = min(len(actual), len(predicted))
        if len(actual) != n:
            actual = actual[:n]
        if len(predicted) != n:
            predicted = predicted[:n]
        # lists of lists of str or int ids: one walk of the objects in C++ (str ids coded by their cached hash,
        # int ids their own codes); anything else (floats, which equal ints in Python, a mix of kinds, other
        # containers) is coded by the Python passes below
        walked = _core.walk_py(actual, predicted) if isinstance(actual, list) and isinstance(predicted, list) else None
        if walked is not None:
            (_, a_ip, a_codes, _), (_, p_ip, p_codes, _), _, _, _ = walked
            la, lp = np.diff(a_ip), np.diff(p_ip)
        else:
            la, lp = _lengths(actual, n), _lengths(predicted, n)
            n_a = int(la.sum())
            codes, _ = _codes(list(chain(chain.from_iterable(actual), chain.from_iterable(predicted))))
            a_codes, p_codes = codes[:n_a], codes[n_a:]
        kept = lp if k is None else np.minimum(lp, k)
        cut = k is not None and lp.size and int(lp.max()) > k
        if cut:  # cut every list at k
            start = np.concatenate(([0], np.cumsum(lp)))[:-1]
            pos = np.arange(p_codes.size, dtype=np.int64) - np.repeat(start, lp)
            p_codes = p_codes[pos < k]
        self.n = n
        self.plain = walked is not None  # every row an exact list, tuple or set (read by the walker)
        self.actual, self.predicted = actual, predicted
        self.len_actual, self.len_predicted = la, lp
        # the walker's row pointers where it gave them (and the lists were not cut)
        self.a_indptr = a_ip if walked is not None else np.concatenate(([0], np.cumsum(la))).astype(np.int64)
        self.a_codes = a_codes
        self.p_indptr = (
            p_ip if walked is not None and not cut else np.concatenate(([0], np.cumsum(kept))).astype(np.int64)
        )
        self.p_codes = p_codes

    def unique_truth(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(indptr, codes, distinct items per user) of the truth with each user's repeats kept once (the first
        occurrence, in input order). One C++ pass over the users' lists in parallel finds the repeats; without
        any the truth comes back as it is."""
        la, a_codes = self.len_actual, self.a_codes
        if a_codes.size < 2:
            return self.a_indptr, a_codes, la
        codes = np.ascontiguousarray(a_codes, dtype=np.int64)
        first, repeats, n_relevant = _core.first_in_row(self.a_indptr, codes, resolve_threads(None))
        if not repeats:
            return self.a_indptr, a_codes, la
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(n_relevant, out=indptr[1:])
        return indptr, a_codes[first], n_relevant


def coded(actual: Sequence[Any], predicted: Sequence[Any], k: Optional[int]) -> Coded:
    return Coded(actual, predicted, k)


class Batch:
    """The per-user numbers the list-based libraries divide by, and the evaluate() result."""

    def __init__(self, lists: Coded, n_relevant: np.ndarray, res: Any):
        self.lists = lists
        self.n = lists.n
        self.len_actual = lists.len_actual  # len(actual[u]), repeats included
        self.n_relevant = n_relevant  # distinct items of actual[u]
        self.res = res

    def per_user(self, name: str) -> np.ndarray:
        return np.asarray(self.res.per_user[name], dtype=np.float64)


def batch(
    actual: Sequence[Any], predicted: Sequence[Any], k: Optional[int], metrics: list, duplicates: str = "miss"
) -> Batch:
    """Evaluate ``zip(actual, predicted)`` with predicted lists cut at ``k`` (None: whole lists) and repeated
    predictions read as ``duplicates`` says. ``k`` is a positive integer or None here (the callers handle other
    values as the originals do)."""
    lists = coded(actual, predicted, k)
    recs = Recs.from_csr(lists.p_indptr, lists.p_codes)
    # an item listed twice in actual is kept once (its count stays in len_actual for the denominators)
    t_indptr, t_codes, n_relevant = lists.unique_truth()
    res = evaluate(Truth.from_csr(t_indptr, t_codes), recs, metrics, empty="zero", duplicates=duplicates)
    return Batch(lists, n_relevant, res)


def fused_ap(
    actual: Sequence[Any], predicted: Sequence[Any], k: int, den_min_k: bool, empty_value: float
) -> Optional[np.ndarray]:
    """The average precision of ml_metrics' ``apk`` (``den_min_k``: divided by ``min(len(actual), k)``) or
    recmetrics' ``_ark`` (divided by ``len(actual)``) of every pair of ``zip(actual, predicted)``, ``empty_value``
    for an empty ``actual``: the walk of the lists and the originals' loop in one C++ call (``_core.lists_ap``, the
    same floating-point operations, so the same bits). None where the lists are not plain lists of lists of str or
    int ids: the caller's general path answers."""
    if not (isinstance(actual, list) and isinstance(predicted, list)):
        return None
    n = min(len(actual), len(predicted))
    a = actual if len(actual) == n else actual[:n]
    p = predicted if len(predicted) == n else predicted[:n]
    return _core.lists_ap(a, p, min(int(k), 2**62), den_min_k, empty_value, resolve_threads(None))


def check_k(k: Any) -> None:
    """``k`` as the originals take it: ``predicted[:k]`` raises TypeError for a non-integer k (when a list is
    longer than k); the batched path needs an integer >= 1."""
    if isinstance(k, numbers.Integral) and not isinstance(k, bool) and int(k) >= 1:
        return
    raise _Fallback()


class _Fallback(Exception):
    """k outside the batched path: the caller runs the original semantics row by row."""
