"""Peer module: ``rankmeter.compat.ir_measures`` against the live ir_measures (worker_ir_measures.py).

Every measure rankmeter computes, as ir_measures' default pipeline routes it (pytrec_eval, cwl_eval, judged,
msmarco, gdeval), in one ``iter_calc`` and one ``calc_aggregate`` call: per-query values and aggregates; when
ir_measures raises, the exception type and the same calls per provider. gdeval's values are compared at its
printed precision (5 decimals, rounded the same way: compared at 1e-9 too).
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

from .cases import RANKING_FEATURES
from .ir_measures_requests import as_dicts, measures_of

VENV = "ir_measures"
ISOLATED = True  # python -P: the peer modules here must not shadow the packages of that name
WORKER = Path(__file__).with_name("worker_ir_measures.py")
ALLOW = RANKING_FEATURES
REL = 1e-9


def _compute(call: str, names: list, qrels: dict, run: dict, empty_queries: set) -> dict:
    from rankmeter.compat import ir_measures as compat

    ms = [compat.parse_measure(n) for n in names]
    per: dict = {}
    for row in compat.iter_calc(names, qrels, run):
        per.setdefault(row.measure, {})[row.query_id] = row.value
    agg = compat.calc_aggregate(names, qrels, run)
    out = {}
    for n, m in zip(names, ms):
        pu = per.get(m, {})
        if (n == "NumRel" or n.startswith("IPrec")) and empty_queries:  # see worker_ir_measures.compute
            out[f"{call}|{n}"] = {"per_user": {q: v for q, v in pu.items() if q not in empty_queries}, "mean": None}
            continue
        out[f"{call}|{n}"] = {"per_user": pu, "mean": agg[m]}
    return out


def ours(case: dict) -> dict:
    out: dict = defaultdict(lambda: {"per_user": None, "mean": math.nan})
    qrels, run = as_dicts(case)
    empty_queries = {q for q in qrels if q in run and not run[q]}
    for call, groups in measures_of(case).items():
        everything = [n for ns in groups.values() for n in ns]
        try:
            out.update(_compute(call, everything, qrels, run, empty_queries))
            continue
        except Exception as e:
            out[f"{call}|all|raises {type(e).__name__}"] = {"per_user": None, "mean": 1.0}
        for provider, names in groups.items():
            try:
                out.update(_compute(call, names, qrels, run, empty_queries))
            except Exception as e:
                out[f"{call}|{provider}|raises {type(e).__name__}"] = {"per_user": None, "mean": 1.0}
    return out
