"""Computes one recommender library's metrics on a case, in that library's own venv.

    <venv>/bin/python tests/conformance/peer_worker.py LIBRARY IN.json OUT.json

IN.json: {"cases": [case, ...]}; a case holds
  truth  rows [user, item, grade]
  recs   rows [user, item, rank (1 = best), score]
  train  rows [user, item] (optional)
  k      the cutoff
OUT.json: {"results": [{metric: {"per_user": [[user, value], ...] | null, "mean": float | null}}, ...]}
(a metric's per-user values are given when the library exposes them).

Only the standard library, numpy, pandas and the peer itself are imported here,
never rankmeter. Ids are ints (any size up to 2**63) or strings, as JSON keeps them.
"""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict


def _f(x):
    x = float(x)
    return None if math.isnan(x) else x


def _series(s):
    return [[k.item() if hasattr(k, "item") else k, _f(v)] for k, v in s.items()]


def _lists(case):
    """users in truth order, {user: {item: grade}}, {user: [items by rank]}, {user: [scores by rank]}."""
    truth: defaultdict = defaultdict(dict)
    order: list = []
    for u, i, g in case["truth"]:
        if u not in truth:
            order.append(u)
        truth[u][i] = g
    recs = defaultdict(list)
    for u, i, _r, s in sorted(case["recs"], key=lambda row: (str(type(row[0])), row[0], row[2])):
        recs[u].append((i, s))
    return (
        order,
        truth,
        {u: [i for i, _ in v] for u, v in recs.items()},
        {u: [s for _, s in v] for u, v in recs.items()},
    )


# --------------------------------------------------------------------------- RecTools
def rectools(case):
    import pandas as pd
    from rectools import metrics as M

    k = case["k"]
    inter = pd.DataFrame(case["truth"], columns=["user_id", "item_id", "weight"])[["user_id", "item_id"]]
    reco = pd.DataFrame([r[:3] for r in case["recs"]], columns=["user_id", "item_id", "rank"])
    out = {}
    acc = {
        f"precision@{k}": M.Precision(k=k),
        f"recall(denominator=min_relevant_k)@{k}": M.Precision(k=k, r_precision=True),
        f"recall@{k}": M.Recall(k=k),
        f"f1@{k}": M.F1Beta(k=k),
        f"ap@{k}": M.MAP(k=k),
        f"ap(denominator=k)@{k}": M.MAP(k=k, divide_by_k=True),
        f"ndcg@{k}": M.NDCG(k=k),
        f"ndcg(ideal=cut)@{k}": M.NDCG(k=k, divide_by_achievable=True),
        f"rr@{k}": M.MRR(k=k),
        f"hit_rate@{k}": M.HitRate(k=k),
    }
    for name, m in acc.items():
        pu = m.calc_per_user(reco, inter)
        out[name] = {"per_user": _series(pu), "mean": _f(m.calc(reco, inter))}
    if case.get("train"):
        prev = pd.DataFrame(case["train"], columns=["user_id", "item_id"])
        for name, m in {
            f"novelty@{k}": M.MeanInvUserFreq(k=k),
            f"arp@{k}": M.AvgRecPopularity(k=k),
            f"arp(normalize=total)@{k}": M.AvgRecPopularity(k=k, normalize=True),
        }.items():
            pu = m.calc_per_user(reco, prev)
            out[name] = {"per_user": _series(pu), "mean": _f(m.calc(reco, prev))}
    return out


# --------------------------------------------------------------------------- Microsoft Recommenders
def recommenders(case):
    import pandas as pd
    from recommenders.evaluation import python_evaluation as E

    k = case["k"]
    rt = pd.DataFrame(case["truth"], columns=["userID", "itemID", "rating"]).astype({"rating": float})
    rp = pd.DataFrame([[u, i, s] for u, i, _, s in case["recs"]], columns=["userID", "itemID", "prediction"])
    funcs = {
        f"precision@{k}": lambda a, b: E.precision_at_k(a, b, k=k),
        f"recall@{k}": lambda a, b: E.recall_at_k(a, b, k=k),
        f"ndcg@{k}": lambda a, b: E.ndcg_at_k(a, b, k=k),
        f"ndcg(gain=linear)@{k}": lambda a, b: E.ndcg_at_k(a, b, k=k, score_type="raw"),
        f"ndcg(gain=exponential)@{k}": lambda a, b: E.ndcg_at_k(a, b, k=k, score_type="exp"),
        f"ap@{k}": lambda a, b: E.map_at_k(a, b, k=k),
        f"ap(denominator=relevant)@{k}": lambda a, b: E.map(a, b, k=k),
    }
    users = list(dict.fromkeys(rt["userID"].tolist()))
    both = set(rp["userID"].tolist())
    out = {}
    for name, f in funcs.items():
        per = [[u, _f(f(rt[rt.userID == u], rp[rp.userID == u]))] for u in users if u in both]
        out[name] = {"per_user": per, "mean": _f(f(rt, rp))}
    return out


