"""Peer module: ``rankmeter.compat.ranx.evaluate`` against the live ``ranx.evaluate`` (worker_ranx.py).

Every ranx metric (``metrics_of``, the same list as the worker's) in one call, per input mode a ranx user has
(plain dicts paired by position, ``Qrels``/``Run`` built from dicts, a ``Run`` filled by ``add_score``, with and
without ``make_comparable``): per-query values, means, standard deviations and what ``save_results_in_run``
leaves in the ``Run``, and the exception type when ranx raises. The compat side uses the module's own ``Qrels``
and ``Run``, built as the worker builds ranx's.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from .cases import RANKING_FEATURES

VENV = "ranx"
ISOLATED = True  # python -P: this module's name must not shadow the ranx package in the worker
WORKER = Path(__file__).with_name("worker_ranx.py")
ALLOW = RANKING_FEATURES
REL = 1e-9
DRAW = {"max_users": 30}  # up to 30 queries: numba splits bpref's queries between threads from 10 on

MODES = ("dict", "dict_mc", "qrels_dict", "dict_run", "objects", "objects_mc", "added_mc")
BASES = ("hits", "hit_rate", "precision", "recall", "f1", "mrr", "map", "dcg", "dcg_burges", "ndcg", "ndcg_burges")


def metrics_of(case: dict) -> list:
    """Same list as worker_ranx.metrics_of."""
    ks = case["ks"]
    ms = list(BASES) + [f"{b}@{k}" for b in BASES for k in ks]
    ms += ["r-precision", "bpref", "bpref@5", "rbp.5", "rbp.8", "rbp.95", "rbp.99", "rbp@9"]
    ms += [f"{b}@{ks[0]}-l2" for b in BASES] + ["r-precision-l2", "bpref-l2", "rbp.8-l2"]
    ms += [f"{b}@{ks[0]}-l0" for b in ("hits", "precision", "ndcg", "map")] + ["bpref-l0"]
    return ms


def as_dicts(case: dict, str_ids: bool) -> tuple[dict, dict]:
    """Same as worker_ranx.as_dicts."""
    conv = str if str_ids else (lambda x: x)
    qrels: dict = {}
    run: dict = {}
    for u, i, g in case["truth"]:
        qrels.setdefault(conv(u), {})[conv(i)] = g
    for u, i, _r, s in sorted(case["recs"], key=lambda row: (str(type(row[0])), row[0], row[2])):
        run.setdefault(conv(u), {})[conv(i)] = s
    for u in case.get("empty_lists", []):
        run[conv(u)] = {}
    return qrels, run


def _build(mode: str, case: dict) -> tuple[Any, Any, bool]:
    import rankmeter.compat.ranx as compat

    if mode in ("dict", "dict_mc"):
        q, r = as_dicts(case, False)
        return q, r, mode == "dict_mc"
    q, r = as_dicts(case, True)
    if mode == "qrels_dict":
        return compat.Qrels(q), r, False
    if mode == "dict_run":
        return q, compat.Run(r), False
    if mode in ("objects", "objects_mc"):
        return compat.Qrels(q), compat.Run(r), mode == "objects_mc"
    if mode == "added_mc":
        run = compat.Run()
        for qid, docs in r.items():
            for d, s in docs.items():
                run.add_score(qid, d, s)
        return compat.Qrels(q), run, True
    raise ValueError(mode)


def _f(x: Any) -> float:
    return math.nan if x is None else float(x)


def _one_mode(mode: str, case: dict, metrics: list) -> dict:
    import rankmeter.compat.ranx as compat

    out: dict = {}
    if mode in ("dict", "dict_mc") and conflated_ids(case):
        return {f"{mode}|ids conflated by ranx": {"per_user": None, "mean": 1.0}}  # not reproduced (module doc)
    try:
        compat._NUMBA_THREADS[0] = None  # the worker resets numba's thread count before each call
        qrels, run, mc = _build(mode, case)
        per = compat.evaluate(qrels, run, metrics, return_mean=False, make_comparable=mc)
        compat._NUMBA_THREADS[0] = None
        qrels2, run2, mc2 = _build(mode, case)
        agg = compat.evaluate(qrels2, run2, metrics, return_std=True, make_comparable=mc2)
    except Exception as e:
        return {f"{mode}|raises {type(e).__name__}": {"per_user": None, "mean": 1.0}}
    per = per if isinstance(per, dict) else {metrics[0]: per}
    agg = agg if isinstance(agg, dict) and "mean" not in agg else {metrics[0]: agg}
    for m in metrics:
        out[f"{mode}|{m}"] = {"per_user": dict(enumerate(map(float, per[m]))), "mean": float(agg[m]["mean"])}
        out[f"{mode}|{m}|std"] = {"per_user": None, "mean": float(agg[m]["std"])}
    if isinstance(run2, compat.Run):
        for m in metrics:
            out[f"{mode}|saved|{m}"] = {"per_user": dict(run2.scores[m]), "mean": float(run2.mean_scores[m])}
            out[f"{mode}|saved_std|{m}"] = {"per_user": None, "mean": float(run2.std_scores[m])}
    return out


def ours(case: dict) -> dict:
    metrics = metrics_of(case)
    out: dict = defaultdict(lambda: {"per_user": None, "mean": math.nan})  # a label ranx gives and we do not
    for mode in MODES:
        out.update(_one_mode(mode, case, metrics))
    return out


def conflated_ids(case: dict) -> bool:
    """Distinct document ids that ranx's dict path takes for one document (``float(hash(id))`` equal: int ids of
    2**53 and more)."""
    ids = {i for _u, i, *_ in case["truth"]} | {i for _u, i, *_ in case["recs"]}
    ints = [i for i in ids if isinstance(i, int)]
    return len({float(hash(i)) for i in ints}) < len(ints)
