"""Item-side exposure fairness: ``item_groups`` and the columns of exposure_gini, exposure_disparity, awrf and
awrf_ndcg (docs/metrics.md 3.23, docs/fairness.md "Item exposure").

Everything here is numpy over the top-k lists of ``_beyond.Prepared`` (CSR over one dense item code): no loop over
users in Python. A list entry at position j (1-based) gets the attention a(j, h) of the call's attention model,
h the number of relevant items above it (read by the cascade model only). The catalog-level values are computed
from integer histograms kept in the ``CatalogPart`` of their cutoff (``part.exposure``):

* ``item_*``: per (item id, position, relevant items above) the number of users -> item exposures (exposure_gini);
* ``grp_*``: per (group, number of groups of the item, position, relevant items above) the number of list entries
  -> group exposures (exposure_disparity); ``rel_*``: per (group, number of groups) the relevant truth items
  (target=relevance); ``cat_*``: per (group, number of groups) the items of ``item_groups`` (target=catalog).

Histograms of disjoint users merge by integer addition and the value is always computed from the (merged) histogram
by the same code, so a merged state gives the one-call value bit for bit. An item in m groups counts 1/m in each;
group code G (the number of groups) is the "no group" bucket (``ungrouped=own``; ``skip`` leaves it out).
"""

from __future__ import annotations

import hashlib
import math
from typing import Any, Optional

import numpy as np

from .. import _core
from .._aggregate import limbs_to_int
from .._exposure_values import EQUAL_OPPORTUNITY, attention, eo_key
from ._calibration import ItemCategories, read_item_categories
from ._popularity import _key, head_items

__all__ = [
    "EXPOSURE_METRICS",
    "GROUP_METRICS",
    "HISTORY_METRICS",
    "read_item_groups",
    "check_item_groups",
    "needs_grades",
    "exposure_histograms",
    "awrf_column",
    "groups_fingerprint",
]

EXPOSURE_METRICS = ("exposure_gini", "exposure_disparity", "awrf", "awrf_ndcg", *EQUAL_OPPORTUNITY, "item_mad")
# the ones that read item_groups
GROUP_METRICS = ("exposure_disparity", "awrf", "awrf_ndcg", "reo", "rsp", "item_mad")
# the ones that read each evaluated user's train history
HISTORY_METRICS = EQUAL_OPPORTUNITY
_GROUP_NAMES = ("group", "groups", "group_id", "provider", "provider_id", "category", "categories", "genre")
_ARG = "item_groups"


def read_item_groups(x: Any, table_kw: dict) -> ItemCategories:
    """``item_groups`` in every form ``item_categories`` takes (docs/fairness.md, "Item exposure")."""
    return read_item_categories(x, table_kw, arg=_ARG, names=_GROUP_NAMES, what="group")


def check_item_groups(groups: Any, metrics: list) -> None:
    """``item_groups`` is read by exposure_disparity, awrf and awrf_ndcg only: given without them, the call is
    refused (no keyword is silently ignored)."""
    if groups is not None and not any(m.name in GROUP_METRICS for m in metrics):
        raise ValueError(
            "`item_groups` is read by exposure_disparity, awrf, awrf_ndcg, reo, rsp and item_mad only, and none is "
            "asked for: "
            "ask for one (e.g. 'awrf@10'), or drop `item_groups`"
        )


def needs_grades(m: Any) -> bool:
    """Whether the metric reads the truth grades (cascade attention, relevance target, nDCG)."""
    if m.name not in EXPOSURE_METRICS:
        return False
    if m.name in EQUAL_OPPORTUNITY:
        return m.name in ("pop_reo", "reo")
    if m.name == "item_mad":
        return True
    o = m.options
    return m.name == "awrf_ndcg" or o["attention"] == "cascade" or o.get("target") == "relevance"


def groups_fingerprint(ic: ItemCategories) -> str:
    """A digest of item_groups (so states of different groupings do not merge)."""
    h = hashlib.blake2b(digest_size=16)
    for a in (ic.items, ic.labels[ic.cats] if ic.labels.size else ic.cats, ic.empty):
        arr = np.asarray(a)
        h.update(arr.tobytes() if arr.dtype != object else "\x00".join(map(str, arr.tolist())).encode("utf-8"))
        h.update(b"\x01")
    return h.hexdigest()


