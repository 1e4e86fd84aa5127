"""Differential worker for ir_measures' cwl_eval provider (runs in the ir_measures venv: stdlib and ir_measures
with cwl-eval; the worker runs as ``python -P``).

For every case: the C/W/L measures ir_measures routes to cwl_eval (INST, INSQ, BPM, SDCG, NERR8-NERR11, RBP)
with a few parameters each through the default pipeline, and P, RR, AP through the cwl_eval provider itself, in
one ``iter_calc`` and one ``calc_aggregate`` call each: per-query values and aggregates; when a call raises,
the label ``"<call>|raises <type>"``.
"""

from __future__ import annotations

import importlib.util
import logging
import math
import warnings
from pathlib import Path

warnings.simplefilter("ignore")
logging.disable(logging.CRITICAL)

import ir_measures  # noqa: E402

_HERE = Path(__file__).resolve().parent
# the measures and dicts of a case, shared with the peer module (this directory is not on sys.path)
_spec = importlib.util.spec_from_file_location("ir_measures_requests", _HERE / "ir_measures_requests.py")
assert _spec is not None and _spec.loader is not None
_requests = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_requests)
measures_of, as_dicts = _requests.cwl_measures_of, _requests.as_dicts


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


if __name__ == "__main__":
    from worker_io import serve  # tests/differential/worker_path, on the worker's PYTHONPATH

    serve(one_case)
