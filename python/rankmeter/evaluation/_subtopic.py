"""Intent-aware (subtopic) diversity: the subtopic judgments and the columns of ndeval's measures.

The measures run in C++ (``rankmeter/subtopic.hpp``); this module reads the ``subtopics`` argument of
:func:`rankmeter.evaluate` (a long table, a dict of columns, four arrays or an ndeval qrels file), joins it
with the evaluated users and the item codes of their lists, and builds the per-user tables the kernel reads:
each user's relevant judged documents (sorted by code, with the order of their id strings, which breaks
ties in ndeval's greedy ideal ranking) and the user's subtopics each is relevant to. Conventions:
docs/metrics.md, "Subtopic (intent-aware) diversity".
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .. import _core
from .._aggregate import limbs_to_int
from ._context_columns import context_ids, pick_column

__all__ = ["SUBTOPIC_METRICS", "Subtopics", "read_subtopics", "subtopic_column"]

# the kernel's codes (SubKind in subtopic.hpp)
SUBTOPIC_METRICS = {
    "alpha_dcg": 0,
    "alpha_ndcg": 1,
    "err_ia": 2,
    "nerr_ia": 3,
    "p_ia": 4,
    "strec": 5,
    "nrbp": 6,
    "nnrbp": 7,
    "map_ia": 8,
}

_USER = ("user_id", "query_id", "topic", "qid", "user", "query")
_SUBTOPIC = ("subtopic", "subtopic_id", "iteration", "intent")
_ITEM = ("item_id", "doc_id", "docno", "item", "doc")
_GRADE = ("relevance", "grade", "judgment", "rel")


class Subtopics:
    """The subtopic judgments as four aligned arrays (users, subtopics, items, grades)."""

    __slots__ = ("users", "subtopics", "items", "grades", "sub_codes")

    def __init__(self, users: np.ndarray, subtopics: np.ndarray, items: np.ndarray, grades: np.ndarray):
        self.users, self.subtopics, self.items, self.grades = users, subtopics, items, grades
        self.sub_codes: np.ndarray = np.zeros(0, dtype=np.int64)  # subtopic codes in sorted id order


def _read_file(path: str) -> Subtopics:
    """ndeval's qrels: ``topic subtopic doc judgment`` per line, whitespace-separated."""
    users, subs, items, grades = [], [], [], []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 4:
                raise ValueError(
                    f"`subtopics` file {path!r} line {no}: expected 'topic subtopic doc judgment', got {line.strip()!r}"
                )
            try:
                grades.append(float(parts[3]))
            except ValueError:
                raise ValueError(
                    f"`subtopics` file {path!r} line {no}: judgment {parts[3]!r} is not a number"
                ) from None
            users.append(parts[0])
            subs.append(parts[1])
            items.append(parts[2])
    return Subtopics(
        np.array(users, dtype=object),
        np.array(subs, dtype=object),
        np.array(items, dtype=object),
        np.array(grades, dtype=np.float64),
    )


