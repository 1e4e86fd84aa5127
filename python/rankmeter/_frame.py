"""Long tables (pandas, polars, pyarrow, parquet) into :class:`Truth` / :class:`Recs`.

A table holds one row per (user, item): truth tables a user, an item and an
optional grade column; recs tables a user, an item and a rank or a score
column (rank decides when both are there; scores ride along). Columns are
taken as numpy arrays (zero-copy where the dtype allows), users are grouped
in order of first appearance with one stable sort, and nothing loops over
rows or users in Python. None of pandas, polars or pyarrow is imported unless
the input is of that kind.
"""

from __future__ import annotations

import os
from typing import Any, Optional

import numpy as np

__all__ = ["is_frame", "frame_to_truth", "frame_to_recs", "read_parquet", "is_table_path"]

DEFAULTS = {"user_col": "user_id", "item_col": "item_id", "relevance_col": "relevance", "rank_col": "rank",
            "score_col": "score"}


def _kind(x: Any) -> Optional[str]:
    mod = type(x).__module__.split(".")[0]
    if mod == "pandas" and hasattr(x, "columns"):
        return "pandas"
    if mod == "polars" and hasattr(x, "columns") and hasattr(x, "get_column"):
        return "polars"
    if mod == "pyarrow" and hasattr(x, "schema") and hasattr(x, "column"):
        return "pyarrow"
    return None


def is_frame(x: Any) -> bool:
    return _kind(x) is not None


def is_table_path(x: Any) -> bool:
    if not isinstance(x, (str, os.PathLike)):
        return False
    p = os.fspath(x)
    return p.endswith(".parquet") or os.path.isdir(p)


def read_parquet(path: Any):
    """A parquet file or directory as a pyarrow Table (pyarrow.dataset)."""
    try:
        import pyarrow.dataset as ds
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("reading parquet needs pyarrow: pip install pyarrow") from None
    return ds.dataset(os.fspath(path), format="parquet").to_table()


def _columns(x: Any) -> list:
    k = _kind(x)
    if k == "pyarrow":
        return list(x.schema.names)
    return [str(c) for c in x.columns]


def _column(x: Any, name: str, what: str) -> np.ndarray:
    """One column as a numpy array; nulls are an error naming the column and the first row."""
    cols = _columns(x)
    if name not in cols:
        raise ValueError(f"`{what}` table has no column {name!r} (columns: {', '.join(map(repr, cols))}); "
                         f"name it with {_keyword(name)}")
    k = _kind(x)
    if k == "pandas":
        s = x[name]
        nulls = s.isna().to_numpy()
        if hasattr(s, "cat"):
            s = s.astype(object)
        arr = s.to_numpy()
    elif k == "polars":
        s = x.get_column(name)
        nulls = s.is_null().to_numpy()
        if str(s.dtype).startswith(("Categorical", "Enum")):
            s = s.cast(str)
        arr = s.to_numpy()
    else:
        col = x.column(name)
        import pyarrow as pa
        import pyarrow.compute as pc

        if isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks()
        if pa.types.is_dictionary(col.type):
            col = col.cast(col.type.value_type)
        nulls = pc.is_null(col).to_numpy(zero_copy_only=False)
        arr = col.to_numpy(zero_copy_only=False)
    if nulls.any():
        row = int(np.argmax(nulls))
        raise ValueError(f"`{what}` column {name!r} has a null at row {row}; ids, grades, ranks and scores must be set")
    if arr.dtype.kind in "US":
        arr = arr.astype(object)
    return arr


def _keyword(name: str) -> str:
    for key, default in DEFAULTS.items():
        if default == name:
            return f"{key}="
    return "the *_col= keywords"


