"""Differential worker for ir_measures (runs in the ir_measures venv: stdlib, numpy and ir_measures with its
providers pytrec_eval, cwl_eval, gdeval (perl), judged, msmarco).

For every case: every measure rankmeter computes (``measures_of``, the same list as ir_measures.py's), in one
``iter_calc`` and one ``calc_aggregate`` call with string ids (pytrec_eval requires them): per-query values and
aggregates. When the call raises, the label ``"all|raises <type>"`` and the same calls per provider
(``"<provider>|raises <type>"`` for those that raise; gdeval's perl script dying counts as ValueError). Each
case runs in a forked child: pytrec_eval can crash on a query with an empty ranking (a segmentation fault),
reported as the error ``"Segfault"``. NumRel of a query with an empty ranking is left out (pytrec_eval reads
another query's count there), and then its sum too.
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
GAINS, measures_of, as_dicts = _requests.GAINS, _requests.measures_of, _requests.as_dicts


def _f(x):
    x = float(x)
    return None if math.isnan(x) else x


def _type(e):
    return "ValueError" if type(e).__name__ == "CalledProcessError" else type(e).__name__


def compute(call, names, qrels, run, empty_queries):
    ms = [ir_measures.parse_measure(n) for n in names]
    per: dict = {}
    for m in ir_measures.iter_calc(ms, qrels, run):
        per.setdefault(m.measure, {})[m.query_id] = m.value
    agg = ir_measures.calc_aggregate(ms, qrels, run)
    out = {}
    for n, m in zip(names, ms):
        pu = per.get(m, {})
        if (n == "NumRel" or n.startswith("IPrec")) and empty_queries:
            # pytrec_eval reads another query's count for an empty ranking (IPrec's level in documents with it)
            out[f"{call}|{n}"] = {"per_user": [[q, _f(v)] for q, v in pu.items() if q not in empty_queries]}
            continue
        out[f"{call}|{n}"] = {"per_user": [[q, _f(v)] for q, v in pu.items()], "mean": _f(agg[m])}
    return out


def one_case(case):
    qrels, run = as_dicts(case)
    empty_queries = {q for q in qrels if q in run and not run[q]}
    out = {}
    for call, groups in measures_of(case).items():
        everything = [n for ns in groups.values() for n in ns]
        try:
            out.update(compute(call, everything, qrels, run, empty_queries))
            continue
        except Exception as e:
            out[f"{call}|all|raises {_type(e)}"] = {"per_user": None, "mean": 1.0}
        for provider, names in groups.items():
            try:
                out.update(compute(call, names, qrels, run, empty_queries))
            except Exception as e:
                out[f"{call}|{provider}|raises {_type(e)}"] = {"per_user": None, "mean": 1.0}
    return out


def forked(case):
    """one_case in a child process: a crash of the peer (pytrec_eval's segfault) is the case's error."""
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
