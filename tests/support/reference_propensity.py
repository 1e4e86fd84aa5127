"""Naive pure-Python references of the propensity-weighted metrics (docs/metrics.md 3.19.21-3.19.26).

Written from the formulas of the docs (Yang et al. 2018's IPS and SNIPS estimators, RecPack's ip_cap and its
rule for items of zero count) with plain loops and dicts, never from the implementation. ``lst`` is one user's
list, best first (a repeated item counts at its first position); ``truth_u`` ``{item: grade}``; ``prop``
``{item: propensity}``. A function returns a float, or None for a user without a relevant item (the caller
applies ``empty``); raises KeyError for a relevant item without a propensity under unknown="error".
"""

import math

NAN = float("nan")


def popularity_propensity(train, gamma=1.0):
    """Yang et al.: p_i proportional to n_i^((gamma+1)/2), n_i the train entries holding i; scaled to sum 1."""
    n: dict = {}
    for items in train.values():
        for i in items:
            n[i] = n.get(i, 0) + 1
    q = {i: c ** ((gamma + 1) / 2) for i, c in n.items()}
    total = math.fsum(q.values())
    return {i: v / total for i, v in q.items()}


def weight(prop, item, cap=0.0, unknown="error"):
    """w = 1 / p clipped at cap (cap > 0); an item without a propensity or with p = 0 weighs 0 (unknown=zero)."""
    p = prop.get(item, 0.0)
    if p == 0.0:
        if unknown == "zero":
            return 0.0
        raise KeyError(item)
    w = 1.0 / p
    return min(w, cap) if cap > 0 else w


def _relevant(truth_u, min_relevance=None):
    return [i for i, g in truth_u.items() if (g >= min_relevance if min_relevance is not None else g > 0)]


def ips(name, lst, truth_u, prop, k=None, normalize="ips", cap=0.0, unknown="error", min_relevance=None):
    rel = _relevant(truth_u, min_relevance)
    if not rel:
        return None
    w = {i: weight(prop, i, cap, unknown) for i in rel}
    top = lst if k is None else lst[:k]
    seen: set = set()
    hits = []  # (1-based rank, item) of the first position of each relevant item in the top k
    for r, i in enumerate(top, start=1):
        if i in w and i not in seen:
            seen.add(i)
            hits.append((r, i))
    if name == "precision":
        den = k if k is not None else len(top)
        v = sum(w[i] for _, i in hits) / den if den else 0.0
    elif name == "recall":
        v = sum(w[i] for _, i in hits) / len(rel)
    elif name == "ndcg":
        m = len(rel) if k is None else min(len(rel), k)
        idcg = sum(1.0 / math.log2(j + 1) for j in range(1, m + 1))
        v = sum(w[i] / math.log2(r + 1) for r, i in hits) / idcg
    elif name == "rr":
        v = w[hits[0][1]] / hits[0][0] if hits else 0.0
    elif name == "hit_rate":
        v = sum(w[i] for _, i in hits)
    elif name == "ap":
        v = sum(w[i] * (n / r) for n, (r, i) in enumerate(hits, start=1)) / len(rel)
    else:
        raise ValueError(name)
    if normalize == "snips":
        total = sum(w.values())
        v = v * (len(rel) / total) if total > 0 else NAN
    return v


def ips_precision(*a, **kw):
    return ips("precision", *a, **kw)


def ips_recall(*a, **kw):
    return ips("recall", *a, **kw)


def ips_ndcg(*a, **kw):
    return ips("ndcg", *a, **kw)


def ips_rr(*a, **kw):
    return ips("rr", *a, **kw)


def ips_hit_rate(*a, **kw):
    return ips("hit_rate", *a, **kw)


def ips_ap(*a, **kw):
    return ips("ap", *a, **kw)
