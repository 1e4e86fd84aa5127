"""Differential peer: rankmeter.compat.recommenders against the live Microsoft Recommenders (venv ``msr``).

The worker (worker_recommenders_compat.py) calls every function of Recommenders' python_evaluation, each ranking
function at every cutoff of the case and with each relevancy_method, score_type and discfun_type, the rating
functions, and the beyond-accuracy ones with co-occurrence and feature similarity and with ``col_relevance``;
``ours`` makes the same calls (the worker's own :func:`run_all`) on rankmeter.compat.recommenders. The tables are
the case's rows as they are: repeated (user, item) rows, users on one side only, empty truth, tied predictions,
string, int and huge int ids. Both sides must raise on the same calls (the label ``raised``).
"""

from __future__ import annotations

from pathlib import Path

from .cases import FEATURES
from .worker_recommenders_compat import run_all

VENV = "msr"
ISOLATED = True  # python -P: the peer modules here must not shadow the packages of that name
WORKER = Path(__file__).with_name("worker_recommenders_compat.py")
ALLOW = FEATURES
REL = 1e-9


def ours(case: dict) -> dict:
    from rankmeter.compat import recommenders

    out = run_all(recommenders, case)
    return _Labels(
        {
            label: {**v, "per_user": None if v.get("per_user") is None else {_key(u): x for u, x in v["per_user"]}}
            for label, v in out.items()
        }
    )


class _Labels(dict):
    """A label the worker has and ours not (a DataFrame's columns when ours raised): no value."""

    def __missing__(self, label: str) -> dict:
        return {"per_user": None, "mean": None}


def _key(u):
    return tuple(u) if isinstance(u, list) else u
