"""Evidently's accuracy metrics: ``rows="evidently"`` and ``ties="evidently"`` (docs/metrics.md 6.3 and 11.2).

Evidently (``legacy/metrics/recsys/*.py`` behind ``evidently.metrics``) reads one long table per user: a row per
recommended item (its rank, or a score it ranks by) and a row per relevant item that was not recommended, each
with a target. Its code then computes, for the rows ranked at or above j,

- ``tp_j`` (relevant rows), ``precision_j = tp_j / min(size, j)`` with ``size`` the number of the user's rows;
- ``rel_j``: the target of the last row (in row order) ranked at or above j;
- MAP@k = Σ_{j<=k} precision_j rel_j / (relevant rows), MAR@k = Σ_{j<=k} recall_j rel_j / (relevant rows);
- NDCG@k: Σ target / log2(rank + 1) over the rows ranked at or above k, divided by the ideal DCG of every row's
  target (negative targets included) sorted descending and cut at k, 0 when that ratio is not finite;
- with scores, a row's rank is the average of the positions its tie group spans, floored (``astype(int)``).

rankmeter's lists are Evidently's recommended rows and its truth items not in the list are the other rows (a row
past every cutoff, whose target is its grade), so ``size = n + |truth items not listed|``. The columns with
``rows="evidently"`` (precision, ap and ar with ``short_lists="evidently"``, and ndcg) are recomputed here with
that size (and, for ndcg, the signed grades over every row), and under ``ties="evidently"`` on lists ranked by
score every accuracy column is recomputed with the floored tie ranks. Everything is vectorised over the entries
of all lists at once; the sums over j use closed forms (the values change only at the distinct ranks of a list).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import numpy as np

from .. import _core
from .._aggregate import limbs_to_int
from ._ties import _gains, _ideal

if TYPE_CHECKING:
    from ..metrics import Metric
    from ._evaluate import _Plan

__all__ = ["EVIDENTLY_TIED", "check_evidently_options", "check_evidently_ties", "uses_evidently", "apply_evidently"]

# the accuracy metrics with a value under ties="evidently" (every entry of a tie group at its floored average rank)
EVIDENTLY_TIED = ("hits", "precision", "recall", "fbeta", "ap", "ar", "ndcg", "hit_rate", "rr")


def check_evidently_options(metrics: list[Metric], duplicates: str, max_items: Optional[int], ties: str) -> None:
    """rows="evidently" is Evidently's whole formula: it needs the options it was defined with."""
    for m in metrics:
        if m.family != "accuracy" or m.options.get("rows") != "evidently":
            continue
        o = m.options
        if m.name in ("precision", "ap", "ar") and o["short_lists"] != "evidently":
            raise ValueError(
                f"{m}: rows='evidently' counts a user's rows (its list plus its truth items not in the list) in the "
                f"denominators of short_lists='evidently': use {m.name}(short_lists=evidently,rows=evidently), as "
                f"preset='evidently' does, or rows=list ({m.name}(short_lists=pad,rows=list) under that preset)"
            )
        if o.get("hit_scores", "any") != "any":
            raise ValueError(f"{m}: rows='evidently' cannot be combined with hit_scores='positive'")
        if m.name in ("ap", "ar") and o["denominator"] != "relevant":
            raise ValueError(
                f"{m}: rows='evidently' is Evidently's MAP/MAR, which divide by |R| (denominator='relevant'); "
                "pass rows=list for another denominator"
            )
        if m.name == "ndcg" and (
            o["gain"] not in ("linear", "binary")
            or o["ideal"] != "cut"
            or o["below_min"] != "gain"
            or o["rounding"] != "none"
            or o["discount"] != "reciprocal"
        ):
            raise ValueError(
                f"{m}: rows='evidently' is Evidently's NDCG: gain 'linear' (the grade itself, negative grades "
                "included) or 'binary' (min_rel_score), ideal='cut', below_min='gain', rounding='none', discount='reciprocal'; pass "
                "rows=list for rankmeter's NDCG with other options"
            )
    for m in metrics:
        if m.name == "serendipity" and m.options["aggregate"] == "sum" and m.options["relevance"] == "all":
            raise ValueError(
                f"{m}: aggregate='sum' (Evidently's) sums over the relevant top-k items: use relevance='relevant'"
            )
    if (any(m.options.get("rows") == "evidently" for m in metrics) or ties == "evidently") and (
        duplicates != "error" or max_items is not None
    ):
        what = "rows='evidently'" if ties != "evidently" else "ties='evidently'"
        raise ValueError(
            f"{what} reads every list as Evidently's rows: it cannot be combined with duplicates={duplicates!r} "
            "(only 'error') or max_items"
        )


