"""The fused accuracy pass: every accuracy column of one call in one C++ pass over the users."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import _core
from .._aggregate import limbs_to_int
from .._status import MESSAGES, is_ok, message
from ._costs import aligned_costs
from ._options import DUP_CODES, EMPTY_CODES

if TYPE_CHECKING:
    from ._evaluate import _Plan

__all__ = ["accuracy_pass", "count_no_relevant"]


def count_no_relevant(p: _Plan, threads: int = 1) -> int:
    """Truth users without a relevant item (meta n_skipped when no accuracy column ran)."""
    t = p.truth
    if t.grades_native is None or (t.grades_native.dtype == np.float64 and t.grades_native.flags.c_contiguous):
        # one C++ pass over the grades (no temporary arrays)
        n, first = _core.count_no_relevant(np.ascontiguousarray(t.indptr), t.grades, p.min_relevance, threads)
        if p.empty == "error" and n:
            user = p.users[first].item() if isinstance(p.users[first], np.generic) else p.users[first]
            raise ValueError(message(_core.Code.empty_truth, user=user, item=0))
        return int(n) if p.empty == "skip" else 0
    if t.grades is None:  # pragma: no cover - handled above
        has = np.diff(t.indptr) > 0
    else:
        g = t.grades_native
        rel = g >= p.min_relevance if p.min_relevance is not None else g > 0
        nonempty = np.diff(t.indptr) > 0
        has = np.zeros(t.n_users, dtype=bool)
        if rel.size:
            has[nonempty] = np.logical_or.reduceat(rel, t.indptr[:-1][nonempty])
    if p.empty == "error" and not has.all():
        u = int(np.argmin(has))
        user = p.users[u].item() if isinstance(p.users[u], np.generic) else p.users[u]
        raise ValueError(message(_core.Code.empty_truth, user=user, item=0))
    return int(t.n_users - np.count_nonzero(has)) if p.empty == "skip" else 0


def check_cwl(p: _Plan, columns: list) -> None:
    """The C/W/L metrics (docs/metrics.md 3.21) take a whole number of positions `depth` (U-measure at least 2);
    under preset="cwl", gains in [0, max_gain], as cwl-eval does (it refuses a gain file with others; without
    the preset a grade outside [0, 1] is clipped)."""
    from ..metrics import SPECS

    cwl = [m for m in columns if SPECS[m.name].section.startswith("3.21.")]
    if not cwl:
        return
    g = p.truth.grades_native
    for m in cwl:
        depth, top = m.options["depth"], m.options["max_gain"]
        if depth != int(depth) or (m.name == "umeasure" and depth < 2):
            need = "an integer >= 2 (U-measure has no weight at 1 position)" if m.name == "umeasure" else "an integer"
            raise ValueError(f"metric {str(m)!r}: depth must be {need}, got {depth!r}")
        if p.preset != "cwl":
            continue
        if g is None:
            if top < 1.0 and p.truth.items.size:
                raise ValueError(
                    f"metric {str(m)!r} takes gains in [0, max_gain={top!r}] (cwl-eval's rule), and `truth` without "
                    "grades gains 1: give grades or max_gain=1"
                )
            continue
        bad = ~((g >= 0) & (g <= top))
        if bad.any():
            at = int(np.flatnonzero(bad)[0])
            uidx = int(np.searchsorted(p.truth.indptr, at, side="right")) - 1
            user = p.users[uidx] if 0 <= uidx < p.users.size else uidx
            user = user.item() if isinstance(user, np.generic) else user
            item = p.t_items[at]
            if p.labels is not None:
                item = p.labels[int(item)]
            item = item.item() if isinstance(item, np.generic) else item
            raise ValueError(
                f"`truth`: user {user!r}, item {item!r} has grade {float(g[at])!r}, but {str(m)!r} takes gains in "
                f"[0, {top!r}] as cwl-eval does (it refuses such a gain file): divide the grades by the top grade "
                "first (e.g. grade / 4 on a 0-4 scale)"
            )


def _any_cwl(columns: list) -> bool:
    from ..metrics import SPECS

    return any(SPECS[m.name].section.startswith("3.21.") for m in columns)


def accuracy_pass(p: _Plan, columns: list, threads: int, per_user: bool = True):
    """The C++ pass over `columns`: (per-user values per column, or Nones when not `per_user`;
    exact sums; counts)."""
    check_cwl(p, columns)
    padded = p.r_indptr is None
    t_items, r_items = p.t_items, p.r_items
    if t_items.dtype != r_items.dtype:  # int32 on one side only (or int64 placeholder ids): both as int64
        t_items, r_items = t_items.astype(np.int64), r_items.astype(np.int64)
    values, limbs, counts, n_skipped, status = _core.ranking_pass(
        p.truth.indptr,
        t_items,
        p.truth.grades_native,
        p.r_indptr,
        r_items,
        r_items.shape[1] if padded else 0,
        p.recs.pad if padded else -1,
        p.rowmap,
        [m._column() for m in columns],
        p.min_relevance,
        EMPTY_CODES[p.empty],
        DUP_CODES[p.duplicates],
        p.max_items or 0,
        threads,
        whole_lists=p.preset == "trec_eval",  # trec_eval checks whole lists for duplicates
        per_user=per_user,
        r_costs=aligned_costs(p) if p.ctx.costs is not None and _any_cwl(columns) else None,
    )
    code, uidx, item = status
    if not is_ok(code):
        Code = _core.Code
        user = p.users[uidx] if 0 <= uidx < p.users.size else uidx
        if isinstance(user, np.generic):
            user = user.item()
        if code == Code.bad_grade:  # a non-finite grade, found by the pass (which reads every grade)
            at = int(p.truth.indptr[uidx]) + int(item)
            g = p.truth.grades_native
            assert g is not None  # only grades can be non-finite
            tid = p.truth.items[at]
            tid = tid.item() if isinstance(tid, np.generic) else tid
            raise ValueError(message(code, user=user, grade=g[at], item=tid))
        if code in (Code.duplicate_truth, Code.duplicate_recs) and p.labels is not None:
            item = p.labels[item]
        side = "recs" if code == Code.bad_indptr and item == 1 else "truth"
        t = p.truth
        if code == Code.duplicate_truth and t.source_rows is not None and 0 <= uidx < t.n_users:
            b, e = int(t.indptr[uidx]), int(t.indptr[uidx + 1])
            seg = t.items[b:e]
            pos = (
                np.flatnonzero(seg == item)
                if seg.dtype != object
                else np.array([j for j, x in enumerate(seg.tolist()) if x == item], dtype=np.int64)
            )
            rows = np.sort(t.source_rows[b + pos])
            if rows.size >= 2:
                raise ValueError(
                    f"`truth` column {t.source_col!r}: item {item!r} appears more than once for user "
                    f"{user!r} (rows {int(rows[0])} and {int(rows[1])}); a user's truth items must be "
                    "unique: combine the repeats with truth_duplicates='max', 'sum', 'first' or 'last'"
                )
        if code not in MESSAGES:  # pragma: no cover - every code the pass returns has a message
            raise ValueError(f"invalid input at user {user!r}")
        raise ValueError(message(code, user=user, item=item, side=side))
    p.meta["n_skipped"] = int(n_skipped)
    sums = [limbs_to_int(limbs[i]) for i in range(limbs.shape[0])]
    vals = list(values) if values is not None else [None] * len(columns)
    return vals, sums, [int(c) for c in counts]