# --------------------------------------------------------------------------- torchmetrics
def torchmetrics(case):
    import torch
    from torchmetrics import retrieval as R

    k = case["k"]
    order, truth, recs, scores = _lists(case)
    users = [u for u in order if u in recs]
    # one document per listed item; its target is the truth grade (0 when absent)
    idx, preds, target = [], [], []
    for n, u in enumerate(users):
        for i, s in zip(recs[u], scores[u]):
            idx.append(n)
            preds.append(s)
            target.append(truth[u].get(i, 0))
    idx_t = torch.tensor(idx, dtype=torch.long)
    preds_t = torch.tensor(preds, dtype=torch.float32)
    graded = torch.tensor(target, dtype=torch.float32)
    binary = graded > 0
    classes = {
        f"precision@{k}": (R.RetrievalPrecision, {"top_k": k}, binary),
        f"precision(short_lists=evidently)@{k}": (R.RetrievalPrecision, {"top_k": k, "adaptive_k": True}, binary),
        "recall": (R.RetrievalRecall, {}, binary),
        "rr": (R.RetrievalMRR, {}, binary),
        "precision": (R.RetrievalPrecision, {}, binary),
        f"recall@{k}": (R.RetrievalRecall, {"top_k": k}, binary),
        f"ap@{k}": (R.RetrievalMAP, {"top_k": k}, binary),
        "ap": (R.RetrievalMAP, {}, binary),
        f"rr@{k}": (R.RetrievalMRR, {"top_k": k}, binary),
        f"hit_rate@{k}": (R.RetrievalHitRate, {"top_k": k}, binary),
        "r_precision": (R.RetrievalRPrecision, {}, binary),
        f"ndcg@{k}": (R.RetrievalNormalizedDCG, {"top_k": k}, graded),
        "ndcg": (R.RetrievalNormalizedDCG, {}, graded),
    }
    out = {}
    for name, (cls, kw, tgt) in classes.items():
        mean = float(cls(**kw)(preds_t, tgt, indexes=idx_t))
        per = []
        for n, u in enumerate(users):
            sel = idx_t == n
            per.append([u, float(cls(**kw)(preds_t[sel], tgt[sel], indexes=idx_t[sel]))])
        out[name] = {"per_user": per, "mean": mean}
    return out


# --------------------------------------------------------------------------- scikit-learn
def sklearn(case):
    import numpy as np
    from sklearn.metrics import dcg_score, ndcg_score

    k = case["k"]
    order, truth, recs, scores = _lists(case)
    users = [u for u in order if u in recs]
    # rows padded to one width with grade-0 documents scored below everything (they add no gain)
    width = max(len(recs[u]) for u in users)
    y_true = np.zeros((len(users), width))
    y_score = -1e9 - np.arange(width, dtype=float)[None, :].repeat(len(users), 0)
    for n, u in enumerate(users):
        y_true[n, : len(recs[u])] = [truth[u].get(i, 0) for i in recs[u]]
        y_score[n, : len(recs[u])] = scores[u]
    out = {}
    for name, f in {
        f"ndcg@{k}": lambda a, b: ndcg_score(a, b, k=k),
        "ndcg": lambda a, b: ndcg_score(a, b),
        f"dcg@{k}": lambda a, b: dcg_score(a, b, k=k),
        f"dcg(log_base=10)@{k}": lambda a, b: dcg_score(a, b, k=k, log_base=10),
    }.items():
        per = [[u, float(f(y_true[n : n + 1], y_score[n : n + 1]))] for n, u in enumerate(users)]
        out[name] = {"per_user": per, "mean": float(f(y_true, y_score))}
    return out


