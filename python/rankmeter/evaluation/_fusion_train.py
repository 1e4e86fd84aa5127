"""The core of the training of ranx's trained fusion methods (``rm.train_fusion``, in _fusion.py): the tables ``fuse`` takes as ``probs``,
``log_odds`` or ``map_scores``, estimated from relevance judgments over the runs' ranked lists.

Every table is a count over *hit lists*: per training query and run, the run's ranked list with 1 where the
document is relevant (grade at the relevance level) and 0 elsewhere. The hit lists are one flat array over the
CSR of the runs (``prepare_runs``), and each table is a few ``np.bincount`` passes over it, summed over the
queries in query order as ranx sums them (docs/fusion.md, "Training").
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..inputs import factorize

__all__ = ["TRAINED_METHODS", "hit_lists", "train_tables", "check_n_segments", "check_method"]

# method -> the fuse() parameter its table is given as
TRAINED_METHODS = {
    "bayesfuse": "log_odds",
    "mapfuse": "map_scores",
    "posfuse": "probs",
    "probfuse": "probs",
    "segfuse": "probs",
    "slidefuse": "probs",
}
# SegFuse's segments [0, 5), [5, 15), [15, 35), ...: 10 * 2**(k-1) - 5 for k = 1..10
SEGFUSE_BOUNDS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)], dtype=np.int64)
# BayesFuse's intervals of positions, each given the log odds of its mean precision
BAYES_CUTS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000], dtype=np.int64)


_BITMAP_MAX = 1 << 27  # (list, document) flags held as one bool array up to this many (128 MB)


def hit_lists(
    prep: Any, codes: np.ndarray, truth: Any, min_relevance: Optional[float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The hit lists of every run over the truth's queries: (indptr over ``n_runs * n_train`` lists, list
    ``r * n_train + t``; hit flags 0/1 as float; the number of relevant truth rows per query; n_train). A truth
    query a run lacks is an empty list of that run; a run's query the truth lacks is refused."""
    t_users = np.asarray(truth.users) if truth.users is not None else np.arange(truth.indptr.size - 1)
    nt = int(t_users.size)
    nq = int(prep.queries.size)
    R = prep.n_runs
    both, _ = factorize(np.concatenate([t_users.astype(object), prep.queries.astype(object)]))
    t_code, q_code = both[:nt], both[nt:]
    if np.unique(t_code).size != nt:
        raise ValueError("`truth` lists a query twice: give each query's judgments once")
    where = np.full(nt + nq, -1, dtype=np.int64)
    where[q_code] = np.arange(nq)
    prep_of_t = where[t_code]  # the runs' query index of each truth query (-1: no run lists it)
    seen = np.zeros(nt + nq, dtype=bool)
    seen[t_code] = True
    lens_all = np.diff(prep.indptr).reshape(R, nq)
    extra = np.flatnonzero(~seen[q_code] & (lens_all.sum(axis=0) > 0))
    if extra.size:
        raise ValueError(
            f"`runs` list query {prep.queries[extra[0]]!r}, which `truth` lacks: training counts the truth's "
            "queries; give its judgments (an empty dict for a query without any) or drop it from the runs"
        )
    has = prep_of_t >= 0
    lens = np.zeros((R, nt), dtype=np.int64)
    lens[:, has] = lens_all[:, prep_of_t[has]]
    indptr = np.zeros(R * nt + 1, dtype=np.int64)
    np.cumsum(lens.ravel(), out=indptr[1:])
    total = int(indptr[-1])
    # element j of list (r, t) comes from list (r, prep_of_t[t]) of the runs
    lst = np.repeat(np.arange(R * nt, dtype=np.int64), lens.ravel())
    within = np.arange(total, dtype=np.int64) - indptr[lst]
    r_of, t_of = lst // max(nt, 1), lst % max(nt, 1)
    src = prep.indptr[r_of * nq + prep_of_t[t_of]] + within if total else np.zeros(0, dtype=np.int64)
    el_codes = codes[src]
    # relevant truth rows as (query, document code)
    grades = np.asarray(truth.grades, dtype=np.float64) if truth.grades is not None else None
    t_len = np.diff(truth.indptr)
    row_t = np.repeat(np.arange(nt, dtype=np.int64), t_len)
    if grades is None:
        rel = np.ones(row_t.size, dtype=bool)
    elif min_relevance is None:
        rel = grades > 0
    else:
        rel = grades >= min_relevance
    n_rel = np.bincount(row_t[rel], minlength=nt).astype(np.int64)
    t_items = np.asarray(truth.items_native)[rel]
    if prep.labels is None:  # the runs' ids are ints, their own codes
        if t_items.size and t_items.dtype.kind not in "iu":
            t_items = np.zeros(0, dtype=np.int64)  # other ids than the runs' ints: nothing is relevant
            row_rel = np.zeros(0, dtype=np.int64)
        else:
            row_rel = row_t[rel]
        dc, _ = factorize(np.concatenate([el_codes, t_items.astype(np.int64)]))
        e_doc, r_doc = dc[:total], dc[total:]
        n_docs = int(dc.max(initial=-1)) + 1
    else:
        row_rel = row_t[rel]
        ic, _ = factorize(np.concatenate([prep.labels.astype(object), t_items.astype(object)]))
        n_lab = prep.labels.size
        e_doc = el_codes
        r_doc = np.asarray(ic[n_lab:], dtype=np.int64)
        r_doc = np.where(r_doc < n_lab, r_doc, -1)
        n_docs = n_lab
    ok = r_doc >= 0
    nd = max(n_docs, 1)
    rel_key = row_rel[ok] * nd + r_doc[ok]
    el_key = t_of * nd + e_doc
    list_key = lst * nd + e_doc
    if R * nt * nd <= _BITMAP_MAX:  # a flag per (query, document): one pass, no sort
        mark = np.zeros(nt * nd, dtype=bool)
        mark[rel_key] = True
        hit = mark[el_key].astype(np.float64)
        seen = np.zeros(R * nt * nd, dtype=bool)
        seen[list_key] = True
        repeated = int(np.count_nonzero(seen)) != total
    else:
        hit = np.isin(el_key, rel_key).astype(np.float64) if total else np.zeros(0)
        keys = np.sort(list_key)
        repeated = bool(keys.size > 1 and np.any(keys[1:] == keys[:-1]))
    if repeated:
        raise ValueError("a run lists one document twice in a query; give each document once per query")
    return indptr, hit, n_rel, nt


