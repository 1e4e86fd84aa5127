"""Differential peer: ``preset="replay"`` against the live RePlay (venv ``replay``).

The worker (worker_replay.py) hands RePlay the case as DataFrames (recommendations with their scores, the
ground truth) and asks each ranking metric per user and as the mean at every cutoff; ``ours`` asks rankmeter for
all of them in one ``evaluate`` call on the same tables, mixed with metrics RePlay does not have.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from .cases import RANKING_FEATURES

VENV = "replay"
ISOLATED = True  # python -P: this module must not shadow the package of that name
WORKER = Path(__file__).with_name("worker_replay.py")
# RePlay refuses a repeated (user, item) in the recommendations, as the preset does (duplicates="error")
ALLOW = tuple(f for f in RANKING_FEATURES if f not in ("duplicates", "empty_lists"))
REL = 1e-9

METRICS = {
    "NDCG": "ndcg",
    "MAP": "ap",
    "MRR": "rr",
    "Precision": "precision",
    "Recall": "recall",
    "HitRate": "hit_rate",
}
OTHERS = ("ndcg(gain=linear)", "dcg", "err", "bpref")


def ours(case: dict) -> dict:
    import pandas as pd

    import rankmeter as rm

    recs = pd.DataFrame([[u, i, s] for u, i, _r, s in case["recs"]], columns=["user_id", "item_id", "score"])
    truth = pd.DataFrame([[u, i, g] for u, i, g in case["truth"]], columns=["user_id", "item_id", "relevance"])
    if truth.empty:
        return {}
    names = {f"{n}@{k}": f"{m}@{k}" for k in case["ks"] for n, m in METRICS.items()}
    extra = [f"{o}@{case['k']}" for o in OTHERS]
    try:
        res = rm.evaluate(truth, recs, list(dict.fromkeys([*names.values(), *extra])), preset="replay")
    except ValueError as e:
        if "in common" in str(e).lower() or "no user" in str(e).lower():
            return {}
        raise
    out: dict[str, dict[str, Any]] = {}
    for label, name in names.items():
        out[label] = {"per_user": dict(zip(res.users.tolist(), res.per_user[name].tolist())), "mean": res[name]}
    return out


def known(case: dict, peer: dict) -> Optional[str]:
    truth_users = {u for u, _i, _g in case["truth"]}
    if not truth_users or not truth_users & {u for u, *_ in case["recs"]}:
        return "no user in both the truth and the recommendations"
    return None