# --------------------------------------------------------------------------- list entries


def _entries(prep: Any, k: int, grades: bool, need_user: bool = False) -> tuple:
    """The top-k entries of every user, user by user in list order: (user or None, code, position, hits above,
    grade or None, starts: every user's first entry). Lists read whole and of one length take no gather."""
    li, lt = prep.li, prep.lt
    kept = np.diff(li)
    lens = kept if k == 0 else np.minimum(kept, k)
    n = lens.size
    total = int(lens.sum())
    starts = np.zeros(n, dtype=np.int64)
    np.cumsum(lens[:-1], out=starts[1:])
    if n and int(lens.min()) == int(lens.max()):
        pos = np.tile(np.arange(1, int(lens[0]) + 1, dtype=np.int64), n)
    else:
        pos = np.arange(1, total + 1, dtype=np.int64) - np.repeat(starts, lens)
    codes = lt if np.array_equal(kept, lens) else lt[np.repeat(li[:-1], lens) + pos - 1]
    user = np.repeat(np.arange(n, dtype=np.int64), lens) if need_user else None
    hits = np.zeros(total, dtype=np.int64)
    grade = None
    if grades:
        grade = _lookup(prep, k)[0]
        rel = _relevant(prep, grade).astype(np.int64)
        ex = np.cumsum(rel) - rel
        hits = ex - np.repeat(np.append(ex, 0)[starts], lens)
    return user, codes, pos, hits, grade, starts


def _relevant(prep: Any, grade: np.ndarray) -> np.ndarray:
    mr = prep.p.min_relevance
    return (grade >= mr) if mr is not None else (grade > 0)


def _truth(prep: Any) -> tuple:
    """(user of every truth entry, its item code, its grade)."""
    t = prep.p.truth
    tc = np.asarray(prep.code["truth"], dtype=np.int64)
    tu = np.repeat(np.arange(t.n_users, dtype=np.int64), np.diff(t.indptr))
    g = np.ones(tc.size, dtype=np.float64) if t.grades is None else np.asarray(t.grades, dtype=np.float64)
    return tu, tc, g


def _lookup(prep: Any, k: int, history: bool = False, ideal: int = 0) -> tuple:
    """``_core.exposure_lookup`` at cutoff k (cached per call): per top-k entry its grade and first-occurrence flag,
    per truth entry whether it is in the user's train history (history=True), per user the ideal DCG (ideal 1:
    1/log2(j+1), 2: 1/log2(max(j, 2)))."""
    cache = prep.__dict__.setdefault("_exposure_lookup", {})
    key = (k, history, ideal)
    if key not in cache:
        t = prep.p.truth
        h_ip = h_items = None
        if history:
            h_ip, h_items = prep.history()
        cache[key] = _core.exposure_lookup(
            prep.li,
            np.ascontiguousarray(prep.lt, dtype=np.int64),
            np.ascontiguousarray(t.indptr, dtype=np.int64),
            np.ascontiguousarray(prep.code["truth"], dtype=np.int64),
            None if t.grades is None else np.ascontiguousarray(t.grades, dtype=np.float64),
            None if h_ip is None else np.ascontiguousarray(h_ip, dtype=np.int64),
            None if h_items is None else np.ascontiguousarray(h_items, dtype=np.int64),
            max(int(prep.n_items), 1),
            k,
            ideal,
            prep.threads,
        )
    return cache[key]


# --------------------------------------------------------------------------- groups of the item codes


def _group_tables(prep: Any) -> tuple:
    """(g_indptr, g_codes, G): the groups of every item code as CSR (group codes in sorted-label order)."""
    cached = getattr(prep, "_exposure_groups", None)
    if cached is not None:
        return cached
    ic: ItemCategories = prep.ctx.item_groups
    codes = np.asarray(prep.code["groups"], dtype=np.int64)
    n_items = max(int(prep.n_items), 1)
    order = np.lexsort((ic.cats, codes))
    g_codes = np.ascontiguousarray(ic.cats[order], dtype=np.int64)
    g_indptr = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=n_items), out=g_indptr[1:])
    out = (g_indptr, g_codes, int(ic.labels.size))
    prep._exposure_groups = out
    return out


