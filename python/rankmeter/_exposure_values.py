"""Item exposure from integer histograms (docs/metrics.md 3.23): the attention models, the merge of the histograms
of disjoint users and the catalog-level values of exposure_gini and exposure_disparity.

Low layer: ``State`` (``_aggregate.py``) computes a merged state's value with these functions, and
``evaluation/_exposure.py`` builds the histograms they read (its docstring lists them).
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

__all__ = [
    "attention",
    "merge_exposure",
    "item_exposures",
    "group_shares",
    "exposure_value",
    "EQUAL_OPPORTUNITY",
    "eo_key",
]

# Elliot's ranking-based equal opportunity / statistical parity (docs/metrics.md 3.23.5-3.23.8): their part holds two
# integer arrays over the groups, "<metric>|num" and "<metric>|den", added on merge
EQUAL_OPPORTUNITY = ("pop_reo", "pop_rsp", "reo", "rsp")


# --------------------------------------------------------------------------- attention


def attention(options: dict, pos: np.ndarray, hits: np.ndarray) -> np.ndarray:
    """a(j, h) of every (position j >= 1, relevant items above h) (docs/metrics.md 3.23)."""
    pos = np.asarray(pos, dtype=np.int64)
    kind, g = options["attention"], float(options["patience"])
    if kind == "log":
        return 1.0 / np.log2(pos + 1.0)
    if kind == "log_trec":
        return 1.0 / np.log2(np.maximum(pos, 2).astype(np.float64))
    base = np.power(g, (pos - 1).astype(np.float64))
    if kind == "rbp":
        return (1.0 - g) * base
    if kind == "geometric":
        return base
    return base * np.power(1.0 - float(options["stop"]), np.asarray(hits, dtype=np.float64))


def merge_exposure(parts: list) -> Optional[dict]:
    """The histograms of several parts (disjoint users) as one: counts of equal keys added."""
    if any(p is None for p in parts) or not parts:
        return None
    first = parts[0]
    if len(parts) == 1:
        return dict(first)
    out: dict = {}
    if "item_ids" in first:
        ids = np.concatenate([p["item_ids"] for p in parts])
        pos = np.concatenate([p["item_pos"] for p in parts])
        hits = np.concatenate([p["item_hits"] for p in parts])
        cnt = np.concatenate([p["item_counts"] for p in parts])
        o1 = np.lexsort((hits, pos))
        o2 = np.argsort(ids[o1], kind="stable")
        order = o1[o2]
        ids, pos, hits, cnt = ids[order], pos[order], hits[order], cnt[order]
        if ids.size:
            new = np.ones(ids.size, dtype=bool)
            new[1:] = (ids[1:] != ids[:-1]) | (pos[1:] != pos[:-1]) | (hits[1:] != hits[:-1])
            s = np.flatnonzero(new)
            ids, pos, hits, cnt = ids[s], pos[s], hits[s], np.add.reduceat(cnt, s)
        out.update(item_ids=ids, item_pos=pos, item_hits=hits, item_counts=cnt)
    for prefix, names in (("grp", ("group", "m", "pos", "hits")), ("rel", ("group", "m"))):
        if f"{prefix}_group" in first:
            cols = [np.concatenate([p[f"{prefix}_{n}"] for p in parts]) for n in names]
            w = np.concatenate([p[f"{prefix}_counts"] for p in parts])
            got = _merge_rows(cols, w)
            out.update({f"{prefix}_{n}": c for n, c in zip(names, got[:-1])})
            out[f"{prefix}_counts"] = got[-1]
    for name in (
        "n_groups",
        "group_labels",
        "cat_group",
        "cat_m",
        "cat_counts",
    ):  # of item_groups alone: the same in every part
        if name in first:
            out[name] = first[name]
    for name in first:
        if "|" in name:  # per-group integer counts of the equal-opportunity metrics
            out[name] = np.sum([p[name] for p in parts], axis=0, dtype=np.int64)
    if "mad_ids" in first:  # item_mad: per item the top-k occurrences, per (item, grade) the relevant ones
        out["mad_ids"], out["mad_counts"] = _merge_by_id(
            [p["mad_ids"] for p in parts], [], [p["mad_counts"] for p in parts]
        )
        ids, (grade,), cnt = _merge_by_id(
            [p["madg_ids"] for p in parts], [[p["madg_grade"] for p in parts]], [p["madg_counts"] for p in parts]
        )
        out.update(madg_ids=ids, madg_grade=grade, madg_counts=cnt)
        for name in ("madt_ids", "madt_group", "mad_n_groups"):  # of item_groups alone: the same in every part
            out[name] = first[name]
    return out


def _merge_by_id(ids: list, cols: list, counts: list) -> tuple:
    """Rows (id, *cols) of several parts with their counts summed, sorted by id then cols; returns
    (ids, [cols], counts) — with no extra column (ids, counts)."""
    i = np.concatenate(ids)
    cs = [np.concatenate(c) for c in cols]
    n = np.concatenate(counts)
    o1 = np.lexsort(tuple(reversed(cs))) if cs else np.arange(i.size)
    o2 = np.argsort(i[o1], kind="stable")
    order = o1[o2]
    i, cs, n = i[order], [c[order] for c in cs], n[order]
    if i.size:
        new = np.ones(i.size, dtype=bool)
        new[1:] = i[1:] != i[:-1]
        for c in cs:
            new[1:] |= c[1:] != c[:-1]
        st = np.flatnonzero(new)
        i, cs, n = i[st], [c[st] for c in cs], np.add.reduceat(n, st)
    return (i, cs, n) if cols else (i, n)


def _merge_rows(cols: list, w: np.ndarray) -> tuple:
    if w.size == 0:
        return (*tuple(cols), w)
    order = np.lexsort(tuple(reversed(cols)))
    sc = [c[order] for c in cols]
    new = np.ones(order.size, dtype=bool)
    new[1:] = np.any([c[1:] != c[:-1] for c in sc], axis=0)
    s = np.flatnonzero(new)
    return (*tuple(c[s] for c in sc), np.add.reduceat(w[order], s))


# --------------------------------------------------------------------------- values from the histograms


def _fsum_groups(keys: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Per key in 0..n-1 the correctly rounded sum of its values (math.fsum; keys sorted ascending)."""
    out = np.zeros(n, dtype=np.float64)
    if keys.size == 0:
        return out
    bounds = np.flatnonzero(np.diff(keys)) + 1
    for key, chunk in zip(keys[np.concatenate([[0], bounds])].tolist(), np.split(values, bounds)):
        out[key] = math.fsum(chunk.tolist())
    return out


