"""Differential peer: jurity 2.1.0's binary fairness metrics applied to per-user outcomes by user group, against
rankmeter's ``user_groups=`` (venv ``jurity``).

jurity's ``StatisticalParity`` of binary predictions by a 0/1 membership is P(1 | group 1) − P(1 | group 0): with
the per-user hit (``hit_rate@k``) or service (``user_coverage@k``) as the prediction it is the difference of the two
groups' means, ``res.by_group()[m][1] − res.by_group()[m][0]``, whose absolute value is ``res.group_gaps()``'s
``max_minus_min``. ``DisparateImpact`` is the ratio P(1 | group 1) / P(1 | group 0): ``by_group`` means divided, and
min(DI, 1 / DI) is ``group_gaps``' ``min_max_ratio``. Each is compared in both forms (labels ``...|gap`` for the
``group_gaps`` columns). All these in one ``evaluate`` call with ``user_groups=``. jurity's ``InterListDiversity``
(every user, no sampling) is the mean cosine distance of the users' top-k indicator vectors:
``personalization(similarity=cosine)@k`` with ``recs_only="empty"``, in a second call (a catalog-level metric is
refused with ``user_groups=``); jurity reports a value within 1e-6 of 0 as 0, and so does ``ours``.

Conventions that differ (skipped by ``known``): jurity's DisparateImpact returns the *count* of group 1's positive
outcomes when group 0 has none (rankmeter's ratio is inf there, ``min_max_ratio`` 0), and a group without users is
a division by zero in jurity (NaN / an error) where rankmeter's gaps are over the groups that have users.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import numpy as np

from .cases import RANKING_FEATURES, as_dicts, draw_case

VENV = "jurity"
ISOLATED = True
WORKER = Path(__file__).with_name("worker_jurity.py")
ALLOW = RANKING_FEATURES
REL = 1e-9


def draw(seed: int) -> dict:
    """A case of cases.draw_case with a 0 / 1 user group for each of its users (``user_group`` rows)."""
    case = draw_case(seed, ALLOW)
    g = np.random.default_rng(seed + 11)
    users = list(dict.fromkeys([*(r[0] for r in case["truth"]), *(r[0] for r in case["recs"]), *case["empty_lists"]]))
    case["user_group"] = [[u, int(g.random() < 0.5)] for u in users]
    return case


def _metric(name: str, k: int) -> str:
    return f"hit_rate@{k}" if name == "hit" else f"user_coverage@{k}"


def ours(case: dict) -> dict:
    import rankmeter as rm

    truth, recs = as_dicts(case)
    groups = dict(case["user_group"])
    metrics = [_metric(n, k) for k in case["ks"] for n in ("hit", "served")]
    res = rm.evaluate(truth, recs, list(dict.fromkeys(metrics)), user_groups=groups, duplicates="miss")
    out_ild: dict[str, dict[str, Any]] = {}
    by = res.by_group()
    # personalization is catalog-level: refused with user_groups=, so it has a call of its own
    if not _has_repeat(recs):
        ild = rm.evaluate(
            truth, recs, [f"personalization(similarity=cosine)@{k}" for k in case["ks"]], recs_only="empty"
        )
        for k in case["ks"]:
            v = ild[f"personalization(similarity=cosine)@{k}"]
            # jurity reports a diversity within 1e-6 of 0 as 0
            out_ild[f"InterListDiversity@{k}"] = {"per_user": None, "mean": 0.0 if abs(v) <= 1e-6 else v}
    gaps = res.group_gaps(n_permutations=0)
    out: dict[str, dict[str, Any]] = dict(out_ild)
    for k in case["ks"]:
        for n in ("hit", "served"):
            m = _metric(n, k)
            g1 = by.loc[1, m] if 1 in by.index else float("nan")
            g0 = by.loc[0, m] if 0 in by.index else float("nan")
            out[f"StatisticalParity[{n}@{k}]"] = {"per_user": None, "mean": g1 - g0}
            out[f"StatisticalParity[{n}@{k}]|gap"] = {"per_user": None, "mean": gaps.loc[m, "max_minus_min"]}
            out[f"DisparateImpact[{n}@{k}]"] = {"per_user": None, "mean": g1 / g0 if g0 else float("nan")}
            out[f"DisparateImpact[{n}@{k}]|gap"] = {"per_user": None, "mean": gaps.loc[m, "min_max_ratio"]}
    return out


def _has_repeat(recs: dict) -> bool:
    return any(len(set(lst)) < len(lst) for lst in recs.values())


def _outcomes(case: dict, name: str, k: int) -> dict:
    """The per-user 0 / 1 outcomes the worker hands jurity (its docstring), by user."""
    truth, recs = as_dicts(case)
    users = [u for u, t in truth.items() if name == "served" or any(g > 0 for g in t.values())]
    return {u: int(any(truth[u].get(i, 0) > 0 for i in recs.get(u, [])[:k])) for u in users}


def known(case: dict, peer: dict) -> Optional[Any]:
    truth, recs = as_dicts(case)
    if not truth:
        return "no truth user"
    if not set(truth) & set(recs):
        return "no user in both the truth and the lists (rankmeter refuses a call without a shared user)"
    groups = dict(case["user_group"])
    skip: dict = {}
    for label, res in peer.items():
        if label.startswith("InterList"):
            listed = [u for u, lst in recs.items() if lst]
            if "raised" in res:
                skip[label] = f"InterListDiversity raised ({res['raised']})"
            elif _has_repeat(recs):
                skip[label] = "InterListDiversity with a repeated item: jurity counts it twice in its user-item matrix"
            elif len(listed) < 2:
                skip[label] = "InterListDiversity of fewer than two lists"
            continue
        base = label.split("|")[0]
        name, k = base[base.index("[") + 1 : -1].split("@")
        out = _outcomes(case, name, int(k))
        sizes = [sum(groups[u] == g for u in out) for g in (0, 1)]
        if "raised" in res or min(sizes) == 0:
            skip[label] = "a user group without users (jurity divides by its size)"
        elif base.startswith("Disparate") and not any(v for u, v in out.items() if groups[u] == 0):
            skip[label] = "DisparateImpact without a positive outcome in group 0: jurity returns group 1's count"
    return skip or None
