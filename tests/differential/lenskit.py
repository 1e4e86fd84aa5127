"""Differential peer: ``preset="lenskit"`` against the live LensKit (venv ``lenskit``).

The worker (worker_lenskit.py) hands LensKit's ``RunAnalysis`` every ranking metric of ``lenskit.metrics`` that
rankmeter has (NDCG and DCG binary and with ``gain="rating"``, Precision, Recall, RecipRank, Hit, RBP,
AveragePrecision, ListGini) at each cutoff of a case and without one, in one call; ``ours`` asks rankmeter for all
of them in one ``evaluate`` call, mixed with metrics LensKit does not have. The labels LensKit raises on, and the
cases ``describe("lenskit")`` lists as not reproduced, are skipped by ``known``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from .cases import RANKING_FEATURES, as_dicts

VENV = "lenskit"
ISOLATED = True  # python -P: this module must not shadow the package of that name
WORKER = Path(__file__).with_name("worker_lenskit.py")
ALLOW = RANKING_FEATURES
REL = 1e-9

# LensKit's label (without "@k") -> rankmeter's metric under preset="lenskit"
METRICS = {
    "NDCG": "ndcg",
    "NDCG(gain=rating)": "ndcg(gain=linear)",
    "DCG": "dcg",
    "DCG(gain=rating)": "dcg(gain=linear)",
    "Precision": "precision",
    "Recall": "recall",
    "RecipRank": "rr",
    "Hit": "hit_rate",
    "RBP": "rbp",
    "AveragePrecision": "ap",
}
# asked in the same call, not compared: the preset's values must not change when other metrics are asked
OTHERS = ("err", "bpref", "ndcg(gain=exponential,ideal=all)", "arhr")


def ours(case: dict) -> dict:
    import rankmeter as rm

    truth, recs = as_dicts(case)
    if not truth:
        return {}
    names: dict[str, str] = {}
    for k in [*case["ks"], None]:
        for n, m in METRICS.items():
            names[f"{n}@{k}" if k else n] = f"{m}@{k}" if k else m
        names[f"ListGini@{k}" if k else "ListGini"] = f"gini@{k}" if k else "gini"
    extra = [f"{o}@{case['k']}" for o in OTHERS]
    try:
        res = rm.evaluate(
            truth,
            recs,
            list(dict.fromkeys([*names.values(), *extra])),
            preset="lenskit",
            catalog=case["catalog"],
        )
    except ValueError as e:
        if "no user" in str(e).lower() or "in common" in str(e).lower():
            return {}
        raise
    out: dict[str, dict[str, Any]] = {}
    for label, name in names.items():
        if label.startswith("ListGini"):
            out[label] = {"per_user": None, "mean": res[name]}
        else:
            per_user = dict(zip(res.users.tolist(), res.per_user[name].tolist()))
            out[label] = {"per_user": per_user, "mean": res[name]}
    return out


RAISED = {
    "AveragePrecision": "AveragePrecision of a list whose user has no test items: LensKit divides 0.0 by 0 "
    "(ZeroDivisionError)",
    "NDCG(gain=rating)": "NDCG(gain='rating') of a list whose user has no test items: LensKit's empty test list has no "
    "rating field (KeyError)",
    "DCG(gain=rating)": "DCG(gain='rating') of a list whose user has no test items: LensKit's empty test list has no "
    "rating field (KeyError)",
    "ListGini": "ListGini with an empty list (pyarrow: chunks of different types) or more distinct items "
    "recommended than the catalog holds: LensKit raises",
}


def known(case: dict, peer: dict) -> Optional[Any]:
    """The labels of the case that preset="lenskit" lists as not reproduced (describe("lenskit"))."""
    truth, recs = as_dicts(case)
    if not truth or not set(truth) & set(recs):
        return "no user in both the truth and the lists"
    skip: dict = {}
    for label, res in peer.items():
        if "raised" in res:
            skip[label] = RAISED[label.split("@")[0]]
    listed = {u for u, lst in recs.items() if lst}
    if any(g < 0 for u, items in truth.items() if u in listed for g in items.values()):
        for label in peer:
            if "(gain=rating)" in label:
                skip.setdefault(label, "a negative grade under gain='rating': LensKit gains it as it is")
    catalog = set(case["catalog"])
    if any(i not in catalog for lst in recs.values() for i in lst):
        for label in peer:
            if label.startswith("ListGini"):
                skip.setdefault(label, "ListGini with items outside the catalog: LensKit counts them in its slots")
    return skip or None
