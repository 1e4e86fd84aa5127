"""Drop-in evaluation functions of Microsoft Recommenders (``recommenders.evaluation.python_evaluation``).

Before::

    from recommenders.evaluation import python_evaluation as E
    E.ndcg_at_k(test, top_k, col_user="userID", col_item="itemID", k=10)

After::

    from rankmeter.compat import recommenders as E
    E.ndcg_at_k(test, top_k, col_user="userID", col_item="itemID", k=10)

Every public function of ``python_evaluation`` 1.2 is here with the same
signature, keyword defaults (``userID``, ``itemID``, ``rating``,
``prediction``, ``k=10``, ``threshold=10``, ...), return type (a float, or a
DataFrame with the same columns and row order) and exception types
(``ColumnMismatchError``, ``ColumnTypeMismatchError``, ``ValueError``,
``NotImplementedError``, ``Exception`` for a reco_df pair already in
train_df), plus the helpers its own tests import (``merge_rating_true_pred``,
``merge_ranking_true_pred``, ``get_top_k_items``, ``_check_column_dtypes``).

How the numbers are computed:

- Ranking functions (``precision_at_k``, ``recall_at_k``, ``ndcg_at_k``,
  ``map_at_k``, ``map``, ``r_precision_at_k``) with ``relevancy_method="top_k"``
  (the default): one ``rankmeter.evaluate(..., preset="recommenders")`` call
  per function. ``r_precision_at_k`` reads ``r_precision``, ``recall@k`` and
  ``num_rel`` per user from that call and keeps the users whose value is not 0,
  as Recommenders' index alignment does.
- The preset does not cover ``relevancy_method="by_threshold"`` (the first
  ``threshold`` predictions of each user are the hits' candidates, precision
  still divides by ``k``) nor ``None`` (every row of a user, ranked in row
  order), nor tables where the original's joins count a row more than once: a
  (user, item) repeated in ``rating_pred`` or ``rating_true``, NaN
  predictions, ``score_type="raw"``/``"exp"`` with ratings <= 0 (negative gains,
  ``0/0`` users left out), a ``k`` that is not a positive int, or no user in
  both tables. These go through a vectorised pandas path in this module (merges
  and groupbys, no per-user Python loop) that follows the original's joins row
  for row.
- Beyond-accuracy functions (``catalog_coverage``, ``distributional_coverage``,
  ``novelty``, ``historical_item_novelty``, ``diversity``, ``user_diversity``,
  ``serendipity``, ``user_serendipity``, ``user_item_serendipity``):
  vectorised numpy over item codes (co-occurrence counts by pair keys, feature
  cosines by row products). rankmeter's ``diversity``/``serendipity`` read each
  user's distinct train items and take no per-row relevance weights, while
  Recommenders counts a repeated train row twice and weighs by
  ``col_relevance`` (cast to float16), and ``user_item_serendipity`` is a
  per-(user, item) table no rankmeter metric returns; so these are computed
  here, the same way for every input.
- Rating functions (``rmse``, ``mae``, ``rsquared``, ``exp_var``, ``auc``,
  ``logloss``): the inner join of ``rating_true`` and ``rating_pred`` on (user,
  item) as the original (columns present in both get the suffixes ``_true`` /
  ``_pred``), then numpy formulas equal to scikit-learn 1.9's
  ``mean_squared_error``, ``mean_absolute_error``, ``r2_score``,
  ``explained_variance_score``, ``roc_auc_score`` and ``log_loss`` on those
  columns (no scikit-learn at run time). scikit-learn's input errors become a
  ``ValueError`` with the same meaning (no rows, NaN, one class only,
  probabilities outside [0, 1]).

Not reproduced (with the reason):

- Recommenders caches its joins (``lru_cache_df``); this module does not need
  to, and keeps no reference to the caller's frames.
- ``get_top_k_items(df, k=None)`` writes a ``rank`` column into the caller's
  frame in Recommenders; here it returns a copy (caller objects are never
  written).
- ``ndcg_at_k`` with an unknown ``score_type``/``discfun_type``, or without
  ``col_rating`` in rating_true, raises before any work; Recommenders returns
  0.0 instead of raising when nothing hits.
- ``r2_score`` with a single joined row: scikit-learn warns and returns NaN;
  here NaN without the warning class of scikit-learn (a ``RuntimeWarning``).
- ``item_feature_df`` listing an item twice: Recommenders' pair join then
  duplicates rows of its outputs; here such a frame raises ValueError.
"""

from __future__ import annotations

import functools
import math
import os
import warnings
from typing import Any, Callable, Optional

import numpy as np

from rankmeter import _core

from .._options import resolve_threads

__all__ = [
    "ColumnMismatchError",
    "ColumnTypeMismatchError",
    "auc",
    "catalog_coverage",
    "distributional_coverage",
    "diversity",
    "exp_var",
    "get_top_k_items",
    "historical_item_novelty",
    "logloss",
    "mae",
    "map",
    "map_at_k",
    "merge_ranking_true_pred",
    "merge_rating_true_pred",
    "ndcg_at_k",
    "novelty",
    "precision_at_k",
    "r_precision_at_k",
    "recall_at_k",
    "rmse",
    "rsquared",
    "serendipity",
    "user_diversity",
    "user_item_serendipity",
    "user_serendipity",
]

DEFAULT_USER_COL = "userID"
DEFAULT_ITEM_COL = "itemID"
DEFAULT_RATING_COL = "rating"
DEFAULT_PREDICTION_COL = "prediction"
DEFAULT_RELEVANCE_COL = "relevance"
DEFAULT_SIMILARITY_COL = "sim"
DEFAULT_ITEM_FEATURES_COL = "features"
DEFAULT_ITEM_SIM_MEASURE = "item_cooccurrence_count"
DEFAULT_K = 10
DEFAULT_THRESHOLD = 10


class ColumnMismatchError(Exception):
    """A column named by a ``col_*`` keyword is missing from a table (as Recommenders)."""


class ColumnTypeMismatchError(Exception):
    """The user or item columns of the two tables have different base dtypes (as Recommenders)."""


def _has_columns(df: Any, columns: Any) -> bool:
    return set(columns).issubset(df.columns)


def _same_base_dtype(a: Any, b: Any, columns: list) -> bool:
    if not (_has_columns(a, columns) and _has_columns(b, columns)):
        return False
    return all(_base_type(a[c].dtype) == _base_type(b[c].dtype) for c in columns)


def _base_type(dtype: Any) -> Any:
    """The base of a column's scalar type, as Recommenders compares them. pandas 3 infers the "str" dtype for a
    column of strings, where pandas 2 (the Recommenders releases) gives object: that dtype counts as object here,
    so a table built the same way passes or fails the check as it does under Recommenders."""
    import pandas as pd

    if isinstance(dtype, pd.StringDtype) and dtype.na_value is not pd.NA:
        return np.object_.__base__
    return dtype.type.__base__


