"""Drop-in metric functions of recmetrics (statisticianinsf/recmetrics), batched.

Before::

    import recmetrics
    recmetrics.mark(actual, predicted, k=10)
    recmetrics.personalization(predicted)

After::

    from rankmeter.compat import recmetrics
    recmetrics.mark(actual, predicted, k=10)
    recmetrics.personalization(predicted)

Both signatures users call are here: the 0.1.5 release (``metrics.py``) and
the current GitHub source (commit b21222d, 2023), which adds ``mapk``,
``prediction_coverage(..., unseen_warning=)`` and length checks. Where the
two differ, the release's behaviour is the default and the GitHub one is
what its own arguments or functions select:

- ``mark``: per user, the sum of precision at each hit within k (a repeated
  prediction keeps its position and does not count again) divided by
  ``len(actual)``; a falsy ``actual`` scores 0.0; ``np.mean`` over
  ``zip(actual, predicted)``. That is ``ap@k`` with ``empty="zero"`` and
  ``duplicates="miss"`` (``preset="recmetrics"``). The GitHub source raises
  ``AssertionError`` when the two lists differ in length; the release zips.
- ``mapk`` (GitHub only): per user, the mean over the hits within k (first
  occurrences) of the precision at the hit, where that precision counts every
  occurrence of an actual item above it, repeats included; 0 when ``actual``
  or ``predicted`` is empty or nothing hits; ``AssertionError`` when the lists
  differ in length. ``_apk`` is its value for one user.
- ``recommender_precision`` / ``recommender_recall``: every occurrence of an
  actual item counts (``hits`` with ``duplicates="count"``), divided by
  ``len(predicted)`` / ``len(actual)`` (ZeroDivisionError when 0, as the
  original) and rounded per user with ``np.round(x, 4)``; ``np.mean`` over
  users.
- ``personalization``: 1 - mean cosine similarity of two users' item sets
  (``personalization(similarity=cosine)``); the lists must have one length
  and hold no item twice (the original's pandas pivot raises).
- ``intra_list_similarity``: mean over users of the mean pairwise cosine of
  the listed items' feature rows, a repeated item at each of its positions
  (``1 - diversity`` with ``duplicates="miss"``); an empty list raises.
- ``novelty``: per list, ``sum -log2(pop[i] / u) / n``; returns (mean over
  lists, per-list values).
- ``prediction_coverage`` / ``catalog_coverage``: distinct predicted items /
  ``len(catalog)`` in percent, rounded to 2 decimals; ``catalog_coverage``
  first draws ``k`` lists with ``random.choices`` (the same draw as the
  original for the same ``random`` state). With ``unseen_warning`` given
  (GitHub), a catalog listing an item twice, or a predicted item outside it
  (``unseen_warning=False``), raises ``AssertionError``; ``True`` warns and
  leaves such items out.

``mapk``, ``mark``, the two recommender functions, ``personalization`` and
``intra_list_similarity`` run in one ``rankmeter.evaluate`` call or one
vectorised numpy pass each; ``novelty`` (which takes ``pop`` as given, not
train interactions) is one vectorised numpy pass, and the two coverage
functions one ``set`` over the flattened lists, as the originals.
"""

from __future__ import annotations

import _random
import operator
import random
import warnings
from itertools import chain
from typing import Any, Optional, Sequence

import numpy as np

from .. import _core
from .._options import resolve_threads
from ..evaluation import evaluate
from ._lists import _codes, _Fallback, batch, check_k, coded, fused_ap

_C_RANDOM = _random.Random.random  # the generator's own random(), which the draws below repeat

__all__ = [
    "mapk",
    "mark",
    "personalization",
    "intra_list_similarity",
    "novelty",
    "prediction_coverage",
    "catalog_coverage",
    "recommender_precision",
    "recommender_recall",
]