def check_evidently_ties(metrics: list[Metric]) -> None:
    """ties="evidently" on lists ranked by score: the metrics that have a value at floored average ranks."""
    bad = [
        str(m)
        for m in metrics
        if (m.family == "accuracy" and m.name not in EVIDENTLY_TIED)
        or m.name == "fcp"
        or m.options.get("hit_scores", "any") != "any"
        or (m.name in ("ap", "ar") and m.options["short_lists"] != "evidently")
        or (m.name == "novelty" and m.options["divide_by"] == "k")
        or (m.name == "ndcg" and m.options["rounding"] != "none")
    ]
    if bad:
        raise ValueError(
            "ties='evidently' (Evidently's ranks: a tie group at positions a..b sits at rank floor((a+b)/2)) is "
            f"defined for {', '.join(EVIDENTLY_TIED)} (ap and ar with short_lists='evidently', Evidently's rel_j), "
            f"and the beyond-accuracy metrics but fcp and novelty(divide_by=k); got {', '.join(bad)}: evaluate those "
            "in another call with ties='input'"
        )


def uses_evidently(p: _Plan, cols: list[Metric]) -> bool:
    return p.evidently_scores is not None or any(m.options.get("rows") == "evidently" for m in cols)


def _csr(p: _Plan) -> tuple[np.ndarray, np.ndarray]:
    if p.r_indptr is not None:
        return p.r_indptr, p.r_items
    valid = p.r_items != p.recs.pad
    indptr = np.zeros(p.r_items.shape[0] + 1, dtype=np.int64)
    np.cumsum(valid.sum(axis=1), out=indptr[1:])
    return indptr, p.r_items[valid]


def floored_ranks(indptr: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Evidently's rank of every entry of lists ordered by score: the tie group at positions a..b (1-based, equal
    scores next to each other) gets floor((a + b) / 2)."""
    n = scores.size
    row_len = np.diff(indptr)
    row_of = np.repeat(np.arange(row_len.size, dtype=np.int64), row_len)
    pos = np.arange(n, dtype=np.int64) - indptr[:-1][row_of] + 1
    start = np.ones(n, dtype=bool)
    if n > 1:
        start[1:] = (row_of[1:] != row_of[:-1]) | (scores[1:] != scores[:-1])
    gid = np.cumsum(start) - 1
    first = np.flatnonzero(start)
    count = np.diff(np.append(first, n))
    a = pos[first][gid]
    b = a + count[gid] - 1
    return (a + b) // 2


def _codes(t_items: np.ndarray, r_items: np.ndarray, n_users: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Item codes for (user, item) keys user * width + code: the ids themselves when they are small
    non-negative integers (no sort), else dense codes of the ids of both sides."""
    if t_items.dtype.kind in "iu" and r_items.dtype.kind in "iu":
        lo = min(int(a.min()) for a in (t_items, r_items) if a.size) if t_items.size + r_items.size else 0
        hi = max(int(a.max()) for a in (t_items, r_items) if a.size) if t_items.size + r_items.size else 0
        if lo >= 0 and (hi + 1) * max(n_users, 1) < 2**62:
            return t_items.astype(np.int64, copy=False), r_items.astype(np.int64, copy=False), hi + 1
    uniq, inv = np.unique(np.concatenate([t_items, r_items]), return_inverse=True)
    return inv[: t_items.size], inv[t_items.size :], max(int(uniq.size), 1)


def _harmonic(n: int) -> np.ndarray:
    """C[x] = Σ_{j=1..x} 1/j for x = 0..n."""
    out = np.zeros(n + 1)
    if n:
        np.cumsum(1.0 / np.arange(1, n + 1, dtype=np.float64), out=out[1:])
    return out


