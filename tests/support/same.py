"""The equality checks the tests share.

rankmeter promises the same numbers bit for bit wherever two paths compute one value (threads, SIMD
or scalar scan, int32 or int64 ids, float32 or float64 grades, streamed or in memory, Spark, Dask,
merged states). These checks compare IEEE-754 bit patterns: NaN equals a NaN of the same bits, and
-0.0 differs from 0.0. Float64 is the common dtype (every float32 widens to it exactly).

``close`` is for the other kind of check: a value against a plain reference that sums in another
order, within a relative tolerance.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable
from typing import Any, Optional, Union

import numpy as np

#: the user counters every entry point reports in ``res.meta``
COUNTS = ("n_users", "n_skipped", "n_missing_recs", "n_ignored_recs")


def bits(x: float) -> bytes:
    """The bit pattern of a float64 (a Python float, a numpy scalar of any float dtype)."""
    return struct.pack("<d", x)


def same_bits(a: Any, b: Any) -> bool:
    """Same shape and the same bits in every element, as float64 (scalars or arrays)."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def close(a: float, b: float, rel: float = 1e-9, abs_tol: float = 1e-12) -> bool:
    """Within ``rel`` (relative) or ``abs_tol`` (absolute) of each other; NaN only equals NaN."""
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_tol)


def _per_user(res: Any, name: str) -> Optional[np.ndarray]:
    """The per-user values, or None for a catalog-level metric (one value, no per-user column)."""
    try:
        return res.per_user[name]
    except KeyError:
        return None


def _check_meta(got: Any, want: Any, meta: Union[str, Iterable[str], None]) -> None:
    if meta is None:
        return
    if meta == "all":
        assert got.meta == want.meta, (got.meta, want.meta)
        return
    for key in meta:
        assert got.meta[key] == want.meta[key], (key, got.meta, want.meta)


def assert_same_means(
    got: Any, want: Any, metrics: Optional[Iterable[Any]] = None, *, meta: Union[str, Iterable[str], None] = "all"
) -> None:
    """``got`` reports ``want``'s means bit for bit.

    ``metrics``: the names to compare (default: every name of ``want``, and ``got`` has the same names).
    ``meta``: ``"all"`` compares the whole ``meta`` dict, a sequence of keys (e.g. ``COUNTS``) those
    keys only, ``None`` nothing.
    """
    if metrics is None:
        assert list(got.keys()) == list(want.keys()), (got.keys(), want.keys())
        metrics = want.keys()
    for m in metrics:
        a, b = got[m], want[m]
        assert same_bits(a, b), (m, a, b)
    _check_meta(got, want, meta)


def assert_same_result(
    got: Any,
    want: Any,
    metrics: Optional[Iterable[Any]] = None,
    *,
    meta: Union[str, Iterable[str], None] = "all",
    state: bool = False,
) -> None:
    """``got`` reports ``want``'s means and per-user values bit for bit (see :func:`assert_same_means`).

    A catalog-level metric has no per-user values on either side. ``state=True`` also compares the
    two results' mergeable states.
    """
    if metrics is None:
        assert list(got.keys()) == list(want.keys()), (got.keys(), want.keys())
        metrics = want.keys()
    metrics = list(metrics)
    assert_same_means(got, want, metrics, meta=meta)
    for m in metrics:
        a, b = _per_user(got, m), _per_user(want, m)
        if a is None or b is None:
            assert a is None and b is None, (m, "per-user values on one side only")
            continue
        assert same_bits(a, b), (m, a, b)
    if state:
        assert got.state == want.state
