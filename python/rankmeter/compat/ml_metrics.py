"""Drop-in ``apk``/``mapk`` of ml_metrics 0.1.4 (benhamner/Metrics, the PyPI release), batched.

Before::

    from ml_metrics import mapk
    score = mapk(actual, predicted, k=10)

After::

    from rankmeter.compat.ml_metrics import mapk
    score = mapk(actual, predicted, k=10)

Convention (ml_metrics 0.1.4 ``average_precision.py``): the predictions are
cut at ``k``; a prediction counts when it is in ``actual`` and not repeated
earlier in the list (a repeat keeps its position); the sum of precision at
each counted hit is divided by ``min(len(actual), k)`` (repeats in ``actual``
counted); an empty (falsy) ``actual`` scores **1.0** (the 0.1.4 release; the
GitHub source later changed it to 0.0). ``mapk`` is ``np.mean`` of the
per-user values over ``zip(actual, predicted)``. That is rankmeter's
``ap(denominator=min_relevant_k)@k`` with ``empty="one"`` and
``duplicates="miss"`` (``preset="ml_metrics"``), evaluated for all users in
one call.
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from .. import _core
from ._lists import _Fallback, batch, check_k, fused_ap

__all__ = ["apk", "mapk"]


def _values(actual: Sequence[Any], predicted: Sequence[Any], k: Any) -> np.ndarray:
    try:
        check_k(k)
    except _Fallback:
        return np.array([_apk_one(a, p, k) for a, p in zip(actual, predicted)], dtype=np.float64)
    fused = fused_ap(actual, predicted, k, True, 1.0)  # plain lists: walked and scored in one C++ call
    if fused is not None:
        return fused
    b = batch(actual, predicted, k, [f"ap(denominator=min_relevant_k)@{k}"], duplicates="miss")
    v = b.per_user(f"ap(denominator=min_relevant_k)@{k}")
    rep = b.len_actual != b.n_relevant  # repeats in actual: ml_metrics divides by min(len(actual), k)
    if rep.any():
        v[rep] = v[rep] * np.minimum(b.n_relevant[rep], k) / np.minimum(b.len_actual[rep], k)
    # `if not actual: return 1.0`, evaluated on the object itself (as the original does); for exact lists, tuples
    # and sets (the walker read them: b.lists.plain) that is an empty one
    empty = (
        b.len_actual == 0 if b.lists.plain else np.fromiter(map(operator.not_, actual[: b.n]), dtype=bool, count=b.n)
    )
    v[empty] = 1.0
    return v


_apk_c = _core.apk_one


def apk(actual: Any, predicted: Any, k: Any = 10) -> float:
    """Average precision at k of one list: ``sum_{hits j<=k} P@j / min(len(actual), k)``; 1.0 for an empty actual.

    One list of up to 64 str or int ids is computed by a plain C function of the core (called once per user in a
    loop, several times faster than ml_metrics' own ``apk``: no C++ pass is set up for one list); any other list
    or ``k`` runs the original's Python code. ``mapk`` evaluates every list in one C++ pass. All give the same
    value (tests/compat/test_ml_metrics_recmetrics.py, tests/compat/test_lists_ap.py)."""
    value = _apk_c(actual, predicted, k)
    if value is not None:
        return value
    if len(predicted) > k:
        predicted = predicted[:k]
    score, hits = 0.0, 0.0
    for i, p in enumerate(predicted):
        if p in actual and p not in predicted[:i]:
            hits += 1.0
            score += hits / (i + 1.0)
    if not actual:
        return 1.0
    return score / min(len(actual), k)


# the original's semantics for one user, also where k is no positive integer (it slices and divides by whatever
# k is): the batched path falls back to it there
_apk_one = apk


def mapk(actual: Sequence[Any], predicted: Sequence[Any], k: Any = 10) -> Any:
    """Mean of ``apk`` over ``zip(actual, predicted)`` (``np.mean``: NaN with a RuntimeWarning when empty)."""
    return np.mean(_values(actual, predicted, k))
