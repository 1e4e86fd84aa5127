"""Differential peer: Evidently 0.7 (venv `evidently`), against ``preset="evidently"``.

Each case runs in one variant of Evidently's options (``worker_evidently.variant``: new or legacy API, ranks or
scores, ``no_feedback_users``, ``min_rel_score``, ``beta``, ``normalize_arp``). Both sides read the same long
table (``worker_evidently.table``): rankmeter gets it the way docs/metrics.md 11.4 tells an Evidently user to pass
it, every row as truth (``target`` as the grade) and the recommended rows as recs (with scores, every row is
ranked). Evidently reports means only, so only means are compared.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .cases import FEATURES
from .worker_evidently import BIG_RANK, table, variant

VENV = "evidently"
WORKER = Path(__file__).with_name("worker_evidently.py")
ISOLATED = True  # python -P: `import evidently` in the worker must not find this module
# a (user, item) pair in two rows is two rows for Evidently (counted twice); rankmeter's truth items are unique
# and a repeated list item raises: the preset lists this as not reproduced
ALLOW = tuple(f for f in FEATURES if f != "duplicates")
REL = 1e-9

# Evidently's labels (worker) -> rankmeter metric names (under preset="evidently")
_TOPK = {
    "PrecisionTopK": "precision",
    "RecallTopK": "recall",
    "MAP": "ap",
    "MAR": "ar",
    "MRR": "rr",
    "HitRate": "hit_rate",
}


def inputs(case: dict) -> tuple[dict, dict, dict]:
    """(truth, recs, variant) as an Evidently user passes the case's table to rankmeter."""
    v = variant(case)
    truth: dict = {}
    recs: dict = {}
    for u, i, pred, target in table(case, v["mode"]):
        truth.setdefault(u, {})[i] = target
        if v["mode"] == "score":
            recs.setdefault(u, {})[i] = pred
        elif pred != BIG_RANK:
            recs.setdefault(u, []).append(i)
    return truth, recs, v


def ours(case: dict) -> dict:
    import numpy as np

    import rankmeter as rm

    truth, recs, v = inputs(case)
    ks = case["ks"]
    names: dict[str, str] = {}
    for k in ks:
        for label, name in _TOPK.items():
            names[f"{label}@{k}"] = f"{name}@{k}"
        names[f"NDCG@{k}"] = f"ndcg(gain=binary)@{k}" if v["min_rel"] else f"ndcg@{k}"
        names[f"Personalization@{k}"] = f"personalization@{k}"
        if v["mode"] == "score" and recs:  # no recs row at all: no score to read (Evidently omits the metric)
            names[f"ScoreDistribution@{k}"] = f"score_entropy@{k}"
        if "features" in case:
            names[f"Diversity@{k}"] = f"diversity@{k}"
        if "train" in case:
            names[f"Novelty@{k}"] = f"novelty@{k}"
            names[f"PopularityBias.arp@{k}"] = f"arp(normalize=max)@{k}" if v["normalize_arp"] else f"arp@{k}"
            names[f"PopularityBias.coverage@{k}"] = f"coverage@{k}"
            names[f"PopularityBias.gini@{k}"] = f"gini@{k}"
    kw: dict[str, Any] = {"preset": "evidently"}
    if "train" in case:
        kw["train"] = {}
        for u, i in case["train"]:
            kw["train"].setdefault(u, []).append(i)
    if "features" in case:
        kw["item_features"] = {i: np.asarray(x, dtype=float) for i, x in case["features"]}
    # the top-k metrics take no_feedback_users and min_rel_score; Serendipity takes min_rel_score in the legacy
    # API only and never no_feedback_users: it goes in a call of its own when they differ (docs/metrics.md 11.4)
    top = {"empty": "zero" if v["no_feedback"] else "skip", "min_relevance": v["min_rel"]}
    seren_min = v["min_rel"] if v["api"] == "legacy" else None
    seren = {f"Serendipity@{k}": f"serendipity@{k}" for k in ks} if "train" in case and "features" in case else {}
    # mixed with metrics Evidently does not have (their values are not compared; they must not change the others)
    mixed = [f"hits@{k}" for k in ks] + [f"f1@{ks[0]}", f"recall(denominator=min_relevant_k)@{ks[0]}"]
    if v["mode"] == "rank":
        mixed += [f"bpref@{ks[0]}", f"err@{ks[0]}", "r_precision", f"dcg@{ks[0]}"]
    res = rm.evaluate(truth, recs, sorted(set(names.values())) + mixed, **kw, **top)
    out = {label: {"per_user": None, "mean": res[name]} for label, name in names.items()}
    if seren:
        same = top["empty"] == "skip" and seren_min == v["min_rel"]
        rs = res if same else None
        if rs is None or any(n not in rs for n in seren.values()):
            rs = rm.evaluate(truth, recs, sorted(seren.values()), **kw, empty="skip", min_relevance=seren_min)
        out.update({label: {"per_user": None, "mean": rs[name]} for label, name in seren.items()})
    # FBetaTopK is the F-beta of the mean precision and the mean recall (docs/metrics.md 11.2)
    b2 = v["beta"] ** 2
    for k in ks:
        p, r = res[f"precision@{k}"], res[f"recall@{k}"]
        out[f"FBetaTopK@{k}"] = {"per_user": None, "mean": (1 + b2) * p * r / (b2 * p + r) if b2 * p + r else None}
    return out
