"""Any accepted input form -> :class:`Truth` / :class:`Recs` (the dispatch of every accepted input form).

``to_truth`` / ``to_recs`` pick the reader from the form: containers pass
through, tables and paths go to the frame, parquet and TREC readers, dicts and
lists to the ``from_*`` constructors.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from typing import Any, Union

import numpy as np

from . import _frame
from ._containers import Recs, Truth
from ._sources import classify

__all__ = ["to_truth", "to_recs", "read_trec_qrels", "read_trec_run"]

PathLike = Union[str, "os.PathLike[str]"]


def read_trec_qrels(path: PathLike) -> Truth:
    """Read a TREC qrels file (``query iter docno grade``) into a :class:`Truth`."""
    return Truth.from_trec(path)


def read_trec_run(path: PathLike) -> Recs:
    """Read a TREC run file (``query Q0 docno rank score runid``) into a :class:`Recs` ranked by score."""
    return Recs.from_trec(path)


def _from_table_or_path(x: Any, kind: str, what: str, kw: dict):
    """Truth/Recs from a long table or a path (parquet file/directory, else a TREC file); None otherwise.
    The column keywords are resolved per table (:func:`rankmeter.inputs._frame.resolve_columns`); a polars
    LazyFrame is collected first."""
    x = _frame.collect_lazy(x)
    kw = _frame.side_keywords(kw, what if what in ("truth", "recs") else "other")
    if _frame.is_frame(x):
        cols = _frame.resolve_columns(_frame._columns(x), kw)
        return (Truth if kind == "truth" else Recs)._of_frame(x, what, cols)
    if isinstance(x, (str, os.PathLike)):
        if not os.path.exists(x):
            raise TypeError(
                f"`{what}` must be a dict, a list of lists, arrays, a table or the path of an existing "
                f"TREC or parquet file; got the string {os.fspath(x)!r}, which is no file"
            )
        source = classify(x, what)
        if source in ("parquet", "csv"):
            cols = _frame.resolve_columns(_frame.file_columns(x, source), kw)
            if source == "parquet":
                table = _frame.read_parquet(x, (cols["user_col"], cols["item_col"]))
            else:
                table = _frame.read_csv(x, what, cols["user_col"], cols["item_col"])
            return (Truth if kind == "truth" else Recs)._of_frame(table, what, cols)
        return read_trec_qrels(x) if kind == "truth" else read_trec_run(x)
    if hasattr(x, "tocsr") and hasattr(x, "shape") and kind == "truth":
        return Truth.from_scipy(x)
    return None


def _warn_if_pairs(x: Any, what: str) -> None:
    """A list of lists is one list of items per user, by position. A list of three or more two-entry rows that
    are tuples, or whose two entries are of different kinds (a str user and an int item), reads like ``(user,
    item)`` pairs instead, and read by position it would give user 0 the first pair as its items: said with a
    warning (a history of exactly two items per user is legitimate, so it is not refused)."""
    if len(x) < 3 or not all(isinstance(r, (list, tuple)) and len(r) == 2 for r in x):
        return
    if not (all(isinstance(r, tuple) for r in x) or any(type(r[0]) is not type(r[1]) for r in x)):
        return
    warnings.warn(
        f"`{what}` is a list of {len(x)} two-entry lists, read as one list of items per user by position "
        f"(user 0's items are {list(x[0])!r}). If these are (user, item) pairs, pass {{user: [items]}} or a table "
        f"with user and item columns; to keep the positional reading without this warning, pass "
        f"rankmeter.Truth.from_lists(...)",
        UserWarning,
        stacklevel=4,
    )


def to_truth(x: Any, what: str = "truth", **table_kw: Any) -> Truth:
    if isinstance(x, Truth):
        return x
    t = _from_table_or_path(x, "truth", what, table_kw)
    if t is not None:
        return t
    if isinstance(x, Recs):
        raise TypeError("`truth` is a Recs object; pass the ground truth as `truth` and the ranked lists as `recs`")
    if isinstance(x, Mapping):
        return Truth.from_dict(x)
    if isinstance(x, tuple) and len(x) in (2, 3) and all(isinstance(a, np.ndarray) for a in x):
        return Truth.from_csr(*x)
    if isinstance(x, (list, tuple)):
        if what != "truth":
            _warn_if_pairs(x, what)
        return Truth.from_lists(x)
    raise TypeError(
        f"`truth` must be a dict, a list of lists, a CSR tuple (indptr, items[, grades]) or a rankmeter.Truth, "
        f"got {type(x).__name__}"
    )


def to_recs(x: Any, **table_kw: Any) -> Recs:
    if isinstance(x, Recs):
        return x
    r = _from_table_or_path(x, "recs", "recs", table_kw)
    if r is not None:
        return r
    if isinstance(x, Truth):
        raise TypeError("`recs` is a Truth object; pass the ranked lists as `recs`")
    if isinstance(x, Mapping):
        return Recs.from_dict(x)
    if isinstance(x, np.ndarray):
        if x.ndim == 2:
            return Recs.from_array(x)
        raise ValueError(f"`recs` numpy array must be 2-D (n_users x k), got shape {x.shape}")
    if isinstance(x, tuple) and len(x) in (2, 3) and all(isinstance(a, np.ndarray) for a in x):
        return Recs.from_csr(*x)
    if isinstance(x, (list, tuple)):
        return Recs.from_lists(x)
    raise TypeError(
        f"`recs` must be a dict, a list of lists, a 2-D array of item ids, a CSR tuple (indptr, items[, scores]) "
        f"or a rankmeter.Recs, got {type(x).__name__}"
    )
