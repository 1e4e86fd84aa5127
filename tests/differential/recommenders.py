"""Differential peer: ``preset="recommenders"`` against the live Microsoft Recommenders (venv ``msr``).

The worker (worker_recommenders.py) asks Recommenders' python_evaluation for every function the preset
reproduces; ``ours`` asks rankmeter for all of them in one ``evaluate`` call, mixed with metrics Recommenders
does not have, on the same tables: the recommendations with their scores in the worker's row order (equal
scores: that order, ``ties="input"``), as a table, or as a dict when the case has empty lists (a table cannot
hold them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Union

from .cases import FEATURES
from .worker_recommenders import has_zero_feature, pred_rows, sampled_users, train_rows

VENV = "msr"
ISOLATED = True  # python -P: the peer modules here must not shadow the packages of that name
WORKER = Path(__file__).with_name("worker_recommenders.py")
ALLOW = FEATURES
REL = 1e-9

# Recommenders' function (without "@k") -> rankmeter's metric under preset="recommenders"
RANKING = {
    "precision_at_k": "precision",
    "recall_at_k": "recall",
    "ndcg_at_k": "ndcg",
    "ndcg_at_k(raw)": "ndcg(gain=linear)",
    "ndcg_at_k(exp)": "ndcg(gain=exponential)",
    "map_at_k": "ap",
    "map": "ap(denominator=relevant)",
}
BEYOND = {
    "catalog_coverage": "coverage",
    "novelty": "novelty",
    "user_diversity": "diversity",
    "user_diversity(features)": "diversity(similarity=features)",
    "user_serendipity": "serendipity",
    "user_serendipity(features)": "serendipity(similarity=features)",
}
# asked in the same call, not compared: the preset's values must not change when other metrics are asked
OTHERS = ("hit_rate", "rr", "ndcg(gain=linear,ideal=all)", "personalization")


def _inputs(case: dict) -> tuple[Any, Any]:
    import pandas as pd

    truth = pd.DataFrame(case["truth"], columns=["user_id", "item_id", "relevance"]).astype({"relevance": float})
    rows = pred_rows(case)
    if case["empty_lists"]:
        recs: Any = {}
        for u, i, _r, s in rows:
            recs.setdefault(u, {})[i] = s
        recs.update({u: {} for u in case["empty_lists"]})
    else:
        recs = pd.DataFrame([[u, i, s] for u, i, _r, s in rows], columns=["user_id", "item_id", "score"])
        recs = recs.astype({"score": float})
    return truth, recs


def ours(case: dict) -> dict:
    import numpy as np
    import pandas as pd

    import rankmeter as rm

    truth, recs = _inputs(case)
    names = {f"{f}@{k}": f"{m}@{k}" for k in case["ks"] for f, m in RANKING.items()}
    ctx: dict = {}
    train = train_rows(case)
    if case.get("train") and train and case["recs"]:
        ctx["train"] = pd.DataFrame(train, columns=["user_id", "item_id"])
        names.update({f: m for f, m in BEYOND.items() if not f.endswith("(features)")})
        if case.get("features") and not has_zero_feature(case):
            ctx["item_features"] = {i: np.array(v) for i, v in case["features"]}
            names.update({f: m for f, m in BEYOND.items() if f.endswith("(features)")})
    extra = [f"{o}@{case['k']}" for o in OTHERS]
    res = rm.evaluate(truth, recs, list(dict.fromkeys([*names.values(), *extra])), preset="recommenders", **ctx)
    out: dict[str, dict[str, Any]] = {}
    sample = set(sampled_users(case))
    for label, name in names.items():
        if label in ("catalog_coverage", "novelty"):  # one value for the whole table in Recommenders
            out[label] = {"per_user": None, "mean": res[name]}
            continue
        per_user = dict(zip(res.users.tolist(), res.per_user[name].tolist()))
        if label in RANKING_LABELS:  # the worker gives the ranking functions' values of sampled users only
            per_user = {u: v for u, v in per_user.items() if u in sample}
        out[label] = {"per_user": per_user, "mean": res[name]}
    return out


RANKING_LABELS = {f"{f}@{k}" for f in RANKING for k in (1, 2, 3, 5, 10, 20)}


def known(case: dict, peer: dict) -> Union[str, dict, None]:
    """The cases preset="recommenders" lists as not reproduced (rankmeter.presets.describe("recommenders"))."""
    seen = set()
    for u, i, _r, _s in case["recs"]:
        if (u, i) in seen:
            return "a (user, item) repeated in rating_pred"
        seen.add((u, i))
    truth_users = {u for u, _i, _g in case["truth"]}
    pred_users = {u for u, *_ in case["recs"]}
    if truth_users and pred_users and not truth_users & pred_users:
        return "no user of rating_true has predictions (both tables hold rows)"
    if not truth_users & pred_users:
        return "no user in both tables: Recommenders returns 0.0 where rankmeter has no user to average"
    best: dict = {}
    for u, _i, g in case["truth"]:
        best[u] = max(best.get(u, g), g)
    if any(g < 0 for _u, _i, g in case["truth"]) or any(b <= 0 for b in best.values()):
        why = "ratings <= 0 with score_type 'raw' or 'exp'"
        return {f"ndcg_at_k({t})@{k}": why for t in ("raw", "exp") for k in case["ks"]}
    return None
