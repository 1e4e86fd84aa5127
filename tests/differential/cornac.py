"""Differential peer: ``preset="cornac"`` against the live Cornac (venv ``cornac``).

The worker (worker_cornac.py) asks each of Cornac's ranking metrics' ``compute`` for every user Cornac's
``ranking_eval`` evaluates, at each cutoff of a case and without one; ``ours`` asks rankmeter for all of them in
one ``evaluate`` call, mixed with metrics Cornac does not have. Cornac's metrics that read the full score vector
(AUC, MAP) are not in the preset (``describe("cornac")``).
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
    return out


def known(case: dict, peer: dict) -> Optional[Any]:
    """The labels of the case that preset="cornac" lists as not reproduced (describe("cornac"))."""
    skip: dict = {}
    mrr = peer.get("MRR")
    if mrr is not None and any(v is None for _, v in mrr["per_user"] or []):
        skip["MRR"] = "MRR of a user without a positive in its list: Cornac raises"
    truth, recs = as_dicts(case)
    lists = {u: recs.get(u, []) for u in truth}
    if any(len(lst) == 0 for lst in lists.values()):
        skip["Precision"] = "Precision without k of an empty list: Cornac divides 0 by 0 (NaN)"
    if not truth or not set(truth) & set(recs):
        return "no user in both the truth and the lists"
    return skip or None
