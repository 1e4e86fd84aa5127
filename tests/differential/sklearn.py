"""Differential peer: ``preset="sklearn"`` against the live scikit-learn (venv ``torch``).

A case reaches both sides as a scikit-learn user holds it (worker_sklearn.py, ``matrices``): dense ``y_true`` /
``y_score`` matrices, a row per user and a column per item, unlisted items scored 0 (so most rows hold many tied
scores). rankmeter gets the same matrices as truth ``{row user: {column: grade}}`` and recs ``{row user: {column:
score}}``, every column of every row, the columns numbered 0..n-1 (top_k_accuracy_score's classes).

``ours`` asks rankmeter for every function of the library in one ``evaluate`` call (ndcg_score, dcg_score, and
top_k_accuracy_score in single-label cases), mixed with metrics scikit-learn does not have.
Negative grades are not drawn: ndcg_score raises on them and dcg_score's negative gains are listed as not
reproduced (``rankmeter.presets.describe("sklearn")``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .cases import FEATURES

VENV = "torch"
ISOLATED = True  # python -P: the peer modules here must not shadow the packages of that name
WORKER = Path(__file__).with_name("worker_sklearn.py")
ALLOW = tuple(f for f in FEATURES if f != "negative")
REL = 1e-9

OTHERS = ("precision", "recall", "ap", "ndcg(gain=exponential)")


def _order_key(x: Any) -> tuple:
    return (str(type(x)), x)


def inputs(case: dict) -> tuple[list, dict, dict, bool]:
    """(users, truth, recs, single label?): the matrices of worker_sklearn.matrices as rankmeter inputs."""
    import numpy as np

    users: list = []
    seen: set = set()
    for u in [r[0] for r in case["truth"]] + [r[0] for r in case["recs"]] + list(case["empty_lists"]):
        if u not in seen:
            seen.add(u)
            users.append(u)
    cols = sorted({r[1] for r in case["truth"]} | {r[1] for r in case["recs"]} | set(case["catalog"]), key=_order_key)
    at = {c: j for j, c in enumerate(cols)}
    grade = {u: np.zeros(len(cols)) for u in users}
    score = {u: np.zeros(len(cols)) for u in users}
    for u, i, g in case["truth"]:
        grade[u][at[i]] = g
    for u, i, _r, s in case["recs"]:
        score[u][at[i]] = s
    single = len(case["truth"]) % 2 == 0
    if single:
        users = [u for u in users if (grade[u] > 0).any()]
        for u in users:
            label = int(np.argmax(grade[u]))
            grade[u] = np.zeros(len(cols))
            grade[u][label] = 1.0
    truth = {u: {j: float(grade[u][j]) for j in range(len(cols))} for u in users}
    recs = {u: {j: float(score[u][j]) for j in range(len(cols))} for u in users}
    return users, truth, recs, single


def ours(case: dict) -> dict:
    import rankmeter as rm

    _, truth, recs, single = inputs(case)
    names = []
    for k in [*case["ks"], None]:
        at = "" if k is None else f"@{k}"
        names += [f"ndcg{at}", f"dcg{at}", f"dcg(log_base=10){at}"]
    if single:
        names += [f"hit_rate@{k}" for k in case["ks"]]
    extra = [f"{o}@{case['k']}" for o in OTHERS]
    res = rm.evaluate(truth, recs, list(dict.fromkeys([*names, *extra])), preset="sklearn")
    return {n: {"per_user": dict(zip(res.users.tolist(), res.per_user[n].tolist())), "mean": res[n]} for n in names}
