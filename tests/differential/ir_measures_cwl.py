"""Peer module: ``rankmeter.compat.ir_measures``'s C/W/L measures against the live ir_measures and its cwl_eval
provider (worker_ir_measures_cwl.py, which lists the same measures): INST, INSQ, BPM, SDCG, NERR8-NERR11 and RBP through the default pipeline,
P, RR and AP through the cwl_eval provider, per query and aggregated, every measure of a call in one call.
Grades as cases.draw_case draws them (negative, fractional, up to 4): the provider clips and scales them with
``min_rel`` and ``max_rel`` (``max_rel`` is the case's largest grade, or 1)."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

from .cases import RANKING_FEATURES, draw_case
from .ir_measures_requests import as_dicts
from .ir_measures_requests import cwl_measures_of as measures_of

VENV = "ir_measures"
ISOLATED = True
WORKER = Path(__file__).with_name("worker_ir_measures_cwl.py")
ALLOW = RANKING_FEATURES
REL = 1e-9


def draw(seed: int) -> dict:
    case = draw_case(seed, ALLOW)
    grades = [g for _u, _i, g in case["truth"]]
    case["top"] = max(2, math.ceil(max(grades, default=1)))
    return case


def ours(case: dict) -> dict:
    from rankmeter.compat import ir_measures

    out: dict = defaultdict(lambda: {"per_user": None, "mean": math.nan})
    qrels, run = as_dicts(case)
    for call, names in measures_of(case).items():
        ms = [ir_measures.parse_measure(n) for n in names]
        where = ir_measures if call == "pipeline" else ir_measures.cwl_eval
        try:
            per: dict = {}
            for m in where.iter_calc(ms, qrels, run):
                per.setdefault(m.measure, {})[m.query_id] = m.value
            agg = where.calc_aggregate(ms, qrels, run)
        except Exception as e:
            out[f"{call}|raises {type(e).__name__}"] = {"per_user": None, "mean": 1.0}
            continue
        for n, m in zip(names, ms):
            out[f"{call}|{n}"] = {"per_user": per.get(m, {}), "mean": agg[m]}
    return out
