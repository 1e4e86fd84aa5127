"""Bias and case tables: ``item_bias``, ``user_bias``, ``rec_cases``.

Tables come back as a pandas DataFrame when pandas is installed, else as a dict
of numpy arrays (same columns). Counting is vectorised (codes + bincount); only
``rec_cases`` walks its few chosen users in Python.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .._options import check_k
from ..inputs import as_id_array, code_ids, is_frame, is_ranked_table, padded_to_csr, rank_by_score, to_recs, to_truth

__all__ = ["item_bias", "user_bias", "rec_cases"]


def _table(columns: dict):
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        return columns
    # object columns stay object (pandas would turn a None category into NaN in a string column)
    return pd.DataFrame({k: pd.Series(v, dtype=object) if v.dtype == object else v for k, v in columns.items()})


def _columns_kw(user_col, item_col, relevance_col, rank_col, score_col) -> dict:
    """The table keywords given (same names and defaults as :func:`rankmeter.evaluate`)."""
    kw = dict(user_col=user_col, item_col=item_col, relevance_col=relevance_col, rank_col=rank_col, score_col=score_col)
    return {k: v for k, v in kw.items() if v is not None}


def _train(train: Any, kw: dict):
    try:
        return to_truth(train, "train", **kw)
    except (TypeError, ValueError) as e:
        raise type(e)(str(e).replace("`truth`", "`train`")) from None


def _mapping(x: Any, what: str) -> tuple[np.ndarray, np.ndarray]:
    """(ids, labels) from a dict, a pandas Series or one-column DataFrame (index = id) or an (ids, labels) pair."""
    if hasattr(x, "columns") and hasattr(x, "index") and hasattr(x, "iloc"):  # pandas DataFrame
        if len(x.columns) != 1:
            raise ValueError(
                f"`{what}` DataFrame must have one column (the category) indexed by id, got columns {list(x.columns)!r}"
            )
        x = x.iloc[:, 0]
    if isinstance(x, dict):
        ids, labels = list(x.keys()), list(x.values())
    elif hasattr(x, "index") and hasattr(x, "to_numpy") and getattr(x, "ndim", 2) == 1:
        ids, labels = list(x.index), list(x.to_numpy())
    elif isinstance(x, tuple) and len(x) == 2:
        ids, labels = list(x[0]), list(x[1])
    else:
        raise TypeError(
            f"`{what}` must be a dict id -> category, a pandas Series or an (ids, categories) pair, "
            f"got {type(x).__name__}"
        )
    if len(ids) != len(labels):
        raise ValueError(f"`{what}` has {len(ids)} ids but {len(labels)} categories")
    out = np.empty(len(labels), dtype=object)  # 1-D even when labels are sequences
    for j, v in enumerate(labels):
        if (
            v is None
            or isinstance(v, (list, tuple, set, frozenset, dict, np.ndarray))
            or (isinstance(v, float) and v != v)
        ):
            raise TypeError(
                f"`{what}` must map each id to one category (a string or a number), got {v!r} for id {ids[j]!r}"
            )
        out[j] = v
    return as_id_array(ids, f"{what} ids"), out


def _lookup(ids: np.ndarray, keys: np.ndarray, values: np.ndarray, what: str) -> np.ndarray:
    """values[position of each id in keys], None where absent (one joint factorisation, no per-id loop)."""
    (kc, ic), n, _ = (
        code_ids([keys, ids])
        if keys.dtype == ids.dtype == np.int64
        else code_ids([keys.astype(object), ids.astype(object)])
    )
    if np.unique(kc).size != kc.size:
        raise ValueError(f"`{what}` lists an id more than once")
    table = np.full(n, None, dtype=object)
    table[kc] = values
    return table[ic]


def _top_items(recs: Any, k: Optional[int], kw: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, items, users) of every recs user's top k (ranked by score when the form carries only scores)."""
    r = to_recs(recs, **kw)
    if r.by_score:
        indptr, items, _ = rank_by_score(r, "item")  # equal scores: ascending item id (the default rule)
    elif r.indptr is None:
        indptr, items = padded_to_csr(r)
    else:
        indptr, items = r.indptr, r.items
    users = r.users if r.users is not None else np.arange(r.n_users, dtype=np.int64)
    if k is not None:
        pos = np.arange(items.size) - np.repeat(indptr[:-1], np.diff(indptr))
        keep = pos < k
        lens = np.minimum(np.diff(indptr), k)
        indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
        items = items[keep]
    return indptr, items, users


