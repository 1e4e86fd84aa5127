"""Worker of the ndeval differential run (tests/differential/ndeval.py), run in the ir_measures venv: every
measure pyndeval (ndeval) offers, at each case's cutoffs, per query and as ndeval's ``amean``."""

from __future__ import annotations

import math

import pyndeval

CUTOFF = ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "P-IA", "strec")
WHOLE = ("NRBP", "nNRBP", "MAP-IA")


def one(case: dict) -> dict:
    measures = [f"{m}@{k}" for m in CUTOFF for k in case["cutoffs"]] + list(WHOLE)
    qrels = [(q, s, d, int(g)) for q, s, d, g in case["qrels"]]
    run = [(q, d, float(v)) for q, docs in sorted(case["run"].items()) for d, v in docs.items()]
    if not qrels:  # pyndeval needs a judgment; no query is scored
        res: dict = {}
    else:
        ev = pyndeval.RelevanceEvaluator(
            qrels, measures, relevance_level=case["rel_level"], alpha=case["alpha"], beta=case["beta"]
        )
        res = ev.evaluate(run)
    out: dict = {}
    for m in measures:
        per = [[q, v[m]] for q, v in res.items()]
        vals = [v for _, v in per]
        amean = sum(vals) / len(vals) if vals else math.nan  # ndeval's amean: total / scored topics
        out[m] = {"per_user": per, "mean": amean}
    defined = [v for _, v in out["nNRBP"]["per_user"] if not math.isnan(v)]
    out["nNRBP amean"] = {"mean": out["nNRBP"]["mean"]}
    out["nNRBP"] = {
        "per_user": out["nNRBP"]["per_user"],
        "mean": sum(defined) / len(defined) if defined else math.nan,
    }
    return out


def irm(case: dict) -> dict:
    """compat.ir_measures' counterpart: ir_measures with its pyndeval provider, qrels as a DataFrame with the
    subtopic in ``iteration``; ``irm|raises`` is 1 when ir_measures raised."""
    import contextlib
    import io

    import ir_measures
    import pandas as pd

    qrels = pd.DataFrame(case["qrels"], columns=["query_id", "iteration", "doc_id", "relevance"])
    run = {q: dict(docs) for q, docs in case["run"].items()}
    names = case["irm"]
    try:
        with contextlib.redirect_stderr(io.StringIO()):  # its warning when every query has one subtopic
            ms = [ir_measures.parse_measure(n) for n in names]
            perq = list(ir_measures.iter_calc(ms, qrels, run))
            agg = ir_measures.calc_aggregate(ms, qrels, run)
    except Exception:
        return {"irm|raises": {"mean": 1.0}}
    out: dict = {"irm|raises": {"mean": 0.0}}
    for n in names:
        m = ir_measures.parse_measure(n)
        out[f"irm|{n}"] = {"per_user": [[x.query_id, x.value] for x in perq if x.measure == m], "mean": agg[m]}
    return out


def both(case: dict) -> dict:
    return {**one(case), **irm(case)}


if __name__ == "__main__":
    from worker_io import serve  # tests/differential/worker_path, on the worker's PYTHONPATH

    serve(both)
