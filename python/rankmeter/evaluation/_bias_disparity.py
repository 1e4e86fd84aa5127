"""Bias disparity between user groups and item categories (docs/metrics.md 3.23.11, docs/fairness.md "Bias
disparity").

Tsintzou, Pitoura and Tsaparas, "Bias Disparity in Recommendation Systems" (RMSE workshop at RecSys 2018,
arXiv:1811.01461), as Elliot computes ``BiasDisparityBS``, ``BiasDisparityBR`` and ``BiasDisparityBD``: for a user
group G and an item category C, the preference ratio PR(G, C) is the share of C among the group's (user, item)
pairs, the bias B(G, C) = PR(G, C) / P(C) with P(C) the share of C among the items of ``item_groups``; the input
bias BS reads ``train``, the recommendation bias BR the top-k lists, BD = (BR - BS) / BS.

Counting is numpy (codes + bincount): no loop over users in Python; integer counts, so the table does not depend on
the order of rows, users or items.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .._options import check_k
from ..inputs import code_ids
from ._expected_exposure import _id_kind, _plain, _same_kind
from ._exposure import read_item_groups
from ._groups import resolve_groups
from ._tables import _columns_kw, _table, _top_items, _train

__all__ = ["bias_disparity"]


def bias_disparity(
    train: Any,
    recs: Any,
    *,
    item_groups: Any,
    user_groups: Any = None,
    k: Optional[int] = 10,
    user_col: Optional[str] = None,
    item_col: Optional[str] = None,
    relevance_col: Optional[str] = None,
    rank_col: Optional[str] = None,
    score_col: Optional[str] = None,
):
    """Input bias BS, recommendation bias BR and bias disparity BD per (user group, item category).

    Parameters
    ----------
    train : any truth-like form (the users' train interactions; each (user, item) pair counts once)
    recs : any recs form of :func:`rankmeter.evaluate` (each top-k entry counts)
    item_groups : every form of ``evaluate(item_groups=)``: item -> category or list of categories
        An item in several categories counts in each; an item without one counts in none (as Elliot's
        clustering file, where an item absent from the file is skipped).
    user_groups : a mapping user -> group, a pandas Series or ``rm.activity_groups(...)``; None: one group, "all"
        Every user of ``train`` and ``recs`` needs a group.
    k : int or None, default 10
        Cutoff of the lists (None: whole lists).

    Returns
    -------
    DataFrame (or dict of arrays without pandas)
        ``user_group, item_group, bs, br, bd``: one row per (group, category), groups then categories in sorted
        label order. NaN where a group has no categorised pair (or BS is 0 and BR is 0), inf where BS is 0 < BR.
    """
    k = check_k(k, "`k`")
    kw = _columns_kw(user_col, item_col, relevance_col, rank_col, score_col)
    ic = read_item_groups(item_groups, kw)
    t = _train(train, kw)
    r_indptr, r_items, r_users = _top_items(recs, k, kw)

    _kinds(np.asarray(ic.items), [("train", np.asarray(t.items)), ("recs", np.asarray(r_items))])
    t_users = t.users if t.users is not None else np.arange(t.n_users, dtype=np.int64)
    tu_ids = np.repeat(t_users, np.diff(t.indptr))
    ru_ids = np.repeat(r_users, np.diff(r_indptr))
    (tu, ru, all_u), n_u, _ = code_ids(_same_kind([tu_ids, ru_ids, np.concatenate(_same_kind([t_users, r_users]))]))
    (gi, ti, ri), n_i, _ = code_ids(_same_kind([np.asarray(ic.items), np.asarray(t.items), np.asarray(r_items)]))

    # every user's group
    if user_groups is None:
        labels_g: list = ["all"]
        group_of = np.zeros(n_u, dtype=np.int64)
    else:
        uniq_codes, first = np.unique(all_u, return_index=True)
        ids = _same_kind([t_users, r_users])
        all_ids = np.concatenate(ids)[first]
        labels_g, codes = resolve_groups(user_groups, all_ids, None, kw)
        group_of = np.zeros(n_u, dtype=np.int64)
        group_of[uniq_codes] = codes
    n_g = len(labels_g)

    # categories of every item code (CSR), and P(C)
    labels_c = list(ic.labels.tolist())
    n_c = len(labels_c)
    order = np.lexsort((ic.cats, gi))
    c_items, c_cats = gi[order], np.asarray(ic.cats, dtype=np.int64)[order]
    c_indptr = np.zeros(n_i + 1, dtype=np.int64)
    np.cumsum(np.bincount(c_items, minlength=n_i), out=c_indptr[1:])
    n_given = _n_given(ic)
    pc = np.bincount(c_cats, minlength=n_c) / max(n_given, 1)

    # train: each (user, item) pair once
    pairs = np.unique(tu * n_i + ti)
    bs = _bias(pairs // n_i, pairs % n_i, group_of, c_indptr, c_cats, n_g, n_c, pc)
    br = _bias(ru, ri, group_of, c_indptr, c_cats, n_g, n_c, pc)
    with np.errstate(divide="ignore", invalid="ignore"):
        bd = (br - bs) / bs
    gl = np.empty(n_g * n_c, dtype=object)
    gl[:] = [g for g in labels_g for _ in range(n_c)]
    cl = np.empty(n_g * n_c, dtype=object)
    cl[:] = [c for _ in range(n_g) for c in labels_c]
    return _table({"user_group": gl, "item_group": cl, "bs": bs.ravel(), "br": br.ravel(), "bd": bd.ravel()})


def _kinds(group_items: np.ndarray, sides: list) -> None:
    """Refuse item ids of another kind than those of ``item_groups`` (no item could get a category)."""
    if not group_items.size:
        return
    gk = _id_kind(group_items)
    for name, items in sides:
        if items.size and _id_kind(items) != gk:
            raise ValueError(
                f"`{name}` has {_id_kind(items)} item ids (e.g. {_plain(items[0])!r}) but `item_groups` has {gk} ones "
                f"(e.g. {_plain(group_items[0])!r}): no item can match; give both the same ids"
            )


def _n_given(ic: Any) -> int:
    """The number of distinct items of ``item_groups`` (with or without a category): Elliot's len(clustering)."""
    items = np.asarray(ic.items)
    empty = np.asarray(ic.empty)
    both = _same_kind([items, empty])
    return int(np.unique(np.concatenate(both)).size) if (items.size + empty.size) else 0


def _bias(users, items, group_of, c_indptr, c_cats, n_g: int, n_c: int, pc: np.ndarray) -> np.ndarray:
    """B(G, C) = (count(G, C) / count(G)) / P(C) over the (user, item) entries, an entry counted once per category
    of its item."""
    deg = np.diff(c_indptr)[items]
    row = np.repeat(np.arange(items.size, dtype=np.int64), deg)
    first = np.zeros(items.size, dtype=np.int64)
    np.cumsum(deg[:-1], out=first[1:])
    off = np.arange(row.size, dtype=np.int64) - first[row]
    cat = c_cats[c_indptr[items[row]] + off] if row.size else row
    g = group_of[users[row]]
    count = np.bincount(g * n_c + cat, minlength=n_g * n_c).reshape(n_g, n_c).astype(np.float64)
    total = count.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (count / total) / pc[None, :]
