"""Differential peer: ``preset="cornac"`` against the live Cornac (venv ``cornac``).

The worker (worker_cornac.py) asks each of Cornac's ranking metrics' ``compute`` for every user Cornac's
``ranking_eval`` evaluates, at each cutoff of a case and without one, on the ranked lists (repeats kept) and on
the scores (``scored:`` labels: each user's candidates are its listed items with the score of their first
occurrence, the form Cornac's AUC and MAP read). ``ours`` asks rankmeter for every list metric in one ``evaluate``
call on the ranked lists, and for every Cornac metric, AUC and MAP included, in one call on the score dicts
``{user: {item: score}}``, each mixed with metrics Cornac does not have.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from .cases import RANKING_FEATURES, as_dicts

VENV = "cornac"
ISOLATED = True  # python -P: this module must not shadow the package of that name
WORKER = Path(__file__).with_name("worker_cornac.py")
ALLOW = RANKING_FEATURES
REL = 1e-9

# Cornac's label (without "@k") -> rankmeter's metric under preset="cornac"
METRICS = {
    "NDCG": "ndcg",
    "Precision": "precision",
    "Recall": "recall",
    "F1": "f1",
    "HitRatio": "hit_rate",
    "NCRR": "ncrr",
}
# asked in the same call, not compared: the preset's values must not change when other metrics are asked
OTHERS = ("ap", "ndcg(gain=linear)", "dcg", "err")
# the metrics of the scores only (no cutoff in Cornac), and others asked with them
SCORED = {"AUC": "auc", "MAP": "ap"}
SCORED_OTHERS = ("gauc", "auc(ties=half)", "hits")


def ours(case: dict) -> dict:
    import rankmeter as rm

    truth, recs = as_dicts(case)
    if not truth:
        return {}
    names: dict[str, str] = {"MRR": "rr"}
    for k in [*case["ks"], None]:
        for n, m in METRICS.items():
            names[f"{n}@{k}" if k else n] = f"{m}@{k}" if k else m
    extra = [f"{o}@{case['k']}" for o in OTHERS]
    try:
        res = rm.evaluate(truth, recs, list(dict.fromkeys([*names.values(), *extra])), preset="cornac")
    except ValueError as e:
        if "no user" in str(e).lower() or "in common" in str(e).lower():
            return {}
        raise
    out: dict[str, dict[str, Any]] = {}
    for label, name in names.items():
        out[label] = {"per_user": dict(zip(res.users.tolist(), res.per_user[name].tolist())), "mean": res[name]}
    # the scores: each user's listed items once, with the score of the first occurrence, in list order (the
    # scores fall along the list, so ties='input' keeps that order for the list metrics)
    scores: dict = {}
    for u, i, _r, s in sorted(case["recs"], key=lambda row: (str(type(row[0])), row[0], row[2])):
        scores.setdefault(u, {}).setdefault(i, s)
    for u in case.get("empty_lists", []):
        scores[u] = {}
    scored = {f"scored:{label}": name for label, name in {**names, **SCORED}.items()}
    res = rm.evaluate(truth, scores, list(dict.fromkeys([*scored.values(), *SCORED_OTHERS])), preset="cornac")
    users = res.users.tolist()
    # MAP of a user without a positive candidate (ranking_eval never has one: every test positive is a candidate):
    # Cornac's mean over no positive is NaN, rankmeter's ap 0 (describe("cornac")): compared as missing on both sides
    no_pos = {u for u, h in zip(users, res.per_user["hits"].tolist()) if h == 0}
    for label, name in scored.items():
        per_user = dict(zip(users, res.per_user[name].tolist()))
        if label == "scored:MAP":
            per_user = {u: None if u in no_pos else v for u, v in per_user.items()}
        out[label] = {"per_user": per_user, "mean": res[name]}
    return out


def known(case: dict, peer: dict) -> Optional[Any]:
    """The labels of the case that preset="cornac" lists as not reproduced (describe("cornac"))."""
    skip: dict = {}
    for label in ("MRR", "scored:MRR"):
        mrr = peer.get(label)
        if mrr is not None and any(v is None for _, v in mrr["per_user"] or []):
            skip[label] = "MRR of a user without a positive in its list: Cornac raises"
    truth, recs = as_dicts(case)
    lists = {u: recs.get(u, []) for u in truth}
    if any(len(lst) == 0 for lst in lists.values()):
        skip["Precision"] = skip["scored:Precision"] = (
            "Precision without k of an empty list: Cornac divides 0 by 0 (NaN)"
        )
    if not truth or not set(truth) & set(recs):
        return "no user in both the truth and the lists"
    return skip or None
