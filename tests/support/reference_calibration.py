"""Plain-Python reference of miscalibration (Steck, "Calibrated Recommendations", RecSys 2018), written from
docs/metrics.md 3.19.20 and independent of rankmeter's code: dicts and math.log, one user at a time.

p(g|u): the mean over the distinct train items of the user that have a category of p(g|i) = 1/|G(i)| for
g in G(i); q(g|u): the same over the top k with the item at rank r weighted by w_r (1, 1/r or 1/log2(r+1));
C = sum_{g: p(g|u) > 0} p log(p / ((1 - alpha) q + alpha p)). None for a user without a categorized train
item or with an empty top k.
"""

from __future__ import annotations

import math
from fractions import Fraction


def _cats(item_categories: dict, item) -> list:
    c = item_categories.get(item, [])
    return list(c) if isinstance(c, (list, tuple, set, frozenset)) else [c]


def _weight(rank: int, rank_weight: str) -> float:
    if rank_weight == "reciprocal":
        return 1.0 / rank
    if rank_weight == "log2":
        return 1.0 / math.log2(rank + 1)
    return 1.0


def miscalibration(lst, k, history, item_categories, alpha=0.01, rank_weight="none"):
    """The divergence of one user (None: not defined, left out of the mean)."""
    top = list(lst) if not k else list(lst)[:k]
    if not top:
        return None
    p: dict = {}
    n_hist = 0
    for item in set(history):
        cs = _cats(item_categories, item)
        if not cs:
            continue
        n_hist += 1
        for g in cs:
            p[g] = p.get(g, Fraction(0)) + Fraction(1, len(cs))  # exact: p does not depend on the order
    if n_hist == 0:
        return None
    q: dict = {}
    total = 0.0
    for r, item in enumerate(top, 1):
        cs = _cats(item_categories, item)
        if not cs:
            continue
        w = _weight(r, rank_weight)
        total += w
        for g in cs:
            q[g] = q.get(g, 0.0) + w / len(cs)
    out = 0.0
    for g, pg in p.items():
        pg_f = float(pg / n_hist)
        qg = q.get(g, 0.0) / total if total > 0 else 0.0
        out += pg_f * math.log(pg_f / ((1 - alpha) * qg + alpha * pg_f))
    return max(out, 0.0)
