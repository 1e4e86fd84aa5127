"""RecBole 1.2.1's metrics on the recbole differential cases (tests/differential/recbole.py), in RecBole's venv.

    <venv>/bin/python tests/differential/worker_recbole.py IN.json OUT.json

Imports only the standard library, numpy, torch and RecBole, never rankmeter. A case holds, per test user, the
top max(topk) item list of RecBole's full-sort evaluation and the user's test items; the worker builds what
RecBole's Collector hands its metrics (``rec.topk``: the hit flags of the list and the number of positives;
``rec.items``: the item ids; ``data.num_items``, ``data.count_items``: the training interactions per item) in a
DataStruct and asks each metric's ``calculate_metric`` (the means, with ``metric_decimal_place`` 15) and
``metric_info`` (the per-user rows: column k - 1 is the user's value at k). RecBole 1.2.1 still spells
``np.float``, which numpy 1.24 removed: the worker sets ``np.float = float`` first, as its users must.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

np.float = float  # type: ignore[attr-defined]  # RecBole 1.2.1 on numpy >= 1.24


def one(case: dict) -> dict:
    import torch
    from recbole.evaluator import metrics as M
    from recbole.evaluator.collector import DataStruct

    ks = case["ks"]
    kmax = max(ks)
    code = {i: j + 1 for j, i in enumerate(case["catalog"])}  # RecBole's item ids: 0 is [PAD]
    lists: dict = {}
    for u, i, _r, _s in sorted(case["recs"], key=lambda row: (str(row[0]), row[2])):
        lists.setdefault(u, []).append(i)
    positives: dict = {}
    for u, i, _g in case["truth"]:
        positives.setdefault(u, set()).add(i)
    users = [u for u in lists if u in positives]  # RecBole evaluates the users of its test set
    out: dict = {}
    if not users:
        return out
    hits = torch.tensor([[1 if i in positives[u] else 0 for i in lists[u][:kmax]] for u in users], dtype=torch.long)
    pos_len = torch.tensor([[len(positives[u])] for u in users], dtype=torch.long)
    items = torch.tensor([[code[i] for i in lists[u][:kmax]] for u in users], dtype=torch.long)
    ds = DataStruct()
    ds.set("rec.topk", torch.cat([hits, pos_len], dim=1))
    ds.set("rec.items", items)
    ds.set("data.num_items", len(case["catalog"]))
    counts = Counter(code[i] for _u, i in case.get("train") or [])
    ds.set("data.count_items", counts)
    config = {"topk": ks, "metric_decimal_place": 15, "tail_ratio": 0.1}

    pos_index, pos_len_np = hits.numpy().astype(bool), pos_len.numpy().reshape(-1)
    per_user_rows = {
        "hit": M.Hit(config).metric_info(pos_index),
        "mrr": M.MRR(config).metric_info(pos_index),
        "ndcg": M.NDCG(config).metric_info(pos_index, pos_len_np),
        "map": M.MAP(config).metric_info(pos_index, pos_len_np),
        "precision": M.Precision(config).metric_info(pos_index),
        "recall": M.Recall(config).metric_info(pos_index, pos_len_np),
    }
    means = {}
    for cls in (M.Hit, M.MRR, M.NDCG, M.MAP, M.Precision, M.Recall, M.ItemCoverage, M.GiniIndex, M.ShannonEntropy):
        means.update(cls(config).calculate_metric(ds))
    if case.get("train"):
        ap = M.AveragePopularity(config)
        per_user_rows["averagepopularity"] = ap.metric_info(ap.get_pop(items.numpy(), dict(counts)))
        means.update(ap.calculate_metric(ds))
        tp = M.TailPercentage(config)
        per_user_rows["tailpercentage"] = tp.metric_info(tp.get_tail(items.numpy(), dict(counts)))
        means.update(tp.calculate_metric(ds))
    for name, rows in per_user_rows.items():
        for k in ks:
            out[f"{name}@{k}"] = {
                "per_user": [[u, float(v)] for u, v in zip(users, rows[:, k - 1])],
                "mean": float(means[f"{name}@{k}"]),
            }
    for name in ("itemcoverage", "giniindex", "shannonentropy"):
        for k in ks:
            out[f"{name}@{k}"] = {"per_user": None, "mean": float(means[f"{name}@{k}"])}
    return out


if __name__ == "__main__":
    from worker_io import serve  # tests/differential/worker_path, on the worker's PYTHONPATH

    serve(one)