def _seq_sum(terms: np.ndarray) -> np.ndarray:
    """Column sums of ``terms`` (queries x slots) added row after row, in query order (ranx's loop)."""
    if terms.shape[0] == 0:
        return np.zeros(terms.shape[1])
    return np.cumsum(terms, axis=0)[-1]


def train_tables(
    method: str,
    indptr: np.ndarray,
    hit: np.ndarray,
    n_rel: np.ndarray,
    n_runs: int,
    nt: int,
    n_segments: Optional[int] = None,
) -> Any:
    """The trained table of ``method`` from the hit lists (see :func:`hit_lists`), in ranx's return form."""
    R = n_runs
    lens = np.diff(indptr)
    lst = np.repeat(np.arange(R * nt, dtype=np.int64), lens)
    pos = np.arange(hit.size, dtype=np.int64) - indptr[lst]
    run_of = lst // max(nt, 1)
    t_of = lst % max(nt, 1)
    lens_rt = lens.reshape(R, nt)
    out: list = []
    if method == "probfuse":
        K = int(n_segments)  # type: ignore[arg-type]
        table = np.zeros((R, K))
        size = -(-lens_rt // K)  # ceil(n / K): the segment length of each list
        el_size = size.ravel()[lst]
        seg = pos // np.maximum(el_size, 1)
        for r in range(R):
            m = run_of == r
            g = t_of[m] * K + seg[m]
            hs = np.bincount(g, weights=hit[m], minlength=nt * K)
            cnt = np.bincount(g, minlength=nt * K)
            with np.errstate(invalid="ignore", divide="ignore"):
                per = np.where(cnt > 0, hs / np.maximum(cnt, 1), 0.0).reshape(nt, K)
            table[r] = _seq_sum(per) / nt
        return table
    for r in range(R):
        m = run_of == r
        h, p, t = hit[m], pos[m], t_of[m]
        if method in ("posfuse", "slidefuse"):
            L = int(lens_rt[r].max(initial=0))
            num = np.bincount(p, weights=h, minlength=L)
            den = np.bincount(p, minlength=L).astype(np.float64)
            out.append(num / den if L else np.zeros(0))
        elif method == "segfuse":
            B = SEGFUSE_BOUNDS
            inside = p < B[-1]
            seg = np.searchsorted(B, p[inside], side="right") - 1
            hs = np.bincount(t[inside] * 10 + seg, weights=h[inside], minlength=nt * 10).reshape(nt, 10)
            out.append(_seq_sum(hs / np.diff(B).astype(np.float64)) / nt)
        elif method == "bayesfuse":
            C = BAYES_CUTS
            k = C.size - 1
            inside = p < C[-1]
            seg = np.searchsorted(C, p[inside], side="right") - 1
            hs = np.bincount(t[inside] * k + seg, weights=h[inside], minlength=nt * k).reshape(nt, k)
            avg = _seq_sum((hs / np.diff(C).astype(np.float64)) / nt)
            avg = np.where(avg == 0, avg + 0.001, avg)
            neg = 1 - avg
            neg = np.where(neg == 0, neg + 0.001, neg)
            out.append(np.repeat(np.log(avg / neg), np.diff(C)))
        elif method == "mapfuse":
            cum = np.concatenate([[0.0], np.cumsum(h)])
            start = indptr[r * nt : (r + 1) * nt] - indptr[r * nt]
            within = cum[1:] - cum[np.repeat(start, lens_rt[r])]  # hits up to each position of its list
            prec = np.where(h > 0, within / (p + 1.0), 0.0)
            s = np.bincount(t, weights=prec, minlength=nt)
            with np.errstate(invalid="ignore", divide="ignore"):
                ap = np.where(n_rel > 0, s / np.maximum(n_rel, 1), 0.0)
            out.append(float(np.mean(ap)))
        else:  # pragma: no cover - guarded by the callers
            raise ValueError(f"`method` {method!r} has no training")
    return out


def check_method(method: Any) -> str:
    if not isinstance(method, str):
        raise TypeError(f"`method` must be a string naming a trained fusion method, got {method!r}")
    name = method.lower()
    if name not in TRAINED_METHODS:
        raise ValueError(f"`method`: {method!r} has no training; trained methods: {sorted(TRAINED_METHODS)}")
    return name


def check_n_segments(name: str, n_segments: Any) -> Optional[int]:
    if name != "probfuse":
        if n_segments is not None:
            raise TypeError(f"train_fusion(method={name!r}) takes no `n_segments` (only probfuse does)")
        return None
    if isinstance(n_segments, bool) or not isinstance(n_segments, (int, np.integer)) or n_segments < 1:
        raise ValueError(f"probfuse needs `n_segments`, a positive int (segments per ranked list), got {n_segments!r}")
    return int(n_segments)
