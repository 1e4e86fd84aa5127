"""AUC and GAUC straight from a dense users x items score matrix (docs/metrics.md 3.19.10-3.19.11).

Every column of a user's row is a scored candidate, as with ``Recs.from_scores(matrix, k=n_items)`` and
``evaluate(truth, recs, ["auc", "gauc"])``, but no row is ranked and no list is made: the C++ kernel
(``_core.auc_matrix_f32/f64``, rankmeter/auc.hpp) sorts only each user's positive scores and counts the scores
below and equal to each in one streaming pass over the row (the same integer 2 P N AUC, so the same values).
"""

from __future__ import annotations

from typing import Any, Iterable, Optional, Union

import numpy as np

from .. import _core
from .._aggregate import exact_mean, limbs_to_int
from .._options import resolve_threads
from ..inputs import as_id_array, code_ids, to_truth
from ..metrics import Metric, parse
from ._options import AUC_TIES

__all__ = ["auc_scores"]

_EMPTY = ("skip", "zero", "one", "error")


def _columns(t_items: np.ndarray, items: Any, n_cols: int) -> np.ndarray:
    """The matrix column of every truth entry; a code outside [0, n_cols) for an item that is no column."""
    if items is None:
        if t_items.dtype.kind in "iu":
            return np.ascontiguousarray(t_items, dtype=np.int64)
        return np.full(t_items.size, -1, dtype=np.int64)  # ids that are not integers name no column
    ids = as_id_array(items, "items")
    if ids.size != n_cols:
        raise ValueError(f"`items` has {ids.size} ids but `matrix` has {n_cols} columns")
    (c_ids, c_truth), n_codes, _ = code_ids([ids, t_items])
    col = np.full(n_codes, -1, dtype=np.int64)
    col[c_ids] = np.arange(n_cols, dtype=np.int64)
    if np.count_nonzero(col >= 0) != n_cols:
        raise ValueError("`items` names a column twice: give every column its own item id")
    return col[c_truth]


def _rowmap(t_users: Optional[np.ndarray], n_truth: int, users: Any, n_rows: int) -> Optional[np.ndarray]:
    """The matrix row of every truth user (None: truth user u is row u); a truth user without a row is an error."""
    t_ids = np.arange(n_truth, dtype=np.int64) if t_users is None else np.asarray(t_users)
    if users is None and t_users is None:
        if n_truth > n_rows:
            raise ValueError(f"`truth` has {n_truth} users but `matrix` only {n_rows} rows; pass users= for the rows")
        return None
    r_ids = np.arange(n_rows, dtype=np.int64) if users is None else as_id_array(users, "users")
    if r_ids.size != n_rows:
        raise ValueError(f"`users` has {r_ids.size} ids but `matrix` has {n_rows} rows")
    (c_rows, c_truth), n_codes, _ = code_ids([r_ids, as_id_array(t_ids, "truth users")])
    row = np.full(n_codes, -1, dtype=np.int64)
    row[c_rows] = np.arange(n_rows, dtype=np.int64)
    if np.count_nonzero(row >= 0) != n_rows:
        raise ValueError("`users` names a row twice: give every row its own user id")
    out = row[c_truth]
    if (out < 0).any():
        u = t_ids[int(np.flatnonzero(out < 0)[0])]
        u = u.item() if isinstance(u, np.generic) else u
        raise ValueError(
            f"truth user {u!r} has no row in `matrix`: add its row (and its id to `users`) or leave it out of `truth`"
        )
    return out


def _metric(m: Union[str, Metric]) -> Metric:
    pm = parse(m)
    if pm.name not in ("auc", "gauc"):
        raise ValueError(f"auc_scores computes 'auc' and 'gauc' only, got {str(pm)!r}; use rankmeter.evaluate")
    if pm.k is not None:
        raise ValueError(
            f"metric {str(pm)!r}: auc_scores scores every column of a row (no cutoff); for the top k use "
            "Recs.from_scores(matrix, k) and rankmeter.evaluate"
        )
    if pm.options["negatives"] != "scored":
        raise ValueError(f"metric {str(pm)!r}: every column is scored here; negatives='catalog' does not apply")
    return pm