def apply_evidently(p: _Plan, cols: list[Metric], values: list, sums: list, counts: list, threads: int) -> None:
    """Replace the columns Evidently computes its own way (see the module docstring), and their exact sums."""
    tied = p.evidently_scores is not None
    todo = [
        j for j, m in enumerate(cols) if m.options.get("rows") == "evidently" or (tied and m.name in EVIDENTLY_TIED)
    ]
    if not todo:
        return
    t = p.truth
    n_users = t.n_users
    indptr, items = _csr(p)
    n_rows = indptr.size - 1
    row_len = np.diff(indptr)
    row_of = np.repeat(np.arange(n_rows, dtype=np.int64), row_len)
    pos = np.arange(items.size, dtype=np.int64) - indptr[:-1][row_of] + 1
    rank = floored_ranks(indptr, p.evidently_scores) if p.evidently_scores is not None else pos

    rowmap = p.rowmap if p.rowmap is not None else np.arange(n_users, dtype=np.int64)
    has_row = rowmap >= 0
    user_of_row = np.full(n_rows, -1, dtype=np.int64)
    user_of_row[rowmap[has_row]] = np.flatnonzero(has_row)
    e_user = user_of_row[row_of]
    live = e_user >= 0  # entries of the evaluated users' lists

    # truth grade of every entry: join on (user, item) through dense item codes
    t_len = np.diff(t.indptr)
    t_user = np.repeat(np.arange(n_users, dtype=np.int64), t_len)
    t_grade = t.grades if t.grades is not None else np.ones(t_user.size)
    t_code, r_code, width = _codes(p.t_items, items, n_users)
    t_key = t_user * width + t_code
    order = np.argsort(t_key)  # the keys are unique (a user's truth items are)
    t_sorted = t_key[order]
    r_key = np.where(live, e_user * width + r_code, -1)
    at = np.minimum(np.searchsorted(t_sorted, r_key), max(t_sorted.size - 1, 0))
    found = live & (t_sorted[at] == r_key) if t_sorted.size else np.zeros(items.size, dtype=bool)
    e_grade = np.zeros(items.size)
    e_grade[found] = t_grade[order[at[found]]]

    mr = p.min_relevance

    def relevant(g: np.ndarray) -> np.ndarray:
        return g >= mr if mr is not None else g > 0

    rel_list = found & relevant(e_grade)  # rankmeter: only truth items can be relevant
    rel_rows = live & relevant(e_grade)  # Evidently: an entry without a truth row is a row with target 0
    t_rel = relevant(t_grade)
    n_of = np.zeros(n_users, dtype=np.int64)
    n_of[has_row] = row_len[rowmap[has_row]]
    nrel_list = np.bincount(t_user[t_rel], minlength=n_users)
    nrel_rows = nrel_list + np.bincount(e_user[rel_rows & ~found], minlength=n_users)
    n_found = np.bincount(e_user[found], minlength=n_users)
    size = n_of + t_len - n_found  # Evidently's rows: the list plus the truth items not in it

    # groups of equal rank within a list (a single entry each without ties), for AP/AR
    if any(cols[j].name in ("ap", "ar") for j in todo):
        if tied:
            g_start = np.ones(items.size, dtype=bool)
            if items.size > 1:
                g_start[1:] = (row_of[1:] != row_of[:-1]) | (rank[1:] != rank[:-1])
            g_first = np.flatnonzero(g_start)
            g_last = np.empty_like(g_first)
            g_last[:-1] = g_first[1:] - 1
            g_last[-1:] = items.size - 1
            g_rank = rank[g_first]
            g_next = np.full(g_first.size, -1, dtype=np.int64)  # rank of the next group of the same list (-1: none)
            same = row_of[g_first[1:]] == row_of[g_first[:-1]]
            g_next[:-1][same] = g_rank[1:][same]
        else:
            g_first = g_last = np.arange(items.size, dtype=np.int64)
            g_rank = pos
            g_next = np.where(pos < row_len[row_of], pos + 1, -1)
        g_user = e_user[g_first]
        g_row_start = indptr[:-1][row_of[g_last]]
        harmonic = _harmonic(int(max(int(size.max(initial=0)), int(n_of.max(initial=0)))))

    for j in todo:
        m = cols[j]
        o = m.options
        use_rows = o.get("rows") == "evidently"
        rel = rel_rows if use_rows else rel_list
        nrel = nrel_rows if use_rows else nrel_list
        k_of = np.full(n_users, m.k, dtype=np.int64) if m.k is not None else n_of
        e_k = np.where(live, k_of[np.maximum(e_user, 0)], 0)
        in_k = live & (rank <= e_k)
        hits = np.bincount(e_user[in_k & rel], minlength=n_users).astype(np.float64)
        name = m.name
        if name == "hits":
            val = hits
        elif name == "hit_rate":
            val = (hits > 0).astype(np.float64)
        elif name == "rr":
            first = np.full(n_users, np.inf)
            sel = in_k & rel
            np.minimum.at(first, e_user[sel], rank[sel].astype(np.float64))
            val = np.where(np.isfinite(first), 1.0 / first, 0.0)
        elif name == "precision":
            if o["short_lists"] != "evidently":
                den = k_of
            else:
                den = np.minimum(size if use_rows else n_of, k_of)
            val = _div(hits, den)
        elif name == "recall":
            den = nrel if o["denominator"] == "relevant" else np.minimum(nrel, k_of)
            val = _div(hits, den)
        elif name == "fbeta":
            prec, rec = _div(hits, k_of), _div(hits, nrel)
            b2 = float(o["beta"]) ** 2
            val = _div((1 + b2) * prec * rec, b2 * prec + rec)
        elif name in ("ap", "ar"):
            # Σ_{j<=k} P_j rel_j: on the ranks s_i..e_i of group i (up to the next group's rank, or k) tp_j and
            # rel_j are those of the group's last entry; rel_j is 0 before the first group
            cum = np.cumsum(rel.astype(np.int64))
            gk = k_of[np.maximum(g_user, 0)]
            # only the groups within k whose last entry is relevant add anything
            sel = np.flatnonzero((g_user >= 0) & (g_rank <= gk) & rel[g_last])
            last, user_s, gk = g_last[sel], g_user[sel], gk[sel]
            rs = g_row_start[sel]
            g_hits = (cum[last] - np.where(rs > 0, cum[np.maximum(rs - 1, 0)], 0)).astype(np.float64)
            s = g_rank[sel]
            nxt = g_next[sel]
            e = np.where(nxt > 0, np.minimum(nxt - 1, gk), gk)
            if name == "ap":
                big_n = (size if use_rows else n_of)[user_s]
                # Σ_{j=s..e} 1 / min(N, j): the harmonic part up to N, then (e - N) / N past it
                hi = np.minimum(e, big_n)
                part = np.where(hi >= s, harmonic[np.maximum(hi, 0)] - harmonic[s - 1], 0.0)
                past = np.maximum(e - np.maximum(s, big_n + 1) + 1, 0)
                part = part + _div(past.astype(np.float64), big_n)
                val = _div(np.bincount(user_s, weights=g_hits * part, minlength=n_users), nrel)
            else:
                length = (e - s + 1).astype(np.float64)
                total = np.bincount(user_s, weights=g_hits * length, minlength=n_users)
                val = _div(_div(total, nrel), nrel)
        else:  # ndcg
            disc = 1.0 / np.log2(rank.astype(np.float64) + 1.0)
            if use_rows:
                gain_e = e_grade if o["gain"] == "linear" else rel_rows.astype(np.float64)
                dcg = np.bincount(e_user[in_k], weights=(gain_e * disc)[in_k], minlength=n_users)
                idcg = _rows_ideal(
                    o["gain"], k_of if m.k is not None else None, t_user, t_grade, size - t_len, nrel_rows
                )
                with np.errstate(divide="ignore", invalid="ignore"):
                    val = dcg / idcg
                val[~np.isfinite(val)] = 0.0
            else:
                gain_e = _gains(e_grade, rel_list, o["gain"], o["below_min"])
                dcg = np.bincount(e_user[in_k], weights=(gain_e * disc)[in_k], minlength=n_users)
                idcg = _ideal(p, m, t_user, t_grade, t_rel, n_users, row_len, rowmap, has_row)
                val = _div(dcg, idcg)
        no_rel = nrel == 0
        if p.empty == "skip":
            val = np.where(no_rel, np.nan, val)
        elif p.empty == "one" and name != "hits":
            val = np.where(no_rel, 1.0, val)
        values[j] = val
        limbs, count = _core.exact_sum(np.ascontiguousarray(val, dtype=np.float64), threads)
        sums[j], counts[j] = limbs_to_int(limbs), int(count)


