"""RePlay's metrics on the differential cases (tests/differential/cases.py), in RePlay's venv.

    <venv>/bin/python tests/differential/worker_replay.py IN.json OUT.json

Imports only the standard library, numpy, pandas and RePlay, never rankmeter. The case goes to RePlay as its
users hold it: a recommendations DataFrame (query_id, item_id, rating: the score) and a ground-truth DataFrame
(query_id, item_id). Each metric is asked for every cutoff of the case at once, per user (``mode=PerUser()``)
and as the mean (the default ``Mean``).
"""

from __future__ import annotations

import math


def _f(x):
    x = float(x)
    return None if math.isnan(x) else x


def one(case: dict) -> dict:
    import pandas as pd
    from replay.metrics import MAP, MRR, NDCG, HitRate, Precision, Recall
    from replay.metrics.descriptors import PerUser

    recs = pd.DataFrame([[u, i, s] for u, i, _r, s in case["recs"]], columns=["query_id", "item_id", "rating"])
    truth = pd.DataFrame([[u, i] for u, i, _g in case["truth"]], columns=["query_id", "item_id"])
    ks = sorted(set(case["ks"]))
    out: dict = {}
    for name, cls in (
        ("NDCG", NDCG),
        ("MAP", MAP),
        ("MRR", MRR),
        ("Precision", Precision),
        ("Recall", Recall),
        ("HitRate", HitRate),
    ):
        means = cls(ks)(recs, truth)
        per_user = cls(ks, mode=PerUser())(recs, truth)
        for k in ks:
            pu = per_user[f"{name}-PerUser@{k}"]
            out[f"{name}@{k}"] = {
                "per_user": [[u.item() if hasattr(u, "item") else u, _f(v)] for u, v in pu.items()],
                "mean": _f(means[f"{name}@{k}"]),
            }
    return out


if __name__ == "__main__":
    from worker_io import serve  # tests/differential/worker_path, on the worker's PYTHONPATH

    serve(one)