def auc_scores(
    truth: Any,
    matrix: Any,
    metrics: Iterable[Union[str, Metric]] = ("auc", "gauc"),
    *,
    items: Any = None,
    users: Any = None,
    min_relevance: Optional[float] = None,
    empty: str = "skip",
    per_user: bool = False,
    threads: Optional[int] = None,
) -> Any:
    """``auc`` / ``gauc`` (with their ``max_fpr``, ``one_class`` and ``ties`` options) over every column of a
    dense ``n_users x n_items`` score matrix, higher is better, a tied (positive, negative) pair counted 1/2
    (``ties="strict"``: 0, ``"optimistic"``: 1; docs/metrics.md 3.19.10).

    The same values as ``evaluate(truth, Recs.from_scores(matrix, k=n_items), metrics)``, without ranking
    the rows: float32 and float64 C-order matrices are read in place (others are converted once), one pass
    over each evaluated row, OpenMP over users with the GIL released; identical results for any thread count.

    ``items`` names the columns (default: the column index), ``users`` the rows (default: the row index);
    the evaluated users are the truth users, each of which needs a row. A relevant truth item that is no
    column counts as relevant (for ``empty``) but is no candidate. ``empty`` is what a user without a relevant
    item gets ("skip", "zero", "one", "error"). NaN or infinite scores in an evaluated row are errors.

    Returns ``{metric: mean}``; with ``per_user=True`` also ``({metric: per-user values}, truth user ids)``.
    """
    given = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
    parsed = [_metric(m) for m in given]
    keys = [m if isinstance(m, str) else str(m) for m in given]  # results are keyed as given, as evaluate does
    if not parsed:
        raise ValueError("`metrics` is empty: name 'auc' and/or 'gauc'")
    if empty not in _EMPTY:
        raise ValueError(f"`empty` must be one of {_EMPTY}, got {empty!r}")
    if not isinstance(per_user, bool):
        raise TypeError(f"`per_user` must be True or False, got {per_user!r}")
    S = np.asarray(matrix)
    if S.ndim != 2:
        raise ValueError(f"`matrix` must be 2-D (n_users x n_items), got shape {S.shape}")
    if S.dtype.kind not in "fiu" or S.dtype.kind == "b":
        raise TypeError(f"`matrix` must hold numeric scores, got dtype {S.dtype}")
    M: Any = np.ascontiguousarray(S) if S.dtype in (np.float32, np.float64) else np.ascontiguousarray(S, np.float64)
    if M.dtype.byteorder not in ("=", "|"):
        M = M.astype(M.dtype.newbyteorder("="))
    t = to_truth(truth)
    n_threads = resolve_threads(threads)
    rowmap = _rowmap(t.users, t.n_users, users, M.shape[0])
    cols = _columns(t.items, items, M.shape[1])
    grades = t.grades
    kernel = _core.auc_matrix_f32 if M.dtype == np.float32 else _core.auc_matrix_f64
    t_indptr = np.ascontiguousarray(t.indptr, dtype=np.int64)
    results = {}
    cache: dict = {}
    for key, m in zip(keys, parsed):
        max_fpr = float(m.options.get("max_fpr", 1.0))
        rule = (max_fpr, m.options["ties"])
        if rule not in cache:
            out = kernel(M, rowmap, t_indptr, cols, grades, min_relevance, max_fpr, AUC_TIES[rule[1]], n_threads)
            code, uidx, col = out[5]
            if code != _core.Code.ok:
                u = t.users[uidx] if t.users is not None else uidx
                u = u.item() if isinstance(u, np.generic) else u
                row = int(rowmap[uidx]) if rowmap is not None else int(uidx)
                raise ValueError(
                    f"`matrix` holds a non-finite score ({M[row, col]!r}) for user {u!r} at column {int(col)}: "
                    "every score of an evaluated row must be finite"
                )
            cache[rule] = out[:5]
        rel, pos, neg, num2, vals = (a.copy() for a in cache[rule])
        no_rel = rel == 0
        if empty == "error" and no_rel.any():
            u = int(np.flatnonzero(no_rel)[0])
            user = t.users[u] if t.users is not None else u
            user = user.item() if isinstance(user, np.generic) else user
            raise ValueError(f"user {user!r} has no relevant item in `truth` and empty='error' (metric {str(m)!r})")
        if m.name == "gauc":  # users without a positive or a negative weigh 0, whatever `empty` says
            ok = (pos > 0) & (neg > 0)
            terms = np.where(ok, num2 / np.where(ok, 2.0 * neg, 1.0), 0.0)
            limbs, _ = _core.exact_sum(np.ascontiguousarray(terms), n_threads)
            results[key] = (vals, exact_mean(limbs_to_int(limbs), int(pos[ok].sum())))
            continue
        policy = m.options["one_class"]
        if policy != "skip":
            vals[(rel > 0) & ((pos == 0) | (neg == 0))] = 0.0 if policy == "zero" else 1.0
        if empty in ("zero", "one"):
            vals[no_rel] = 0.0 if empty == "zero" else 1.0
        limbs, count = _core.exact_sum(np.ascontiguousarray(vals), n_threads)
        results[key] = (vals, exact_mean(limbs_to_int(limbs), int(count)))
    means = {k: v[1] for k, v in results.items()}
    if not per_user:
        return means
    ids = t.users if t.users is not None else np.arange(t.n_users, dtype=np.int64)
    return means, {k: v[0] for k, v in results.items()}, ids