def read_subtopics(x: Any, table_kw: dict) -> Subtopics:
    """The ``subtopics`` argument as four checked arrays (before any work)."""
    if isinstance(x, Subtopics):
        return x
    if isinstance(x, (str, os.PathLike)):
        out = _read_file(os.fspath(x))
    else:
        if hasattr(x, "to_pandas") and not hasattr(x, "iloc"):  # pyarrow, polars
            x = x.to_pandas()
        if isinstance(x, list) and x and all(isinstance(r, tuple) and len(r) == 4 for r in x):
            cols = [np.asarray(c) for c in zip(*x)]  # rows (user, subtopic, item, grade), pyndeval's form
        elif isinstance(x, tuple) and len(x) == 4:
            cols = list(x)
        elif hasattr(x, "columns") or isinstance(x, dict):
            keys = list(x.columns) if hasattr(x, "columns") else list(x)
            u = pick_column(
                keys, _USER, table_kw.get("truth_user_col") or table_kw.get("user_col"), "user", "subtopics"
            )
            s = pick_column(keys, _SUBTOPIC, None, "subtopic", "subtopics")
            i = pick_column(
                keys, _ITEM, table_kw.get("truth_item_col") or table_kw.get("item_col"), "item", "subtopics"
            )
            g = pick_column(keys, _GRADE, table_kw.get("relevance_col"), "grade", "subtopics")
            cols = [np.asarray(x[c]) for c in (u, s, i, g)]
        else:
            raise TypeError(
                "`subtopics` must be a table or dict with user, subtopic, item and grade columns, a tuple of those "
                "four arrays, a list of (user, subtopic, item, grade) tuples, or the path of an ndeval qrels file; "
                f"got {type(x).__name__}"
            )
        users, subs, items = (
            context_ids(cols[0], "user", "subtopics"),
            context_ids(cols[1], "subtopic", "subtopics"),
            context_ids(cols[2], "item", "subtopics"),
        )
        try:
            grades = np.asarray(cols[3], dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError("`subtopics`: grades must be numbers") from None
        if not (users.size == subs.size == items.size == grades.size) or grades.ndim != 1:
            raise ValueError("`subtopics`: the user, subtopic, item and grade columns must have the same length")
        out = Subtopics(users, subs, items, grades)
    if out.grades.size and not np.all(np.isfinite(out.grades)):
        bad = int(np.argmax(~np.isfinite(out.grades)))
        raise ValueError(
            f"`subtopics` grades must be finite; user {out.users[bad]!r} has grade {out.grades[bad]} for item "
            f"{out.items[bad]!r}, subtopic {out.subtopics[bad]!r}"
        )
    _check_repeats(out)
    return out


def _codes(a: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense codes in the ids' sorted order (ints numerically, strings as strings) and their number: one hash
    pass, then a sort of the distinct ids only."""
    import pandas as pd

    if a.size == 0:
        return np.zeros(0, dtype=np.int64), 0
    codes, uniq = pd.factorize(a)
    uniq = np.asarray(uniq)
    if uniq.dtype == object:
        kinds = {type(v) for v in uniq.tolist()}
        if len({int if issubclass(t, (int, np.integer)) else t for t in kinds}) > 1:
            raise TypeError(f"`subtopics`: ids mix types {sorted(t.__name__ for t in kinds)}: use one type")
    rank = np.empty(uniq.size, dtype=np.int64)
    rank[np.argsort(uniq, kind="stable")] = np.arange(uniq.size, dtype=np.int64)
    return rank[np.asarray(codes, dtype=np.int64)], int(uniq.size)


def _check_repeats(t: Subtopics) -> None:
    """One judgment per (user, subtopic, item): ndeval's value of a repeat depends on its sort order. Keeps the
    subtopic codes (sorted id order) on ``t``."""
    import pandas as pd

    s, ns = _codes(t.subtopics)
    t.sub_codes = s
    if t.users.size < 2:
        return
    (u, nu), (i, ni) = _codes(t.users), _codes(t.items)
    if nu * ns * ni < 2**62:
        dup = pd.Index((u * ns + s) * ni + i).duplicated()
    else:  # pragma: no cover - more distinct ids than int64 keys hold
        dup = pd.MultiIndex.from_arrays([u, s, i]).duplicated()
    if dup.any():
        r = int(np.argmax(dup))
        raise ValueError(
            f"`subtopics` judges item {t.items[r]!r} for subtopic {t.subtopics[r]!r} of user {t.users[r]!r} more "
            "than once: keep one row per (user, subtopic, item)"
        )


def _same_kind(a: np.ndarray, b: np.ndarray) -> bool:
    def kind(x: np.ndarray) -> str:
        if x.dtype != object:
            return "int" if x.dtype.kind in "iu" else x.dtype.kind
        v = x[0] if x.size else None
        return "int" if isinstance(v, (int, np.integer)) else "str"

    return a.size == 0 or b.size == 0 or kind(a) == kind(b)


def _tables(prep: Any) -> tuple:
    """The kernel's per-user tables (built once per call)."""
    cached = getattr(prep, "_subtopic_tables", None)
    if cached is not None:
        return cached
    p = prep.p
    t: Subtopics = prep.ctx.subtopics
    users = np.asarray(p.users)
    if not _same_kind(users, t.users):
        raise ValueError(
            "`subtopics` user ids and the evaluated users' ids are of different kinds (str against int): "
            "give both the same type"
        )
    import pandas as pd

    rows = pd.Index(users).get_indexer(pd.Index(t.users)) if t.users.size else np.zeros(0, dtype=np.int64)
    rows = np.asarray(rows, dtype=np.int64)
    item_codes = np.asarray(prep.code["subtopics"], dtype=np.int64)
    mr = p.min_relevance
    rel = t.grades >= mr if mr is not None else t.grades > 0
    keep = (rows >= 0) & rel
    rows, items = rows[keep], item_codes[keep]
    subs = t.sub_codes[keep]
    n_users = int(users.size)
    # each user's subtopics (ascending subtopic id) as local indices 0..n_sub-1
    width = int(subs.max(initial=0)) + 1
    pair_key = rows * width + subs
    pairs = np.unique(pair_key)
    n_sub = np.bincount(pairs // width, minlength=n_users).astype(np.int64)
    first = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(n_sub, out=first[1:])
    local = np.searchsorted(pairs, pair_key) - first[rows]
    # documents: (user, item) groups, sorted by item code; each document's subtopics ascending
    order = np.lexsort((local, items, rows))
    rows, items, local = rows[order], items[order], local[order]
    new_doc = np.ones(rows.size, dtype=bool)
    if rows.size > 1:
        new_doc[1:] = (rows[1:] != rows[:-1]) | (items[1:] != items[:-1])
    doc_start = np.flatnonzero(new_doc)
    j_items = items[doc_start]
    j_users = rows[doc_start]
    j_indptr = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(np.bincount(j_users, minlength=n_users), out=j_indptr[1:])
    s_indptr = np.append(doc_start, rows.size).astype(np.int64)
    # the order of the documents' id strings (ndeval compares docnos with strcmp: code-point order)
    labels = prep.labels
    distinct, back = np.unique(j_items, return_inverse=True)
    ids = labels[distinct] if labels is not None else distinct
    j_key = np.unique(np.asarray([str(v) for v in ids.tolist()], dtype=str), return_inverse=True)[1].ravel()[back]
    out = (
        j_indptr,
        np.ascontiguousarray(j_items),
        np.ascontiguousarray(j_key.astype(np.int64).ravel()),
        s_indptr,
        np.ascontiguousarray(local.astype(np.int64)),
        n_sub,
    )
    prep._subtopic_tables = out
    return out


def subtopic_column(prep: Any, m: Any) -> tuple:
    """One subtopic column: (per-user values, exact sum, count). The columns of one (alpha, beta) share a kernel
    call, computed at the first of them."""
    cache = getattr(prep, "_subtopic_values", None)
    if cache is None:
        cache = prep._subtopic_values = {}
    key = str(m)
    if key not in cache:
        alpha = float(m.options.get("alpha", 0.5))
        beta = float(m.options.get("beta", 0.5))
        group = [
            x
            for x in prep.metrics
            if x.name in SUBTOPIC_METRICS
            and float(x.options.get("alpha", alpha)) == alpha
            and float(x.options.get("beta", beta)) == beta
            and str(x) not in cache
        ]
        j_indptr, j_items, j_key, s_indptr, s_sub, n_sub = _tables(prep)
        kinds = np.array([SUBTOPIC_METRICS[x.name] for x in group], dtype=np.int32)
        ks = np.array([x.k or 0 for x in group], dtype=np.int64)
        vals = _core.subtopic_values(
            np.ascontiguousarray(prep.li, dtype=np.int64),
            np.ascontiguousarray(prep.lt, dtype=np.int64),
            j_indptr,
            j_items,
            j_key,
            s_indptr,
            s_sub,
            n_sub,
            kinds,
            ks,
            alpha,
            beta,
            prep.threads,
        )
        n = n_sub.size
        for c, x in enumerate(group):
            cache[str(x)] = vals[c * n : (c + 1) * n].copy()
    v = cache[key]
    limbs, count = _core.exact_sum(v, prep.threads)
    return v, limbs_to_int(limbs), int(count)
