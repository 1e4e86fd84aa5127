"""Worker of the ndeval differential run (tests/differential/ndeval.py), run in the ir_measures venv: every
measure pyndeval (ndeval) offers, at each case's cutoffs, per query and as ndeval's ``amean``."""

from __future__ import annotations

import json
import math
import sys

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


def main() -> None:
    with open(sys.argv[1]) as f:
        cases = json.load(f)["cases"]
    results: list = []
    for case in cases:
        try:
            results.append({"ok": one(case)})
        except Exception as e:  # the peer raised: reported, not compared
            results.append({"error": type(e).__name__, "message": str(e)[:300]})
    with open(sys.argv[2], "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
