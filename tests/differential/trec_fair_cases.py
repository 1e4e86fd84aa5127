"""Differential peer: ``awrf`` / ``awrf_ndcg`` against the TREC Fair Ranking 2022 Task 1 evaluation restated in
trec_fair.py (worker_trec_fair.py), on the whole data space of cases.py with page alignments added.

``draw`` adds to a case ``item_groups`` (each catalog item, and some items outside the catalog: absent, an empty
list, one group or several of up to four) and a ``target`` (uniform, catalog or relevance). rankmeter gets the
track's qrels: the truth rows with a grade above 0, as 1 (a user without one is not in the qrels), and the options
``attention=log_trec, multi=each, ungrouped=skip, log_base=e, target=...``, ``discount=trec`` for ``awrf_ndcg``,
``duplicates="count"`` (a repeated page counts at each of its ranks, as in the scripts); all in one call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import numpy as np

from .cases import RANKING_FEATURES, as_dicts, draw_case

VENV = None  # the restatement runs in rankmeter's own interpreter
WORKER = Path(__file__).with_name("worker_trec_fair.py")
ALLOW = RANKING_FEATURES
REL = 1e-6  # the scripts' float32 discount

OPTS = "attention=log_trec,multi=each,ungrouped=skip,log_base=e"


def draw(seed: int) -> dict:
    case = draw_case(seed, ALLOW)
    g = np.random.default_rng(seed + 13)
    labels: list[Any] = ["g0", "g1", "g2", "g3"] if g.random() < 0.5 else [0, 1, 2, 3]
    n_groups = int(g.integers(1, 5))
    items = list(case["catalog"]) + sorted({i for _u, i, _r, _s in case["recs"]} - set(case["catalog"]), key=str)
    rows = []
    for i in items:
        r = g.random()
        if r < 0.15:
            continue  # no alignment: an unknown page
        if r < 0.22:
            rows.append([i, []])
        elif r < 0.4 and n_groups > 1:
            rows.append([i, list(g.choice(labels[:n_groups], int(g.integers(2, n_groups + 1)), replace=False))])
        else:
            rows.append([i, [labels[int(g.integers(n_groups))]]])
    rows = [[i, [x.item() if hasattr(x, "item") else x for x in gs]] for i, gs in rows]
    case["item_groups"] = rows
    case["target"] = str(g.choice(["uniform", "catalog", "relevance"]))
    return case


def ours(case: dict) -> dict:
    import rankmeter as rm

    truth, recs = as_dicts(case)
    # the track's qrels: the relevant pages only (a query without one has no qrels and is not scored)
    truth = {u: {i: 1 for i, gr in t.items() if gr > 0} for u, t in truth.items()}
    truth = {u: t for u, t in truth.items() if t}
    if not truth or not set(truth) & set(recs):
        return {}
    groups = dict(case["item_groups"])
    names: dict[str, str] = {}
    for k in case["ks"]:
        names[f"AWRF@{k}"] = f"awrf({OPTS},target={case['target']})@{k}"
        names[f"Score@{k}"] = f"awrf_ndcg({OPTS},target={case['target']},discount=trec)@{k}"
    res = rm.evaluate(truth, recs, list(names.values()), item_groups=groups, duplicates="count")
    users = res.users.tolist()
    out: dict[str, dict[str, Any]] = {}
    for label, name in names.items():
        out[label] = {"per_user": dict(zip(users, res.per_user[name].tolist())), "mean": res[name]}
    return out


def known(case: dict, peer: dict) -> Optional[Any]:
    truth, recs = as_dicts(case)
    qrels = {u for u, t in truth.items() if any(g > 0 for g in t.values())}
    if not qrels & set(recs):
        return "no user with a relevant page and a list (no query the scripts score)"
    if not any(gs for _i, gs in case["item_groups"]):
        return "no page has a group (rankmeter refuses item_groups without one)"
    from .trec_fair import rounding_nan

    align = dict(case["item_groups"])
    groups = sorted({g for gs in align.values() for g in gs})
    skip: dict = {}
    for u in qrels & set(recs):
        rel = [i for i, g in truth[u].items() if g > 0 and i in align]
        if case["target"] == "uniform":
            t = np.ones(len(groups))
        else:
            pool = list(align) if case["target"] == "catalog" else rel
            t = np.array([sum(g in align[i] for i in pool) for g in groups], dtype=np.float64)
        for k in case["ks"]:
            if recs[u] and rounding_nan(recs[u][:k], align, groups, t):
                why = "a run whose alignment is the target: SciPy's jensenshannon gives the scripts NaN (rankmeter 1)"
                skip[f"AWRF@{k}"] = skip[f"Score@{k}"] = why
    return skip or None
