"""Differential peer: ``rankmeter.compat.beir`` against the live BEIR 2.2 (``beir.retrieval.evaluation``).

Both sides make the same calls on the same dicts (beir_requests.py): ``EvaluateRetrieval.evaluate`` at the case's
cutoffs (a cutoff repeated in some cases; ``ignore_identical_ids`` on or off; string ids, int grades), and
``evaluate_custom`` for mrr, r_cap, hole and acc on the case's own ids and grades, over every query and over the
queries with a relevant document. BEIR returns means rounded to 5 decimals: every value must be equal, and a
call that raises must raise the same exception type on both sides (compared as a code). Cases draw the user's own
id as a document of its list (``draw_case(..., query_docs=True)``).

Not compared (listed in rankmeter.compat.beir.unmatched): ``evaluate`` on a case where pytrec_eval inside BEIR crashes
the process (a query whose grades are all negative).
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

from . import beir_requests as br
from .cases import FEATURES

VENV = "beir"
WORKER = Path(__file__).with_name("worker_beir.py")
ISOLATED = True  # `python -P`: this module must not shadow the beir package in the worker
ALLOW = FEATURES
DRAW = {"query_docs": True}
REL = 1e-12


class _Values(dict):
    """label -> values; a label the compat module did not return is NaN (a mismatch)."""

    def __missing__(self, label: str) -> dict:
        return {"per_user": None, "mean": math.nan}


def ours(case: dict) -> dict:
    from rankmeter.compat.beir import EvaluateRetrieval

    out: dict = _Values()

    def means(prefix: str, values: dict) -> None:
        for label, v in values.items():
            out[prefix + label] = {"per_user": None, "mean": float(v)}

    qrels, results = br.dicts(case, string_ids=True)
    try:
        for d in EvaluateRetrieval.evaluate(qrels, results, br.k_values(case), br.ignore_identical(case)):
            means("", d)
    except Exception as e:
        out["evaluate:error"] = {"per_user": None, "mean": br.error_code(type(e).__name__)}
    qrels, results = br.dicts(case, string_ids=False)
    ks = br.k_values(case)
    for variant, res in (("raw", results), ("clean", br.clean(qrels, results))):
        for metric in br.CUSTOM:
            try:
                values = EvaluateRetrieval.evaluate_custom(qrels, copy.deepcopy(res), ks, metric, False)
            except Exception as e:
                out[f"{variant}:{metric}:error"] = {"per_user": None, "mean": br.error_code(type(e).__name__)}
                continue
            means(f"{variant}:", values)
    return out


def known(case: dict, res: dict) -> Any:
    """The evaluate call of a case on which pytrec_eval (inside BEIR) crashed the process: BEIR gives no value
    there (rankmeter's values of it are not compared); the custom metrics of the case are."""
    crash = res.get("evaluate:error", {}).get("mean") == br.error_code("SIGSEGV")
    if not crash:
        return None
    from rankmeter.compat.beir import unmatched

    return {"evaluate:error": next(u for u in unmatched if "crashes the process" in u)}
