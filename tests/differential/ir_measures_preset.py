"""Peer module: ``rankmeter.evaluate(..., preset="ir_measures")`` against the live ir_measures
(worker_ir_measures_preset.py: the calls, and when a provider is not asked).

rankmeter gets the case's own ids and rows and every measure's rankmeter metric (``RANKMETER``) in one call per
relevance level (rel=1, rel=2), mixed with metrics ir_measures does not ask for. NumRel is compared by its sum.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from pathlib import Path

from .cases import RANKING_FEATURES
from .ir_measures_requests import preset_calls_of as calls_of

VENV = "ir_measures"
ISOLATED = True  # python -P: the peer modules here must not shadow the packages of that name
WORKER = Path(__file__).with_name("worker_ir_measures_preset.py")
ALLOW = RANKING_FEATURES
REL = 1e-9
MIXED = ["arhr@3", "cg@2"]


_BASE = {
    "P": "precision",
    "R": "recall",
    "AP": "ap",
    "RR": "rr",
    "nDCG": "ndcg",
    "Success": "hit_rate",
    "Rprec": "r_precision",
    "Bpref": "bpref",
    "NumRel": "num_rel",
    "NumRelRet": "hits",
    "SetP": "precision",
    "SetR": "recall",
    "ERR": "err",
    "Judged": "judged",
}
_TEXT = re.compile(r"^([A-Za-z]+)(?:\((.*)\))?(?:@(\d+))?$")


def rankmeter_name(measure: str) -> tuple[str, int]:
    """An ir_measures measure name -> (the rankmeter metric under preset='ir_measures', min_relevance)."""
    name, params, k = _TEXT.match(measure).groups()  # type: ignore[union-attr]
    opts = dict(p.split("=") for p in params.split(",")) if params else {}
    rel = int(opts.pop("rel", 1))
    cut = f"@{k}" if k else ""
    if name == "RBP":
        return f"rbp(p={float(opts.get('p', 0.8))!r})", rel
    if name == "nDCG" and opts.get("dcg") == "'exp-log2'":
        return f"ndcg(gain=exponential,rounding=gdeval){cut}", rel
    return _BASE[name] + cut, rel


def as_inputs(case: dict) -> tuple[dict, dict]:
    truth: dict = {}
    recs: dict = {}
    for u, i, g in case["truth"]:
        truth.setdefault(u, {})[i] = g
    for u, i, _r, s in sorted(case["recs"], key=lambda row: (str(type(row[0])), row[0], row[2])):
        recs.setdefault(u, {})[i] = s
    for u in case.get("empty_lists", []):
        recs[u] = {}
    return truth, recs


def raises(call: str, truth: dict, recs: dict) -> bool:
    """Whether ir_measures raises on that call (the providers' input rules)."""
    grades = [g for d in truth.values() for g in d.values()]
    if call in ("pytrec_eval", "gdeval") and not all(isinstance(g, int) for g in grades):
        return True  # pytrec_eval: "Expected relevance to be integer"; gdeval: perl rejects the line
    if call == "gdeval":
        ids = [str(u) for u in list(truth) + list(recs)]
        return not all(re.fullmatch(r"[0-9]+", re.sub(r"^.*-", "", q)) for q in ids) or max(grades) > 4
    if call == "judged":
        return any(u in recs and not recs[u] for u in truth)  # an empty ranking: judged_c / 0
    return False


def ours(case: dict) -> dict:
    import rankmeter as rm

    out: dict = defaultdict(lambda: {"per_user": None, "mean": math.nan})
    if not case["truth"]:
        return out
    truth, recs = as_inputs(case)
    tied = any(len(set(d.values())) < len(d) for d in recs.values())
    calls = calls_of(case, tied)
    wanted = {n: rankmeter_name(n) for ns in calls.values() for n in ns}
    by_rel: dict = {}
    for name, rel in wanted.values():
        by_rel.setdefault(rel, []).append(name)
    values: dict = {}
    for rel, names in by_rel.items():
        res = rm.evaluate(truth, recs, list(dict.fromkeys(names + MIXED)), preset="ir_measures", min_relevance=rel)
        users = [str(u) for u in res.users.tolist()]
        for n in names:
            values[(n, rel)] = dict(zip(users, map(float, res.per_user[n])))
    empty = {str(u) for u in truth if not recs.get(u)}  # NumRel left out: see the worker
    for call, names in calls.items():
        if raises(call, truth, recs):
            out[f"{call}|raised"] = {"per_user": None, "mean": 1.0}
            continue
        for n in names:
            pu = values[wanted[n]]
            if n == "NumRel":
                kept = {q: v for q, v in pu.items() if q not in empty}
                out[n] = {"per_user": kept, "mean": None if empty else sum(kept.values())}
                continue
            if n == "NumRelRet":  # ir_measures sums the counts
                out[n] = {"per_user": pu, "mean": sum(pu.values())}
                continue
            out[n] = {"per_user": pu, "mean": sum(pu.values()) / len(pu)}
    return out


def known(case: dict, res: dict) -> str | None:
    truth, recs = as_inputs(case)
    if truth and not any(u in recs for u in truth):
        return "no truth user has a list: ir_measures scores every query 0, rm.evaluate raises ValueError"
    return None
