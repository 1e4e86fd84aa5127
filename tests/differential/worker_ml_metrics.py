"""Differential worker for ml_metrics 0.1.4 (runs in the `recm` venv; stdlib, numpy and ml_metrics only).

    python worker_ml_metrics.py IN.json OUT.json

For every case (tests/differential/cases.py): the users of either side zipped as ml_metrics takes them
(cases.as_lists: truth items without grades, lists by rank with their repeats), and for each cutoff K of the
case ``apk(actual, predicted, K)`` per user and ``mapk(actual, predicted, K)``, under two labels: the one
rankmeter.compat.ml_metrics answers (``compat:apk@K``) and the one ``preset="ml_metrics"`` answers
(``preset:apk@K``).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("differential_cases", HERE / "cases.py")  # stdlib + numpy only
assert _spec is not None and _spec.loader is not None
_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_cases)
as_lists = _cases.as_lists


def one(case: dict) -> dict:
    import ml_metrics

    users, actual, predicted = as_lists(case)
    out = {}
    for k in case["ks"]:
        per_user = [[u, float(ml_metrics.apk(a, p, k))] for u, a, p in zip(users, actual, predicted)]
        mean = float(ml_metrics.mapk(actual, predicted, k))
        for side in ("compat", "preset"):
            out[f"{side}:apk@{k}"] = {"per_user": per_user, "mean": mean}
    return out


if __name__ == "__main__":
    from worker_io import serve  # tests/differential/worker_path, on the worker's PYTHONPATH

    serve(one)
