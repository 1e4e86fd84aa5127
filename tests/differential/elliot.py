"""Differential peer: ``preset="elliot"`` against the restatement of Elliot's published code
(tests/support/reference_elliot.py; Elliot does not install here, ``describe("elliot")``).

The worker (worker_elliot.py) runs the restatement on each case (with a train table: Elliot always has one) at
every cutoff of the case; ``ours`` asks rankmeter for every metric in one ``evaluate`` call, mixed with metrics
Elliot does not have. Elliot's MAP and MAR (the mean of P@n and of R@n over n = 1..k) are the per-user means of
``precision@1..k`` and ``recall@1..k`` of that call; ItemCoverage, Gini and UserCoverage are read from
``coverage(outside=count)``, ``gini`` and ``user_coverage`` as ``describe("elliot")`` says. A third of the cases
use Elliot's default relevance threshold 0, which rankmeter gets as grades shifted by 1 (the preset's recipe).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from .cases import FEATURES, as_dicts, draw_case

VENV = None  # the restatement runs in rankmeter's own interpreter
WORKER = Path(__file__).with_name("worker_elliot.py")
ALLOW = tuple(f for f in FEATURES if f not in ("features", "zero_features"))
REL = 1e-9

# Elliot's label -> rankmeter's metric under preset="elliot" (per user)
PER_USER = {
    "nDCG": "ndcg",
    "nDCGRendle2020": "ndcg(gain=binary)",
    "Precision": "precision",
    "Recall": "recall",
    "F1": "f1",
    "HR": "hit_rate",
    "MRR": "rr",
    "EPC": "epc",
    "EFD": "efd",
    "ARP": "arp",
    "APLT": "aplt",
    "ACLT": "aclt",
}
OTHERS = ("bpref", "err", "ap", "novelty")


def draw(seed: int) -> dict:
    """A case of cases.draw_case with a train table (drawn from the case's items when the case has none)."""
    import numpy as np

    case = draw_case(seed, ALLOW)
    if "train" not in case:
        g = np.random.default_rng(seed + 7)
        items = case["catalog"]
        train = []
        for t in range(int(g.integers(1, 10))):
            for j in g.choice(len(items), int(g.integers(1, min(len(items), 9) + 1)), replace=False):
                train.append([f"t{t}" if isinstance(items[0], str) else 10_000 + t, items[int(j)]])
        case["train"] = train
    if "outside_catalog" not in case["on"] and seed % 2 == 0:
        # Elliot's own domain: it recommends only train items, so half of these cases have every catalog item in train
        seen = {i for _u, i in case["train"]}
        extra = "t_all" if isinstance(case["catalog"][0], str) else 20_000
        case["train"] = case["train"] + [[extra, i] for i in case["catalog"] if i not in seen]
    # Elliot's relevance threshold: 1 (its sample configurations, the preset's) or 0 (its default), the latter
    # given to rankmeter as grades shifted by 1 - t (describe("elliot"))
    case["t"] = 0.0 if seed % 3 == 0 else 1.0
    return case


def ours(case: dict) -> dict:
    import numpy as np

    import rankmeter as rm

    truth, recs = as_dicts(case)
    shift = 1.0 - case["t"]
    if shift:
        truth = {u: {i: g + shift for i, g in items.items()} for u, items in truth.items()}
    train: dict = {}
    for u, i in case["train"]:
        train.setdefault(u, []).append(i)
    ks = case["ks"]
    names = [f"{m}@{k}" for k in ks for m in PER_USER.values()]
    names += [f"precision@{n}" for n in range(1, max(ks) + 1)] + [f"recall@{n}" for n in range(1, max(ks) + 1)]
    names += [f"{m}@{k}" for k in ks for m in ("coverage(outside=count)", "gini", "shannon_entropy")]
    names += [f"user_coverage@{ks[0]}", *(f"{o}@{ks[0]}" for o in OTHERS)]
    try:
        res = rm.evaluate(truth, recs, list(dict.fromkeys(names)), preset="elliot", train=train)
    except ValueError as e:
        if "no user" in str(e).lower() or "in common" in str(e).lower():
            return {}
        raise
    users = res.users.tolist()
    out: dict[str, dict[str, Any]] = {}

    def per_user(values) -> dict:
        return dict(zip(users, np.asarray(values, dtype=float).tolist()))

    n_catalog = len({i for _u, i in case["train"]})
    for k in ks:
        for label, m in PER_USER.items():
            out[f"{label}@{k}"] = {"per_user": per_user(res.per_user[f"{m}@{k}"]), "mean": res[f"{m}@{k}"]}
        for label, m in (("MAP", "precision"), ("MAR", "recall")):
            mean_k = np.mean([np.asarray(res.per_user[f"{m}@{n}"], dtype=float) for n in range(1, k + 1)], axis=0)
            pu = per_user(mean_k)
            vals = [v for v in pu.values() if v == v]
            out[f"{label}@{k}"] = {"per_user": pu, "mean": sum(vals) / len(vals) if vals else None}
        out[f"ItemCoverage@{k}"] = {"per_user": None, "mean": res[f"coverage(outside=count)@{k}"] * n_catalog}
        out[f"Gini@{k}"] = {"per_user": None, "mean": 1 - res[f"gini@{k}"]}
        out[f"SEntropy@{k}"] = {"per_user": None, "mean": res[f"shannon_entropy@{k}"]}
    out["UserCoverage"] = {"per_user": None, "mean": res[f"user_coverage@{ks[0]}"] * res.meta["n_users"]}
    return out


def known(case: dict, peer: dict) -> Optional[Any]:
    """The labels of the case that preset="elliot" lists as not reproduced (describe("elliot"))."""
    truth, recs = as_dicts(case)
    if not truth or not set(truth) & set(recs):
        return "no user in both the truth and the lists"
    skip: dict = {}
    for label, res in peer.items():
        if "raised" in res:
            skip[label] = {
                "KeyError": "Elliot raises KeyError: ARP of an item without train popularity",
                "ZeroDivisionError": "Elliot raises ZeroDivisionError: ARP/APLT of an empty list, Gini/SEntropy of no "
                "item or of one train item",
            }.get(res["raised"], f"Elliot raises {res['raised']}")
    train_items = {i for _u, i in case["train"]}
    kept = {u: lst for u, lst in recs.items() if u in truth}
    outside = any(i not in train_items for lst in kept.values() for i in lst)
    repeats = any(len(set(lst)) < len(lst) for lst in kept.values())
    nothing = not any(kept.values())
    for label in peer:
        base = label.split("@")[0]
        if nothing and base in ("Gini", "SEntropy"):
            skip.setdefault(label, "no item recommended: Elliot's Gini is 1 and SEntropy 0 (empty sums)")
        if outside and base in ("ARP", "APLT", "ACLT", "Gini", "ItemCoverage"):
            skip.setdefault(label, "an item outside Elliot's train item index (Elliot recommends none)")
        if repeats and base in ("APLT", "ACLT"):
            skip.setdefault(label, "APLT/ACLT of a list holding an item twice: Elliot counts a set")
        if base == "SEntropy":
            k = int(label.split("@")[1])
            if len({min(len(lst), k) for lst in kept.values()}) > 1:
                skip.setdefault(label, "SEntropy with lists of different lengths: Elliot weighs by 1 / |L_u|")
    return skip or None
