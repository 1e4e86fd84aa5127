"""Drop-in metric functions of recmetrics (statisticianinsf/recmetrics), batched.

Before::

    import recmetrics
    recmetrics.mark(actual, predicted, k=10)
    recmetrics.personalization(predicted)

After::

    from rankmeter.compat import recmetrics
    recmetrics.mark(actual, predicted, k=10)
    recmetrics.personalization(predicted)

Conventions (recmetrics 0.1.5 ``metrics.py``, the PyPI release; ``mapk`` is
from the GitHub source, which 0.1.5 lacks):

- ``mark``: per user, the sum of precision at each hit within k (a repeated
  prediction keeps its position and does not count) divided by
  ``len(actual)``; a falsy ``actual`` scores 0.0; ``np.mean`` over users. That
  is ``ap@k`` (not an average of recalls) with ``empty="zero"``.
- ``mapk``: per user, the mean of precision at each hit within k
  (``ap(denominator=hits)@k``); 0 when ``actual`` or ``predicted`` is empty.
- ``personalization``: 1 - mean cosine similarity of two users' item sets
  (``personalization(similarity=cosine)``); the lists must have one length.
- ``intra_list_similarity``: mean over users of the mean pairwise cosine of
  the listed items' feature rows (``1 - diversity``); an empty list raises.
- ``novelty``: per list, ``sum -log2(pop[i] / u) / n``; returns (mean over
  lists, per-list values).
- ``prediction_coverage`` / ``catalog_coverage``: distinct predicted items /
  ``len(catalog)`` in percent, rounded to 2 decimals; ``catalog_coverage``
  first draws ``k`` lists with ``random.choices`` (the same draw as the
  original for the same ``random`` state).

``mapk``, ``mark``, ``personalization`` and ``intra_list_similarity`` run in
one ``rankmeter.evaluate`` call each; ``novelty`` (which takes ``pop`` as
given, not train interactions) is one vectorised numpy pass, and the two
coverage functions one ``set`` over the flattened lists, as the originals.
"""

from __future__ import annotations

import operator
import random
from itertools import chain
from typing import Any, Sequence

import numpy as np

from ..evaluation import evaluate
from ._lists import _codes, _Fallback, batch, check_k

__all__ = [
    "mapk",
    "mark",
    "personalization",
    "intra_list_similarity",
    "novelty",
    "prediction_coverage",
    "catalog_coverage",
]


# --------------------------------------------------------------------------- mark / mapk
def _ark_one(actual: Any, predicted: Any, k: Any) -> float:
    if len(predicted) > k:
        predicted = predicted[:k]
    score, hits = 0.0, 0.0
    for i, p in enumerate(predicted):
        if p in actual and p not in predicted[:i]:
            hits += 1.0
            score += hits / (i + 1.0)
    if not actual:
        return 0.0
    return score / len(actual)


def _apk_one(actual: Any, predicted: Any, k: Any) -> float:
    if len(predicted) > k:
        predicted = predicted[:k]
    if not predicted or not actual:
        return 0
    score, tp = 0.0, 0
    for i, p in enumerate(predicted):
        if p in actual and p not in predicted[:i]:
            top = predicted[: i + 1]
            score += sum(x in actual for x in set(top)) / len(top)
            tp += 1
    return 0 if score == 0 else score / tp


def mark(actual: Sequence[Any], predicted: Sequence[Any], k: Any = 10) -> Any:
    """Mean over users of (sum of precision at the hits within k) / len(actual)."""
    try:
        check_k(k)
    except _Fallback:
        return np.mean([_ark_one(a, p, k) for a, p in zip(actual, predicted)])
    name = f"ap@{k}"
    b = batch(actual, predicted, k, [name])
    v = b.per_user(name)
    rep = b.len_actual != b.n_relevant
    if rep.any():
        v[rep] = v[rep] * b.n_relevant[rep] / b.len_actual[rep]
    v[np.fromiter(map(operator.not_, actual[: b.n]), dtype=bool, count=b.n)] = 0.0
    return np.mean(v)