def _rows_ideal(
    gain: str,
    k_of: Optional[np.ndarray],
    t_user: np.ndarray,
    t_grade: np.ndarray,
    extra_zeros: np.ndarray,
    nrel: np.ndarray,
) -> np.ndarray:
    """The ideal DCG of every user's rows: its truth grades and, for each listed item without a truth row, a 0,
    sorted descending and cut at k (None: not cut). Binary gain: the first min(k, relevant rows) discounts. Linear:
    the positive grades come first, then the zeros, then the negative grades, each shifted by the extra zeros."""
    n_users = nrel.size
    if gain == "binary":
        top = nrel if k_of is None else np.minimum(nrel, k_of)
        return _discounts(int(top.max(initial=0)))[top]
    order = np.lexsort((-t_grade, t_user))
    us, gs = t_user[order], t_grade[order]
    place = np.arange(us.size, dtype=np.int64) - np.searchsorted(us, us, side="left") + 1
    place = np.where(gs < 0, place + extra_zeros[us], place)
    keep = gs != 0
    if k_of is not None:
        keep &= place <= k_of[us]
    return np.bincount(us[keep], weights=(gs / np.log2(place + 1.0))[keep], minlength=n_users)


def _discounts(n: int) -> np.ndarray:
    """D[x] = Σ_{j=1..x} 1 / log2(j + 1) for x = 0..n."""
    out = np.zeros(n + 1)
    if n:
        np.cumsum(1.0 / np.log2(np.arange(2, n + 2, dtype=np.float64)), out=out[1:])
    return out


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, 0 where den is 0."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den != 0)