# --------------------------------------------------------------------------- mark / mapk
def _ark_one(actual: Any, predicted: Any, k: Any) -> float:
    """mark's value for one user, for k outside the positive integers (sliced and divided as the original)."""
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
    """mapk's value for one user, for k outside the positive integers."""
    if not predicted or not actual:
        return 0.0
    if len(predicted) > k:
        predicted = predicted[:k]
    score, first_hits = 0.0, 0
    for i, p in enumerate(predicted):
        if p in actual and p not in predicted[:i]:
            top = predicted[: i + 1]
            score += float(sum(1 for x in top if x in actual)) / float(len(top))
            first_hits += 1
    return 0.0 if score == 0.0 else score / first_hits


def _falsy(rows: Sequence[Any], n: int, lists: Any = None, side: str = "actual") -> np.ndarray:
    """``not row`` of the first n rows, evaluated on the objects themselves (as the originals do); from the
    lengths when ``lists`` (a coded batch) says its rows are exact lists, tuples or sets (empty is falsy)."""
    if lists is not None and lists.plain:
        return (lists.len_actual if side == "actual" else lists.len_predicted)[:n] == 0
    return np.fromiter(map(operator.not_, rows[:n]), dtype=bool, count=n)


def mark(actual: Sequence[Any], predicted: Sequence[Any], k: Any = 10) -> Any:
    """Mean over users of (sum of precision at the hits within k) / len(actual)."""
    try:
        check_k(k)
    except _Fallback:
        return np.mean([_ark_one(a, p, k) for a, p in zip(actual, predicted)])
    fused = fused_ap(actual, predicted, k, False, 0.0)  # plain lists: walked and scored in one C++ call
    if fused is not None:
        return np.mean(fused)
    name = f"ap@{k}"
    b = batch(actual, predicted, k, [name], duplicates="miss")
    v = b.per_user(name)
    rep = b.len_actual != b.n_relevant
    if rep.any():
        v[rep] = v[rep] * b.n_relevant[rep] / b.len_actual[rep]
    v[_falsy(actual, b.n, b.lists)] = 0.0
    return np.mean(v)


def _mapk_values(actual: Sequence[Any], predicted: Sequence[Any], k: int) -> np.ndarray:
    """Per user: the sum, over the first occurrences of actual items within k, of the share of the positions up
    to it that hold an actual item (every occurrence), divided by the number of those first occurrences."""
    lists = coded(actual, predicted, k)
    n = lists.n
    t_indptr, t_codes, _ = lists.unique_truth()
    p_codes, p_indptr = lists.p_codes, lists.p_indptr
    lens = np.diff(p_indptr)
    uniq, inv = np.unique(np.concatenate([t_codes, p_codes]), return_inverse=True)
    width = max(int(uniq.size), 1)
    users = np.arange(n, dtype=np.int64)
    t_key = np.repeat(users, np.diff(t_indptr)) * width + inv[: t_codes.size]
    p_user = np.repeat(users, lens)
    p_key = p_user * width + inv[t_codes.size :]
    in_actual = np.isin(p_key, t_key)
    pos = np.arange(p_codes.size, dtype=np.int64) - np.repeat(p_indptr[:-1], lens)  # 0-based position
    cum = np.cumsum(in_actual)
    before = np.concatenate(([0], cum))[p_indptr[:-1]]  # actual items before each row
    precision = (cum - np.repeat(before, lens)) / (pos + 1)  # every occurrence counts, up to the position
    order = np.lexsort((np.arange(p_key.size), p_key))
    repeat = np.zeros(p_key.size, dtype=bool)
    repeat[order[1:]] = p_key[order[1:]] == p_key[order[:-1]]
    hit = in_actual & ~repeat
    score = np.bincount(p_user[hit], weights=precision[hit], minlength=n)  # added in list order, as the loop
    first_hits = np.bincount(p_user[hit], minlength=n)
    v = np.divide(score, first_hits, out=np.zeros(n), where=score != 0.0)
    v[_falsy(actual, n, lists) | _falsy(predicted, n, lists, "predicted")] = 0.0
    return v


def _apk(actual: Any, predicted: Any, k: Any = 10) -> float:
    """mapk's value for one user (the GitHub source's ``_apk``)."""
    try:
        check_k(k)
    except _Fallback:
        return _apk_one(actual, predicted, k)
    return float(_mapk_values([actual], [predicted], k)[0])


