"""Differential peer: ``preset="torchmetrics"`` against the live torchmetrics (venv ``torch``).

A case reaches both sides as a user porting torchmetrics code holds it (worker_torchmetrics.py): one row per
listed item, in the case's row order, ``target`` = the truth grade of that (user, item) or 0. rankmeter gets the
same rows: truth ``{user: {row: target}}`` (every row, 0 included: each listed user is a query) and recs
``{user: {row: score}}`` (each row its own document, so a repeated item is two documents, as in torchmetrics).
Truth items that are not listed and users without a listed item are in neither (torchmetrics never sees them).

``ours`` asks rankmeter for every metric in one ``evaluate`` call under the preset, mixed with metrics
torchmetrics does not have; empty_target_action='pos'/'skip' are ``empty='one'``/``'skip'`` calls of their own,
the precision-recall curve's points (precision/recall(hit_scores=any)@j) another.
Scores are drawn with ties, near-ties (equal as float32), scores <= 0 and lists longer than 16 items, so every
tie rule of the preset is exercised.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import numpy as np

from .cases import FEATURES

VENV = "torch"
ISOLATED = True  # python -P: the peer modules here must not shadow the packages of that name
WORKER = Path(__file__).with_name("worker_torchmetrics.py")
# negative grades only reach RetrievalNormalizedDCG (the binary metrics get grade > 0, as for a grade 0), whose
# negative gains the preset lists as not reproduced: drawing them would only skip whole cases (known())
ALLOW = tuple(f for f in FEATURES if f != "negative")
# lists longer than 16 (std::sort's insertion-sort threshold), up to 45 items (topk's partial_sort path, from
# 64 k <= n, is covered by tests/conformance/test_torch_ties.py)
DRAW = {"max_items": 40, "lengths": (1, 1, 2, 3, 5, 8, 12, 17, 25, 45), "signed_scores": True, "near_ties": True}
REL = 1e-5  # torchmetrics computes in float32: per-query sums over up to 45 documents (discounts, gains) and means

# asked in the same call, not compared: the preset's values must not change when other metrics are asked
FLOORS = (0.2718, 0.5772)  # RetrievalRecallAtFixedPrecision's min_precision (the worker's): never a mean exactly
OTHERS = ("dcg", "hits", "arhr", "ndcg(gain=exponential)", "precision(hit_scores=any)")


def inputs(case: dict) -> tuple[dict, dict]:
    """truth {user: {row: target}} and recs {user: {row: score}}: the rows torchmetrics gets."""
    grade = {(u, i): g for u, i, g in case["truth"]}
    truth: dict = {}
    recs: dict = {}
    for row, (u, i, _r, s) in enumerate(case["recs"]):
        truth.setdefault(u, {})[row] = grade.get((u, i), 0)
        recs.setdefault(u, {})[row] = s
    return truth, recs


def _values(res: Any, name: str) -> dict:
    return {"per_user": dict(zip(res.users.tolist(), res.per_user[name].tolist())), "mean": res[name]}


def ours(case: dict) -> dict:
    import rankmeter as rm

    truth, recs = inputs(case)
    labels = _labels(case)
    plain = [n for n in labels if "|" not in n]
    extra = [f"{o}@{case['k']}" for o in OTHERS]
    res = rm.evaluate(truth, recs, list(dict.fromkeys([*plain, *extra])), preset="torchmetrics")
    out = {n: _values(res, n) for n in plain}
    k = case["k"]
    for action, empty in (("pos", "one"), ("skip", "skip")):
        names = [f"precision@{k}", f"ndcg@{k}"]
        r2 = rm.evaluate(truth, recs, names, preset="torchmetrics", empty=empty)
        for n in names:
            out[f"{n}|{action}"] = _values(r2, n)
    # the precision-recall curve's points (unfiltered, compared when no query holds equal scores)
    points = [f"{n}(hit_scores=any)@{j}" for n in ("precision", "recall") for j in range(1, k + 1)]
    r3 = rm.evaluate(truth, recs, points, preset="torchmetrics")
    for n in points:
        out[f"{n}|curve"] = _values(r3, n)
    for floor in FLOORS:
        ok = [
            r3[f"recall(hit_scores=any)@{j}"] for j in range(1, k + 1) if r3[f"precision(hit_scores=any)@{j}"] >= floor
        ]
        out[f"recall_at_fixed_precision@{k}|{floor}"] = {"per_user": None, "mean": max(ok, default=0.0)}
    per_user = res.per_user[f"ap@{k}"]
    for agg in ("median", "min", "max"):
        # torch's median of an even count is the lower middle value
        v = float(np.quantile(per_user, 0.5, method="lower")) if agg == "median" else float(getattr(np, agg)(per_user))
        out[f"ap@{k}|{agg}"] = {"per_user": None, "mean": v}
    return out


def _labels(case: dict) -> list[str]:
    out = []
    for k in [*case["ks"], None]:
        at = "" if k is None else f"@{k}"
        for n in ("precision", "precision(short_lists=evidently)", "recall", "ap", "rr", "hit_rate", "ndcg"):
            out.append(f"{n}{at}")
    return [*out, "r_precision"]


def known(case: dict, peer: dict) -> Optional[str]:
    """The cases preset="torchmetrics" lists as not reproduced (rankmeter.presets.describe("torchmetrics"))."""
    truth, _ = inputs(case)
    if any(g < 0 for grades in truth.values() for g in grades.values()):
        return "a negative target (RetrievalNormalizedDCG's negative gains)"
    if not any(g > 0 for grades in truth.values() for g in grades.values()):
        return "no query with a positive target (empty_target_action='skip': torchmetrics 0.0, rankmeter NaN)"
    for label, v in peer.items():
        curve = label.startswith("precision(hit_scores=any)@") and label.endswith("|curve")
        if curve and any(abs(v["mean"] - floor) < 1e-6 for floor in FLOORS):
            return "a mean precision at RetrievalRecallAtFixedPrecision's floor (compared in float32)"
    return None