def _expand(g_indptr: np.ndarray, g_codes: np.ndarray, n_groups: int, codes: np.ndarray) -> tuple:
    """Each code once per group it is in (an ungrouped code once, in bucket ``n_groups``): (row index, group,
    number of groups m; 0 for the bucket)."""
    deg = np.diff(g_indptr)[codes]
    reps = np.maximum(deg, 1)
    row = np.repeat(np.arange(codes.size, dtype=np.int64), reps)
    first = np.zeros(codes.size, dtype=np.int64)
    np.cumsum(reps[:-1], out=first[1:])
    off = np.arange(row.size, dtype=np.int64) - first[row]
    m = deg[row]
    grp = np.where(m > 0, g_codes[np.minimum(g_indptr[codes[row]] + off, max(g_codes.size - 1, 0))], n_groups)
    return row, grp.astype(np.int64), m


def _count_keys(*cols: np.ndarray, weights: Optional[np.ndarray] = None, spans: Optional[list] = None) -> tuple:
    """Distinct rows of the integer columns ``cols`` (sorted lexicographically) and their counts (``spans``: an
    upper bound of every column, else their maxima + 1)."""
    if cols[0].size == 0:
        z = np.zeros(0, dtype=np.int64)
        return (*tuple(z for _ in cols), z)
    if spans is None:
        spans = [int(c.max()) + 1 for c in cols]
    total = 1
    for s in spans:
        total *= s
    if total <= (1 << 24):
        key = np.zeros(cols[0].size, dtype=np.int64)
        for c, s in zip(cols, spans):
            key = key * s + c
        cnt = np.bincount(key, weights=weights, minlength=total)
        nz = np.flatnonzero(cnt)
        counts = np.rint(cnt[nz]).astype(np.int64) if weights is not None else cnt[nz].astype(np.int64)
        out = []
        for s in reversed(spans):
            out.append(nz % s)
            nz = nz // s
        return (*tuple(reversed(out)), counts)
    order = np.lexsort(tuple(reversed(cols)))
    sc = [c[order] for c in cols]
    new = np.ones(order.size, dtype=bool)
    new[1:] = np.any([c[1:] != c[:-1] for c in sc], axis=0)
    starts = np.flatnonzero(new)
    w = np.ones(order.size, dtype=np.int64) if weights is None else np.rint(weights[order]).astype(np.int64)
    return (*tuple(c[starts] for c in sc), np.add.reduceat(w, starts))


# --------------------------------------------------------------------------- catalog-level histograms


def exposure_histograms(prep: Any, k: int, metrics: list) -> dict:
    """The exposure histograms of the catalog-level exposure metrics at cutoff ``k`` (for ``part.exposure``)."""
    out: dict = {}
    if any(m.name == "item_mad" for m in metrics):
        out.update(_item_mad_histograms(prep, k))
    for m in metrics:
        if m.name in EQUAL_OPPORTUNITY:
            num, den = _equal_opportunity_counts(prep, k, m)
            out[f"{eo_key(m)}|num"], out[f"{eo_key(m)}|den"] = num, den
    cols = [m for m in metrics if m.name in ("exposure_gini", "exposure_disparity")]
    if not cols:
        return out
    grades = any(m.options["attention"] == "cascade" for m in cols)
    _, codes, pos, hits, _, _ = _entries(prep, k, grades)
    depth = int(pos.max()) if pos.size else 0
    if grades:
        c_code, c_pos, c_hits, c_cnt = _count_keys(
            codes, pos, hits, spans=[max(int(prep.n_items), 1), depth + 1, depth]
        )
    elif depth and codes.size == depth * (prep.li.size - 1):
        # every top k holds `depth` entries (no user has more), positions 1..depth user by user: one bincount per
        # position, no key array
        n_items = max(int(prep.n_items), 1)
        per_pos = codes.reshape(-1, depth)
        m = np.stack([np.bincount(per_pos[:, j], minlength=n_items) for j in range(depth)], axis=1)
        c_code, c_col = np.nonzero(m)  # row-major: code, then position
        c_pos, c_cnt = c_col.astype(np.int64) + 1, m[c_code, c_col].astype(np.int64)
        c_code = c_code.astype(np.int64)
        c_hits = np.zeros(c_code.size, dtype=np.int64)
    else:  # no relevant item above is read: one column less
        c_code, c_pos, c_cnt = _count_keys(codes, pos, spans=[max(int(prep.n_items), 1), depth + 1])
        c_hits = np.zeros(c_code.size, dtype=np.int64)
    if any(m.name == "exposure_gini" for m in cols):
        ids, p_, h_, n_ = prep.sorted_ids(c_code, c_pos, c_hits, c_cnt)
        out.update(item_ids=ids, item_pos=p_, item_hits=h_, item_counts=n_)
    if any(m.name == "exposure_disparity" for m in cols):
        g_indptr, g_codes, n_groups = _group_tables(prep)
        row, grp, mm = _expand(g_indptr, g_codes, n_groups, c_code)
        g, m_, p_, h_, n_ = _count_keys(grp, mm, c_pos[row], c_hits[row], weights=c_cnt[row].astype(np.float64))
        out.update(grp_group=g, grp_m=m_, grp_pos=p_, grp_hits=h_, grp_counts=n_)
        out["n_groups"] = np.array([n_groups], dtype=np.int64)
        ic: ItemCategories = prep.ctx.item_groups
        out["group_labels"] = np.asarray(ic.labels)  # the groups' names, by code (for State.exposure)
        # target=catalog: the items of item_groups per (group, m); those given with no group in the bucket
        item_deg = np.bincount(np.unique(np.asarray(prep.code["groups"]), return_inverse=True)[1].ravel())
        inv = np.unique(np.asarray(prep.code["groups"]), return_inverse=True)[1].ravel()
        cg, cm, cc = _count_keys(
            np.concatenate([ic.cats, np.full(ic.empty.size, n_groups, dtype=np.int64)]),
            np.concatenate([item_deg[inv] if inv.size else inv, np.zeros(ic.empty.size, dtype=np.int64)]),
        )
        out.update(cat_group=cg, cat_m=cm, cat_counts=cc)
        if any(m.options.get("target") == "relevance" for m in cols):
            out.update(zip(("rel_group", "rel_m", "rel_counts"), _relevant_groups(prep)))
    return out