def mapk(actual: Sequence[Any], predicted: Sequence[Any], k: Any = 10) -> Any:
    """Mean over users of the mean precision at the hits within k (0 for an empty actual or predicted)."""
    if len(actual) != len(predicted):
        raise AssertionError("Length mismatched")
    try:
        check_k(k)
    except _Fallback:
        return np.mean([_apk_one(a, p, k) for a, p in zip(actual, predicted)])
    return np.mean(_mapk_values(actual, predicted, k))


def _hits_divided(actual: Sequence[Any], predicted: Sequence[Any], by: str) -> Any:
    """np.mean over users of np.round(occurrences of actual items in predicted / len(`by`), 4)."""
    b = batch(actual, predicted, None, ["hits"], duplicates="count")
    hits = b.per_user("hits")
    den = (b.lists.len_predicted if by == "predicted" else b.len_actual).astype(np.float64)
    if (den == 0).any():
        raise ZeroDivisionError("float division by zero")
    return np.mean(np.round(hits / den, 4))


def recommender_precision(predicted: Sequence[Any], actual: Sequence[Any]) -> Any:
    """Mean over users of the share of predicted positions holding an actual item (each occurrence counts),
    rounded to 4 decimals per user."""
    return _hits_divided(actual, predicted, "predicted")


def recommender_recall(predicted: Sequence[Any], actual: Sequence[Any]) -> Any:
    """Mean over users of the occurrences of actual items in predicted / len(actual), rounded to 4 decimals per
    user."""
    return _hits_divided(actual, predicted, "actual")


# --------------------------------------------------------------------------- beyond accuracy
def _as_recs(predicted: Sequence[Any]) -> dict:
    return {u: list(p) for u, p in enumerate(predicted)}


