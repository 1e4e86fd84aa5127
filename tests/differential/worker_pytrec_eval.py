"""Worker of the pytrec_eval differential runs (tests/differential/pytrec_eval.py and trec_eval.py).

Runs in the peer's venv (``ir_measures``, which holds pytrec_eval-terrier): standard library, numpy and
pytrec_eval only, never rankmeter. ``python worker_pytrec_eval.py IN.json OUT.json``: for each case, the
qrels and run a user builds (trec_requests.qrels_run), one RelevanceEvaluator with every measure rankmeter
computes (trec_requests.requests) and the case's relevance level, and its per-query values. Here the
requests rotate over pytrec_eval's spellings and judged_docs_only_flag is set for some cases (style
``"compat"``); worker_trec_eval.py runs the same with cutoffs at the case's k (style ``"params"``).

Each case runs in a forked child: pytrec_eval crashes the process on some inputs (a query whose grades are
all negative: trec_eval's form_res_rels.c leaves its cache unset and a later measure reads through it), and a
fresh child also keeps trec_eval's process-wide state of one case from reaching the next. A child killed by a
signal is the case's error (``{"error": "SIGSEGV", ...}``).
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import signal
import sys
from pathlib import Path

# this folder holds tests/differential/pytrec_eval.py (the peer module): out of the path before the import
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import pytrec_eval  # noqa: E402

_spec = importlib.util.spec_from_file_location("trec_requests", _HERE / "trec_requests.py")
assert _spec is not None and _spec.loader is not None
tr = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tr)


def one(case: dict, style: str) -> dict:
    qrels, run = tr.qrels_run(case)
    flag = tr.judged_only(case) if style == "compat" else False
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(tr.requests(case, style)), tr.relevance_level(case), flag)
    res = ev.evaluate(run)
    labels: list = []
    for values in res.values():
        labels = list(values)
        break
    out = {}
    for label in labels:
        pairs = [[q, v[label]] for q, v in res.items()]
        vals = [float(v[label]) for v in res.values()]
        out[label] = {"per_user": pairs, "mean": math.fsum(vals) / len(vals)}
    return {"ok": out}


def forked(case: dict, style: str) -> dict:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, write, leave without running the parent's cleanup
        os.close(r)
        try:
            data = one(case, style)
        except Exception as e:  # the peer raised: the case's result
            data = {"error": type(e).__name__, "message": str(e)[:500]}
        with os.fdopen(w, "w") as f:
            json.dump(data, f)
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        text = f.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        sig = signal.Signals(os.WTERMSIG(status)).name
        return {"error": sig, "message": f"pytrec_eval killed the process ({sig})"}
    return json.loads(text)


def main(style: str = "compat") -> None:
    src, dst = sys.argv[1], sys.argv[2]
    with open(src) as f:
        data = json.load(f)
    results = [forked(case, style) for case in data["cases"]]
    with open(dst, "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
