"""``ndcg(rounding=capri)``: CAPRI's nDCG@k, computed in float32 and rounded to 4 decimals per user.

CAPRI (github.com/CapriRecSys/CAPRI, Evaluations/metrics/accuracy.py, ``ndcgk`` as ``evaluator.py`` calls it,
``ndcgk(actual, predicted[:topK])``) builds, per user,

- the gains of the listed items, 1.0 for an item of ``actual`` and 0.0 otherwise, as a float32 array;
- ``dcg(scores) = np.sum((2**scores - 1) / np.log(np.arange(n, dtype=float32) + 2), dtype=float32)``: the
  list's DCG divides float32 by float32; the ideal is the DCG of ``np.ones_like(actual)`` (int64 ones over
  every item of ``actual``, not cut at k), whose int64 / float32 terms are float64 and are summed in float32;
- 0.0 when the list's DCG is 0, else ``round(rdcg / idcg, 4)`` on the float32 ratio (numpy's float32 rounding).

The natural log cancels in the ratio. This module repeats those float32 operations with numpy, vectorised (users
are grouped by list length, so each group is one 2-D float32 array whose rows numpy sums along the contiguous
axis, as it sums CAPRI's 1-D arrays), so the per-user values are CAPRI's float32 values exactly (returned as
float64). CAPRI's mean is ``np.mean`` of those values; rankmeter keeps its exact mean of the same values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import _core
from .._aggregate import limbs_to_int
from ._ties import repeated_entries

if TYPE_CHECKING:
    from ..metrics import Metric
    from ._evaluate import _Plan

__all__ = ["apply_capri_ndcg", "check_capri_options"]


def check_capri_options(m: Metric, duplicates: str, ties: str) -> None:
    """ndcg(rounding=capri) is CAPRI's whole formula: binary gain, ideal over every relevant item. A repeated
    item keeps its position (ndcgk reads predicted[:topK] as given): under duplicates="count" it gains 1 at each
    position, as ndcgk does; under "miss" it gains 0 there, as for every metric of the call."""
    if (
        m.options.get("gain") != "binary"
        or m.options.get("ideal") != "all"
        or m.options.get("below_min") != "gain"
        or m.options.get("discount") != "reciprocal"
    ):
        raise ValueError(
            f"{m}: rounding='capri' is CAPRI's ndcgk (binary gain, ideal over every relevant item, float32 arithmetic): use "
            "ndcg(gain=binary,ideal=all,rounding=capri), as preset='capri' does"
        )
    if duplicates == "first":
        raise ValueError(
            f"{m}: rounding='capri' cannot be combined with duplicates='first' (CAPRI's ndcgk reads predicted[:topK] "
            "as given: a repeat keeps its position; use duplicates='count' for ndcgk's own reading of it)"
        )
    if ties in ("average", "torch_average"):
        raise ValueError(f"{m}: rounding='capri' reads the ranked list (CAPRI's argsort), not tie-averaged gains")


def _csr(p: _Plan) -> tuple[np.ndarray, np.ndarray]:
    if p.r_indptr is not None:
        return p.r_indptr, p.r_items
    valid = p.r_items != p.recs.pad
    indptr = np.zeros(p.r_items.shape[0] + 1, dtype=np.int64)
    np.cumsum(valid.sum(axis=1), out=indptr[1:])
    return indptr, p.r_items[valid]


def apply_capri_ndcg(p: _Plan, cols: list, values: list, sums: list, counts: list, threads: int) -> None:
    """Replace the ndcg(rounding=capri) columns of `values` (and their exact sums) by CAPRI's values."""
    todo = [j for j, m in enumerate(cols) if m.name == "ndcg" and m.options.get("rounding") == "capri"]
    if not todo:
        return
    t = p.truth
    n_users = t.n_users
    indptr, items = _csr(p)
    n_rows = indptr.size - 1
    row_len = np.diff(indptr)
    if p.max_items:
        row_len = np.minimum(row_len, p.max_items)
    row_of = np.repeat(np.arange(n_rows, dtype=np.int64), np.diff(indptr))

    # relevance of every list entry: join on (user, item) through dense item codes
    t_user = np.repeat(np.arange(n_users, dtype=np.int64), np.diff(t.indptr))
    mr = p.min_relevance
    if t.grades is None:
        t_rel = np.ones(t_user.size, dtype=bool)
    else:
        t_rel = (t.grades >= mr) if mr is not None else (t.grades > 0)
    nrel = np.bincount(t_user[t_rel], minlength=n_users)
    uniq, inv = np.unique(np.concatenate([p.t_items, items]), return_inverse=True)
    width = max(int(uniq.size), 1)
    t_code, r_code = inv[: p.t_items.size], inv[p.t_items.size :]
    rowmap = p.rowmap if p.rowmap is not None else np.arange(n_users, dtype=np.int64)
    has_row = rowmap >= 0
    user_of_row = np.full(n_rows, -1, dtype=np.int64)
    user_of_row[rowmap[has_row]] = np.flatnonzero(has_row)
    r_user = user_of_row[row_of]
    rel_keys = np.sort(t_user[t_rel] * width + t_code[t_rel])
    r_key = np.where(r_user >= 0, r_user * width + r_code, -1)
    at = np.minimum(np.searchsorted(rel_keys, r_key), max(rel_keys.size - 1, 0))
    r_hit = (r_key >= 0) & (rel_keys[at] == r_key) if rel_keys.size else np.zeros(items.size, dtype=bool)
    if p.duplicates == "miss":  # a repeat keeps its position but is never a hit
        r_hit &= ~repeated_entries(row_of, r_code, width)

    # CAPRI's ideal: int64 ones / float32 logs (float64 terms) summed in float32, per distinct |actual|
    ms = np.unique(nrel)
    idcg = np.zeros(n_users, dtype=np.float32)
    for m_ in ms.tolist():  # one numpy sum per distinct number of relevant items, not per user
        if m_ > 0:
            terms = np.divide(np.ones(m_, dtype=np.int64), np.log(np.arange(m_, dtype=np.float32) + 2))
            idcg[nrel == m_] = np.sum(terms, dtype=np.float32)

    for j in todo:
        m = cols[j]
        n_read = np.minimum(row_len, m.k) if m.k is not None else row_len  # predicted[:topK]
        u_len = np.zeros(n_users, dtype=np.int64)
        u_len[has_row] = n_read[rowmap[has_row]]
        rdcg = np.zeros(n_users, dtype=np.float32)
        # the float32 gains of every user's list as one row of a (users x n) array per list length n
        hit_at = np.zeros(items.size, dtype=np.float32)
        hit_at[r_hit] = 1.0
        for n in np.unique(u_len).tolist():  # one 2-D sum per distinct list length (at most k of them)
            if n == 0:
                continue
            us = np.flatnonzero(u_len == n)
            rows = rowmap[us]
            grid = indptr[:-1][rows][:, None] + np.arange(n, dtype=np.int64)[None, :]
            gains = hit_at[grid]
            terms = np.divide(np.power(2, gains) - 1, np.log(np.arange(n, dtype=np.float32) + 2))
            rdcg[us] = np.sum(terms, axis=1, dtype=np.float32)
        ratio = np.zeros(n_users, dtype=np.float32)
        ok = (rdcg != 0) & (idcg != 0)
        ratio[ok] = np.round(rdcg[ok] / idcg[ok], 4)
        v = values[j]
        # users without a relevant item keep the pass's value (NaN for empty='skip', 1 for 'one', 0 for 'zero')
        new = np.where(np.isnan(v) | (nrel == 0), v, ratio.astype(np.float64))
        values[j] = new
        limbs, count = _core.exact_sum(np.ascontiguousarray(new, dtype=np.float64), threads)
        sums[j], counts[j] = limbs_to_int(limbs), int(count)