# --------------------------------------------------------------------------- ml_metrics / recmetrics
def ml_metrics(case):
    import ml_metrics as mm

    k = case["k"]
    order, truth, recs, _ = _lists(case)
    actual = [[i for i, g in truth[u].items() if g > 0] for u in order]
    pred = [recs.get(u, []) for u in order]
    per = [[u, float(mm.apk(a, p, k))] for u, a, p in zip(order, actual, pred)]
    return {f"ap(denominator=min_relevant_k)@{k}": {"per_user": per, "mean": float(mm.mapk(actual, pred, k))}}


def recmetrics(case):
    import recmetrics as rmx

    k = case["k"]
    order, truth, recs, _ = _lists(case)
    actual = [[i for i, g in truth[u].items() if g > 0] for u in order]
    pred = [recs.get(u, []) for u in order]
    return {f"mark@{k}": {"per_user": None, "mean": float(rmx.mark(actual, pred, k))}}  # 0.1.5 has no mapk


def calls(case):
    """Function calls of ml_metrics/recmetrics: each {"module", "fn", "args"}; a "features" argument
    {"index", "values"} becomes a pandas DataFrame. Returns each call's value or its exception's type name."""
    import importlib
    import random

    import numpy as np
    import pandas as pd

    out = []
    for call in case["calls"]:
        mod = importlib.import_module(call["module"])
        args = [
            pd.DataFrame(a["values"], index=a["index"])
            if isinstance(a, dict) and "values" in a
            else dict(a["pairs"])
            if isinstance(a, dict) and "pairs" in a
            else a
            for a in call["args"]
        ]
        if "seed" in call:
            random.seed(call["seed"])
        try:
            with np.errstate(all="ignore"):
                import warnings

                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    v = getattr(mod, call["fn"])(*args)
        except Exception as e:
            out.append({"raises": type(e).__name__})
            continue
        if isinstance(v, tuple):
            v = [_f(v[0]), [_f(x) for x in v[1]]]
        else:
            v = _f(v)
        out.append({"value": v})
    return out


# --------------------------------------------------------------------------- Evidently
def evidently(case):
    """Means at k (Evidently reports no per-user values). One row per listed item (rank, target = its grade).
    NDCG and MRR: the new API labels the value of k as rank k + 1 (the quirk the preset documents), so the value
    of k is read at rank k + 1."""
    import pandas as pd
    from evidently import DataDefinition, Dataset, Recsys, Report
    from evidently import metrics as M

    k = case["k"]
    order, truth, recs, _ = _lists(case)
    rows = [[u, i, r + 1, truth[u].get(i, 0)] for u in order if u in recs for r, i in enumerate(recs[u])]
    df = pd.DataFrame(rows, columns=["user_id", "item_id", "prediction", "target"])
    dd = DataDefinition(
        ranking=[
            Recsys(
                user_id="user_id",
                item_id="item_id",
                target="target",
                prediction="prediction",
                recommendations_type="rank",
            )
        ]
    )
    ds = Dataset.from_pandas(df, data_definition=dd)
    wanted = {
        "PrecisionTopK": (f"precision@{k}", 0),
        "RecallTopK": (f"recall@{k}", 0),
        "MAP": (f"ap@{k}", 0),
        "NDCG": (f"ndcg@{k}", 1),
        "MRR": (f"rr@{k}", 1),
        "HitRate": (f"hit_rate@{k}", 0),
    }
    rep = Report([M.PrecisionTopK(k=k), M.RecallTopK(k=k), M.MAP(k=k), M.NDCG(k=k), M.MRR(k=k), M.HitRate(k=k)])
    out = {}
    for m in rep.run(current_data=ds).dict()["metrics"]:
        name, shift = wanted[m["config"]["type"].rsplit(":", 1)[-1]]
        v = m["value"]
        key = next(j for j, r in v["rank"].items() if r == k + shift)
        out[name] = {"per_user": None, "mean": _f(v["value"][key])}
    return out


