"""The ``costs`` argument of the C/W/L metrics (docs/metrics.md 3.21): the cost of each (user, item) of the lists,
as cwl-eval's cost file gives it per element type. The accuracy pass reads it as one cost per list position,
aligned with the lists (NaN where no cost is given: the metric's ``max_cost``, ``min_cost`` in the residuals'
best case)."""

from __future__ import annotations

import os
from typing import Any, Optional

import numpy as np

from ._context_columns import context_ids, pick_column

__all__ = ["Costs", "read_costs", "read_cost_file", "aligned_costs", "check_costs"]

_USER = ("user_id", "query_id", "topic", "qid", "user", "query")
_ITEM = ("item_id", "doc_id", "docno", "item", "doc")
_COST = ("cost",)


class Costs:
    """The costs as three aligned arrays (users, items, costs), one row per (user, item)."""

    __slots__ = ("users", "items", "costs")

    def __init__(self, users: np.ndarray, items: np.ndarray, costs: np.ndarray):
        self.users, self.items, self.costs = users, items, costs


def read_cost_file(path: str) -> dict:
    """cwl-eval's cost file: ``element_type cost`` a line (whitespace-separated; a repeated type: its last
    line), as a dict element type -> cost."""
    out: dict = {}
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            parts = line.split()
            if len(parts) != 2:
                raise ValueError(f"cost file {path!r} line {no}: expected 'element_type cost', got {line.strip()!r}")
            try:
                out[parts[0]] = float(parts[1])
            except ValueError:
                raise ValueError(f"cost file {path!r} line {no}: cost {parts[1]!r} is not a number") from None
    return out