def mapk(actual: Sequence[Any], predicted: Sequence[Any], k: Any = 10) -> Any:
    """Mean over users of the mean precision at the hits within k (0 for an empty actual or predicted)."""
    try:
        check_k(k)
    except _Fallback:
        return np.mean([_apk_one(a, p, k) for a, p in zip(actual, predicted)])
    name = f"ap(denominator=hits)@{k}"
    b = batch(actual, predicted, k, [name])
    v = b.per_user(name)
    falsy = np.fromiter(map(operator.not_, actual[: b.n]), dtype=bool, count=b.n)
    falsy |= np.fromiter(map(operator.not_, predicted[: b.n]), dtype=bool, count=b.n)
    v[falsy] = 0.0
    return np.mean(v)


# --------------------------------------------------------------------------- beyond accuracy
def _as_recs(predicted: Sequence[Any]) -> dict:
    return {u: list(p) for u, p in enumerate(predicted)}


def personalization(predicted: Sequence[Any]) -> float:
    """1 - mean cosine similarity |L_u & L_v| / sqrt(|L_u| |L_v|) over pairs of users."""
    arr = np.array(predicted)  # as the original: ragged lists raise ValueError here
    if arr.ndim != 2:
        raise ValueError(f"`predicted` must be a list of equal-length lists, got shape {arr.shape}")
    n = arr.shape[0]
    if n < 2:
        with np.errstate(divide="warn", invalid="warn"):
            return float(np.float64(0.0) / np.float64(0.0)) if n == 1 else float("nan")
    flat = arr.ravel().tolist()
    codes, _ = _codes(flat)
    codes = codes.reshape(arr.shape)
    srt = np.sort(codes, axis=1)
    if (srt[:, 1:] == srt[:, :-1]).any():
        # the original's pivot refuses a user listing an item twice
        raise ValueError("Index contains duplicate entries, cannot reshape")
    recs = {u: codes[u].tolist() for u in range(n)}
    res = evaluate({u: [] for u in range(n)}, recs, ["personalization(similarity=cosine)"], empty="zero")
    return float(res["personalization(similarity=cosine)"])


def intra_list_similarity(predicted: Sequence[Any], feature_df: Any) -> Any:
    """Mean over users of the mean pairwise cosine similarity of their items' features (``1 - diversity``)."""
    feature_df = feature_df.fillna(0)
    for u, p in enumerate(predicted):
        if not p:
            raise Exception(f"Predicted list is empty, index: {u}")
    missing = set(chain.from_iterable(predicted)) - set(feature_df.index)
    if missing:
        raise KeyError(f"{sorted(map(str, missing))[:5]} not in index")
    recs = _as_recs(predicted)
    res = evaluate(
        {u: [] for u in recs}, recs, ["diversity"], empty="zero", duplicates="first", item_features=feature_df
    )
    ils = 1.0 - np.asarray(res.per_user["diversity"], dtype=np.float64)
    return np.mean(ils)


def novelty(predicted: Sequence[Any], pop: dict, u: int, n: int) -> tuple:
    """(mean over lists, per-list values) of ``sum_{i in list} -log2(pop[i] / u) / n``."""
    lens = np.fromiter(map(len, predicted), dtype=np.int64, count=len(predicted))
    flat = list(chain.from_iterable(predicted))
    counts = np.fromiter(map(pop.__getitem__, flat), dtype=np.float64, count=len(flat))  # KeyError as the original
    with np.errstate(divide="ignore"):
        info = -np.log2(counts / u)
    owner = np.repeat(np.arange(len(predicted)), lens)
    sums = np.bincount(owner, weights=info, minlength=len(predicted))
    per_list = (sums / n).tolist()
    return sum(per_list) / len(per_list), per_list


def prediction_coverage(predicted: Sequence[Any], catalog: Sequence[Any]) -> float:
    """Share (in %, 2 decimals) of ``catalog``'s size that the distinct predicted items make up."""
    distinct = len(set(chain.from_iterable(predicted)))  # Python equality and hashing, as the original
    return round(distinct / (len(catalog) * 1.0) * 100, 2)


def catalog_coverage(predicted: Sequence[Any], catalog: Sequence[Any], k: int) -> float:
    """``prediction_coverage`` of ``k`` lists drawn with replacement by ``random.choices`` (as the original)."""
    sampling = random.choices(predicted, k=k)
    distinct = len(set(chain.from_iterable(sampling)))
    return round(distinct / (len(catalog) * 1.0) * 100, 2)