def _check_column_dtypes(func: Callable) -> Callable:
    """Wrap a function of (rating_true, rating_pred, ...) with Recommenders' column checks: the user, item (and
    ``col_rating`` when passed as a keyword) columns in rating_true, user, item and prediction in rating_pred,
    and the same base dtype of the user and item columns on both sides."""

    @functools.wraps(func)
    def wrapper(
        rating_true: Any,
        rating_pred: Any,
        col_user: str = DEFAULT_USER_COL,
        col_item: str = DEFAULT_ITEM_COL,
        col_prediction: str = DEFAULT_PREDICTION_COL,
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        expected = {col_user, col_item}
        if "col_rating" in kwargs:
            expected.add(kwargs["col_rating"])
        if not _has_columns(rating_true, expected):
            raise ColumnMismatchError("Missing columns in true rating DataFrame")
        if not _has_columns(rating_pred, {col_user, col_item, col_prediction}):
            raise ColumnMismatchError("Missing columns in predicted rating DataFrame")
        if not _same_base_dtype(rating_true, rating_pred, [col_user, col_item]):
            raise ColumnTypeMismatchError("Columns in provided DataFrames are not the same datatype")
        return func(
            *args,
            rating_true=rating_true,
            rating_pred=rating_pred,
            col_user=col_user,
            col_item=col_item,
            col_prediction=col_prediction,
            **kwargs,
        )

    return wrapper


# --------------------------------------------------------------------------------------------------------------
# rating functions


@_check_column_dtypes
def merge_rating_true_pred(
    rating_true: Any,
    rating_pred: Any,
    col_user: str = DEFAULT_USER_COL,
    col_item: str = DEFAULT_ITEM_COL,
    col_rating: str = DEFAULT_RATING_COL,
    col_prediction: str = DEFAULT_PREDICTION_COL,
) -> tuple:
    """The true and predicted ratings of the (user, item) pairs of both tables (an inner join, one row per
    matching pair of rows), as two Series: ``col_rating`` of rating_true, ``col_prediction`` of rating_pred."""
    import pandas as pd

    joined = pd.merge(rating_true, rating_pred, on=[col_user, col_item], suffixes=["_true", "_pred"])
    rating = col_rating + "_true" if col_rating in rating_pred.columns else col_rating
    prediction = col_prediction + "_pred" if col_prediction in rating_true.columns else col_prediction
    return joined[rating], joined[prediction]


def _pair(rating_true: Any, rating_pred: Any, kw: dict) -> tuple:
    y_true, y_pred = merge_rating_true_pred(rating_true=rating_true, rating_pred=rating_pred, **kw)
    t = np.asarray(y_true, dtype=float)
    p = np.asarray(y_pred, dtype=float)
    if t.size == 0:
        raise ValueError(
            "rating_true and rating_pred share no (user, item) pair: the inner join on the user and item columns "
            "has 0 rows (Recommenders raises the same through scikit-learn); check the id columns"
        )
    if np.isnan(t).any() or np.isnan(p).any() or np.isinf(t).any() or np.isinf(p).any():
        raise ValueError("Input contains NaN or infinity: the joined ratings or predictions hold NaN/inf (drop them)")
    return t, p


def _rating_kw(col_user: str, col_item: str, col_rating: str, col_prediction: str) -> dict:
    return {"col_user": col_user, "col_item": col_item, "col_rating": col_rating, "col_prediction": col_prediction}


def rmse(
    rating_true: Any,
    rating_pred: Any,
    col_user: str = DEFAULT_USER_COL,
    col_item: str = DEFAULT_ITEM_COL,
    col_rating: str = DEFAULT_RATING_COL,
    col_prediction: str = DEFAULT_PREDICTION_COL,
) -> float:
    """Root mean squared error of the joined (user, item) pairs."""
    t, p = _pair(rating_true, rating_pred, _rating_kw(col_user, col_item, col_rating, col_prediction))
    return float(np.sqrt(np.mean((t - p) ** 2)))


def mae(
    rating_true: Any,
    rating_pred: Any,
    col_user: str = DEFAULT_USER_COL,
    col_item: str = DEFAULT_ITEM_COL,
    col_rating: str = DEFAULT_RATING_COL,
    col_prediction: str = DEFAULT_PREDICTION_COL,
) -> float:
    """Mean absolute error of the joined (user, item) pairs."""
    t, p = _pair(rating_true, rating_pred, _rating_kw(col_user, col_item, col_rating, col_prediction))
    return float(np.mean(np.abs(t - p)))


def _finite_ratio(num: float, den: float) -> float:
    # scikit-learn's force_finite: a constant truth scores 1.0 when predicted exactly, else 0.0
    if den == 0.0:
        return 1.0 if num == 0.0 else 0.0
    return 1.0 - num / den


def rsquared(
    rating_true: Any,
    rating_pred: Any,
    col_user: str = DEFAULT_USER_COL,
    col_item: str = DEFAULT_ITEM_COL,
    col_rating: str = DEFAULT_RATING_COL,
    col_prediction: str = DEFAULT_PREDICTION_COL,
) -> float:
    """R squared (coefficient of determination) of the joined pairs; NaN (with a warning) for one pair."""
    t, p = _pair(rating_true, rating_pred, _rating_kw(col_user, col_item, col_rating, col_prediction))
    if t.size < 2:
        warnings.warn("R^2 score is not well-defined with less than two samples.", RuntimeWarning, stacklevel=2)
        return float("nan")
    return _finite_ratio(float(np.sum((t - p) ** 2)), float(np.sum((t - np.mean(t)) ** 2)))


def exp_var(
    rating_true: Any,
    rating_pred: Any,
    col_user: str = DEFAULT_USER_COL,
    col_item: str = DEFAULT_ITEM_COL,
    col_rating: str = DEFAULT_RATING_COL,
    col_prediction: str = DEFAULT_PREDICTION_COL,
) -> float:
    """Explained variance of the joined pairs: 1 - var(true - pred) / var(true)."""
    t, p = _pair(rating_true, rating_pred, _rating_kw(col_user, col_item, col_rating, col_prediction))
    d = t - p
    num = float(np.mean((d - np.mean(d)) ** 2))
    den = float(np.mean((t - np.mean(t)) ** 2))
    return _finite_ratio(num, den)


def _binary_labels(t: np.ndarray, what: str) -> np.ndarray:
    classes = np.unique(t)
    if classes.size != 2:
        raise ValueError(
            f"{what} needs exactly two classes in the joined ratings (rating_true's rating column), "
            f"found {classes.size} ({classes[:5].tolist()}): binarise the ratings first"
        )
    return t == classes[1]


def auc(
    rating_true: Any,
    rating_pred: Any,
    col_user: str = DEFAULT_USER_COL,
    col_item: str = DEFAULT_ITEM_COL,
    col_rating: str = DEFAULT_RATING_COL,
    col_prediction: str = DEFAULT_PREDICTION_COL,
) -> float:
    """Area under the ROC curve of the joined pairs (the larger rating value is the positive class; tied
    predictions count one half), over all pairs at once, not per user; NaN with a UserWarning when the joined
    ratings hold one value only, ValueError for more than two."""
    t, p = _pair(rating_true, rating_pred, _rating_kw(col_user, col_item, col_rating, col_prediction))
    if np.unique(t).size == 1:  # scikit-learn: a warning and NaN
        warnings.warn(
            "Only one class is present in y_true. ROC AUC score is not defined in that case.", UserWarning, stacklevel=2
        )
        return float("nan")
    pos = _binary_labels(t, "auc")
    # average ranks of the predictions (ties share their mean rank): the Mann-Whitney form of the ROC area
    order = np.argsort(p, kind="mergesort")
    sp = p[order]
    starts = np.flatnonzero(np.r_[True, sp[1:] != sp[:-1]])
    ends = np.r_[starts[1:], sp.size]
    mean_rank = (starts + ends + 1) / 2.0
    ranks = np.empty(p.size)
    ranks[order] = np.repeat(mean_rank, ends - starts)
    n_pos = int(pos.sum())
    n_neg = p.size - n_pos
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


def logloss(
    rating_true: Any,
    rating_pred: Any,
    col_user: str = DEFAULT_USER_COL,
    col_item: str = DEFAULT_ITEM_COL,
    col_rating: str = DEFAULT_RATING_COL,
    col_prediction: str = DEFAULT_PREDICTION_COL,
) -> float:
    """Log loss of the joined pairs: predictions are probabilities of the larger rating value, clipped to
    [eps, 1 - eps]."""
    t, p = _pair(rating_true, rating_pred, _rating_kw(col_user, col_item, col_rating, col_prediction))
    if p.max() > 1:
        raise ValueError(f"y_prob contains values greater than 1: {p.max()} (col_prediction must be probabilities)")
    if p.min() < 0:
        raise ValueError(f"y_prob contains values lower than 0: {p.min()} (col_prediction must be probabilities)")
    pos = _binary_labels(t, "logloss")
    eps = np.finfo(np.float64).eps
    q = np.where(pos, np.clip(p, eps, 1 - eps), np.clip(1 - p, eps, 1 - eps))
    return float(np.mean(-np.log(q)))


# --------------------------------------------------------------------------------------------------------------
# ranking functions


def get_top_k_items(
    dataframe: Any,
    col_user: str = DEFAULT_USER_COL,
    col_rating: str = DEFAULT_RATING_COL,
    k: Any = DEFAULT_K,
) -> Any:
    """Each user's first ``k`` rows by descending ``col_rating`` (equal values in row order), users ascending,
    with a ``rank`` column 1..; ``k=None``: every row in its order. Returns a new frame."""
    if k is None:
        top = dataframe.copy()
    else:
        top = (
            dataframe.sort_values([col_user, col_rating], ascending=[True, False])
            .groupby(col_user, as_index=False)
            .head(k)
            .reset_index(drop=True)
        )
    top["rank"] = top.groupby(col_user, sort=False).cumcount() + 1
    return top


def _cutoff(relevancy_method: Any, k: Any, threshold: Any) -> Any:
    if relevancy_method == "top_k":
        return k
    if relevancy_method == "by_threshold":
        return threshold
    if relevancy_method is None:
        return None
    raise NotImplementedError("Invalid relevancy_method")


def _same_kind(columns: list) -> list:
    """The columns as they can be concatenated without changing a value: columns of different dtypes (int64
    beside uint64, ints beside objects) become objects first, since pandas would concatenate them as floats
    and ids beyond 2**53 would collide."""
    if len({str(c.dtype) for c in columns}) > 1:
        return [c.astype(object) for c in columns]
    return columns


def _codes_of(*columns: Any, labels: bool = False) -> tuple:
    """Integer codes of the values of several columns in one numbering (pandas' hash factorize: fast on Arrow
    strings, where ``Series.isin`` walks Python objects), one array per column, and the number of values (with
    ``labels``: the values themselves, code by code)."""
    import pandas as pd

    cols = _same_kind([c.reset_index(drop=True) for c in columns])
    codes, uniq = pd.factorize(pd.concat(cols, ignore_index=True))
    bounds = np.cumsum([0] + [len(c) for c in columns])
    parts = [codes[bounds[j] : bounds[j + 1]] for j in range(len(columns))]
    return (parts, uniq) if labels else (parts, len(uniq))


_POOL: Any = None  # one worker thread for _codes_later, made on first use


def _codes_later(a: Any, b: Any) -> Any:
    """``_codes_of(a, b, labels=True)`` started on a worker thread (a Future) when both columns hold strings in
    Arrow, whose hashing runs without the GIL, and more than one thread is allowed; else None (the caller codes
    them itself)."""
    import pandas as pd

    global _POOL

    def on_arrow(t: Any) -> bool:
        return isinstance(t, pd.ArrowDtype) or (isinstance(t, pd.StringDtype) and t.storage == "pyarrow")

    if not (on_arrow(a.dtype) and on_arrow(b.dtype)) or len(a) + len(b) < 100_000:
        return None
    if resolve_threads(None) == 1 or (os.cpu_count() or 1) < 2:
        return None
    if _POOL is None:
        from concurrent.futures import ThreadPoolExecutor

        _POOL = ThreadPoolExecutor(1, thread_name_prefix="rankmeter-codes")
    return _POOL.submit(_codes_of, a, b, labels=True)


def _common(rating_true: Any, rating_pred: Any, col_user: str) -> tuple:
    (t, p), n = _codes_of(rating_true[col_user], rating_pred[col_user])
    in_true = np.zeros(n + 1, bool)
    in_pred = np.zeros(n + 1, bool)
    in_true[t] = True  # NaN users (code -1) land in the extra slot, never common
    in_pred[p] = True
    in_true[-1] = in_pred[-1] = False
    both = in_true & in_pred
    return rating_true[both[t]], rating_pred[both[p]], int(both.sum())


@_check_column_dtypes
def merge_ranking_true_pred(
    rating_true: Any,
    rating_pred: Any,
    col_user: str,
    col_item: str,
    col_prediction: str,
    relevancy_method: Any,
    k: Any = DEFAULT_K,
    threshold: Any = DEFAULT_THRESHOLD,
    **_: Any,
) -> tuple:
    """The hits of the users present in both tables: (hit rows ``[user, item, rank]`` in user and rank order,
    per-user ``[user, hit, actual]`` counts of the users with a hit, number of users in both tables)."""
    import pandas as pd

    cut = _cutoff(relevancy_method, k, threshold)
    true_c, pred_c, n_users = _common(rating_true, rating_pred, col_user)
    top = get_top_k_items(pred_c, col_user=col_user, col_rating=col_prediction, k=cut)
    hits = pd.merge(top, true_c, on=[col_user, col_item])[[col_user, col_item, "rank"]]
    counts = pd.merge(
        hits.groupby(col_user, as_index=False)[col_user].agg(hit="count"),
        true_c.groupby(col_user, as_index=False)[col_user].agg(actual="count"),
        on=col_user,
    )
    return hits, counts, n_users


def _check_ranking(rating_true: Any, rating_pred: Any, cols: tuple) -> None:
    """Recommenders' column checks of the ranking functions (also when the preset computes the values)."""
    _check_column_dtypes(lambda **kw: None)(rating_true, rating_pred, *cols)


def _fast_ok(rating_true: Any, rating_pred: Any, cols: tuple, relevancy_method: Any, k: Any) -> bool:
    """Whether preset="recommenders" gives the original's numbers on these tables (module docstring)."""
    col_user, col_item, col_prediction = cols
    if relevancy_method != "top_k" or isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        return False
    if len(rating_true) == 0 or len(rating_pred) == 0:
        return False
    if rating_pred[col_prediction].isna().any() or rating_true[col_user].isna().any():
        return False
    if rating_pred[col_user].isna().any():
        return False
    (tu, pu), nu = _codes_of(rating_true[col_user], rating_pred[col_user])
    (ti, pi), ni = _codes_of(rating_true[col_item], rating_pred[col_item])
    for users, items in ((tu, ti), (pu, pi)):
        keys = np.sort(users.astype(np.int64) * (ni + 1) + items)
        if (keys[1:] == keys[:-1]).any():  # a (user, item) repeated: the original's joins count each row
            return False
    seen = np.zeros(nu, bool)
    seen[tu] = True
    return bool(seen[pu].any())


def _evaluate(rating_true: Any, rating_pred: Any, cols: tuple, metrics: list, col_rating: Optional[str] = None) -> Any:
    import rankmeter as rm

    col_user, col_item, col_prediction = cols
    truth = rating_true[[col_user, col_item] + ([col_rating] if col_rating else [])]
    recs = rating_pred[[col_user, col_item, col_prediction]]
    return rm.evaluate(
        truth,
        recs,
        metrics,
        preset="recommenders",
        user_col=col_user,
        item_col=col_item,
        score_col=col_prediction,
        relevance_col=col_rating,
    )


def _mean_or_zero(value: float) -> float:
    return 0.0 if math.isnan(value) else float(value)


def _ranking(kind: str) -> Callable:
    """One ranking function of Recommenders' signature: preset="recommenders" when it applies, else the
    vectorised pandas path over :func:`merge_ranking_true_pred`."""

    def fn(
        rating_true: Any,
        rating_pred: Any,
        col_user: str = DEFAULT_USER_COL,
        col_item: str = DEFAULT_ITEM_COL,
        col_prediction: str = DEFAULT_PREDICTION_COL,
        relevancy_method: Any = "top_k",
        k: Any = DEFAULT_K,
        threshold: Any = DEFAULT_THRESHOLD,
        **_: Any,
    ) -> float:
        cols = (col_user, col_item, col_prediction)
        _check_ranking(rating_true, rating_pred, cols)
        hits = None
        if not _fast_ok(rating_true, rating_pred, cols, relevancy_method, k):
            hits, counts, n_users = merge_ranking_true_pred(
                rating_true=rating_true,
                rating_pred=rating_pred,
                col_user=col_user,
                col_item=col_item,
                col_prediction=col_prediction,
                relevancy_method=relevancy_method,
                k=k,
                threshold=threshold,
            )
        if hits is None:  # the preset
            if kind == "r_precision_at_k":
                res = _evaluate(rating_true, rating_pred, cols, ["r_precision", f"recall@{k}", "num_rel", f"hits@{k}"])
                pu = res.per_user
                if np.nansum(pu[f"hits@{k}"]) == 0:
                    return 0.0
                r = np.where(pu["num_rel"] <= k, pu["r_precision"], pu[f"recall@{k}"])
                r = r[~np.isnan(r) & (r != 0)]
                return float(np.mean(r)) if r.size else float("nan")
            name = {
                "precision_at_k": "precision",
                "recall_at_k": "recall",
                "map_at_k": "ap",
                "map": "ap(denominator=relevant)",
            }[kind]
            return _mean_or_zero(_evaluate(rating_true, rating_pred, cols, [f"{name}@{k}"])[f"{name}@{k}"])
        if hits.shape[0] == 0:
            return 0.0
        if kind == "precision_at_k":
            return float((counts["hit"] / k).sum() / n_users)
        if kind == "recall_at_k":
            return float((counts["hit"] / counts["actual"]).sum() / n_users)
        if kind == "r_precision_at_k":
            joined = hits.merge(counts[[col_user, "actual"]])
            early = joined[joined["rank"] <= joined["actual"]]
            return float((early.groupby(col_user).size() / counts.set_index(col_user)["actual"]).mean())
        # map, map_at_k: per user the sum over the hit rows (rank order) of (ordinal of the hit) / rank
        ordinal = hits.groupby(col_user).cumcount() + 1
        rr = (ordinal / hits["rank"]).groupby(hits[col_user]).sum().rename("rr").reset_index()
        merged = rr.merge(counts, on=col_user)
        if kind == "map":
            return float((merged["rr"] / merged["actual"]).sum() / n_users)
        return float((merged["rr"] / np.minimum(merged["actual"], k)).sum() / n_users)

    fn.__name__ = fn.__qualname__ = kind
    return fn


precision_at_k = _ranking("precision_at_k")
precision_at_k.__doc__ = (
    "Precision at k: per user of both tables, the hits among the first k predictions / k; summed and divided by "
    "the number of users in both tables (0.0 when nothing hits)."
)
recall_at_k = _ranking("recall_at_k")
recall_at_k.__doc__ = "Recall at k: per user of both tables, the hits among the first k / the user's rating_true rows."
r_precision_at_k = _ranking("r_precision_at_k")
r_precision_at_k.__doc__ = (
    "R-precision at k: per user with a hit, the hits among the first min(k, |R|) / |R| (|R|: the user's "
    "rating_true rows), averaged over the users for which it is not 0."
)
map_at_k = _ranking("map_at_k")
map_at_k.__doc__ = (
    "Mean average precision at k: per user, the sum of precision at each hit within k / min(|R|, k); summed "
    "over the users of both tables and divided by their number."
)
map = _ranking("map")  # Recommenders' name (shadows the builtin in this module only)
map.__doc__ = "Mean average precision: as map_at_k, divided by |R| instead of min(|R|, k)."


def ndcg_at_k(
    rating_true: Any,
    rating_pred: Any,
    col_user: str = DEFAULT_USER_COL,
    col_item: str = DEFAULT_ITEM_COL,
    col_rating: str = DEFAULT_RATING_COL,
    col_prediction: str = DEFAULT_PREDICTION_COL,
    relevancy_method: Any = "top_k",
    k: Any = DEFAULT_K,
    threshold: Any = DEFAULT_THRESHOLD,
    score_type: str = "binary",
    discfun_type: str = "loge",
    **_: Any,
) -> float:
    """NDCG at k over every user of rating_true (a user without predictions scores 0): gains 1 per rating_true
    row (``score_type='binary'``), the rating (``'raw'``) or 2^rating - 1 (``'exp'``); the ideal is the user's
    ratings sorted descending, cut at k. ``discfun_type`` ('loge' or 'log2') cancels in the ratio."""
    import pandas as pd

    if score_type not in ("binary", "raw", "exp"):
        raise ValueError("score_type must be one of 'binary', 'raw', 'exp'")
    if discfun_type not in ("loge", "log2"):
        raise ValueError("discfun_type must be one of 'loge', 'log2'")
    cols = (col_user, col_item, col_prediction)
    _check_ranking(rating_true, rating_pred, cols)
    if col_rating not in rating_true.columns:
        raise KeyError(f"col_rating={col_rating!r} is not a column of rating_true (ndcg_at_k sorts the ideal by it)")
    ratings = rating_true[col_rating]
    hits = None
    fast = _fast_ok(rating_true, rating_pred, cols, relevancy_method, k) and not ratings.isna().any()
    if not fast or (score_type != "binary" and not (ratings > 0).all()):
        hits, _counts, _n = merge_ranking_true_pred(
            rating_true=rating_true,
            rating_pred=rating_pred,
            col_user=col_user,
            col_item=col_item,
            col_prediction=col_prediction,
            relevancy_method=relevancy_method,
            k=k,
            threshold=threshold,
        )
    if hits is None:  # the preset
        gain = {"binary": "binary", "raw": "linear", "exp": "exponential"}[score_type]
        name = f"ndcg(gain={gain})@{k}"
        res = _evaluate(rating_true, rating_pred, cols, [name, f"hits@{k}"], col_rating if gain != "binary" else None)
        if np.nansum(res.per_user[f"hits@{k}"]) == 0:
            return 0.0
        return float(res[name])
    if hits.shape[0] == 0:
        return 0.0
    # the hit rows joined with rating_pred's rows of that (user, item) and rating_true's (outer: every truth row)
    dcg_rows = hits.merge(rating_pred[[col_user, col_item]], on=[col_user, col_item]).merge(
        rating_true[[col_user, col_item, col_rating]], on=[col_user, col_item], how="outer"
    )
    r = dcg_rows[col_rating].astype(float)
    rel = pd.Series(1.0, index=dcg_rows.index) if score_type == "binary" else (r if score_type == "raw" else 2**r - 1)
    log = np.log if discfun_type == "loge" else np.log2
    dcg = (rel / log(1 + dcg_rows["rank"])).groupby(dcg_rows[col_user], sort=False).sum()
    order = dcg_rows.sort_values([col_user, col_rating], ascending=False)
    position = order.groupby(col_user, sort=False).cumcount() + 1
    position = position.where(order[col_rating].notna())
    ideal = (rel[order.index] / log(1 + position))[position <= k]
    idcg = ideal.groupby(order[col_user][position <= k], sort=False).sum()
    per_user = dcg / idcg.reindex(dcg.index)
    return float(per_user.mean())


# --------------------------------------------------------------------------------------------------------------
# beyond-accuracy functions


def _check_beyond(train_df: Any, reco_df: Any, col_user: str, col_item: str) -> Optional[tuple]:
    """The original's checks, in its order. Returns ``(train item codes, reco item codes, item labels)`` when
    the item columns were coded here (ids that are not ints; NaN: code -1), else None."""
    if not _has_columns(train_df, [col_user, col_item]):
        raise ValueError("Missing columns in train_df DataFrame")
    if not _has_columns(reco_df, [col_user, col_item]):
        raise ValueError("Missing columns in reco_df DataFrame")
    if not _same_base_dtype(train_df, reco_df, [col_user, col_item]):
        raise ValueError("Columns in provided DataFrames are not the same datatype")
    # a (user, item) of reco_df also in train_df (the original's inner join on both columns; NaN ids match NaN):
    # users as codes 0..n-1, items as their int values or codes, compared user by user in C++
    items = _int_values(train_df[col_item], reco_df[col_item])
    # string items on Arrow: coded on another thread while the users are (Arrow's hashing releases the GIL)
    pending = _codes_later(train_df[col_item], reco_df[col_item]) if items is None else None
    users = _int_values(train_df[col_user], reco_df[col_user])
    if users is not None and users[0].size + users[1].size:
        lo = min(int(_core.int_range(u, 0)[0]) for u in users if u.size)
        hi = max(int(_core.int_range(u, 0)[1]) for u in users if u.size)
        if hi - lo >= 4 * (users[0].size + users[1].size) + 1024:
            users = None  # sparse ids: hash codes below
        else:
            tu, ru, n_users = users[0] - lo, users[1] - lo, hi - lo + 1
    if users is None:
        (tu, ru), n_users = _codes_of(train_df[col_user], reco_df[col_user])
        tu, ru = np.where(tu < 0, n_users, tu), np.where(ru < 0, n_users, ru)  # NaN: one more code
        n_users += 1
    coded = None
    if items is None:
        # NaN: -1 on both sides
        parts, item_labels = (
            pending.result() if pending is not None else _codes_of(train_df[col_item], reco_df[col_item], labels=True)
        )
        items = tuple(parts)
        coded = (parts[0], parts[1], item_labels)
    ti, ri = (np.ascontiguousarray(x, dtype=np.int64) for x in items)
    tu, ru = (np.ascontiguousarray(x, dtype=np.int64) for x in (tu, ru))
    if tu.size and ru.size and _core.pairs_overlap(tu, ti, ru, ri, int(n_users), 0):
        raise Exception("reco_df should not contain any user_item pairs that are already shown in train_df")
    return coded


# integer dtypes whose values are exact as int64 (uint64 may not be)
_INT64_SAFE = {np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32)}


