"""``ties="average"``: tie-averaged DCG and NDCG (scikit-learn's ``dcg_score``/``ndcg_score``).

When a list is ranked by score and several items share a score, scikit-learn
(and torchmetrics' retrieval NDCG, which follows it) does not pick an order
among them: every item of a tie group spanning positions a..b gets the mean
discount of the positions of the group that lie within the cutoff,

    DCG@k = sum over tie groups G of  mean_{i in G} g(rel_i) * sum_{a_G <= j <= min(b_G, k)} 1 / log_b(j + 1)

(McSherry & Najork, ECIR 2008). A group that straddles k counts partly, so an
item below k that is tied with one above it adds to DCG@k. The ideal DCG is the
column's usual ideal (ties do not matter there). Only dcg and ndcg have a
tie-averaged form; other metrics are rejected with ties="average".

The lists are ranked first (any order within a group: the group's value does
not depend on it); the fused pass runs as usual for the relevance counts and
the empty= policy, and the DCG/NDCG columns are then replaced by the
tie-averaged values, computed vectorised over all users at once.

A repeated item (``duplicates="miss"`` or ``"count"``; "first" is refused with
ties="average") keeps its position in its tie group; under "miss" it gains
nothing, under "count" it gains its grade again, as in the fused pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import numpy as np

from .. import _core

if TYPE_CHECKING:
    from ..metrics import Metric
    from ._evaluate import _Plan

__all__ = [
    "AVERAGE_TIES",
    "TIE_AVERAGED",
    "TIE_LAST",
    "apply_tie_average",
    "apply_tie_last",
    "check_tie_last",
    "repeated_entries",
]

TIE_AVERAGED = ("dcg", "ndcg")
# the tie rules that average tie groups: scikit-learn's (float64 scores) and torchmetrics' (float32 scores)
AVERAGE_TIES = ("average", "torch_average")


def _gains(grades: np.ndarray, relevant: np.ndarray, gain: str, below_min: str) -> np.ndarray:
    if gain == "binary":
        g = relevant.astype(np.float64)
    elif gain == "exponential":
        g = np.where(grades > 0, np.exp2(np.maximum(grades, 0.0)) - 1.0, 0.0)
    else:
        g = np.maximum(grades, 0.0)
    if below_min == "zero":
        g = np.where(relevant, g, 0.0)
    return g


def _discounts(n: int, base: float) -> np.ndarray:
    """cumulative discounts D[0..n]: D[p] = sum_{j<=p} 1 / log_b(j + 1)."""
    j = np.arange(1, n + 1, dtype=np.float64)
    d = 1.0 / np.log2(j + 1.0) if base == 2.0 else 1.0 / (np.log(j + 1.0) / np.log(base))
    out = np.zeros(n + 1)
    np.cumsum(d, out=out[1:])
    return out


def repeated_entries(row_of: np.ndarray, code: np.ndarray, width: int) -> np.ndarray:
    """Mask of the list entries whose item already appeared earlier in the same row (``code``: dense item
    codes below ``width``)."""
    key = row_of * width + code
    order = np.lexsort((np.arange(key.size), key))
    repeat = np.zeros(key.size, dtype=bool)
    if key.size > 1:
        repeat[order[1:]] = key[order[1:]] == key[order[:-1]]
    return repeat


def _entry_relevance(p: _Plan) -> tuple:
    """Each entry of the ranked lists joined with the truth: (row_of, 1-based position, grade, relevant) per
    entry, and (t_user, grades, relevant, |R| per user, rowmap, has_row) of the truth side."""
    t = p.truth
    n_users = t.n_users
    indptr = p.r_indptr
    assert indptr is not None  # score-ranked forms are CSR
    items = p.r_items
    n_rows = indptr.size - 1
    row_len = np.diff(indptr)
    row_of = np.repeat(np.arange(n_rows, dtype=np.int64), row_len)
    pos = np.arange(items.size, dtype=np.int64) - indptr[:-1][row_of] + 1  # 1-based position in the row

    # truth grade of every list entry: join on (user, item) through dense item codes
    t_user = np.repeat(np.arange(n_users, dtype=np.int64), np.diff(t.indptr))
    grades_t = t.grades if t.grades is not None else np.ones(t_user.size)
    uniq, inv = np.unique(np.concatenate([p.t_items, items]), return_inverse=True)
    width = max(int(uniq.size), 1)
    t_code, r_code = inv[: p.t_items.size], inv[p.t_items.size :]
    user_of_row = np.full(n_rows, -1, dtype=np.int64)
    rowmap = p.rowmap if p.rowmap is not None else np.arange(n_users, dtype=np.int64)
    has_row = rowmap >= 0
    user_of_row[rowmap[has_row]] = np.flatnonzero(has_row)
    r_user = user_of_row[row_of]
    t_key = t_user * width + t_code
    order = np.argsort(t_key, kind="stable")
    t_key_sorted = t_key[order]
    r_key = np.where(r_user >= 0, r_user * width + r_code, -1)
    at = np.searchsorted(t_key_sorted, r_key)
    at_c = np.minimum(at, max(t_key_sorted.size - 1, 0))
    found = (r_key >= 0) & (at < t_key_sorted.size)
    if t_key_sorted.size:
        found &= t_key_sorted[at_c] == r_key
    r_grade = np.zeros(items.size)
    if t_key_sorted.size:
        r_grade[found] = grades_t[order[at_c[found]]]
    if p.duplicates == "miss":  # a repeat keeps its position but gains nothing
        found &= ~repeated_entries(row_of, r_code, width)
        r_grade[~found] = 0.0
    mr = p.min_relevance
    r_rel = found & ((r_grade >= mr) if mr is not None else (r_grade > 0))
    t_rel = (grades_t >= mr) if mr is not None else (grades_t > 0)
    nrel = np.bincount(t_user, weights=t_rel.astype(np.float64), minlength=n_users)
    return row_of, pos, r_grade, r_rel, t_user, grades_t, t_rel, nrel, rowmap, has_row


def apply_tie_average(
    p: _Plan, cols: list[Metric], values: list, sums: list, counts: list, threads: int, scores: np.ndarray
) -> None:
    """Replace the dcg/ndcg columns of `values` (and their exact sums) by their tie-averaged values."""
    n_users = p.truth.n_users
    indptr = p.r_indptr
    assert indptr is not None  # score-ranked forms are CSR
    items = p.r_items
    n_rows = indptr.size - 1
    row_len = np.diff(indptr)
    row_of, pos, r_grade, r_rel, t_user, grades_t, t_rel, nrel, rowmap, has_row = _entry_relevance(p)

    # tie groups: a new group starts at each row start and at each change of score
    start = np.ones(items.size, dtype=bool)
    if items.size > 1:
        start[1:] = (row_of[1:] != row_of[:-1]) | (scores[1:] != scores[:-1])
    gid = np.cumsum(start) - 1
    g_first = np.flatnonzero(start)
    g_count = np.diff(np.append(g_first, items.size))
    a = pos[g_first][gid]  # first position of the entry's group
    b = a + g_count[gid] - 1  # last position
    cnt = g_count[gid].astype(np.float64)
    max_len = int(row_len.max()) if n_rows else 0

    for j, m in enumerate(cols):
        if m.name not in TIE_AVERAGED:
            continue
        base = float(m.options.get("log_base", 2.0)) if m.name == "dcg" else 2.0
        D = _discounts(max_len, base)
        klim = np.minimum(m.k, max_len) if m.k is not None else row_len[row_of]
        lo = np.minimum(a - 1, klim)
        hi = np.minimum(b, klim)
        g = _gains(r_grade, r_rel, m.options["gain"], m.options["below_min"])
        contrib = g * (D[hi] - D[lo]) / cnt
        dcg_row = np.bincount(row_of, weights=contrib, minlength=n_rows)
        dcg = np.zeros(n_users)
        dcg[has_row] = dcg_row[rowmap[has_row]]
        v = values[j]
        if m.name == "dcg":
            new = np.where(np.isnan(v), v, dcg)
        else:
            idcg = _ideal(p, m, t_user, grades_t, t_rel, n_users, row_len, rowmap, has_row)
            ratio = np.divide(dcg, idcg, out=np.zeros(n_users), where=idcg > 0)
            # empty="one" set users without a relevant item to 1; "zero" keeps the computed value (as the pass does)
            new = np.where(np.isnan(v) | ((nrel == 0) & (p.empty == "one")), v, ratio)
        values[j] = new
        limbs, count = _core.exact_sum(np.ascontiguousarray(new, dtype=np.float64), threads)
        from .._aggregate import limbs_to_int

        sums[j], counts[j] = limbs_to_int(limbs), int(count)


def _ideal(p, m, t_user, grades, t_rel, n_users, row_len, rowmap, has_row) -> np.ndarray:
    g = _gains(grades, t_rel, m.options["gain"], m.options["below_min"])
    ideal = m.options["ideal"]
    if ideal == "k_slots":
        gmax = np.zeros(n_users)
        np.maximum.at(gmax, t_user, g)
        n = np.zeros(n_users, dtype=np.int64)
        n[has_row] = row_len[rowmap[has_row]]
        k = np.full(n_users, m.k, dtype=np.int64) if m.k is not None else n
        D = _discounts(int(k.max()) if k.size else 0, 2.0)
        return gmax * D[k]
    order = np.lexsort((-g, t_user))
    gs, us = g[order], t_user[order]
    first = np.searchsorted(us, us, side="left")
    rank = np.arange(us.size) - first + 1
    keep = np.ones(us.size, dtype=bool) if (ideal == "all" or m.k is None) else rank <= m.k
    D = _discounts(int(rank.max()) if rank.size else 0, 2.0)
    disc = D[rank] - D[rank - 1]
    return np.bincount(us[keep], weights=(gs * disc)[keep], minlength=n_users)


# ties="last": every item of a tie group at positions a..b sits at rank b (scipy's rankdata(method="max")), the
# metrics that have that form (docs/metrics.md 6.3)
TIE_LAST = ("ap",)


def check_tie_last(metrics: list[Metric], duplicates: str, max_items: Optional[int]) -> None:
    """ties="last" is defined for ap over the list (no Evidently rows or short-list repeats, no score gate)."""
    other = [str(m) for m in metrics if m.name not in TIE_LAST]
    if other:
        raise ValueError(
            f"ties='last' (a tie group at its last rank, Cornac's MAP) is defined for ap only; got "
            f"{', '.join(other)}: give those another rule (ties={{'ap': 'last', '*': 'item'}}) or evaluate them in "
            "another call"
        )
    odd = [
        str(m)
        for m in metrics
        if m.options.get("short_lists") != "pad" or m.options.get("rows") != "list" or m.options["hit_scores"] != "any"
    ]
    if odd:
        raise ValueError(
            f"ties='last' reads AP at the end of each tie group of the list: short_lists='evidently', "
            f"rows='evidently' and hit_scores='positive' have no meaning there ({', '.join(odd)})"
        )
    if duplicates == "first" or max_items is not None:
        raise ValueError(
            "ties='last' cannot be combined with duplicates='first' or max_items (they change which items a tie "
            "group holds); duplicates='miss' and 'count' are accepted"
        )


def apply_tie_last(
    p: _Plan, cols: list[Metric], values: list, sums: list, counts: list, threads: int, scores: np.ndarray
) -> None:
    """Replace the ap columns of `values` (and their exact sums) by their values with every tie group at its last
    rank: each hit of a group at positions a..b reads P@b, and only groups with b <= k are within the cutoff."""
    from .._aggregate import limbs_to_int

    n_users = p.truth.n_users
    indptr = p.r_indptr
    assert indptr is not None  # score-ranked forms are CSR
    row_len = np.diff(indptr)
    _, _, _, r_rel, _, _, _, nrel, rowmap, has_row = _entry_relevance(p)
    rel8 = np.ascontiguousarray(r_rel, dtype=np.uint8)
    ip = np.ascontiguousarray(indptr, dtype=np.int64)
    sc = np.ascontiguousarray(scores, dtype=np.float64)
    n = np.zeros(n_users, dtype=np.int64)
    n[has_row] = row_len[rowmap[has_row]]
    for j, m in enumerate(cols):
        if m.name not in TIE_LAST:
            continue
        row_sum, row_hits = _core.ap_tie_last(ip, sc, rel8, int(m.k or 0), threads)
        s = np.zeros(n_users)
        h = np.zeros(n_users)
        s[has_row] = row_sum[rowmap[has_row]]
        h[has_row] = row_hits[rowmap[has_row]]
        k = np.full(n_users, m.k, dtype=np.int64) if m.k is not None else n
        den = {
            "relevant": nrel,
            "min_relevant_k": np.minimum(nrel, k),
            "hits": h,
            "k": k.astype(np.float64),
            "min_listed": np.minimum(nrel, np.minimum(k, n)),
        }[m.options["denominator"]].astype(np.float64)
        ap = np.divide(s, den, out=np.zeros(n_users), where=den > 0)
        v = values[j]
        # empty="one" set users without a relevant item to 1, skipped users are NaN: both kept (as the pass does)
        new = np.where(np.isnan(v) | ((nrel == 0) & (p.empty == "one")), v, ap)
        values[j] = new
        limbs, count = _core.exact_sum(np.ascontiguousarray(new, dtype=np.float64), threads)
        sums[j], counts[j] = limbs_to_int(limbs), int(count)
