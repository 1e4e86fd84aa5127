"""Differential peer: Apache Spark's RankingMetrics (pyspark in this interpreter, VENV = None) against
preset="spark".

pyspark sends the JVM (prediction, labels) rows without relevance values (cases.as_lists: truth items without
grades; the preset's unmatched list says why graded cases are not compared); a user of either side is one row.
rankmeter gets the same users as dicts (every user a truth user, labels without grades) in one evaluate call
that also asks for other metrics. Spark takes natural logs in NDCG and averages with RDD.mean: REL 1e-12.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .cases import FEATURES, as_lists

VENV = None
WORKER = Path(__file__).with_name("worker_spark.py")
ISOLATED = True  # python -P: this directory (with this module) is not on the worker's path
# grades: pyspark sends none to the JVM (describe("spark")); train, features: no RankingMetrics method reads them
ALLOW = tuple(
    f
    for f in FEATURES
    if f not in ("zero_grades", "fractional", "negative", "graded", "train", "features", "zero_features")
)
REL = 1e-12
MIXED = ["hits@3", "mrr", "hit_rate@2", "ndcg(gain=binary)@4"]


def ours(case: dict) -> dict:
    import rankmeter as rm

    users, labels, preds = as_lists(case)
    names = ["map"] + [f"{m}@{k}" for k in case["ks"] for m in ("precision", "recall", "map", "ndcg")]
    res = rm.evaluate(dict(zip(users, labels)), dict(zip(users, preds)), names + MIXED, preset="spark")
    ids = res.users.tolist()
    return {n: {"per_user": dict(zip(ids, np.asarray(res.per_user[n]).tolist())), "mean": res[n]} for n in names}
