"""Cornac's ranking metrics on the differential cases (tests/differential/cases.py), in Cornac's venv.

    <venv>/bin/python tests/differential/worker_cornac.py IN.json OUT.json

Imports only the standard library, numpy and Cornac, never rankmeter. Cornac's ``ranking_eval`` evaluates the
users with a positive test item (rating >= ``rating_threshold``, 1.0) and hands each metric's ``compute`` the
user's positives (``gt_pos``), its ranked list (``pd_rank``), its candidate items (``item_indices``) and their
scores (``pd_scores``); the mean is the sum of the users' values over their number. The worker does the same
with each case's lists (item ids coded as ints), at each cutoff of the case and without one (k = -1), twice:

- the lists as ranked (labels ``NDCG@k``, ...): every list metric, on ``pd_rank`` = the list, repeats kept;
- the scores (labels ``scored:NDCG@k``, ..., ``scored:AUC``, ``scored:MAP``): each user's candidates are the
  items of its list, each once with the score of its first occurrence, in list order; the list metrics read that
  list as ``pd_rank``, AUC and MAP the candidates and their scores, the negatives every candidate that is no
  positive (``gt_neg`` None, as ``ranking_eval``'s ``gt_neg`` is for its candidates).

MRR (no cutoff in Cornac) raises when the list holds no positive: the worker records the user's value as missing
and the mean as not computed (``ranking_eval`` itself fails there). A NaN value (AUC or MAP of a user without a
positive or a negative candidate: 0/0) makes Cornac's mean NaN: the label then has no mean.
"""

from __future__ import annotations

import math
import warnings

THRESHOLD = 1.0


def one(case: dict) -> dict:
    import numpy as np
    from cornac import metrics as M

    code: dict = {}

    def c(i):
        return code.setdefault((type(i).__name__, i), len(code))

    lists: dict = {}
    cands: dict = {}  # user -> {item code: score of its first occurrence}, in list order
    for u, i, _r, s in sorted(case["recs"], key=lambda row: (str(row[0]), row[2])):
        lists.setdefault(u, []).append(c(i))
        cands.setdefault(u, {}).setdefault(c(i), float(s))
    for u in case.get("empty_lists", []):
        lists[u] = []
        cands[u] = {}
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
    for scored in (False, True):
        for label, m in [*metrics.items(), *((("AUC", M.AUC()), ("MAP", M.MAP())) if scored else ())]:
            per_user, values = [], []
            ok = True
            for u in users:
                gt = np.array(sorted(set(pos[u])), dtype=np.int64)
                if scored:
                    cand = cands.get(u, {})
                    items = np.array(list(cand), dtype=np.int64)
                    kw = {"pd_rank": items, "item_indices": items, "pd_scores": np.array(list(cand.values()))}
                else:
                    kw = {"pd_rank": np.array(lists.get(u, []), dtype=np.int64)}
                try:
                    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
                        warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 of AUC, MAP's mean of none: NaN
                        v = float(m.compute(gt_pos=gt, **kw))
                except ValueError:  # MRR without a positive in the list
                    ok = False
                    per_user.append([u, None])
                    continue
                values.append(v)
                per_user.append([u, None if math.isnan(v) else v])
            mean = sum(values) / len(values) if ok and values else None
            entry: dict = {"per_user": per_user}
            if not (scored and label in ("AUC", "MAP") and mean is not None and math.isnan(mean)):
                entry["mean"] = None if mean is None or math.isnan(mean) else mean
            out[f"scored:{label}" if scored else label] = entry
    return out


if __name__ == "__main__":
    from worker_io import serve  # tests/differential/worker_path, on the worker's PYTHONPATH

    serve(one)
