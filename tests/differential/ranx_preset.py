"""Peer module: ``rankmeter.evaluate(..., preset="ranx")`` against the live ``ranx.evaluate``
(worker_ranx_preset.py: the variants of the inputs, and why bpref is compared one query at a time).

rankmeter gets the case's own ids and rows (``{user: {item: grade}}`` truth, ``{user: {item: score}}`` lists,
empty lists and users without truth included) and every ranx metric in one call per rel_lvl, mixed with
metrics ranx does not have; the ``ties`` of each variant: ``"ranx"`` (the preset's default),
``"ranx_comparable"``, ``"ranx_dict"``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

from .cases import RANKING_FEATURES

VENV = "ranx"
ISOLATED = True  # python -P: this module's name must not shadow the ranx package in the worker
WORKER = Path(__file__).with_name("worker_ranx_preset.py")
ALLOW = RANKING_FEATURES
REL = 1e-9
DRAW = {"max_users": 30}
MIXED = ["judged@3", "arhr@5", "num_rel"]  # other metrics in the same call
BASES = ("hits", "hit_rate", "precision", "recall", "f1", "mrr", "map", "dcg", "dcg_burges", "ndcg", "ndcg_burges")


def metrics_of(case: dict) -> list:
    """Same list as worker_ranx_preset.metrics_of."""
    ks = case["ks"]
    ms = list(BASES) + [f"{b}@{k}" for b in BASES for k in ks]
    ms += ["r-precision", "bpref", "rbp.5", "rbp.8", "rbp.95", "rbp.99"]
    ms += [f"{b}@{ks[0]}-l2" for b in BASES] + ["r-precision-l2", "bpref-l2", "rbp.8-l2"]
    ms += [f"{b}@{ks[0]}-l0" for b in ("hits", "precision", "ndcg", "map")] + ["bpref-l0"]
    return ms


def _inputs(case: dict) -> tuple[dict, dict]:
    truth: dict = {}
    recs: dict = {}
    for u, i, g in case["truth"]:
        truth.setdefault(u, {})[i] = g
    for u, i, _r, s in sorted(case["recs"], key=lambda row: (str(type(row[0])), row[0], row[2])):
        recs.setdefault(u, {})[i] = s
    for u in case.get("empty_lists", []):
        recs[u] = {}
    return truth, recs


def _evaluate(truth: dict, recs: dict, metrics: list, ties: str) -> dict:
    """{ranx metric: {str(user): value}} from one rankmeter call per rel_lvl."""
    import rankmeter as rm
    from rankmeter.compat.ranx import to_rankmeter

    names = {m: to_rankmeter(m) for m in metrics}
    by_level: dict = {}
    for name, lvl in names.values():
        by_level.setdefault(lvl, []).append(name)
    values: dict = {}
    for lvl, ns in by_level.items():
        wanted = list(dict.fromkeys(ns + MIXED + ["hits"]))
        res = rm.evaluate(truth, recs, wanted, preset="ranx", ties=ties, min_relevance=lvl)
        users = [str(u) for u in res.users.tolist()]
        for n in wanted:
            values[(n, lvl)] = dict(zip(users, map(float, res.per_user[n])))
    return {m: values[names[m]] for m in metrics} | {
        f"{m}|found": values[("hits", names[m][1])] for m in metrics if m.startswith("bpref")
    }


def known(case: dict, res: dict) -> str | None:
    """The case describe("ranx") lists: no truth user has a list (ranx's make_comparable scores zeros)."""
    if not case["truth"]:
        return None
    truth, recs = _inputs(case)
    if not any(u in recs for u in truth):
        return "no query in both the qrels and the run: ranx (make_comparable) scores 0, rm.evaluate raises"
    return None


def ours(case: dict) -> dict:
    out: dict = defaultdict(lambda: {"per_user": None, "mean": math.nan})
    if not case["truth"]:
        return out
    truth, recs = _inputs(case)
    metrics = metrics_of(case)
    plain = [m for m in metrics if not m.startswith("bpref")]
    keys = [str(u) for u in truth]
    srecs = {str(u): d for u, d in recs.items()}
    integer = all(float(g).is_integer() for d in truth.values() for g in d.values())
    variants = {}
    if any(srecs.get(q) for q in keys):
        variants["run"] = "ranx"
    if integer and any(srecs.values()):
        variants["comparable"] = "ranx_comparable"
    if all(srecs.get(q) for q in keys):
        variants["dict"] = "ranx_dict"
    for name, ties in variants.items():
        vals = _evaluate(truth, recs, plain, ties)
        for m in plain:
            pu = vals[m]
            out[f"{name}|{m}"] = {"per_user": pu, "mean": sum(pu.values()) / len(pu)}
    if variants:
        bp = [m for m in metrics if m.startswith("bpref")]
        vals = _evaluate(truth, recs, bp, "ranx_dict")
        struth = {str(u): d for u, d in truth.items()}
        for m in bp:
            lvl = int(m.split("-l")[1]) if "-l" in m else 1
            pu = {}
            for q, v in vals[m].items():
                if not srecs.get(q):
                    continue
                n_rel = sum(1 for g in struth[q].values() if g >= lvl)
                if len(struth[q]) == n_rel and vals[f"{m}|found"][q] > 0:
                    continue  # ranx: 0/0 (unmatched in describe("ranx"))
                pu[q] = v
            out[f"bpref|{m}"] = {"per_user": pu}
    return out
