"""Cornac's ranking metrics on the differential cases (tests/differential/cases.py), in Cornac's venv.

    <venv>/bin/python tests/differential/worker_cornac.py IN.json OUT.json

Imports only the standard library, numpy and Cornac, never rankmeter. Cornac's ``ranking_eval`` evaluates the
users with a positive test item (rating >= ``rating_threshold``, 1.0) and hands each metric's ``compute`` the
user's positives (``gt_pos``) and its ranked list (``pd_rank``); the mean is the sum of the users' values over
their number. The worker does the same with each case's lists (item ids coded as ints), at each cutoff of the
case and without one (k = -1). MRR (no cutoff in Cornac) raises when the list holds no positive: the worker
records the user's value as missing and the mean as not computed (``ranking_eval`` itself fails there).
"""

from __future__ import annotations

import math

THRESHOLD = 1.0


def one(case: dict) -> dict:
    import numpy as np
    from cornac import metrics as M

    code: dict = {}

    def c(i):
        return code.setdefault((type(i).__name__, i), len(code))

    lists: dict = {}
    for u, i, _r, _s in sorted(case["recs"], key=lambda row: (str(row[0]), row[2])):
        lists.setdefault(u, []).append(c(i))
    for u in case.get("empty_lists", []):
        lists[u] = []
    pos: dict = {}
    users_in_truth: list = []
    for u, i, g in case["truth"]:
        if u not in pos:
            users_in_truth.append(u)
            pos[u] = []
        if g >= THRESHOLD:
            pos[u].append(c(i))
    users = [u for u in users_in_truth if pos[u]]
    out: dict = {}
    metrics = {}
    for k in [*case["ks"], -1]:
        sfx = f"@{k}" if k > 0 else ""
        metrics[f"NDCG{sfx}"] = M.NDCG(k=k)
        metrics[f"Precision{sfx}"] = M.Precision(k=k)
        metrics[f"Recall{sfx}"] = M.Recall(k=k)
        metrics[f"F1{sfx}"] = M.FMeasure(k=k)
        metrics[f"HitRatio{sfx}"] = M.HitRatio(k=k)
        metrics[f"NCRR{sfx}"] = M.NCRR(k=k)
    metrics["MRR"] = M.MRR()
    for label, m in metrics.items():
        per_user, values = [], []
        ok = True
        for u in users:
            gt = np.array(sorted(set(pos[u])), dtype=np.int64)
            rank = np.array(lists.get(u, []), dtype=np.int64)
            try:
                v = float(m.compute(gt_pos=gt, pd_rank=rank))
            except ValueError:  # MRR without a positive in the list
                ok = False
                per_user.append([u, None])
                continue
            values.append(v)
            per_user.append([u, None if math.isnan(v) else v])
        mean = sum(values) / len(values) if ok and values else None
        out[label] = {"per_user": per_user, "mean": None if mean is None or math.isnan(mean) else mean}
    return out


if __name__ == "__main__":
    from worker_io import serve  # tests/differential/worker_path, on the worker's PYTHONPATH

    serve(one)
