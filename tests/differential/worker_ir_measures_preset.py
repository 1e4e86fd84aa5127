"""Differential worker for ``preset="ir_measures"`` (runs in the ir_measures venv: stdlib, numpy, ir_measures).

One ``iter_calc`` and one ``calc_aggregate`` call per provider group (``calls_of``, the same as
ir_measures_preset.py), string ids: per-query values and aggregates. A call that raises leaves its labels out
and gives ``"<call>|raised"`` (the peer module predicts those from the inputs: pytrec_eval takes integer grades
only, gdeval numeric query ids and integer grades up to 4, judged raises on an empty ranking). The judged,
msmarco and cwl_eval calls are made only when no list holds equal scores (their orders among equal scores are
not trec_eval's, which the preset follows). Each case runs in a forked child (pytrec_eval can crash).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import math
import os
import sys
import warnings
from pathlib import Path

warnings.simplefilter("ignore")
# the worker runs as `python -P` (ISOLATED in the peer module): this directory is not on sys.path
logging.disable(logging.CRITICAL)

import ir_measures  # noqa: E402

_HERE = Path(__file__).resolve().parent
# the measures and dicts of a case, shared with the peer module (this directory is not on sys.path)
_spec = importlib.util.spec_from_file_location("ir_measures_requests", _HERE / "ir_measures_requests.py")
assert _spec is not None and _spec.loader is not None
_requests = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_requests)
calls_of, as_dicts = _requests.preset_calls_of, _requests.as_dicts


def tied_lists(run):
    return any(len(set(docs.values())) < len(docs) for docs in run.values())


def _f(x):
    x = float(x)
    return None if math.isnan(x) else x


def one_case(case):
    qrels, run = as_dicts(case)
    if not qrels:
        return {}
    # NumRel: pytrec_eval reads another query's count for an empty ranking, and ir_measures gives a query missing
    # from the run 0 where rankmeter counts its relevant documents (unmatched in describe("ir_measures"))
    empty_queries = {q for q in qrels if not run.get(q)}
    out: dict = {}
    for call, names in calls_of(case, tied_lists(run)).items():
        ms = [ir_measures.parse_measure(n) for n in names]
        try:
            per: dict = {}
            for m in ir_measures.iter_calc(ms, qrels, run):
                per.setdefault(m.measure, {})[m.query_id] = m.value
            agg = ir_measures.calc_aggregate(ms, qrels, run)
        except Exception:
            out[f"{call}|raised"] = {"per_user": None, "mean": 1.0}
            continue
        for n, m in zip(names, ms):
            pu = per.get(m, {})
            if n == "NumRel" and empty_queries:  # pytrec_eval reads another query's count for an empty ranking
                out[n] = {"per_user": [[q, _f(v)] for q, v in pu.items() if q not in empty_queries]}
                continue
            out[n] = {"per_user": [[q, _f(v)] for q, v in pu.items()], "mean": _f(agg[m])}
    return out


def forked(case):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        try:
            payload = json.dumps({"ok": one_case(case)})
        except Exception as e:  # pragma: no cover - a bug of the worker
            payload = json.dumps({"error": type(e).__name__, "message": str(e)[:300]})
        with os.fdopen(w, "w") as f:
            f.write(payload)
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        payload = f.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status) or not payload:
        return {"error": "Segfault", "message": f"the peer died (status {status})"}
    return json.loads(payload)


def main():
    with open(sys.argv[1]) as f:
        data = json.load(f)
    results = [forked(case) for case in data["cases"]]
    with open(sys.argv[2], "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
