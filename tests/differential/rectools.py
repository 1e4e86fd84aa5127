"""Differential peer: ``preset="rectools"`` against the live RecTools (venv ``rectools``).

The worker (worker_rectools.py) asks RecTools for every metric the preset reproduces, at each cutoff of a case;
``ours`` asks rankmeter for all of them in one ``evaluate`` call, mixed with metrics RecTools does not have.
Intersection compares two recommendation tables (the reference: every list reversed) and is one more call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import numpy as np

from .cases import FEATURES

VENV = "rectools"
ISOLATED = True  # python -P: the peer modules here must not shadow the packages of that name
WORKER = Path(__file__).with_name("worker_rectools.py")
ALLOW = FEATURES
REL = 1e-9

# RecTools' label (without "@k") -> rankmeter's metric under preset="rectools"
METRICS = {
    "Precision": "precision",
    "Precision(r_precision)": "recall(denominator=min_relevant_k)",
    "Recall": "recall",
    "F1Beta": "f1",
    "F1Beta(beta=2)": "fbeta(beta=2)",
    "MAP": "ap",
    "MAP(divide_by_k)": "ap(denominator=k)",
    "NDCG": "ndcg",
    "NDCG(divide_by_achievable)": "ndcg(ideal=cut)",
    "NDCG(log_base=10)": "ndcg",  # the log base cancels in the ratio
    "MRR": "rr",
    "HitRate": "hit_rate",
    "CatalogCoverage": "coverage",  # a count: coverage x |catalog|
    "CatalogCoverage(normalize)": "coverage",
    "MeanInvUserFreq": "novelty",
    "AvgRecPopularity": "arp",
    "AvgRecPopularity(normalize)": "arp(normalize=total)",
    "IntraListDiversity": "diversity(similarity=matrix)",
}
# asked in the same call, not compared: the preset's values must not change when other metrics are asked
OTHERS = ("gini", "personalization", "ndcg(gain=linear)", "dcg")


def _frame(rows: list, columns: list, numeric: dict) -> Any:
    """A DataFrame of rows; an empty one gets numeric dtypes for ``numeric`` (column -> dtype)."""
    import pandas as pd

    frame = pd.DataFrame(rows, columns=columns)
    return frame.astype(numeric) if not rows else frame


def _tables(case: dict) -> tuple[Any, Any, Any]:
    """truth, recs and train as RecTools' users hold them: tables (recs with empty lists: a dict)."""
    import pandas as pd

    truth = _frame(case["truth"], ["user_id", "item_id", "relevance"], {"relevance": float})
    if case["empty_lists"]:
        recs: Any = {}
        for u, i, _r, _s in sorted(case["recs"], key=lambda row: (str(row[0]), row[2])):
            recs.setdefault(u, []).append(i)
        recs.update({u: [] for u in case["empty_lists"]})
    else:
        recs = _frame([r[:3] for r in case["recs"]], ["user_id", "item_id", "rank"], {"rank": "int64"})
    train = pd.DataFrame(case["train"], columns=["user_id", "item_id"]) if case.get("train") else None
    return truth, recs, train


def hamming_similarity(case: dict) -> tuple[list, np.ndarray]:
    """(item ids, 1 - Hamming distance of their feature vectors): IntraListDiversity's distances as the
    similarity of diversity(similarity=matrix)."""
    ids = [i for i, _ in case["features"]]
    f = np.array([v for _, v in case["features"]], dtype=np.float64)
    dist = (f[:, None, :] != f[None, :, :]).sum(axis=2)
    return ids, 1.0 - dist


def ours(case: dict) -> dict:
    import rankmeter as rm

    truth, recs, train = _tables(case)
    labels = _labels(case)
    names = {label: f"{METRICS[n]}@{k}" for label, (n, k) in labels.items() if n != "Intersection"}
    extra = [f"{o}@{case['k']}" for o in OTHERS] + ["r_precision"]
    ctx: dict = {"catalog": case["catalog"]}
    if train is not None:
        ctx["train"] = train
    if case.get("features"):
        ctx["item_similarity"] = hamming_similarity(case)
    res = rm.evaluate(truth, recs, list(dict.fromkeys([*names.values(), *extra])), preset="rectools", **ctx)
    out: dict[str, dict[str, Any]] = {}
    for label, name in names.items():
        n, _ = labels[label]
        if rm.metrics.parse(name).family == "catalog":
            v = res[name] * (len(case["catalog"]) if n == "CatalogCoverage" else 1)
            out[label] = {"per_user": None, "mean": v}
        else:
            out[label] = {"per_user": dict(zip(res.users.tolist(), res.per_user[name].tolist())), "mean": res[name]}
    for label, (n, k) in labels.items():
        if n == "Intersection":
            out[label] = _intersection(case, k)
    return out


def _intersection(case: dict, k: int) -> dict:
    """Intersection(k) = recall@k of the reference lists against the top k of the lists."""
    import rankmeter as rm

    top = [[u, i, 1] for u, i, r, _s in case["recs"] if r <= k]
    truth = _frame(top, ["user_id", "item_id", "relevance"], {"relevance": float})
    n: dict = {}
    for u, _i, r, _s in case["recs"]:
        n[u] = max(n.get(u, 0), r)
    ref = _frame(
        [[u, i, n[u] + 1 - r] for u, i, r, _s in case["recs"]], ["user_id", "item_id", "rank"], {"rank": "int64"}
    )
    res = rm.evaluate(truth, ref, [f"recall@{k}"], preset="rectools")
    return {"per_user": dict(zip(res.users.tolist(), res.per_user[f"recall@{k}"].tolist())), "mean": res[f"recall@{k}"]}


def _labels(case: dict) -> dict:
    """RecTools' label -> (its metric, k), for every cutoff of the case."""
    out: dict[str, tuple[str, int]] = {}
    for k in case["ks"]:
        for n in METRICS:
            if n in ("MeanInvUserFreq", "AvgRecPopularity", "AvgRecPopularity(normalize)") and not case.get("train"):
                continue
            if n == "IntraListDiversity" and not case.get("features"):
                continue
            out[f"{n}@{k}"] = (n, k)
        out[f"Intersection@{k}"] = ("Intersection", k)
    return out


def known(case: dict, peer: dict) -> Optional[str]:
    """The cases preset="rectools" lists as not reproduced (rankmeter.presets.describe("rectools"))."""
    seen = set()
    for u, i, _r, _s in case["recs"]:
        if (u, i) in seen:
            return "a (user, item) repeated in reco"
        seen.add((u, i))
    users = {u for u, _i, _g in case["truth"]}
    if users and case["recs"] and not users & {u for u, *_ in case["recs"]}:
        return "no user of interactions has recommendations"
    return None