def _int_values(a: Any, b: Any) -> Optional[tuple]:
    """The two columns' values as int64 arrays when both are numpy integer columns that int64 holds exactly (no
    copy for int64), else None."""
    if a.dtype not in _INT64_SAFE or b.dtype not in _INT64_SAFE:
        return None
    return tuple(np.ascontiguousarray(x.to_numpy(), dtype=np.int64) for x in (a, b))


def _check_sim(
    item_feature_df: Any, item_sim_measure: str, col_item: str, col_item_features: str, col_relevance: Any, reco_df: Any
) -> None:
    if col_relevance is not None and col_relevance not in reco_df.columns:
        raise KeyError(f"col_relevance={col_relevance!r} is not a column of reco_df")
    if item_sim_measure == "item_feature_vector":
        if item_feature_df is None:
            raise Exception(
                "item_feature_df not specified! item_feature_df must be provided if choosing to use "
                "item_feature_vector to calculate item similarity. item_feature_df should have columns: "
                + str([col_item, col_item_features])
            )
        if not _has_columns(item_feature_df, [col_item, col_item_features]):
            raise ValueError("Missing columns in item_feature_df DataFrame")
        if item_feature_df[col_item].duplicated().any():
            raise ValueError(
                f"item_feature_df lists an item twice in {col_item!r} (e.g. "
                f"{item_feature_df[col_item][item_feature_df[col_item].duplicated()].iloc[0]!r}): keep one row per item"
            )
    elif item_sim_measure != "item_cooccurrence_count":
        raise Exception(
            "item_sim_measure not recognized! The available options include 'item_cooccurrence_count' and "
            "'item_feature_vector'."
        )


