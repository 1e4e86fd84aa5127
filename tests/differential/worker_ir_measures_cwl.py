"""Differential worker for ir_measures' cwl_eval provider (runs in the ir_measures venv: stdlib and ir_measures
with cwl-eval; the worker runs as ``python -P``).

For every case: the C/W/L measures ir_measures routes to cwl_eval (INST, INSQ, BPM, SDCG, NERR8-NERR11, RBP)
with a few parameters each through the default pipeline, and P, RR, AP through the cwl_eval provider itself, in
one ``iter_calc`` and one ``calc_aggregate`` call each: per-query values and aggregates; when a call raises,
the label ``"<call>|raises <type>"``.
"""

from __future__ import annotations

import json
import logging
import math
import sys
import warnings

warnings.simplefilter("ignore")
logging.disable(logging.CRITICAL)

import ir_measures  # noqa: E402


def measures_of(case):
    """{call: [measure names]}: "pipeline" through ir_measures' default pipeline, "cwl" through its cwl_eval
    provider (P, RR and AP, which the pipeline gives pytrec_eval)."""
    ks = case["ks"]
    k0 = ks[0]
    top = case["top"]
    return {
        "pipeline": [
            f"INST(max_rel={top})",
            f"INST(T=2.5,max_rel={top})",
            f"INSQ(max_rel={top})",
            f"INSQ(T=3.0,min_rel=1,max_rel={top})",
            f"BPM(max_rel={top})@{k0}",
            f"BPM(T=2.0,max_rel={top})@{ks[-1]}",
            f"SDCG(max_rel={top})@{k0}",
            f"SDCG(min_rel=1,max_rel={top})@{ks[-1]}",
            f"NERR8(max_rel={top})@{k0}",
            f"NERR9(max_rel={top})@{k0}",
            f"NERR10(max_rel={top})",
            f"NERR10(p=0.5,max_rel={top})",
            f"NERR11(max_rel={top})",
            f"NERR11(T=2.0,max_rel={top})",
            "RBP(rel=1)",
        ],
        "cwl": [f"P@{k}" for k in ks] + ["P(rel=2)@5", "RR", "RR(rel=2)", "AP", "AP(rel=2)"],
    }


def as_dicts(case):
    qrels: dict = {}
    run: dict = {}
    for u, i, g in case["truth"]:
        qrels.setdefault(str(u), {})[str(i)] = g
    for u, i, _r, s in sorted(case["recs"], key=lambda row: (str(type(row[0])), row[0], row[2])):
        run.setdefault(str(u), {})[str(i)] = s
    for u in case.get("empty_lists", []):
        run[str(u)] = {}
    return qrels, run


def _f(x):
    x = float(x)
    return None if math.isnan(x) else x


def one_case(case):
    qrels, run = as_dicts(case)
    out: dict = {}
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
            out[f"{call}|{n}"] = {"per_user": [[q, _f(v)] for q, v in per.get(m, {}).items()], "mean": _f(agg[m])}
    return out


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src) as f:
        cases = json.load(f)["cases"]
    results = []
    for case in cases:
        try:
            results.append({"ok": one_case(case)})
        except Exception as e:  # pragma: no cover - a bug of the worker
            results.append({"error": type(e).__name__, "message": str(e)[:300]})
    with open(dst, "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