def _numeric(arr: np.ndarray, name: str, what: str) -> np.ndarray:
    if arr.dtype.kind not in "iuf" or arr.dtype.kind == "b":
        raise TypeError(f"`{what}` column {name!r} must be numeric, got dtype {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=np.float64)


def _ids(arr: np.ndarray, name: str, what: str) -> np.ndarray:
    from ._convert import as_id_array

    try:
        return as_id_array(arr, f"{what} column {name!r}")
    except TypeError:
        raise TypeError(f"`{what}` column {name!r} must hold integer or string ids, got dtype {arr.dtype}") from None


def _group(users: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Users in order of first appearance, a stable row order grouped by user, and the CSR indptr."""
    try:
        uniq, first, inv = np.unique(users, return_index=True, return_inverse=True)
    except TypeError:  # ids of mixed kinds (ints and strings): code them by first appearance
        table: dict = {}
        inv = np.fromiter((table.setdefault(x, len(table)) for x in users.tolist()), dtype=np.int64,
                          count=users.size)
        first = np.zeros(len(table), dtype=np.int64)
        first[inv[::-1]] = np.arange(users.size - 1, -1, -1)
        uniq = np.arange(len(table))
    by_first = np.argsort(first, kind="stable")
    rank = np.empty_like(by_first)
    rank[by_first] = np.arange(by_first.size)
    code = rank[inv.ravel()]
    order = np.argsort(code, kind="stable")
    counts = np.bincount(code, minlength=len(uniq))
    indptr = np.zeros(len(uniq) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    u = users[first[by_first]]
    return (u if u.dtype == object else u.astype(np.int64)), order, indptr


def _kw(kw: dict) -> dict:
    out = dict(DEFAULTS)
    for key, val in kw.items():
        if key not in DEFAULTS:
            raise TypeError(f"unknown table keyword {key!r}; expected one of {', '.join(DEFAULTS)}")
        if val is not None:
            if not isinstance(val, str):
                raise TypeError(f"`{key}` must be a column name (str), got {val!r}")
            out[key] = val
    return out


def frame_to_truth(x: Any, what: str = "truth", **kw):
    from ._convert import Truth

    kw = _kw(kw)
    users = _ids(_column(x, kw["user_col"], what), kw["user_col"], what)
    items = _ids(_column(x, kw["item_col"], what), kw["item_col"], what)
    grades = None
    if kw["relevance_col"] in _columns(x):
        grades = _numeric(_column(x, kw["relevance_col"], what), kw["relevance_col"], what)
    u, order, indptr = _group(users)
    return Truth(indptr, items[order], None if grades is None else grades[order], u)


def frame_to_recs(x: Any, what: str = "recs", **kw):
    from ._convert import Recs

    kw = _kw(kw)
    cols = _columns(x)
    users = _ids(_column(x, kw["user_col"], what), kw["user_col"], what)
    items = _ids(_column(x, kw["item_col"], what), kw["item_col"], what)
    has_rank, has_score = kw["rank_col"] in cols, kw["score_col"] in cols
    if not (has_rank or has_score):
        raise ValueError(f"`{what}` table needs a rank column {kw['rank_col']!r} or a score column "
                         f"{kw['score_col']!r} (columns: {', '.join(map(repr, cols))}); name them with rank_col= / "
                         "score_col=")
    scores = _numeric(_column(x, kw["score_col"], what), kw["score_col"], what) if has_score else None
    u, order, indptr = _group(users)
    if has_rank:
        rank = _column(x, kw["rank_col"], what)
        if rank.dtype.kind not in "iu":
            if rank.dtype.kind == "f" and np.all(np.mod(rank, 1) == 0):
                rank = rank.astype(np.int64)
            else:
                raise TypeError(f"`{what}` column {kw['rank_col']!r} must hold integer ranks, got dtype {rank.dtype}")
        rank = rank.astype(np.int64)
        # within each user (rows grouped), order by rank; ranks must be exactly 1..n
        row_user = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
        r = rank[order]
        o2 = np.lexsort((r, row_user))
        order = order[o2]
        expect = np.arange(order.size) - np.repeat(indptr[:-1], np.diff(indptr)) + 1
        bad = np.flatnonzero(rank[order] != expect)
        if bad.size:
            b = int(bad[0])
            row = int(order[b])
            ru = u[row_user[b]]
            ru = ru.item() if isinstance(ru, np.generic) else ru
            raise ValueError(f"`{what}` column {kw['rank_col']!r}: ranks of user {ru!r} must be 1..n without gaps or "
                             f"repeats; row {row} has rank {int(rank[row])} where {int(expect[b])} was expected")
        return Recs(indptr, items[order], None if scores is None else scores[order], u)
    from ._convert import _check_scores

    s = scores[order]
    _check_scores(s, indptr, u)
    return Recs(indptr, items[order], s, u, by_score=True)
