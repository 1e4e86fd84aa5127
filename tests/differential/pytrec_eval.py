"""Differential peer: ``rankmeter.compat.pytrec_eval`` against the live pytrec_eval (pytrec_eval-terrier 0.5).

Both sides get the qrels and run dicts a pytrec_eval user builds from a case (ids as strings, int grades; see
trec_requests.py), the same measure requests (every measure the compat module computes, spelled in
pytrec_eval's ways: plain names with trec_eval's default cutoffs, "P.1,3" and "P_1" with a plain name beside
them), the same relevance level and, for a quarter of the cases, judged_docs_only_flag. Every per-query value
and the mean over queries is compared at relative 1e-9.

Fractional grades are not drawn: pytrec_eval raises TypeError on them (and so does the compat module). A case
on which pytrec_eval crashes the process (a query whose grades are all negative) is counted as the peer's
error (worker_pytrec_eval.py runs each case in a forked child).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from . import trec_requests as tr
from .cases import FEATURES

VENV = "ir_measures"  # holds pytrec_eval-terrier
WORKER = Path(__file__).with_name("worker_pytrec_eval.py")
ALLOW = tuple(f for f in FEATURES if f != "fractional")
REL = 1e-9


class _Values(dict):
    """label -> values; a label the compat module did not return has no per-query value (each one a mismatch)."""

    def __missing__(self, label: str) -> dict:
        return {"per_user": {}, "mean": math.nan}


def ours(case: dict) -> dict:
    import rankmeter.compat.pytrec_eval as compat

    qrels, run = tr.qrels_run(case)
    ev = compat.RelevanceEvaluator(
        qrels, set(tr.requests(case, "compat")), tr.relevance_level(case), tr.judged_only(case)
    )
    res = ev.evaluate(run)
    out: dict[str, Any] = _Values()
    for q, values in res.items():
        for label, v in values.items():
            out.setdefault(label, {"per_user": {}, "mean": math.nan})["per_user"][q] = v
    for entry in out.values():
        vals = list(entry["per_user"].values())
        entry["mean"] = math.fsum(vals) / len(vals)
    return out