def personalization(predicted: Sequence[Any]) -> float:
    """1 - mean cosine similarity |L_u & L_v| / sqrt(|L_u| |L_v|) over pairs of users."""
    arr = np.array(predicted)  # as the original: ragged lists raise ValueError here
    if arr.ndim != 2:
        raise ValueError(f"`predicted` must be a list of equal-length lists, got shape {arr.shape}")
    n, width = arr.shape
    if n == 0 or width == 0:  # no user, or lists without items: the original's cosine_similarity refuses them
        raise ValueError(
            "Found array with 0 sample(s) (shape=(0, 0)) while a minimum of 1 is required by check_pairwise_arrays."
        )
    flat = arr.ravel().tolist()
    codes, _ = _codes(flat)
    codes = codes.reshape(arr.shape)
    srt = np.sort(codes, axis=1)
    if (srt[:, 1:] == srt[:, :-1]).any():
        # the original's pivot refuses a user listing an item twice
        raise ValueError("Index contains duplicate entries, cannot reshape")
    if n == 1:
        # one user: the original divides (its cosine with itself - 1) by 0 pairs; that cosine, a sum of `width`
        # squares of 1/sqrt(width), is 1 up to rounding, so the result is NaN, inf or -inf as the rounding falls
        x = np.float64(1.0) / np.sqrt(np.float64(width))
        self_sim = np.float64(0.0)
        for _ in range(width):
            self_sim += x * x
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(1 - (self_sim - 1) / np.float64(0))
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
    # a repeated item is read at each of its positions, as the original's feature_df.loc[predicted]
    res = evaluate(
        {u: [] for u in recs}, recs, ["diversity"], empty="zero", duplicates="miss", item_features=feature_df
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


def prediction_coverage(
    predicted: Sequence[Any], catalog: Sequence[Any], unseen_warning: Optional[bool] = None
) -> float:
    """Share (in %, 2 decimals) of ``catalog``'s size that the distinct predicted items make up.

    ``unseen_warning`` omitted: the 0.1.5 release (predicted items outside the catalog count too). Given (the
    GitHub source's argument): a catalog listing an item twice raises ``AssertionError``; predicted items outside
    the catalog raise ``AssertionError`` (False) or are left out with a warning (True)."""
    if unseen_warning is None:
        # plain lists of str or int ids: counted in one C++ pass (Python's equality; -1: anything else)
        n_distinct = _core.distinct_ids(predicted, resolve_threads(None)) if isinstance(predicted, list) else -1
        if n_distinct >= 0:
            return round(n_distinct / (len(catalog) * 1.0) * 100, 2)
    distinct = set(chain.from_iterable(predicted))  # Python equality and hashing, as the original
    if unseen_warning is not None:
        in_catalog = set(catalog)
        if len(catalog) != len(in_catalog):
            raise AssertionError("Duplicated items in catalog")
        if not distinct.issubset(in_catalog):
            if not unseen_warning:
                raise AssertionError("There are items in predictions but unseen in catalog.")
            warnings.warn(
                "There are items in predictions but unseen in catalog. They are ignored from prediction_coverage "
                "calculation",
                stacklevel=2,
            )
            distinct &= in_catalog
    return round(len(distinct) / (len(catalog) * 1.0) * 100, 2)


def catalog_coverage(predicted: Sequence[Any], catalog: Sequence[Any], k: int) -> float:
    """``prediction_coverage`` of ``k`` lists drawn with replacement by ``random.choices`` (as the original).

    The draws are the original's to the bit, and leave the ``random`` module where the original leaves it: on a
    plain list, the ``k`` positions are drawn from the module's generator itself in one C++ call (Python's
    ``floor(random() * n)`` on its MT19937 words, which advance as ``random.choices`` advances them); then the
    distinct ids of the drawn lists are counted in C++. Anything else (a ``random.choices`` or ``random()``
    replaced, a generator of a subclass, a population that is not a list, ids that are not str or int) goes
    through ``random.choices`` itself."""
    inst = _plain_generator(predicted, k)
    if inst is not None:  # drawn and counted in one C++ call (None: ids or rows it does not read)
        n_distinct = _core.draw_distinct(inst, predicted, k, resolve_threads(None))
        if n_distinct is not None:
            return round(n_distinct / (len(catalog) * 1.0) * 100, 2)
    draws = _module_choices(predicted, k)
    if draws is not None:
        n_distinct = _core.distinct_ids(predicted, resolve_threads(None), pick=draws)
        if n_distinct < 0:
            n_distinct = len(set(chain.from_iterable(predicted[i] for i in draws.tolist())))
        return round(n_distinct / (len(catalog) * 1.0) * 100, 2)
    sampling = random.choices(predicted, k=k)
    distinct = len(set(chain.from_iterable(sampling)))
    return round(distinct / (len(catalog) * 1.0) * 100, 2)


def _plain_generator(population: Any, k: Any) -> Optional[random.Random]:
    """The module's generator where ``random.choices(population, k=k)`` is the plain call on a non-empty list
    (``random.choices`` and ``random()`` as the random module has them, k a positive int); None otherwise."""
    choices = random.choices
    inst = getattr(choices, "__self__", None)
    if (
        type(inst) is not random.Random
        or getattr(choices, "__func__", None) is not random.Random.choices
        or type(population) is not list
        or not population
        or type(k) is not int
        or k < 1
    ):
        return None
    if "random" in inst.__dict__ or random.Random.random is not _C_RANDOM:  # random() replaced: its draws
        return None
    return inst


def _module_choices(population: Any, k: Any) -> Optional[np.ndarray]:
    """The positions ``random.choices(population, k=k)`` would draw, the module's state advanced as it would be;
    None (nothing drawn, the state untouched) where that call is not the plain one on a non-empty list."""
    inst = _plain_generator(population, k)
    if inst is None:
        return None
    positions = _core.mt_choices_inplace(inst, len(population), k)  # the generator's own words, advanced
    if positions is not None:
        return positions
    version, internal, gauss = inst.getstate()
    drawn = _core.mt_choices(internal, len(population), k)
    if drawn is None:
        return None
    positions, after = drawn
    inst.setstate((version, after, gauss))
    return positions