def item_exposures(hist: dict, options: dict) -> tuple[np.ndarray, np.ndarray]:
    """(item ids, exposure) of every exposed item: E_i = sum over users of a(position, hits above)."""
    ids = hist["item_ids"]
    if ids.size == 0:
        return ids, np.zeros(0, dtype=np.float64)
    terms = hist["item_counts"].astype(np.float64) * attention(options, hist["item_pos"], hist["item_hits"])
    new = np.ones(ids.size, dtype=bool)
    new[1:] = ids[1:] != ids[:-1]
    # the rows of an item in (position, hits) order, added left to right: the same histogram, the same bits
    return ids[new], np.add.reduceat(terms, np.flatnonzero(new))


def _gini_float(x: np.ndarray, divisor: str) -> float:
    """sum_j (2j - n - 1) x_j / ((n - 1) sum x) over x sorted ascending (sums correctly rounded)."""
    n = x.size
    if n < (2 if divisor == "n_minus_1" else 1):
        return math.nan
    s = np.sort(x)
    total = math.fsum(s.tolist())
    if total <= 0:
        return math.nan
    j = np.arange(1, n + 1, dtype=np.float64)
    num = math.fsum(((2.0 * j - n - 1.0) * s).tolist())
    return num / ((n - 1 if divisor == "n_minus_1" else n) * total)


def group_shares(hist: dict, options: dict) -> tuple[np.ndarray, np.ndarray]:
    """(exposure share, target share) of groups 0..G (G: the "no group" bucket, 0/0 under ungrouped=skip)."""
    e, t = group_exposures(hist, options)
    total_e, total_t = math.fsum(e.tolist()), math.fsum(t.tolist())
    share = e / total_e if total_e > 0 else np.full(e.size, np.nan)
    target = t / total_t if total_t > 0 else np.full(t.size, np.nan)
    return share, target


def group_exposures(hist: dict, options: dict) -> tuple[np.ndarray, np.ndarray]:
    """(exposure, target weight) of groups 0..G before normalisation (G: the "no group" bucket, 0 under
    ungrouped=skip); an item in m groups adds 1/m of its attention to each (multi=split) or all of it."""
    n_groups = int(hist["n_groups"][0])
    size = n_groups + 1
    split = options["multi"] == "split"
    w = attention(options, hist["grp_pos"], hist["grp_hits"])
    if split:
        w = w / np.maximum(hist["grp_m"], 1)
    e = _fsum_groups(hist["grp_group"], hist["grp_counts"].astype(np.float64) * w, size)
    if options["target"] == "uniform":
        t = np.ones(size, dtype=np.float64)
    else:
        pre = "cat" if options["target"] == "catalog" else "rel"
        c = hist[f"{pre}_counts"].astype(np.float64)
        t = _fsum_groups(hist[f"{pre}_group"], c / np.maximum(hist[f"{pre}_m"], 1) if split else c, size)
    if options["ungrouped"] == "skip":
        e[n_groups] = t[n_groups] = 0.0
    return e, t


