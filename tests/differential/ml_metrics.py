"""Differential peer: ml_metrics 0.1.4 (venv `recm`) against rankmeter.compat.ml_metrics and preset="ml_metrics".

ml_metrics takes zipped lists of items without grades (cases.as_lists): the grade features of a case are
dropped on both sides; a user of either side is one position of the zipped lists (a user without truth rows
has an empty actual, scored 1.0). The compat functions are called on those lists; the preset gets the same
users as dicts (every user a truth user, truth items without grades) in one evaluate call that also asks for
other metrics.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .cases import FEATURES, as_lists

VENV = "recm"
WORKER = Path(__file__).with_name("worker_ml_metrics.py")
ISOLATED = True  # python -P: this directory (with this module) is not on the worker's path
# grades: ml_metrics takes none (truth rows are items); features, train: no ml_metrics metric reads them
ALLOW = tuple(f for f in FEATURES if f not in ("train", "features", "zero_features"))
REL = 1e-12
MIXED = ["ndcg@3", "precision@5", "mrr", "hit_rate@2", "recall@10"]


def ours(case: dict) -> dict:
    import rankmeter as rm
    import rankmeter.compat.ml_metrics as C

    users, actual, predicted = as_lists(case)
    out = {}
    for k in case["ks"]:
        vals = [C.apk(a, p, k) for a, p in zip(actual, predicted)]
        out[f"compat:apk@{k}"] = {"per_user": dict(zip(users, vals)), "mean": float(C.mapk(actual, predicted, k))}
    truth = dict(zip(users, actual))
    recs = dict(zip(users, predicted))
    names = [f"map@{k}" for k in case["ks"]] + MIXED
    res = rm.evaluate(truth, recs, names, preset="ml_metrics")
    ids = res.users.tolist()
    for k in case["ks"]:
        pu = np.asarray(res.per_user[f"map@{k}"]).tolist()
        out[f"preset:apk@{k}"] = {"per_user": dict(zip(ids, pu)), "mean": res[f"map@{k}"]}
    return out
