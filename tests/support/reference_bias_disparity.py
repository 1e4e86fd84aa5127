"""Pure-Python reference for bias disparity (docs/metrics.md 3.23.11), from Tsintzou, Pitoura & Tsaparas (2018):
dicts and loops. ``train``: {user: iterable of items}; ``recs``: {user: [item, ...]}; ``item_groups``: {item:
category or list of categories}; ``user_groups``: {user: group} or None (one group "all").
Returns {(group, category): (bs, br, bd)}."""

from __future__ import annotations

import math
from typing import Any, Optional


def _cats(x: Any) -> list:
    return list(x) if isinstance(x, (list, tuple, set)) else [x]


def _bias(lists: dict, group_of, item_groups: dict, groups: list, cats: list, pc: dict) -> dict:
    count = {(g, c): 0 for g in groups for c in cats}
    total = dict.fromkeys(groups, 0)
    for user, items in lists.items():
        g = group_of(user)
        for item in items:
            for c in set(_cats(item_groups.get(item, []))):
                count[g, c] += 1
                total[g] += 1
    out = {}
    for (g, c), n in count.items():
        if total[g] == 0 or pc[c] == 0:
            out[g, c] = math.nan
        else:
            out[g, c] = (n / total[g]) / pc[c]
    return out


def bias_disparity(train: dict, recs: dict, item_groups: dict, user_groups: Optional[dict], k: Optional[int]) -> dict:
    cats = sorted({c for v in item_groups.values() for c in _cats(v)})
    pc = {c: sum(1 for v in item_groups.values() if c in _cats(v)) / len(item_groups) for c in cats}
    if user_groups is None:
        groups = ["all"]

        def group_of(u):
            return "all"
    else:
        groups = sorted(set(user_groups.values()))
        group_of = user_groups.__getitem__
    bs = _bias({u: set(items) for u, items in train.items()}, group_of, item_groups, groups, cats, pc)
    br = _bias({u: r[:k] if k else r for u, r in recs.items()}, group_of, item_groups, groups, cats, pc)
    out = {}
    for key in bs:
        s, r = bs[key], br[key]
        if math.isnan(s) or math.isnan(r):
            d = math.nan
        elif s == 0:
            d = math.nan if r == 0 else math.inf
        else:
            d = (r - s) / s
        out[key] = (s, r, d)
    return out
