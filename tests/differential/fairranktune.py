"""Differential peer: FairRankTune 0.0.7's group exposure metrics against the per-group exposures of
``res.exposure("exposure_disparity(...)@k")`` (venv ``fairranktune``).

FairRankTune sums a position weight over every ranking's items by the item's group (one group per item), then:
``EXP`` divides each group's sum of 1/log2(j + 1) by the group's number of items; ``ERBE(decay)`` takes
(1 − decay) Σ decay^(j−1) per group as it is, ``ERBP(decay)`` divides it by the group's number of items; its ``AWRF(p)`` divides Σ 100 p (1 − p)^(j−1) by the group's number of
items; then a combo spreads the groups' values (min/max, max/min, max − min, the largest |value − mean|, the mean
|value − mean|, the L2 norm, the variance). rankmeter: the ``exposure`` column of
``res.exposure("exposure_disparity(attention=log|rbp, patience=...)@k")`` (one row per group of ``item_groups``),
k the longest list, ``duplicates="count"``, ``recs_only="empty"``; ``EXP`` with ``attention=log``, ``ERBE(d)`` and ``ERBP(d)``
with ``attention=rbp, patience=d``, ``AWRF(p)`` with ``attention=rbp, patience=1 − p`` times 100; divided by the group
sizes of ``item_groups`` where FairRankTune divides, and spread by the combo's formula (below, in ``COMBO``). All
three ``exposure_disparity`` columns in one ``evaluate`` call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import numpy as np

from .cases import RANKING_FEATURES, as_dicts, draw_case

VENV = "fairranktune"
ISOLATED = True
WORKER = Path(__file__).with_name("worker_fairranktune.py")
ALLOW = RANKING_FEATURES
REL = 1e-9

# the spread of the groups' values (FairRankTune's ComboUtil, by definition)
COMBO = {
    "MinMaxRatio": lambda v: v.min() / v.max(),
    "MaxMinRatio": lambda v: v.max() / v.min(),
    "MaxMinDiff": lambda v: v.max() - v.min(),
    "MaxAbsDiff": lambda v: float(np.abs(v - v.mean()).max()),
    "MeanAbsDev": lambda v: float(np.abs(v - v.mean()).sum() / v.size),
    "LTwo": lambda v: float(np.sqrt((v * v).sum())),
    "Variance": lambda v: float(v.var()),
}
# FairRankTune's call -> (rankmeter's options, scale, divided by the group's number of items)
CALLS = {
    "EXP": ("attention=log", 1.0, True),
    "ERBE(0.5)": ("attention=rbp,patience=0.5", 1.0, False),
    "ERBE(0.8)": ("attention=rbp,patience=0.8", 1.0, False),
    "ERBP(0.5)": ("attention=rbp,patience=0.5", 1.0, True),
    "AWRF(0.3)": ("attention=rbp,patience=0.7", 100.0, True),
}


def draw(seed: int) -> dict:
    """A case of cases.draw_case with one group per item (``item_group`` rows: the catalog's items, and in half the
    cases the items outside it; in a tenth of the cases some items have none)."""
    case = draw_case(seed, ALLOW)
    g = np.random.default_rng(seed + 17)
    labels: list[Any] = ["a", "b", "c", "d"] if g.random() < 0.5 else [0, 1, 2, 3]
    n = int(g.integers(1, 5))
    items = list(case["catalog"])
    if g.random() < 0.5:
        items += sorted({r[1] for r in case["recs"]} - set(items), key=str)
    gaps = g.random() < 0.1
    case["item_group"] = [[i, labels[int(g.integers(n))]] for i in items if not (gaps and g.random() < 0.2)]
    return case


def ours(case: dict) -> dict:
    import rankmeter as rm

    truth, recs = as_dicts(case)
    groups = dict(case["item_group"])
    k = max([len(v) for v in recs.values()] + [1])
    names = {call: f"exposure_disparity({opts})@{k}" for call, (opts, _s, _d) in CALLS.items()}
    res = rm.evaluate(
        truth,
        recs,
        list(names.values()),
        item_groups=groups,
        duplicates="count",
        recs_only="empty",
        missing="skip",
    )
    sizes: dict = {}
    for gr in groups.values():
        sizes[gr] = sizes.get(gr, 0) + 1
    out: dict[str, dict[str, Any]] = {}
    for call, (_opts, scale, per_item) in CALLS.items():
        table = res.exposure(names[call])
        e = table["exposure"].to_numpy(dtype=np.float64) * scale
        if per_item:
            e = e / np.array([sizes[gr] for gr in table.index], dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            for c, f in COMBO.items():
                out[f"{call}[{c}]"] = {"per_user": None, "mean": float(f(e))}
    return out


def known(case: dict, peer: dict) -> Optional[Any]:
    truth, recs = as_dicts(case)
    if not truth or not set(truth) & set(recs):
        return "no user in both the truth and the lists"
    groups = dict(case["item_group"])
    if any(i not in groups for lst in recs.values() for i in lst):
        return "a listed item without a group: FairRankTune raises (KeyError)"
    if not any(recs.values()):
        return "no list holds an item"
    skip = {}
    for label, res in peer.items():
        if res.get("raised") == "IndexError" and label.startswith("EXP"):
            skip[label] = (
                "EXP's position weights stop at the number of items of its dict: a longer list (repeated items) "
                "raises IndexError"
            )
        elif "raised" in res:
            skip[label] = f"FairRankTune raised ({res['raised']})"
    return skip or None