def read_costs(x: Any, table_kw: dict) -> Costs:
    """The ``costs`` argument as three checked arrays (before any work)."""
    if isinstance(x, Costs):
        return x
    if isinstance(x, (str, os.PathLike)):
        raise TypeError(
            "`costs` takes the cost of each (user, item), not a file: map cwl-eval's element types to costs "
            "first (rankmeter.evaluation._costs.read_cost_file reads a cost file; `rankmeter cwl -c` does both)"
        )
    if hasattr(x, "to_pandas") and not hasattr(x, "iloc"):  # pyarrow, polars
        x = x.to_pandas()
    if isinstance(x, tuple) and len(x) == 3:
        cols = list(x)
    elif hasattr(x, "columns") or isinstance(x, dict):
        keys = list(x.columns) if hasattr(x, "columns") else list(x)
        u = pick_column(keys, _USER, table_kw.get("recs_user_col") or table_kw.get("user_col"), "user", "costs")
        i = pick_column(keys, _ITEM, table_kw.get("recs_item_col") or table_kw.get("item_col"), "item", "costs")
        c = pick_column(keys, _COST, None, "cost", "costs")
        cols = [np.asarray(x[k]) for k in (u, i, c)]
    else:
        raise TypeError(
            "`costs` must be a table or dict with user, item and cost columns, or a tuple of those three arrays; "
            f"got {type(x).__name__}"
        )
    users, items = context_ids(cols[0], "user", "costs"), context_ids(cols[1], "item", "costs")
    try:
        costs = np.asarray(cols[2], dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("`costs`: costs must be numbers") from None
    if costs.ndim != 1 or not (users.size == items.size == costs.size):
        raise ValueError("`costs`: the user, item and cost columns must have the same length")
    if costs.size and not np.all(np.isfinite(costs)):
        bad = int(np.argmax(~np.isfinite(costs)))
        raise ValueError(f"`costs` must be finite; user {users[bad]!r} has cost {costs[bad]} for item {items[bad]!r}")
    out = Costs(users, items, costs)
    if users.size > 1:
        u, _ = _codes(users, "user")
        i, _ = _codes(items, "item")
        key = u * max(int(i.max()) + 1, 1) + i
        order = np.argsort(key, kind="stable")
        same = np.flatnonzero(key[order][1:] == key[order][:-1])
        if same.size:
            r = int(order[same[0] + 1])
            raise ValueError(
                f"`costs` gives item {items[r]!r} of user {users[r]!r} more than one cost: keep one row per "
                "(user, item)"
            )
    return out


def _codes(a: np.ndarray, what: str) -> tuple:
    """Dense codes of the ids (numpy only) and their number."""
    try:
        uniq, inv = np.unique(a, return_inverse=True)
    except TypeError:
        raise TypeError(f"`costs`: {what} ids mix types: use one type") from None
    return inv.reshape(-1).astype(np.int64), int(uniq.size)


def _index_in(ids: np.ndarray, of: np.ndarray) -> np.ndarray:
    """The position of each of ``ids`` in ``of`` (distinct values), -1 where absent (numpy only)."""
    if ids.size == 0 or of.size == 0:
        return np.full(ids.size, -1, dtype=np.int64)
    order = np.argsort(of, kind="stable")
    srt = of[order]
    at = np.minimum(np.searchsorted(srt, ids), srt.size - 1)
    found = srt[at] == ids
    return np.where(found, order[at], -1).astype(np.int64)


def check_costs(costs: Optional[Costs], metrics: list, duplicates: str) -> None:
    """Costs are read by the C/W/L metrics only, position by position of the lists as given."""
    if costs is None:
        return
    from ..metrics import SPECS

    if not any(SPECS[m.name].section.startswith("3.21.") for m in metrics):
        raise ValueError(
            "`costs` is read by the C/W/L metrics only (cwl_p, cwl_rbp, sdcg, inst, bpm, umeasure, tbg, ...), "
            "and none is asked for: ask for one, or drop `costs`"
        )
    if duplicates == "first":
        raise ValueError(
            "`costs` gives each position of a list its item's cost, and duplicates='first' closes a list up "
            "around a repeated item: use duplicates='count' (cwl-eval's rule), 'miss' or 'error'"
        )


def _same_kind(a: np.ndarray, b: np.ndarray) -> bool:
    def kind(x: np.ndarray) -> str:
        if x.dtype != object:
            return "int" if x.dtype.kind in "iu" else x.dtype.kind
        v = x[0] if x.size else None
        return "int" if isinstance(v, (int, np.integer)) else "str"

    return a.size == 0 or b.size == 0 or kind(a) == kind(b)


def aligned_costs(p: Any) -> Optional[np.ndarray]:
    """The cost of every entry of the plan's lists (``p.r_items``' shape; NaN: no cost given), None without
    ``costs``. Vectorised, numpy only: one sorted join of the (user, item) pairs of the lists with the cost
    table."""
    c: Optional[Costs] = p.ctx.costs
    if c is None:
        return None
    users = np.asarray(p.users)
    for ids, what in ((users, "user"), (None, "item")):
        if ids is not None and not _same_kind(ids, c.users):
            raise ValueError(
                f"`costs` {what} ids and the evaluated {what}s' ids are of different kinds (str against int): "
                "give both the same type"
            )
    r_items = p.r_items
    shape = r_items.shape
    flat = r_items.reshape(-1)
    # each entry's user (index into p.users; -1: a row no evaluated user reads)
    n_rows = shape[0] if p.r_indptr is None else p.r_indptr.size - 1
    row_user = np.full(n_rows, -1, dtype=np.int64)
    n_users = users.size
    if p.rowmap is None:
        row_user[:n_users] = np.arange(n_users, dtype=np.int64)
    else:
        ok = p.rowmap >= 0
        row_user[p.rowmap[ok]] = np.flatnonzero(ok)
    if p.r_indptr is None:
        entry_user = np.repeat(row_user, shape[1]) if len(shape) == 2 else row_user
    else:
        entry_user = np.repeat(row_user, np.diff(p.r_indptr))
    # the cost table's users and items as the plan's indices and item codes
    cu = _index_in(c.users, users)
    if p.labels is not None:
        labels = np.asarray(p.labels)
        if not _same_kind(labels, c.items):
            raise ValueError(
                "`costs` item ids and the lists' item ids are of different kinds (str against int): give both the "
                "same type"
            )
        ci = _index_in(c.items, labels)
    else:
        if c.items.size and c.items.dtype == object:
            raise ValueError("`costs` item ids are strings, the lists' item ids integers: give both the same type")
        ci = c.items.astype(np.int64)
    keep = (cu >= 0) & (ci >= 0) if p.labels is not None else cu >= 0
    cu, ci, vals = cu[keep], ci[keep], c.costs[keep]
    out = np.full(flat.size, np.nan)
    if vals.size and flat.size:
        # one int64 key per (user, item): the items of the table and of the lists coded together
        items = flat.astype(np.int64)
        both, inv = np.unique(np.concatenate([ci, items]), return_inverse=True)
        inv = inv.reshape(-1)
        width = int(both.size)
        tkey = cu * width + inv[: ci.size]
        ekey = entry_user * width + inv[ci.size :]
        order = np.argsort(tkey, kind="stable")
        srt = tkey[order]
        at = np.minimum(np.searchsorted(srt, ekey), srt.size - 1)
        hit = (srt[at] == ekey) & (entry_user >= 0)
        out[hit] = vals[order[at[hit]]]
    return np.ascontiguousarray(out.reshape(shape), dtype=np.float64)