def _shares(cat_train: np.ndarray, cat_rec: np.ndarray, what: str):
    labels = list(dict.fromkeys(cat_train.tolist() + cat_rec.tolist()))
    index = {c: i for i, c in enumerate(labels)}
    tc = np.bincount(
        np.fromiter((index[c] for c in cat_train.tolist()), dtype=np.int64, count=cat_train.size), minlength=len(labels)
    )
    rc = np.bincount(
        np.fromiter((index[c] for c in cat_rec.tolist()), dtype=np.int64, count=cat_rec.size), minlength=len(labels)
    )
    ts = tc / tc.sum() if tc.sum() else np.full(len(labels), np.nan)
    rs = rc / rc.sum() if rc.sum() else np.full(len(labels), np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = rs / ts
    order = np.argsort(-tc, kind="stable")
    return _table(
        {
            what: np.array(labels, dtype=object)[order],
            "train_count": tc[order],
            "train_share": ts[order],
            "rec_count": rc[order],
            "rec_share": rs[order],
            "rec_to_train": ratio[order],
        }
    )


def item_bias(
    recs: Any,
    train: Any,
    item_categories: Any,
    k: Optional[int] = 10,
    *,
    user_col: Optional[str] = None,
    item_col: Optional[str] = None,
    relevance_col: Optional[str] = None,
    rank_col: Optional[str] = None,
    score_col: Optional[str] = None,
):
    """Share of each item category in the train interactions vs in the top-k recommendations.

    Parameters
    ----------
    recs : any recs form of :func:`rankmeter.evaluate`
    train : any truth-like form (interactions user -> items; repeats count)
    item_categories : dict item -> category, pandas Series or one-column DataFrame (index = item), or (ids, categories)
        Items without a category are counted under ``None``.
    k : int or None, default 10
        Cutoff of the recommendation lists (None: whole lists).
    user_col, item_col, relevance_col, rank_col, score_col : str, optional
        Column names of long tables, as in :func:`rankmeter.evaluate`.

    Returns
    -------
    DataFrame (or dict of arrays without pandas)
        ``category, train_count, train_share, rec_count, rec_share, rec_to_train``,
        one row per category, most frequent in train first.
    """
    k = check_k(k, "`k`")
    kw = _columns_kw(user_col, item_col, relevance_col, rank_col, score_col)
    t = _train(train, kw)
    ids, cats = _mapping(item_categories, "item_categories")
    _, items, _ = _top_items(recs, k, kw)
    return _shares(
        _lookup(t.items, ids, cats, "item_categories"), _lookup(items, ids, cats, "item_categories"), "category"
    )


def user_bias(
    truth_or_recs: Any,
    train: Any,
    user_categories: Any,
    *,
    user_col: Optional[str] = None,
    item_col: Optional[str] = None,
    relevance_col: Optional[str] = None,
    rank_col: Optional[str] = None,
    score_col: Optional[str] = None,
):
    """Share of each user category among the train users vs among the evaluated users.

    ``truth_or_recs`` is a truth or recs form (its users with at least one item count; a
    table without a rank or score column is truth-like); ``train`` a truth-like form (its
    users with at least one interaction count); ``user_categories`` a dict user -> category,
    a pandas Series or one-column DataFrame (index = user) or (ids, categories). Table
    columns are named as in :func:`rankmeter.evaluate` (``user_col=`` ...).
    Returns ``category, train_count, train_share, rec_count, rec_share, rec_to_train``.
    """
    kw = _columns_kw(user_col, item_col, relevance_col, rank_col, score_col)
    ids, cats = _mapping(user_categories, "user_categories")
    t = _train(train, kw)
    t_users = t.users if t.users is not None else np.arange(t.n_users, dtype=np.int64)
    t_users = t_users[np.diff(t.indptr) > 0]
    other: Any
    try:
        if is_frame(truth_or_recs) and not is_ranked_table(truth_or_recs, **kw):
            raise TypeError("a table without rank or score column is truth-like")
        other = to_recs(truth_or_recs, **kw)
        o_indptr = other.indptr if other.indptr is not None else None
        o_users = other.users if other.users is not None else np.arange(other.n_users, dtype=np.int64)
        nonempty = (np.diff(o_indptr) > 0) if o_indptr is not None else (other.items != other.pad).any(axis=1)
    except TypeError:
        other = to_truth(truth_or_recs, "truth_or_recs", **kw)
        o_users = other.users if other.users is not None else np.arange(other.n_users, dtype=np.int64)
        nonempty = np.diff(other.indptr) > 0
    return _shares(
        _lookup(t_users, ids, cats, "user_categories"),
        _lookup(o_users[nonempty], ids, cats, "user_categories"),
        "category",
    )


def rec_cases(
    recs: Any,
    train: Any,
    users: Any = None,
    n: int = 5,
    k: int = 10,
    truth: Any = None,
    seed: int = 0,
    *,
    user_col: Optional[str] = None,
    item_col: Optional[str] = None,
    relevance_col: Optional[str] = None,
    rank_col: Optional[str] = None,
    score_col: Optional[str] = None,
):
    """The recommendations of a few users next to their history, for eyeballing.

    ``users`` (ids) or ``n`` users drawn at random (``seed``) among the recs users.
    Table columns are named as in :func:`rankmeter.evaluate` (``user_col=`` ...).
    Returns one row per (user, item): ``user, kind ('history' or 'rec'), item, rank``
    (1-based for recommendations, 0 for history) and ``relevance`` (the truth grade
    when ``truth`` is given, else NaN; 0 for recommended items not in the truth).
    """
    cut = check_k(k, "`k`")
    kw = _columns_kw(user_col, item_col, relevance_col, rank_col, score_col)
    indptr, items, r_users = _top_items(recs, cut, kw)
    t = _train(train, kw)
    tr_users = t.users if t.users is not None else np.arange(t.n_users, dtype=np.int64)
    r_index = {u: i for i, u in enumerate(r_users.tolist())}
    h_index = {u: i for i, u in enumerate(tr_users.tolist())}
    if users is None:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise TypeError(f"`n` must be a non-negative integer, got {n!r}")
        rng = np.random.default_rng(seed)
        pick = rng.choice(r_users.size, min(int(n), r_users.size), replace=False)
        chosen = r_users[np.sort(pick)].tolist()
    else:
        chosen = as_id_array(users, "users").tolist()
        missing = [u for u in chosen if u not in r_index and u not in h_index]
        if missing:
            raise ValueError(f"`users` holds {missing[0]!r}, which is neither in `recs` nor in `train`")
    grades: dict = {}
    if truth is not None:
        tt = to_truth(truth, **kw)
        tu = tt.users if tt.users is not None else np.arange(tt.n_users, dtype=np.int64)
        g = tt.grades if tt.grades is not None else np.ones(tt.items.size)
        for u in chosen:
            pos = np.flatnonzero(tu == u) if tu.dtype != object else [i for i, x in enumerate(tu.tolist()) if x == u]
            for row in pos:
                for j in range(int(tt.indptr[row]), int(tt.indptr[row + 1])):
                    grades[(u, tt.items[j].item() if isinstance(tt.items[j], np.generic) else tt.items[j])] = float(
                        g[j]
                    )
    out: dict = {"user": [], "kind": [], "item": [], "rank": [], "relevance": []}

    def add(u, kind, item, rank):
        item = item.item() if isinstance(item, np.generic) else item
        out["user"].append(u)
        out["kind"].append(kind)
        out["item"].append(item)
        out["rank"].append(rank)
        out["relevance"].append(
            grades.get((u, item), 0.0 if truth is not None and kind == "rec" else np.nan)
            if truth is not None
            else np.nan
        )

    for u in chosen:
        if u in h_index:
            row = h_index[u]
            for j in range(int(t.indptr[row]), int(t.indptr[row + 1])):
                add(u, "history", t.items[j], 0)
        if u in r_index:
            row = r_index[u]
            for j in range(int(indptr[row]), int(indptr[row + 1])):
                add(u, "rec", items[j], j - int(indptr[row]) + 1)
    cols = {
        key: np.array(
            v, dtype=object if key in ("user", "kind", "item") else (np.int64 if key == "rank" else np.float64)
        )
        for key, v in out.items()
    }
    return _table(cols)