def _item_group_rows(prep: Any, m: Any) -> tuple:
    """(g_indptr, g_codes, n_groups) of the metric's groups over the item codes: the short head (0) and the long
    tail (1: the other train items; an item never in train is in neither) of pop_reo / pop_rsp, else item_groups."""
    if m.name in ("reo", "rsp"):
        return _group_tables(prep)
    n_items = max(int(prep.n_items), 1)
    pop = np.zeros(n_items, dtype=np.int64)
    if prep.pop_users is not None:
        pop[: prep.pop_users.size] = prep.pop_users
    grp = np.full(n_items, -1, dtype=np.int64)
    grp[pop > 0] = 1
    grp[head_items(pop, float(m.options["head_share"]), _key(prep))] = 0
    has = grp >= 0
    g_indptr = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum(has, out=g_indptr[1:])
    return g_indptr, grp[has], 2


def _equal_opportunity_counts(prep: Any, k: int, m: Any) -> tuple:
    """Elliot's per-group counts of pop_reo / pop_rsp / reo / rsp summed over the evaluated users (docs/metrics.md
    3.23.5-3.23.8): numerator the top-k items of the group (reo: the relevant ones; lists hold no repeat, see
    _beyond._NO_REPEATS), denominator the items of the group not in the user's train (reo: the relevant ones, over
    users with a relevant item). Counted per item first, then summed per group through the item -> group table."""
    n = prep.p.truth.n_users
    n_items = max(int(prep.n_items), 1)
    g_indptr, g_codes, n_groups = _item_group_rows(prep, m)
    deg = np.diff(g_indptr)
    member_item = np.repeat(np.arange(deg.size, dtype=np.int64), deg)
    left_out = getattr(prep.p, "left_out", None)
    relevance = m.name in ("pop_reo", "reo")

    def per_group(per_item: np.ndarray) -> np.ndarray:
        w = per_item[member_item].astype(np.float64)  # integer counts, exact in float64 below 2^53
        return np.rint(np.bincount(g_codes, weights=w, minlength=n_groups)[:n_groups]).astype(np.int64)

    if relevance:
        e_grade, _, t_seen, _ = _lookup(prep, k, history=True)
        idx = np.flatnonzero(_relevant(prep, e_grade))
        lens = np.diff(prep.li) if k == 0 else np.minimum(np.diff(prep.li), k)
        starts = np.zeros(n, dtype=np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        u = np.searchsorted(starts, idx, side="right") - 1
        if left_out is not None:
            keep = ~left_out[u]
            idx, u = idx[keep], u[keep]
        codes = prep.lt[prep.li[u] + idx - starts[u]]
        num = per_group(np.bincount(codes, minlength=n_items))
        tc = np.asarray(prep.code["truth"], dtype=np.int64)
        t = prep.p.truth
        g = np.ones(tc.size) if t.grades is None else np.asarray(t.grades, dtype=np.float64)
        r = _relevant(prep, g) & ~t_seen.view(bool)
        if left_out is not None:
            r &= ~np.repeat(left_out, np.diff(t.indptr))
        den = per_group(np.bincount(tc[r], minlength=n_items))
        return num, den
    num = per_group(_pad_to(prep.counts_at(k), n_items))  # users with each item in their top k
    sizes = np.bincount(g_codes, minlength=n_groups)[:n_groups].astype(np.int64)
    h_ip, h_items = prep.history()
    seen = np.zeros(n_groups, dtype=np.int64)
    if h_ip is not None:
        h = np.asarray(h_items, dtype=np.int64)
        if left_out is not None:
            h = h[~np.repeat(left_out, np.diff(h_ip))]
        seen = per_group(np.bincount(h, minlength=n_items))
    n_kept = n if left_out is None else int(n - left_out.sum())
    return num, n_kept * sizes - seen


def _item_mad_histograms(prep: Any, k: int) -> dict:
    """item_mad's part (docs/metrics.md 3.23.9): per recommended item its top-k occurrences, per (item, grade) the
    occurrences whose item is relevant-graded (grade > 0) in the user's truth, and the item -> group table."""
    n_items = max(int(prep.n_items), 1)
    _, codes, _, _, grade, _ = _entries(prep, k, True)
    assert grade is not None
    cnt = np.bincount(codes, minlength=n_items)
    nz = np.flatnonzero(cnt)
    ids, c = prep.sorted_ids(nz, cnt[nz].astype(np.int64))
    pos = grade > 0
    g_code, g_grade = codes[pos], grade[pos]
    order = np.lexsort((g_grade, g_code))
    g_code, g_grade = g_code[order], g_grade[order]
    if g_code.size:
        new = np.ones(g_code.size, dtype=bool)
        new[1:] = (g_code[1:] != g_code[:-1]) | (g_grade[1:] != g_grade[:-1])
        st = np.flatnonzero(new)
        g_code, g_grade, g_cnt = g_code[st], g_grade[st], np.diff(np.append(st, order.size)).astype(np.int64)
    else:
        g_cnt = np.zeros(0, dtype=np.int64)
    gi, gg, gc = prep.sorted_ids(g_code, g_grade, g_cnt)
    ic: ItemCategories = prep.ctx.item_groups
    t_codes = np.asarray(prep.code["groups"], dtype=np.int64)
    tids, tgrp = prep.sorted_ids(t_codes, np.asarray(ic.cats, dtype=np.int64))
    return {
        "mad_ids": ids,
        "mad_counts": c,
        "madg_ids": gi,
        "madg_grade": np.asarray(gg, dtype=np.float64),
        "madg_counts": gc,
        "madt_ids": tids,
        "madt_group": tgrp,
        "mad_n_groups": np.array([int(ic.labels.size)], dtype=np.int64),
    }


def _pad_to(a: np.ndarray, n: int) -> np.ndarray:
    return a[:n] if a.size >= n else np.concatenate([a, np.zeros(n - a.size, dtype=a.dtype)])


def _relevant_groups(prep: Any) -> tuple:
    """Relevant truth items of the evaluated users per (group, m): the target of target=relevance."""
    tu, tc, g = _truth(prep)
    rel = _relevant(prep, g)
    left_out = getattr(prep.p, "left_out", None)
    if left_out is not None:
        rel &= ~left_out[tu]
    codes = tc[rel]
    g_indptr, g_codes, n_groups = _group_tables(prep)
    _, grp, mm = _expand(g_indptr, g_codes, n_groups, codes)
    return _count_keys(grp, mm)


# --------------------------------------------------------------------------- per-user AWRF


def _ndcg(prep: Any, k: int, user: np.ndarray, pos: np.ndarray, grade: np.ndarray, trec: bool) -> np.ndarray:
    """nDCG@k per user: linear gains (negative grades as 0), 1/log2(j+1) (trec: 1/log2(max(j, 2))), the ideal of
    the positive truth grades cut at k (NaN without one)."""
    n = prep.p.truth.n_users
    disc = np.log2(np.maximum(pos, 2).astype(np.float64)) if trec else np.log2(pos + 1.0)
    dcg = np.bincount(user, weights=np.maximum(grade, 0.0) / disc, minlength=n)
    ideal = _lookup(prep, k, ideal=2 if trec else 1)[3]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ideal > 0, dcg / ideal, np.nan)


