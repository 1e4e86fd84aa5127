"""Checked buffers: CSR row pointers, id/grade/score columns, user id arrays.

Arrays that already have the right dtype and layout are used in place;
nothing here copies a caller's array it does not have to, and nothing writes
into one.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from .. import _core
from ._ids import as_id_array

__all__ = [
    "all_finite",
    "sum_is_finite",
    "as_items",
    "as_int64_1d",
    "as_float64_1d",
    "check_indptr",
    "check_scores",
    "indptr_of",
    "user_ids",
]


def as_items(items: Any, what: str) -> np.ndarray:
    """Item ids of a CSR form: int32 kept as int32 and other signed ints (and unsigned below
    2^63) as contiguous int64, used in place when they already are; anything else through
    as_id_array."""
    arr = np.asarray(items)
    if arr.ndim == 1 and arr.dtype == np.int32:
        return np.ascontiguousarray(arr)
    if arr.ndim == 1 and (arr.dtype.kind == "i" or (arr.dtype.kind == "u" and arr.dtype.itemsize < 8)):
        return np.ascontiguousarray(arr, dtype=np.int64)
    return as_id_array(arr, what)


def as_int64_1d(a: Any, what: str) -> np.ndarray:
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise ValueError(f"`{what}` must be one-dimensional, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        if arr.size == 0:
            return np.zeros(0, dtype=np.int64)
        raise TypeError(f"`{what}` must be an integer array, got dtype {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=np.int64)


def as_float64_1d(a: Any, what: str, n: int) -> np.ndarray:
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise ValueError(f"`{what}` must be one-dimensional, got shape {arr.shape}")
    if arr.dtype.kind not in "iuf" or arr.dtype.kind == "b":
        if arr.size == 0:
            return np.zeros(0, dtype=np.float64)
        raise TypeError(f"`{what}` must be numeric, got dtype {arr.dtype}")
    if arr.size != n:
        raise ValueError(f"`{what}` has {arr.size} values but there are {n} items")
    return np.ascontiguousarray(arr, dtype=np.float64)


def as_grades_1d(a: Any, what: str, n: int) -> np.ndarray:
    """Truth grades: contiguous float32 kept as given (the accuracy pass reads them in place,
    widening each value exactly), any other numeric dtype as contiguous float64."""
    arr = np.asarray(a)
    if arr.ndim == 1 and arr.dtype == np.float32 and arr.size == n:
        return np.ascontiguousarray(arr)
    return as_float64_1d(arr, what, n)


def check_indptr(indptr: np.ndarray, nnz: int, what: str) -> None:
    if indptr.size < 1:
        raise ValueError(f"`{what}` indptr must have n_users + 1 >= 1 entries")
    if indptr[0] != 0:
        raise ValueError(f"`{what}` indptr must start at 0, got {indptr[0]}")
    if indptr[-1] != nnz:
        raise ValueError(f"`{what}` indptr must end at len(items) = {nnz}, got {indptr[-1]}")
    d = np.diff(indptr)
    if d.size and d.min() < 0:
        bad = int(np.argmax(d < 0))
        raise ValueError(f"`{what}` indptr must be non-decreasing; it decreases at user row {bad}")


def check_scores(scores: np.ndarray, indptr: np.ndarray, users: Optional[np.ndarray]) -> None:
    """Scores must be finite; the message names the user of the first bad one."""
    if scores.size and not np.isfinite(scores).all():
        bad = int(np.argmax(~np.isfinite(scores)))
        row = int(np.searchsorted(indptr, bad, side="right") - 1)
        user = users[row] if users is not None else row
        if isinstance(user, np.generic):
            user = user.item()
        raise ValueError(
            f"`recs` scores must be finite; user {user!r} has score {scores[bad]} at list position {bad - int(indptr[row])}"
        )


def indptr_of(rows: Sequence[Any]) -> np.ndarray:
    """CSR row pointers of a list of sized rows."""
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows)), out=indptr[1:])
    return indptr


def user_ids(users: Any, n: int, what: str) -> Optional[np.ndarray]:
    if users is None:
        return None
    u = np.array(as_id_array(users, f"{what} users"), copy=True)  # never alias the caller's array
    if u.size != n:
        raise ValueError(f"`{what}` has {n} users but `users` has {u.size} ids")
    return u


def all_finite(a: np.ndarray, threads: int = 0) -> bool:
    """Whether every value of the float array `a` is finite: one parallel pass in C++ (no
    temporary array) for contiguous float64/float32, numpy otherwise."""
    if a.ndim == 1 and a.flags.c_contiguous and a.dtype in (np.float64, np.float32):
        return bool(_core.all_finite(a, threads))
    return bool(np.isfinite(a).all())


def sum_is_finite(a: np.ndarray) -> bool:
    """Whether the sum of `a` is finite: then every value is (no temporary array). A non-finite sum
    (a NaN or an infinity, or an overflow of huge finite values) only means "look closer"; numpy's
    warnings for inf + -inf or an overflow are not the caller's business."""
    with np.errstate(invalid="ignore", over="ignore"):
        return math.isfinite(float(np.add.reduce(a)))
