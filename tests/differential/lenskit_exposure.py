"""Differential peer: rankmeter's ``exposure_gini`` against LensKit's ``ExposureGini`` (venv ``lenskit``).

LensKit 2025.8.1's ``ExposureGini(k, items=n, weight=...)`` sums each item's rank weight over the lists (float32),
pads the distinct items' sums with zeros to ``items`` slots and takes the Gini index with divisor n (lenskit.stats
``gini``). rankmeter: ``exposure_gini(divisor=n, attention=...)@k`` with ``catalog=`` the catalog (``over=catalog``),
the weightings mapped as ``GeometricRankWeight(p)`` -> ``attention=geometric, patience=p``, ``LogRankWeight()``
(ranks clipped at 2) -> ``attention=log_trec``, ``LogRankWeight(offset=1)`` -> ``attention=log``. Without a cutoff
LensKit weighs the whole list: rankmeter's cutoff is then the longest list. All labels in one ``evaluate`` call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from .cases import RANKING_FEATURES, as_dicts

VENV = "lenskit"
ISOLATED = True
WORKER = Path(__file__).with_name("worker_lenskit_exposure.py")
ALLOW = RANKING_FEATURES
REL = 5e-5  # LensKit keeps the rank weights and their sums in float32 (up to 7.6e-6 relative in 20,000 cases)

ATTENTION = {
    "geometric": "attention=geometric,patience=0.85",
    "geometric-half": "attention=geometric,patience=0.5",
    "log": "attention=log_trec",
    "log(offset=1)": "attention=log",
}


def ours(case: dict) -> dict:
    import rankmeter as rm

    truth, recs = as_dicts(case)
    longest = max([len(v) for v in recs.values()] + [1])
    names: dict[str, str] = {}
    for k in [*case["ks"], None]:
        for w, opts in ATTENTION.items():
            label = f"ExposureGini[{w}]" + (f"@{k}" if k else "")
            names[label] = f"exposure_gini(divisor=n,{opts})@{k or longest}"
    res = rm.evaluate(
        truth,
        recs,
        list(dict.fromkeys(names.values())),
        catalog=case["catalog"],
        missing="skip",
        recs_only="empty",
        duplicates="count",
        empty="zero",
    )
    return {label: {"per_user": None, "mean": res[name]} for label, name in names.items()}


def known(case: dict, peer: dict) -> Optional[Any]:
    truth, recs = as_dicts(case)
    if not truth or not set(truth) & set(recs):
        return "no user in both the truth and the lists"
    if not recs or all(not v for v in recs.values()):
        return "no list holds an item"
    catalog = set(case["catalog"])
    if any(i not in catalog for lst in recs.values() for i in lst):
        return "items outside the catalog: LensKit counts them in its item slots"
    skip = {
        label: f"ExposureGini raised ({res['raised']}): an empty list among others"
        for label, res in peer.items()
        if "raised" in res
    }
    return skip or None
