"""Differential peer: ``preset="recbole"`` against the live RecBole 1.2.1 (venv ``recbole``).

RecBole's metrics read the top max(topk) items of a full-sort evaluation: every test user has a list of that
many distinct catalog items, and its positives are its test interactions whatever their rating. :func:`draw`
draws that space (its own generator: cases.draw_case draws lists RecBole cannot hold): 1 to 12 users, 1 to 25
items, cutoffs up to the number of items, string, int or huge ids, 1 to 8 test items per user with ratings 0,
1, fractional or negative (all positive for RecBole), users of the lists only (not in RecBole's evaluation),
a training table or none. ``ours`` asks rankmeter for every metric in one ``evaluate`` call, mixed with metrics
RecBole does not have.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import numpy as np

VENV = "recbole"
ISOLATED = True  # python -P: this module must not shadow the package of that name
WORKER = Path(__file__).with_name("worker_recbole.py")
ALLOW = ()
REL = 1e-9

# RecBole's name (lower case, as its result keys) -> rankmeter's metric under preset="recbole"
METRICS = {
    "hit": "hit_rate",
    "mrr": "rr",
    "ndcg": "ndcg",
    "map": "ap",
    "precision": "precision",
    "recall": "recall",
    "averagepopularity": "arp",
    "itemcoverage": "coverage",
    "giniindex": "gini",
    "shannonentropy": "shannon_entropy",
    "tailpercentage": "tail_percentage",
}
# asked in the same call, not compared: the preset's values must not change when other metrics are asked
OTHERS = ("ndcg(gain=linear)", "dcg", "novelty", "personalization")


def _ids(kind: str, prefix: str):
    if kind == "string":
        return lambda n: f"{prefix}{int(n)}"
    if kind == "huge":
        return lambda n: 2**63 - 1 - int(n) if prefix == "i" else 2**62 + int(n)
    return lambda n: int(n)


def draw(seed: int) -> dict:
    g = np.random.default_rng(seed)
    kind = str(g.choice(["int", "string", "huge"]))
    uid, iid = _ids(kind, "u"), _ids(kind, "i")
    n_users, n_items = int(g.integers(1, 13)), int(g.integers(1, 26))
    ks = sorted({int(k) for k in g.choice([1, 2, 3, 5, 10, 20], 3) if k <= n_items} or {1})
    kmax = max(ks)
    truth, recs = [], []
    ratings = [1, 1, 0, 0.5, 2, -1]
    recs_only = g.random() < 0.4
    for u in range(n_users):
        lst = g.permutation(n_items)[:kmax]
        for r, i in enumerate(lst):
            recs.append([uid(u), iid(i), r + 1, float(kmax - r)])
        if recs_only and g.random() < 0.25:
            continue
        for i in g.choice(n_items, int(g.integers(1, min(n_items, 8) + 1)), replace=False):
            truth.append([uid(u), iid(i), ratings[int(g.integers(len(ratings)))]])
    truth = [truth[j] for j in g.permutation(len(truth))]
    case: dict = {"truth": truth, "recs": recs, "empty_lists": [], "k": ks[0], "ks": ks, "on": [kind]}
    case["catalog"] = [iid(i) for i in range(n_items)]
    if g.random() < 0.7:
        train = []
        for t in range(int(g.integers(1, n_users + 6))):
            for i in g.choice(n_items, int(g.integers(1, min(n_items, 9) + 1)), replace=False):
                train.append([uid(100 + t) if kind != "string" else f"t{t}", iid(i)])
        case["train"] = train
    return case


def ours(case: dict) -> dict:
    import rankmeter as rm

    truth: dict = {}
    for u, i, gr in case["truth"]:
        truth.setdefault(u, {})[i] = gr
    recs: dict = {}
    for u, i, _r, _s in sorted(case["recs"], key=lambda row: (str(row[0]), row[2])):
        recs.setdefault(u, []).append(i)
    names = {}
    for k in case["ks"]:
        for n, m in METRICS.items():
            if n in ("averagepopularity", "tailpercentage") and not case.get("train"):
                continue
            names[f"{n}@{k}"] = f"{m}@{k}"
    ctx: dict = {"catalog": case["catalog"]}
    if case.get("train"):  # {user: [items]}: a list of [user, item] pairs would read as positional lists
        train: dict = {}
        for u, i in case["train"]:
            train.setdefault(u, []).append(i)
        ctx["train"] = train
    extra = [f"{o}@{case['k']}" for o in OTHERS if o != "novelty" or case.get("train")]
    if not truth:
        return {}
    res = rm.evaluate(truth, recs, list(dict.fromkeys([*names.values(), *extra])), preset="recbole", **ctx)
    out: dict[str, dict[str, Any]] = {}
    for label, name in names.items():
        if rm.metrics.parse(name).family == "catalog":
            out[label] = {"per_user": None, "mean": res[name]}
        else:
            out[label] = {"per_user": dict(zip(res.users.tolist(), res.per_user[name].tolist())), "mean": res[name]}
    return out


def known(case: dict, peer: dict) -> Optional[Any]:
    """TailPercentage breaks ties of interaction counts by RecBole's item index, rankmeter by item id: the two
    orders are the same for the int ids of a case (the index follows the catalog), not for string or huge ids."""
    if case["on"][0] != "int" and case.get("train"):
        return {
            label: "TailPercentage of string or huge ids: ties broken by another order"
            for label in peer
            if label.startswith("tailpercentage")
        }
    return None