def _expand(group_start: np.ndarray, group_size: np.ndarray) -> tuple:
    """For each row r with its group [group_start[r], group_start[r] + group_size[r]): the pairs (r, j) for
    every j of the group, as two index arrays."""
    n = group_size.astype(np.int64)
    left = np.repeat(np.arange(n.size), n)
    offset = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
    return left, np.repeat(group_start, n) + offset


class _Similarity:
    """Item-pair similarities of Recommenders' two measures on integer item codes: the co-occurrence cosine over
    train rows (pairs of rows of one user, repeats counted; 0 for a pair never together) or the cosine of the
    item feature vectors (0 for an item without features)."""

    def __init__(self, measure: str, train_users: np.ndarray, train_items: np.ndarray, n_items: int) -> None:
        self.measure = measure
        self.n_items = n_items
        if measure == "item_cooccurrence_count":
            order = np.argsort(train_users, kind="stable")
            u, it = train_users[order], train_items[order]
            starts = np.flatnonzero(np.r_[True, u[1:] != u[:-1]]) if u.size else np.zeros(0, np.int64)
            sizes = np.diff(np.r_[starts, u.size])
            row_start = np.repeat(starts, sizes)
            row_size = np.repeat(sizes, sizes)
            a_idx, b_idx = _expand(row_start, row_size)
            a, b = it[a_idx], it[b_idx]
            keep = a < b
            # one key per co-occurrence (a repeated pair once per occurrence), counted when looked up
            self.pair_keys = np.ascontiguousarray(a[keep] * n_items + b[keep], dtype=np.int64)
            self.sqrt_count = np.sqrt(np.bincount(train_items, minlength=n_items).astype(float))

    def set_features(self, codes: np.ndarray, vectors: list) -> None:
        mat = np.vstack([np.asarray(v, dtype=float).ravel() for v in vectors]) if vectors else np.zeros((0, 1))
        norms = np.linalg.norm(mat, axis=1)
        if (norms == 0).any():
            raise ZeroDivisionError("float division by zero (an item feature vector of norm 0)")
        self.unit = np.zeros((self.n_items, mat.shape[1]))
        self.has = np.zeros(self.n_items, bool)
        self.unit[codes] = mat / norms[:, None]
        self.has[codes] = True

    def __call__(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if self.measure == "item_feature_vector":
            sim = np.einsum("ij,ij->i", self.unit[a], self.unit[b])
            return np.where(self.has[a] & self.has[b], sim, 0.0)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        key = lo * self.n_items + hi
        # the co-occurrence keys and the looked-up keys in one hash numbering (rankmeter's factorize, no sort):
        # the co-occurrence keys come first, so a looked-up key seen among them has a code below their number of
        # distinct keys, and its count is that code's count (a pair of one item, lo == hi, never co-occurs)
        n_t = self.pair_keys.size
        codes, _ = _core.factorize_int64(np.concatenate([self.pair_keys, key.astype(np.int64, copy=False)]))
        counts = np.zeros(int(codes.max(initial=-1)) + 1, dtype=np.int64)
        if n_t:
            train_counts = np.bincount(codes[:n_t])
            counts[: train_counts.size] = train_counts
        count = counts[codes[n_t:]]
        found = count > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(found, count / (self.sqrt_count[lo] * self.sqrt_count[hi]), 0.0)


def _codes(train_df: Any, reco_df: Any, col_user: str, col_item: str, item_feature_df: Any, col_item_features: str):
    import pandas as pd

    users, _ = pd.factorize(pd.concat(_same_kind([train_df[col_user], reco_df[col_user]]), ignore_index=True))
    extra = [] if item_feature_df is None else [item_feature_df[col_item]]
    items, uniq = pd.factorize(
        pd.concat(_same_kind([train_df[col_item], reco_df[col_item], *extra]), ignore_index=True)
    )
    nt, nr = len(train_df), len(reco_df)
    return users[:nt], users[nt : nt + nr], items[:nt], items[nt : nt + nr], items[nt + nr :], len(uniq)


def _similarity(train_df, reco_df, item_feature_df, item_sim_measure, col_item_features, col_user, col_item):
    tu, ru, ti, ri, fi, n_items = _codes(train_df, reco_df, col_user, col_item, item_feature_df, col_item_features)
    sim = _Similarity(item_sim_measure, tu, ti, max(n_items, 1))
    if item_sim_measure == "item_feature_vector":
        sim.set_features(fi, list(item_feature_df[col_item_features]))
    return sim, tu, ru, ti, ri


def user_diversity(
    train_df: Any,
    reco_df: Any,
    item_feature_df: Any = None,
    item_sim_measure: str = DEFAULT_ITEM_SIM_MEASURE,
    col_item_features: str = DEFAULT_ITEM_FEATURES_COL,
    col_user: str = DEFAULT_USER_COL,
    col_item: str = DEFAULT_ITEM_COL,
    col_sim: str = DEFAULT_SIMILARITY_COL,
    col_relevance: Any = None,
) -> Any:
    """Per user of reco_df with two distinct items or more: 1 - the mean similarity of its pairs of distinct
    recommended items (a repeated row weighs its pairs). Columns ``[col_user, 'user_diversity']``, users
    ascending."""
    import pandas as pd

    _check_beyond(train_df, reco_df, col_user, col_item)
    _check_sim(item_feature_df, item_sim_measure, col_item, col_item_features, col_relevance, reco_df)
    if item_sim_measure == "item_cooccurrence_count":
        tu, ru, ti, ri, _fi, n_items = _codes(train_df, reco_df, col_user, col_item, None, col_item_features)
        sim = None
    else:
        sim, tu, ru, ti, ri = _similarity(
            train_df, reco_df, item_feature_df, item_sim_measure, col_item_features, col_user, col_item
        )
    # every pair of positions p < q of one user's rows whose items differ (a repeated row weighs its pairs)
    order = np.argsort(ru, kind="stable")
    u = ru[order]
    starts = np.flatnonzero(np.r_[True, u[1:] != u[:-1]]) if u.size else np.zeros(0, np.int64)
    sizes = np.diff(np.r_[starts, u.size])
    n_users = int(u.max(initial=-1)) + 1
    items = ri[order]
    total: np.ndarray
    count: np.ndarray
    if sim is None and not ((tu < 0).any() or (ti < 0).any() or (u < 0).any() or (items < 0).any()):
        # co-occurrence cosines: the pairs enumerated and summed user by user in C++, in the order below
        t_order = np.argsort(tu, kind="stable")
        t_indptr = np.zeros(n_users + 1 if tu.size == 0 else max(n_users, int(tu.max()) + 1) + 1, dtype=np.int64)
        np.cumsum(np.bincount(tu, minlength=t_indptr.size - 1), out=t_indptr[1:])
        r_indptr = np.zeros(n_users + 1, dtype=np.int64)
        np.cumsum(np.bincount(u, minlength=n_users), out=r_indptr[1:])
        total, count = _core.cooccurrence_pair_sums(
            t_indptr,
            np.ascontiguousarray(ti[t_order], dtype=np.int64),
            r_indptr,
            np.ascontiguousarray(items, dtype=np.int64),
            max(int(n_items), 1),
            0,
        )
    else:
        if sim is None:  # NaN ids (code -1): the general path
            sim, tu, ru, ti, ri = _similarity(
                train_df, reco_df, item_feature_df, item_sim_measure, col_item_features, col_user, col_item
            )
        group_end = np.repeat(starts + sizes, sizes)
        p_idx, q_idx = _expand(np.arange(u.size) + 1, group_end - np.arange(u.size) - 1)
        a, b = items[p_idx], items[q_idx]
        keep = a != b
        s = sim(a[keep], b[keep])
        pair_user = u[p_idx[keep]]
        count = np.bincount(pair_user, minlength=n_users)
        total = np.bincount(pair_user, weights=s, minlength=n_users)
    has = np.flatnonzero(count > 0)
    first_row = np.full(n_users, -1, np.int64)
    first_row[u[::-1]] = order[::-1]  # a row of each user (any: they share the label)
    out = pd.DataFrame(
        {
            col_user: reco_df[col_user].iloc[first_row[has]].to_numpy(),
            "user_diversity": 1 - total[has] / count[has],
        }
    )
    out[col_user] = out[col_user].astype(reco_df[col_user].dtype)
    return out.sort_values(col_user).reset_index(drop=True)


def diversity(
    train_df: Any,
    reco_df: Any,
    item_feature_df: Any = None,
    item_sim_measure: str = DEFAULT_ITEM_SIM_MEASURE,
    col_item_features: str = DEFAULT_ITEM_FEATURES_COL,
    col_user: str = DEFAULT_USER_COL,
    col_item: str = DEFAULT_ITEM_COL,
    col_sim: str = DEFAULT_SIMILARITY_COL,
    col_relevance: Any = None,
) -> float:
    """The mean of :func:`user_diversity` over its users."""
    ud = user_diversity(
        train_df, reco_df, item_feature_df, item_sim_measure, col_item_features, col_user, col_item, col_sim
    )
    return float(ud["user_diversity"].mean())


def user_item_serendipity(
    train_df: Any,
    reco_df: Any,
    item_feature_df: Any = None,
    item_sim_measure: str = DEFAULT_ITEM_SIM_MEASURE,
    col_item_features: str = DEFAULT_ITEM_FEATURES_COL,
    col_user: str = DEFAULT_USER_COL,
    col_item: str = DEFAULT_ITEM_COL,
    col_sim: str = DEFAULT_SIMILARITY_COL,
    col_relevance: Any = None,
) -> Any:
    """Per reco_df row of a user with train rows: (1 - the mean similarity of the item to the user's train rows)
    x the row's ``col_relevance`` (cast to float16; 1 when unset). Columns ``[col_user, col_item,
    'user_item_serendipity']``, sorted by user and item."""
    import pandas as pd

    _check_beyond(train_df, reco_df, col_user, col_item)
    _check_sim(item_feature_df, item_sim_measure, col_item, col_item_features, col_relevance, reco_df)
    cooc = item_sim_measure == "item_cooccurrence_count"
    if cooc:
        tu, ru, ti, ri, _fi, n_items = _codes(train_df, reco_df, col_user, col_item, None, col_item_features)
        n_items = max(int(n_items), 1)
    else:
        sim, tu, ru, ti, ri = _similarity(
            train_df, reco_df, item_feature_df, item_sim_measure, col_item_features, col_user, col_item
        )
        n_items = sim.n_items
    n_users = int(max(tu.max(initial=-1), ru.max(initial=-1))) + 1
    t_order = np.argsort(tu, kind="stable")
    t_count = np.bincount(tu, minlength=n_users)
    # mean similarity per (user, item) of reco_df: repeated rows of one pair share it, as a groupby on the pair
    pair_key = pd.factorize(ru.astype(np.int64) * (n_items + 1) + ri)[0]
    n_keys = int(pair_key.max(initial=-1)) + 1
    has_train = t_count[ru] > 0
    negative = (tu < 0).any() or (ti < 0).any() or (ru < 0).any() or (ri < 0).any()
    if cooc and not negative and n_keys == ru.size:
        # one row per (user, item): its sum over the user's train rows in C++, added in the same order
        t_indptr = np.zeros(n_users + 1, dtype=np.int64)
        np.cumsum(t_count, out=t_indptr[1:])
        row_sum = _core.cooccurrence_row_sums(
            t_indptr,
            np.ascontiguousarray(ti[t_order], dtype=np.int64),
            np.ascontiguousarray(ru, dtype=np.int64),
            np.ascontiguousarray(ri, dtype=np.int64),
            n_items,
            0,
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            avg = row_sum / t_count[ru]
    else:
        if cooc:  # NaN ids (code -1) or a repeated (user, item) row: the general path
            sim, tu, ru, ti, ri = _similarity(
                train_df, reco_df, item_feature_df, item_sim_measure, col_item_features, col_user, col_item
            )
        t_start = np.cumsum(t_count) - t_count
        r_idx, t_pos = _expand(t_start[ru], t_count[ru])
        s = sim(ri[r_idx], ti[t_order[t_pos]])
        total = np.bincount(pair_key[r_idx], weights=s, minlength=n_keys)
        count = np.bincount(pair_key[r_idx], minlength=n_keys)
        with np.errstate(invalid="ignore", divide="ignore"):
            avg = total[pair_key] / count[pair_key]
    if col_relevance is None:
        rel = np.ones(len(reco_df))
    else:
        rel = reco_df[col_relevance].astype(np.float16).to_numpy()
    keep = np.flatnonzero(has_train)
    out = pd.DataFrame(
        {
            col_user: reco_df[col_user].to_numpy()[keep],
            col_item: reco_df[col_item].to_numpy()[keep],
            "user_item_serendipity": (1 - avg[keep]) * rel[keep],
        }
    )
    out = out.astype({col_user: reco_df[col_user].dtype, col_item: reco_df[col_item].dtype})
    return out.sort_values([col_user, col_item]).reset_index(drop=True)


def user_serendipity(
    train_df: Any,
    reco_df: Any,
    item_feature_df: Any = None,
    item_sim_measure: str = DEFAULT_ITEM_SIM_MEASURE,
    col_item_features: str = DEFAULT_ITEM_FEATURES_COL,
    col_user: str = DEFAULT_USER_COL,
    col_item: str = DEFAULT_ITEM_COL,
    col_sim: str = DEFAULT_SIMILARITY_COL,
    col_relevance: Any = None,
) -> Any:
    """Per user: the mean of :func:`user_item_serendipity`. Columns ``[col_user, 'user_serendipity']``."""
    uis = user_item_serendipity(
        train_df,
        reco_df,
        item_feature_df,
        item_sim_measure,
        col_item_features,
        col_user,
        col_item,
        col_sim,
        col_relevance,
    )
    out = uis.groupby(col_user)["user_item_serendipity"].mean().reset_index()
    out.columns = [col_user, "user_serendipity"]
    return out.sort_values(col_user).reset_index(drop=True)


def serendipity(
    train_df: Any,
    reco_df: Any,
    item_feature_df: Any = None,
    item_sim_measure: str = DEFAULT_ITEM_SIM_MEASURE,
    col_item_features: str = DEFAULT_ITEM_FEATURES_COL,
    col_user: str = DEFAULT_USER_COL,
    col_item: str = DEFAULT_ITEM_COL,
    col_sim: str = DEFAULT_SIMILARITY_COL,
    col_relevance: Any = None,
) -> float:
    """The mean of :func:`user_serendipity` over its users."""
    us = user_serendipity(
        train_df,
        reco_df,
        item_feature_df,
        item_sim_measure,
        col_item_features,
        col_user,
        col_item,
        col_sim,
        col_relevance,
    )
    return float(us["user_serendipity"].mean())


def historical_item_novelty(
    train_df: Any, reco_df: Any, col_user: str = DEFAULT_USER_COL, col_item: str = DEFAULT_ITEM_COL
) -> Any:
    """Per train item: -log2(its train rows / all train rows). Columns ``[col_item, 'item_novelty']``, items
    ascending."""
    _check_beyond(train_df, reco_df, col_user, col_item)
    counts = train_df.groupby(col_item).size()
    out = counts.reset_index(name="count")
    out["item_novelty"] = -np.log2(out["count"] / train_df.shape[0])
    return out[[col_item, "item_novelty"]].sort_values(col_item).reset_index(drop=True)


def novelty(train_df: Any, reco_df: Any, col_user: str = DEFAULT_USER_COL, col_item: str = DEFAULT_ITEM_COL) -> float:
    """The mean over every reco_df row of its item's historical novelty (0 for an item not in train)."""
    import pandas as pd

    hist = historical_item_novelty(train_df, reco_df, col_user, col_item)
    per_item = pd.Series(hist["item_novelty"].to_numpy(), index=hist[col_item])
    reco_counts = reco_df.groupby(col_item).size()
    known = reco_counts.index.isin(per_item.index)
    total = float((reco_counts[known] * per_item.reindex(reco_counts.index[known])).sum())
    with np.errstate(invalid="ignore"):  # no reco_df row: NaN, as the original's 0/0
        return float(np.float64(total) / reco_df.shape[0])


def catalog_coverage(
    train_df: Any, reco_df: Any, col_user: str = DEFAULT_USER_COL, col_item: str = DEFAULT_ITEM_COL
) -> float:
    """Distinct recommended items (also those outside train) / distinct train items."""
    coded = _check_beyond(train_df, reco_df, col_user, col_item)
    if coded is not None and _string_codes(coded, reco_df[col_item]):
        # string ids: the distinct item codes of the check on each side (NaN, code -1, is not counted)
        ti, ri, labels = coded
        distinct = [int(np.count_nonzero(np.bincount(c[c >= 0], minlength=len(labels)))) for c in (ri, ti)]
        return distinct[0] / distinct[1]  # ZeroDivisionError without a train item, as the original
    return reco_df[col_item].nunique() / train_df[col_item].nunique()


def _string_codes(coded: tuple, col: Any) -> bool:
    """Whether the ids that ``_check_beyond`` coded are strings (a string dtype, or objects that are all strings),
    where counting codes is counting the distinct ids as pandas does."""
    import pandas as pd

    return isinstance(col.dtype, pd.StringDtype) or (
        col.dtype == object and pd.api.types.infer_dtype(coded[2], skipna=False) == "string"
    )


def distributional_coverage(
    train_df: Any, reco_df: Any, col_user: str = DEFAULT_USER_COL, col_item: str = DEFAULT_ITEM_COL
) -> float:
    """Entropy (bits) of the recommended items' share of the reco_df rows."""
    coded = _check_beyond(train_df, reco_df, col_user, col_item)
    if coded is not None and _string_codes(coded, reco_df[col_item]):
        # string ids: the item codes of the check, counted, in the order of the sorted ids (groupby's order)
        _ti, ri, labels = coded
        # the labels' own argsort: Arrow's sort for Arrow strings (code point order, as Python's)
        counts = np.bincount(ri[ri >= 0], minlength=len(labels))[np.asarray(labels.argsort())]
        sizes = counts[counts > 0]
    else:
        sizes = reco_df.groupby(col_item).size().to_numpy()
    p = sizes / reco_df.shape[0]
    return float(-np.sum(p * np.log2(p)))


metrics = {
    f.__name__: f for f in (rmse, mae, rsquared, exp_var, precision_at_k, recall_at_k, r_precision_at_k, ndcg_at_k)
}
metrics.update({"map_at_k": map_at_k, "map": map})
