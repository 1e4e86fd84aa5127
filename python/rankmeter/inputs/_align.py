"""Joining truth and recs users, and turning every recs form into ordered CSR lists.

``align`` maps each truth user to its recs row (by id when both sides carry
ids, by position otherwise); ``rank_by_score`` orders score-only forms
(descending score, ties per the ``ties=`` policy); ``padded_to_csr`` turns a
padded 2-D array into CSR. All vectorised; nothing loops over users in Python
except the dict join of non-integer ids.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Optional

import numpy as np

from .. import _core
from .._options import resolve_threads
from ._containers import Recs, Truth
from ._ids import check_id_kinds, factorize

__all__ = [
    "align",
    "rank_by_score",
    "count_tied_users",
    "ranx_order",
    "RANX_TIES",
    "score_order",
    "label_rank",
    "tie_key",
    "padded_to_csr",
    "item_after_pad",
    "string_rank",
    "subset_users",
    "add_recs_only_users",
    "list_lengths",
]


def align(
    truth: Truth, recs: Any, sides: tuple[str, str] = ("truth", "recs"), require_match: bool = True
) -> tuple[Optional[np.ndarray], int, int]:
    """Row of recs for every truth user (None = identity), #missing, #ignored.

    ``recs`` may be any container with ``users`` and ``n_users`` (train is aligned as a
    Truth). User ids of different kinds (str against int) are a ValueError showing an id
    of each side, and so is, with ``require_match``, no user in common when both sides
    hold items: never a silent zero.
    """
    n_t, n_r = truth.n_users, recs.n_users
    if truth.users is None and recs.users is None:
        if n_t != n_r:
            raise ValueError(
                f"`{sides[1]}` has {n_r} users but `{sides[0]}` has {n_t}: positional inputs must have the same "
                "number of users (or carry user ids, e.g. dicts or users=)"
            )
        return None, 0, 0
    tu = truth.users if truth.users is not None else np.arange(n_t, dtype=np.int64)
    ru = recs.users if recs.users is not None else np.arange(n_r, dtype=np.int64)
    paired = getattr(truth, "paired", None)
    if paired is not None and paired[0] is recs:
        # read together from dicts by the walker, which joined the users (dict keys: unique, of one kind)
        rowmap = paired[1]
        found = rowmap >= 0
    else:
        rowmap, found = _join(tu, ru, sides, truth.users is None, recs.users is None)
    n_found = int(np.count_nonzero(found))
    if require_match and n_found == 0 and _n_entries(truth) and _n_entries(recs):
        ex_t, ex_r = (x.item() if isinstance(x, np.generic) else x for x in (tu[0], ru[0]))
        raise ValueError(
            f"no `{sides[1]}` user matches a `{sides[0]}` user (`{sides[0]}` has {n_t} users, e.g. {ex_t!r}"
            f"{' (positions 0..n-1)' if truth.users is None else ''}; `{sides[1]}` has {n_r}, e.g. {ex_r!r}"
            f"{' (positions 0..n-1)' if recs.users is None else ''}): check that both sides use the same user ids"
        )
    n_missing = n_t - n_found
    n_ignored = n_r - n_found
    if n_t == n_r and n_missing == 0 and np.array_equal(rowmap, np.arange(n_t)):
        return None, n_missing, n_ignored
    return rowmap, n_missing, n_ignored


def _join(
    tu: np.ndarray, ru: np.ndarray, sides: tuple[str, str], t_positional: bool, r_positional: bool
) -> tuple[np.ndarray, np.ndarray]:
    """(rowmap, found): the row of ``ru`` of every id of ``tu`` (-1: none); repeated ids are a ValueError."""
    check_id_kinds(tu, ru, sides, "user", (t_positional, r_positional))
    n_t = tu.size
    if tu.dtype == np.int64 and ru.dtype == np.int64:
        for arr, what in ((tu, "truth"), (ru, "recs")):
            if arr.size > 1:
                s = np.sort(arr)
                d = np.flatnonzero(s[1:] == s[:-1])
                if d.size:
                    raise ValueError(f"`{what}` lists user {int(s[d[0]])!r} more than once; user ids must be unique")
        sorter = np.argsort(ru, kind="stable")
        rs = ru[sorter]
        pos = np.searchsorted(rs, tu)
        pos_c = np.minimum(pos, max(rs.size - 1, 0))
        found = (rs[pos_c] == tu) if rs.size else np.zeros(n_t, dtype=bool)
        rowmap = np.where(found, sorter[pos_c] if rs.size else 0, -1).astype(np.int64)
    elif tu.size + ru.size >= 512 and _pandas() is not None:
        # string (or mixed) ids: one hash join in pandas' C index (no Python loop over users; a few users are
        # joined by the dict below, cheaper than building the index)
        pd = _pandas()
        r_index = pd.Index(ru, dtype=object)
        if not r_index.is_unique:
            dup = _plain(ru[np.flatnonzero(r_index.duplicated())[0]])
            raise ValueError(f"`recs` lists user {dup!r} more than once; user ids must be unique")
        t_index = pd.Index(tu, dtype=object)
        if not t_index.is_unique:
            dup = _plain(tu[np.flatnonzero(t_index.duplicated())[0]])
            raise ValueError(f"`truth` lists user {dup!r} more than once; user ids must be unique")
        rowmap = np.asarray(r_index.get_indexer(t_index), dtype=np.int64)
        found = rowmap >= 0
    else:
        index: dict[Any, int] = {}
        for i, u in enumerate(ru.tolist()):
            if index.setdefault(u, i) != i:
                raise ValueError(f"`recs` lists user {u!r} more than once; user ids must be unique")
        tl = tu.tolist()
        if len(set(tl)) != len(tl):
            seen: set = set()
            dup = next(u for u in tl if u in seen or seen.add(u))  # type: ignore[func-returns-value]
            raise ValueError(f"`truth` lists user {dup!r} more than once; user ids must be unique")
        rowmap = np.fromiter((index.get(u, -1) for u in tl), dtype=np.int64, count=n_t)
        found = rowmap >= 0
    return rowmap, found


def _pandas() -> Any:
    """pandas when it is importable (already imported, usually), else None."""
    pd = sys.modules.get("pandas")
    if pd is None:
        try:
            pd = importlib.import_module("pandas")
        except ImportError:
            return None
    return pd


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _n_entries(side: Any) -> int:
    """How many items a side holds (a padded array: its size, pads included; enough to tell empty)."""
    return int(side.n_entries)


def string_rank(ids: np.ndarray) -> np.ndarray:
    """Rank of every id in the order of the strings the ids print as (trec_eval's docno order)."""
    codes, labels = factorize(ids)
    return label_rank(labels, "trec")[codes]


def _natural_sort_keys(values: np.ndarray, ties: str) -> np.ndarray:
    """Keys whose ascending order is the ids' own order: integers numerically, strings by code point.
    Ids of mixed kinds raise under ``"item_desc"``; under ``"item"`` (the default rule, which must not
    fail on data that ranks fine otherwise) integers come before strings and other ids sort by their text."""
    if values.dtype == np.int64:
        return values
    vals = values.tolist()
    if all(isinstance(x, str) for x in vals):
        return values.astype(str)
    if ties != "item":
        raise TypeError(f"ties={ties!r} needs item ids of one kind (all ints or all strings)")
    order = sorted(
        range(len(vals)),
        key=lambda j: (0, vals[j], "") if isinstance(vals[j], (int, np.integer)) else (1, 0, str(vals[j])),
    )
    keys = np.empty(len(vals), dtype=np.int64)
    keys[np.asarray(order, dtype=np.int64)] = np.arange(len(vals), dtype=np.int64)
    return keys


def label_rank(labels: np.ndarray, ties: str) -> np.ndarray:
    """Rank of every distinct id (a factorization's labels) in the order `ties` sorts ids by: ascending as
    the strings they print as ("trec"), or in their natural order ("item_desc"); "item" (ascending ids
    first) gives the reversed rank, since equal scores are ordered by this key descending
    (:func:`score_order`). Only the distinct ids are sorted."""
    if ties == "trec":
        keys: np.ndarray = np.asarray([str(x) for x in labels.tolist()], dtype=str)
    else:
        keys = _natural_sort_keys(labels, ties)
    rank = np.empty(labels.size, dtype=np.int64)
    rank[np.argsort(keys, kind="stable")] = np.arange(labels.size, dtype=np.int64)
    if ties == "item":
        rank = (labels.size - 1) - rank
    return rank


def tie_key(items: np.ndarray, ties: str) -> np.ndarray:
    """Per entry, a key whose descending order is the order `ties` gives equal scores (see label_rank):
    integer ids are their own key (``"item"``: negated, as ``~id``, which cannot overflow)."""
    if ties == "trec":
        return string_rank(items)
    if items.dtype == np.int64:
        return ~items if ties == "item" else items
    codes, labels = factorize(items)
    return label_rank(labels, ties)[codes]


def score_order(
    indptr: np.ndarray, scores: np.ndarray, key: Optional[np.ndarray] = None, threads: Optional[int] = None
) -> np.ndarray:
    """The permutation that orders every list by score, descending; equal scores by ``key``
    descending when given, then in input order (a stable order). One C++ sort per list,
    parallel over users."""
    k = None if key is None else np.ascontiguousarray(key, dtype=np.int64)
    return _core.order_by_score(indptr, np.ascontiguousarray(scores, dtype=np.float64), k, resolve_threads(threads))


RANX_TIES = ("ranx", "ranx_comparable", "ranx_dict")


def ranx_order(indptr: np.ndarray, scores: np.ndarray, ties: str, threads: Optional[int] = None) -> np.ndarray:
    """The permutation ranx ranks every list by (score descending, equal scores in numba's quicksort order).

    ranx 0.3 (data_structures/common.py) sorts with numba's ``np.argsort`` (kind quicksort, unstable but
    deterministic; ported in C++ ``order_numba_quicksort``), starting from each list in input order:
    ``"ranx"``: a ``Run`` built from a dict, argsort of the negated scores (``sort_dict_by_value``), as
    ``ranx.evaluate(qrels, run)`` reads it; ``"ranx_comparable"``: the same applied twice, as after
    ``evaluate(..., make_comparable=True)`` (``Run.make_comparable`` sorts the sorted run again);
    ``"ranx_dict"``: a plain dict given to ``ranx.evaluate``: argsort of the scores, read backwards
    (``utils.descending_sort``). One C++ pass over the lists, parallel over users."""
    s = np.ascontiguousarray(scores, dtype=np.float64)
    t = resolve_threads(threads)
    if ties == "ranx_dict":
        return _core.order_numba_quicksort(indptr, s, True, t)
    order = _core.order_numba_quicksort(indptr, -s, False, t)
    if ties == "ranx_comparable":
        order = order[_core.order_numba_quicksort(indptr, np.ascontiguousarray(-s[order]), False, t)]
    return order


def rank_by_score(recs: Recs, ties: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Order every list by score (descending); equal scores per `ties`. Vectorised."""
    if ties in RANX_TIES:
        order = ranx_order(recs.indptr, recs.scores, ties)
        return recs.indptr, recs.items[order], recs.scores[order]
    order = score_order(recs.indptr, recs.scores, None if ties == "input" else tie_key(recs.items, ties))
    return recs.indptr, recs.items[order], recs.scores[order]


def count_tied_users(indptr: np.ndarray, scores: np.ndarray, read: Optional[int], rows: Optional[np.ndarray]) -> int:
    """How many users have equal scores in the part of their list that is read: lists sorted by score
    (CSR), ``read`` the positions read (None: whole lists), ``rows`` the list row of each evaluated user
    (-1: none; None: user i is row i). A tie between the last read position and the next counts: which
    item is read then depends on the tie rule. Memory in the number of tied pairs, not of entries."""
    if scores.size < 2:
        return 0
    eq = np.flatnonzero(scores[1:] == scores[:-1])  # pair (j, j + 1)
    if eq.size == 0:
        return 0
    row = np.searchsorted(indptr, eq, side="right") - 1
    pos = eq - indptr[row]
    keep = eq + 1 < indptr[row + 1]  # both in the same list
    if read is not None:
        keep &= pos < read
    tied = np.zeros(indptr.size - 1, dtype=bool)
    tied[row[keep]] = True
    if rows is None:
        return int(np.count_nonzero(tied))
    rows = rows[rows >= 0]
    return int(np.count_nonzero(tied[rows]))


def item_after_pad(recs: Recs, row: int) -> ValueError:
    """The error of a padded row (``row``) holding an item after the padding value."""
    user = recs.users[row] if recs.users is not None else row
    if isinstance(user, np.generic):
        user = user.item()
    return ValueError(
        f"`recs` row of user {user!r} has an item after the padding value {recs.pad}; pad only at the end"
    )


def padded_to_csr(recs: Recs) -> tuple[np.ndarray, np.ndarray]:
    arr = recs.items
    valid = arr != recs.pad
    if arr.shape[1] > 1:
        inside = np.flatnonzero((valid[:, 1:] & ~valid[:, :-1]).any(axis=1))
        if inside.size:
            raise item_after_pad(recs, int(inside[0]))
    lens = valid.sum(axis=1)
    indptr = np.zeros(arr.shape[0] + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    return indptr, arr[valid]


def subset_users(truth: Truth, rows: np.ndarray) -> Truth:
    """The truth of the users at ``rows`` (in that order), as a new Truth (vectorised gather)."""
    lens = np.diff(truth.indptr)[rows]
    indptr = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    starts = truth.indptr[:-1][rows]
    take = np.repeat(starts - indptr[:-1], lens) + np.arange(int(indptr[-1]), dtype=np.int64)
    users = truth.users[rows] if truth.users is not None else rows.astype(np.int64)
    items = truth.coded.with_codes(truth.coded.codes[take]) if truth.coded is not None else truth.items_native[take]
    g = truth.grades_native
    out = Truth(indptr, items, None if g is None else g[take], users)
    if truth.source_rows is not None:
        out.source_rows, out.source_col = truth.source_rows[take], truth.source_col
    return out


def list_lengths(recs: Recs) -> np.ndarray:
    """The length of every recs row as given (a padded row: its items before the padding)."""
    if recs.indptr is not None:
        return np.diff(recs.indptr)
    return np.count_nonzero(recs.items != recs.pad, axis=1).astype(np.int64)


def add_recs_only_users(
    truth: Truth, recs: Recs, rowmap: Optional[np.ndarray], *, listed_only: bool = False
) -> tuple[Truth, np.ndarray]:
    """The truth with every recs user it lacks appended as a user without truth rows (in recs order), and
    the recs row of every user of the result (``recs_only="empty"``); ``listed_only``: only the users whose
    list holds an item (``recs_only="listed"``)."""
    n_t = truth.n_users
    base = np.arange(n_t, dtype=np.int64) if rowmap is None else rowmap
    taken = np.zeros(recs.n_users, dtype=bool)
    taken[base[base >= 0]] = True
    if listed_only:
        taken |= list_lengths(recs) == 0
    extra = np.flatnonzero(~taken)
    if not extra.size:
        return truth, base
    ru = recs.users if recs.users is not None else np.arange(recs.n_users, dtype=np.int64)
    new = ru[extra]
    if n_t == 0:
        users = new
    else:
        tu = truth.users if truth.users is not None else np.arange(n_t, dtype=np.int64)
        users = (
            np.concatenate([tu, new])
            if tu.dtype == new.dtype
            else np.concatenate([tu.astype(object), new.astype(object)])
        )
    indptr = np.concatenate([truth.indptr, np.full(extra.size, truth.indptr[-1], dtype=truth.indptr.dtype)])
    items = truth.coded if truth.coded is not None else truth.items_native
    out = Truth(indptr, items, truth.grades_native, users)
    out.source_rows, out.source_col = truth.source_rows, truth.source_col
    return out, np.concatenate([base, extra])
