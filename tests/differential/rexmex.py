"""Differential peer: rankmeter's coverage, user_coverage and personalization against rexmex 0.1.3 (venv
``rexmex``).

rexmex's ``item_coverage`` is the share of the catalog's items in some list (pairs outside the catalog discarded),
rounded to 3 decimals: rankmeter's ``coverage@k`` (``catalog=``), rounded the same way here. ``user_coverage`` is
the share of the given users (here those of the truth and of the lists) with at least one (user, item) pair, rounded
to 3 decimals: ``user_coverage(served=any)@k`` with ``recs_only="empty"`` (a user with only a list is evaluated,
a truth user without a list counts 0). ``personalization`` (the code of recmetrics', on ragged lists) is one minus the mean cosine similarity of
the lists' item sets over pairs of lists: ``personalization(similarity=cosine)@k``. ``duplicates="miss"``: a
repeat keeps its position (the list is cut at k as given, as rexmex's caller cuts it). All in one ``evaluate`` call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from .cases import RANKING_FEATURES, as_dicts

VENV = "rexmex"
ISOLATED = True  # this module must not shadow the package of that name
WORKER = Path(__file__).with_name("worker_rexmex.py")
ALLOW = RANKING_FEATURES
REL = 1e-9


def ours(case: dict) -> dict:
    import rankmeter as rm

    truth, recs = as_dicts(case)
    repeat = _has_repeat(recs)
    names: dict[str, str] = {}
    for k in case["ks"]:
        names[f"item_coverage@{k}"] = f"coverage@{k}"
        names[f"user_coverage@{k}"] = f"user_coverage(served=any)@{k}"
        if not repeat:  # refused with a repeated item under duplicates="miss" (known below)
            names[f"personalization@{k}"] = f"personalization(similarity=cosine)@{k}"
    res = rm.evaluate(truth, recs, list(names.values()), catalog=case["catalog"], duplicates="miss", recs_only="empty")
    out: dict[str, dict[str, Any]] = {}
    for label, name in names.items():
        v = res[name]
        out[label] = {"per_user": None, "mean": round(v, 3) if "coverage" in label else v}
    return out


def _has_repeat(recs: dict) -> bool:
    return any(len(set(lst)) < len(lst) for lst in recs.values())


def known(case: dict, peer: dict) -> Optional[Any]:
    truth, recs = as_dicts(case)
    if not truth:
        return "no truth user: rexmex raises on an empty list of possible users, rankmeter has no user to evaluate"
    if not set(truth) & set(recs):
        return "no user in both the truth and the lists"
    skip: dict = {}
    for label, res in peer.items():
        if "raised" in res:
            skip[label] = f"rexmex raised ({res['raised']})"
    for k in case["ks"]:
        if _has_repeat(recs):
            skip.setdefault(
                f"personalization@{k}",
                "personalization of a list with a repeated item: rankmeter refuses it under duplicates='miss' "
                "(the rule under which coverage cuts the list as rexmex does); rexmex reads the list as a set",
            )
        elif len(recs) < 2:
            skip.setdefault(f"personalization@{k}", "personalization of one list (rexmex divides by 0 pairs)")
        elif any(not lst for lst in recs.values()):
            skip.setdefault(
                f"personalization@{k}",
                "personalization with an empty list: rexmex's all-zero row has cosine 0 with itself, values above 1",
            )
    return skip or None