def evidently_legacy(case):
    """Evidently's legacy report (evidently.legacy.metrics): MAPKMetric, MARKMetric and PrecisionTopKMetric at k
    (current_value, a mean over users). One row per listed item, in rank order (Evidently's rel_k is the last row
    at or above rank k in row order)."""
    import pandas as pd
    from evidently.legacy.metrics import MAPKMetric, MARKMetric, PrecisionTopKMetric
    from evidently.legacy.pipeline.column_mapping import ColumnMapping
    from evidently.legacy.report import Report

    k = case["k"]
    order, truth, recs, _ = _lists(case)
    rows = [[u, i, r + 1, truth[u].get(i, 0)] for u in order if u in recs for r, i in enumerate(recs[u])]
    df = pd.DataFrame(rows, columns=["user_id", "item_id", "prediction", "target"])
    cm = ColumnMapping(
        recommendations_type="rank", target="target", prediction="prediction", item_id="item_id", user_id="user_id"
    )
    names = {"MAPKMetric": f"ap@{k}", "MARKMetric": f"ar@{k}", "PrecisionTopKMetric": f"precision@{k}"}
    rep = Report(metrics=[MAPKMetric(k=k), MARKMetric(k=k), PrecisionTopKMetric(k=k)])
    rep.run(reference_data=None, current_data=df, column_mapping=cm)
    return {
        names[m["metric"]]: {"per_user": None, "mean": _f(m["result"]["current_value"])}
        for m in rep.as_dict()["metrics"]
    }


def sklearn_topk(case):
    """top_k_accuracy_score: rows = users, columns = classes 0..C-1, y_true = each user's one relevant class."""
    import numpy as np
    from sklearn.metrics import top_k_accuracy_score

    y_true = np.array(case["labels"])
    y_score = np.array(case["scores"], dtype=float)
    k = case["k"]
    classes = list(range(y_score.shape[1]))
    per = [
        [u, float(top_k_accuracy_score(y_true[u : u + 1], y_score[u : u + 1], k=k, labels=classes))]
        for u in range(len(y_true))
    ]
    return {f"hit_rate@{k}": {"per_user": per, "mean": float(top_k_accuracy_score(y_true, y_score, k=k))}}


def evidently_diversity(case):
    """Evidently's Diversity(k): rows = listed items with their feature columns f0.. (case["features"][item])."""
    import pandas as pd
    from evidently import DataDefinition, Dataset, Recsys, Report
    from evidently import metrics as M

    k = case["k"]
    order, truth, recs, _ = _lists(case)
    feats = {int(i): v for i, v in case["features"]}
    width = len(next(iter(feats.values())))
    rows = [[u, i, r + 1, truth[u].get(i, 0), *feats[i]] for u in order if u in recs for r, i in enumerate(recs[u])]
    cols = [f"f{j}" for j in range(width)]
    df = pd.DataFrame(rows, columns=["user_id", "item_id", "prediction", "target", *cols])
    dd = DataDefinition(
        numerical_columns=cols,
        ranking=[
            Recsys(
                user_id="user_id",
                item_id="item_id",
                target="target",
                prediction="prediction",
                recommendations_type="rank",
            )
        ],
    )
    ds = Dataset.from_pandas(df, data_definition=dd)
    rep = Report([M.Diversity(k=k, item_features=cols)])
    m = rep.run(current_data=ds).dict()["metrics"][0]
    return {f"diversity@{k}": {"per_user": None, "mean": _f(m["value"])}}


LIBRARIES = {
    "evidently_legacy": evidently_legacy,
    "evidently_diversity": evidently_diversity,
    "sklearn_topk": sklearn_topk,
    "evidently": evidently,
    "calls": calls,
    "rectools": rectools,
    "recommenders": recommenders,
    "torchmetrics": torchmetrics,
    "sklearn": sklearn,
    "ml_metrics": ml_metrics,
    "recmetrics": recmetrics,
}


def main() -> int:
    library, path_in, path_out = sys.argv[1:4]
    with open(path_in) as f:
        data = json.load(f)
    results = []
    for case in data["cases"]:
        try:
            results.append({"ok": LIBRARIES[library](case)})
        except Exception as e:  # the peer's own exception, reported by type
            results.append({"error": type(e).__name__, "message": str(e)[:500]})
    with open(path_out, "w") as f:
        json.dump({"results": results}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