def item_mad(hist: dict, threshold: float) -> float:
    """Elliot's ItemMADranking (docs/metrics.md 3.23.9): per recommended item v_i = its users' summed gain
    2^(g - threshold + 1) - 1 (grade g >= threshold, else 0) / its top-k occurrences; per group the mean v_i of its
    recommended items; the mean absolute difference over pairs of groups. NaN with a group holding no recommended
    item, or fewer than two groups."""
    n_groups = int(hist["mad_n_groups"][0])
    ids, cnt = hist["mad_ids"], hist["mad_counts"]
    gids, grade, gcnt = hist["madg_ids"], hist["madg_grade"], hist["madg_counts"]
    if n_groups < 2:
        return math.nan
    gain = np.where(grade >= threshold, np.power(2.0, grade - threshold + 1.0) - 1.0, 0.0) * gcnt
    total = np.zeros(ids.size, dtype=np.float64)
    if gids.size:
        new = np.ones(gids.size, dtype=bool)
        new[1:] = gids[1:] != gids[:-1]
        at = np.searchsorted(ids, gids[new])  # every relevant entry's item is a recommended item
        total[at] = np.add.reduceat(gain, np.flatnonzero(new))
    v = total / np.maximum(cnt, 1)
    tids, tgrp = hist["madt_ids"], hist["madt_group"]
    if ids.size == 0 or tids.size == 0:
        return math.nan
    at = np.minimum(np.searchsorted(ids, tids), ids.size - 1)
    found = (ids[at] == tids) & (cnt[at] > 0)
    sums = np.zeros(n_groups, dtype=np.float64)
    for g in range(n_groups):  # groups, not users: a handful
        sel = found & (tgrp == g)
        if not sel.any():
            return math.nan
        sums[g] = math.fsum(v[at[sel]].tolist()) / int(sel.sum())
    diffs = [abs(sums[a] - sums[b]) for a in range(n_groups) for b in range(a + 1, n_groups)]
    return math.fsum(diffs) / len(diffs)


def eo_key(m: Any) -> str:
    """The part key of an equal-opportunity metric: its canonical name without the cutoff (the part is the
    cutoff's)."""
    return str(m.with_options(k=None))


def equal_opportunity(num: np.ndarray, den: np.ndarray) -> float:
    """std / mean (population std, numpy's default as in Elliot) of P_g = num_g / den_g over the groups; NaN when
    a group has no denominator, or without a group or a positive mean."""
    if num.size == 0 or np.any(den == 0):
        return math.nan
    pr = num.astype(np.float64) / den.astype(np.float64)
    mean = math.fsum(pr.tolist()) / pr.size
    if not mean > 0:
        return math.nan
    return math.sqrt(math.fsum(((pr - mean) ** 2).tolist()) / pr.size) / mean


def exposure_value(part: Any, m: Any, catalog: Optional[np.ndarray]) -> float:
    """The value of a catalog-level exposure metric from its part's histograms."""
    hist = part.exposure
    o = m.options
    if m.name == "item_mad":
        return item_mad(hist, float(o["threshold"]))
    if m.name in EQUAL_OPPORTUNITY:
        key = eo_key(m)
        return equal_opportunity(hist[f"{key}|num"], hist[f"{key}|den"])
    if m.name == "exposure_gini":
        ids, e = item_exposures(hist, o)
        if o["over"] == "catalog":
            assert catalog is not None
            x = np.zeros(catalog.size, dtype=np.float64)
            if ids.size and catalog.size:
                at = np.minimum(np.searchsorted(ids, catalog), ids.size - 1)
                found = ids[at] == catalog
                x[found] = e[at[found]]
        else:
            x = e[e > 0]
        return _gini_float(x, o["divisor"])
    share, target = group_shares(hist, o)
    if np.isnan(share).any() or np.isnan(target).any():
        return math.nan
    return 0.5 * math.fsum(np.abs(share - target).tolist())


def exposure_table(hist: dict, m: Any, catalog: Optional[np.ndarray]) -> Any:
    """The exposures behind exposure_gini (one row per item) or exposure_disparity (one row per group) as a pandas
    DataFrame, computed from the histograms by the code that computes the metric's value."""
    import pandas as pd

    o = m.options
    if m.name == "exposure_gini":
        ids, e = item_exposures(hist, o)
        if o["over"] == "catalog" and catalog is not None and catalog.size:
            x = np.zeros(catalog.size, dtype=np.float64)
            if ids.size:
                at = np.minimum(np.searchsorted(ids, catalog), ids.size - 1)
                found = ids[at] == catalog
                x[found] = e[at[found]]
            ids, e = catalog, x
        elif o["over"] != "catalog":
            ids, e = ids[e > 0], e[e > 0]  # the exposed items: those the metric's Gini is over
        total = math.fsum(e.tolist())
        share = e / total if total > 0 else np.full(e.size, np.nan)
        df = pd.DataFrame({"item": ids, "exposure": e, "share": share})
        df = df.sort_values(["exposure", "item"], ascending=[False, True], kind="stable")
        return df.set_index("item")
    n_groups = int(hist["n_groups"][0])
    e, _ = group_exposures(hist, o)
    share, target = group_shares(hist, o)
    names = list(hist["group_labels"].tolist()) if "group_labels" in hist else list(range(n_groups))
    keep = n_groups + (1 if o["ungrouped"] == "own" else 0)
    df = pd.DataFrame(
        {
            "group": [*names, "(no group)"],
            "exposure": e,
            "share": share,
            "target": target,
            "gap": share - target,
        }
    ).iloc[:keep]
    return df.set_index("group")