def awrf_column(prep: Any, m: Any) -> tuple:
    """awrf / awrf_ndcg: (per-user values, exact sum, count) from ``_core.awrf_values`` (rankmeter/exposure.hpp).
    NaN (left out of the mean): an empty top k, a list with no attention on a counted group, no target
    (target=relevance without a relevant grouped item)."""
    k, o = m.k or 0, m.options
    user, _, pos, hits, grade, _ = _entries(prep, k, needs_grades(m), need_user=m.name == "awrf_ndcg")
    g_indptr, g_codes, n_groups = _group_tables(prep)
    own = o["ungrouped"] == "own"
    split = o["multi"] == "split"
    size = n_groups + (1 if own else 0)
    fixed = t_ip = t_items = t_rel = None
    if o["target"] == "relevance":
        t = prep.p.truth
        _, _, tg = _truth(prep)
        t_ip = np.ascontiguousarray(t.indptr, dtype=np.int64)
        t_items = np.ascontiguousarray(prep.code["truth"], dtype=np.int64)
        t_rel = np.ascontiguousarray(_relevant(prep, tg), dtype=np.uint8)
    elif o["target"] == "catalog":
        ic: ItemCategories = prep.ctx.item_groups
        inv = np.unique(np.asarray(prep.code["groups"]), return_inverse=True)[1].ravel()
        deg = np.bincount(inv)[inv] if inv.size else inv
        cat = np.bincount(ic.cats, weights=1.0 / np.maximum(deg, 1) if split else None, minlength=n_groups + 1)
        cat = cat.astype(np.float64)
        cat[n_groups] = float(ic.empty.size)
        cat = cat[:size]
        total = math.fsum(cat.tolist())
        fixed = cat / total if total > 0 else None
    else:
        fixed = np.full(size, 1.0 / size) if size else None
    if fixed is None and t_ip is None:
        vals = np.full(prep.p.truth.n_users, np.nan)
    else:
        vals = _core.awrf_values(
            prep.li,
            np.ascontiguousarray(prep.lt, dtype=np.int64),
            k,
            np.ascontiguousarray(attention(o, pos, hits), dtype=np.float64),
            g_indptr,
            g_codes,
            max(size, 1),
            own,
            not split,
            fixed,
            t_ip,
            t_items,
            t_rel,
            float(o["log_base"]),
            prep.threads,
        )
    if m.name == "awrf_ndcg":
        assert grade is not None and user is not None
        nd = _ndcg(prep, k, user, pos, grade, o["discount"] == "trec")
        no_rel = np.isnan(nd)
        aw = vals
        vals = vals * nd
        policy = prep.p.empty
        if policy == "zero":
            vals[no_rel] = 0.0
        elif policy == "one":
            vals[no_rel] = aw[no_rel]
        elif policy == "error":
            refuse_no_relevant(prep, m, no_rel)
    return column_sums(prep, vals)


def refuse_no_relevant(prep: Any, m: Any, no_rel: np.ndarray) -> None:
    """empty='error': a ValueError naming the first user without a relevant truth item, if any."""
    if no_rel.any():
        u = int(np.flatnonzero(no_rel)[0])
        user_id = prep.p.users[u].item() if isinstance(prep.p.users[u], np.generic) else prep.p.users[u]
        raise ValueError(f"user {user_id!r} has no relevant item in `truth` and empty='error' (metric {str(m)!r})")


def column_sums(prep: Any, vals: np.ndarray) -> tuple:
    """(values, exact sum, count) of a per-user column, the users the call leaves out set to NaN first."""
    left_out = getattr(prep.p, "left_out", None)
    if left_out is not None:
        vals[left_out] = np.nan
    vals = np.ascontiguousarray(vals)
    limbs, count = _core.exact_sum(vals, prep.threads)
    return vals, limbs_to_int(limbs), int(count)
