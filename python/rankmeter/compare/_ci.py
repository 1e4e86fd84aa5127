"""Confidence interval of one run's mean (``ci(res, "ndcg@10")``)."""

from __future__ import annotations

import math
import numbers
from typing import Any, Optional

import numpy as np

from .._options import resolve_threads
from . import _stats

__all__ = ["ci"]


def ci(
    res: Any,
    metric: str,
    method: str = "bootstrap",
    *,
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int = 0,
    threads: Optional[int] = None,
) -> tuple[float, float]:
    """Confidence interval of the mean of ``metric`` over the users of ``res``.

    ``method="bootstrap"``: the percentile interval of ``n_resamples`` bootstrap
    means (users drawn with replacement by the C++ kernel; deterministic for a
    seed, any thread count). ``method="t"``: Student's t interval. Users with a
    NaN value (skipped) are left out.

    >>> import rankmeter as rm
    >>> from rankmeter.compare import ci
    >>> res = rm.evaluate({u: {u % 3: 1} for u in range(30)}, {u: [0, 1, 2] for u in range(30)}, ["rr@3"])
    >>> lo, hi = ci(res, "rr@3", n_resamples=2000)
    >>> lo < res["rr@3"] < hi
    True
    """
    if method not in ("bootstrap", "t"):
        raise ValueError(f"`method` must be 'bootstrap' or 't', got {method!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 < alpha < 1:
        raise ValueError(f"`alpha` must be in (0, 1), got {alpha!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral) or n_resamples < 1:
        raise ValueError(f"`n_resamples` must be a positive integer, got {n_resamples!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < 2**64:
        raise ValueError(f"`seed` must be an integer in [0, 2**64), got {seed!r}")
    v = np.asarray(res.per_user[metric], dtype=np.float64)
    v = v[~np.isnan(v)]
    if v.size == 0:
        return math.nan, math.nan
    if method == "t":
        return _stats.t_interval(v, alpha)
    means = _stats.bootstrap_means(
        np.ascontiguousarray(v.reshape(-1, 1)), int(n_resamples), int(seed), resolve_threads(threads)
    )
    return _stats.percentile_interval(means[:, 0], alpha)
