"""Worker of the BEIR differential runs (tests/differential/beir.py).

Runs in BEIR's venv as ``python -P worker_beir.py IN.json OUT.json``: standard library, numpy and BEIR only, never
rankmeter. For each case (beir_requests.py): ``EvaluateRetrieval.evaluate`` (NDCG, MAP, Recall and P at every
cutoff, one call) in a forked child, since pytrec_eval inside it crashes the process on some inputs (a query
whose grades are all negative); then ``evaluate_custom`` for every custom metric, on the whole case (``raw:``)
and on the queries with a relevant document (``clean:``). A call that raises gives the label
``<call>:error`` with the exception's code as its value.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

from beir.retrieval.evaluation import EvaluateRetrieval

logging.disable(logging.CRITICAL)
_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("beir_requests", _HERE / "beir_requests.py")
assert _spec is not None and _spec.loader is not None
br: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(br)


def _means(out: dict, prefix: str, values: dict) -> None:
    for label, v in values.items():
        out[prefix + label] = {"per_user": None, "mean": float(v)}


def _evaluate(case: dict) -> dict:
    qrels, results = br.dicts(case, string_ids=True)
    out: dict = {}
    for d in EvaluateRetrieval.evaluate(qrels, results, br.k_values(case), br.ignore_identical(case)):
        _means(out, "", d)
    return out


def _forked_evaluate(case: dict) -> dict:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, write, leave without running the parent's cleanup
        os.close(r)
        try:
            data: dict = {"ok": _evaluate(case)}
        except Exception as e:  # BEIR raised: the call's result
            data = {"error": type(e).__name__}
        with os.fdopen(w, "w") as f:
            json.dump(data, f)
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        text = f.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return {"error": signal.Signals(os.WTERMSIG(status)).name}
    return json.loads(text)


def one(case: dict) -> dict:
    out: dict = {}
    ev = _forked_evaluate(case)
    if "error" in ev:
        out["evaluate:error"] = {"per_user": None, "mean": br.error_code(ev["error"])}
    else:
        out.update(ev["ok"])
    qrels, results = br.dicts(case, string_ids=False)
    ks = br.k_values(case)
    for variant, res in (("raw", results), ("clean", br.clean(qrels, results))):
        for metric in br.CUSTOM:
            try:
                values = EvaluateRetrieval.evaluate_custom(qrels, copy.deepcopy(res), ks, metric)
            except Exception as e:
                out[f"{variant}:{metric}:error"] = {"per_user": None, "mean": br.error_code(type(e).__name__)}
                continue
            _means(out, f"{variant}:", values)
    return {"ok": out}


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
    with open(src) as f:
        data = json.load(f)
    results = [one(case) for case in data["cases"]]
    with open(dst, "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
