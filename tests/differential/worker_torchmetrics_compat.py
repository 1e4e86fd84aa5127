"""torchmetrics' retrieval metrics, classes and functional forms, on the differential cases (tests/differential/
cases.py), run in the `torch` venv, against ``rankmeter.compat.torchmetrics`` (tests/differential/
torchmetrics_compat.py, which reads ``specs`` and ``rows`` from this file: one definition of what is asked).

    <venv>/bin/python -P tests/differential/worker_torchmetrics_compat.py IN.json OUT.json

Imports only the standard library, numpy and torch/torchmetrics, never rankmeter. A case reaches torchmetrics as
a user porting torchmetrics code holds it: one row per listed item (a repeated item is a second row), with
``preds`` = the score, ``target`` = the truth grade of that (user, item), 0 when the item is not in truth, and
``indexes`` = the user id when ids are integers, else the user's position (order of first appearance). The rows
are interleaved across queries (a fixed shuffle) and given in two ``update`` calls, so the order in which
``compute`` meets each query's equal scores is the one torchmetrics' own grouping leaves. NDCG gets the grades,
the binary metrics grade > 0 (as bool). An ``ignore_index`` variant sets every fifth row's target to -100.

Every retrieval metric class of torchmetrics 1.9 that the compat module provides is asked at every cutoff of the
case and at top_k=None, with each empty_target_action, each aggregation and the class keywords (adaptive_k,
max_fpr); per-query values are caught by an ``aggregation`` callable; a metric that raises is recorded as
``<label>|raised:<exception type>``. Each functional form is asked for each query on its own rows.
"""

from __future__ import annotations

import json
import math
import sys

IGNORE = -100


def _f(x):
    x = float(x)
    return None if math.isnan(x) else x


def rows(case):
    """(users in order of first appearance, indexes, preds, grades, user of each row) in the order the rows are
    given to update(): the case's rows shuffled by a fixed rule (interleaving the queries)."""
    grade = {(u, i): g for u, i, g in case["truth"]}
    pos: dict = {}
    out = []
    for u, i, _r, s in case["recs"]:
        if u not in pos:
            pos[u] = len(pos)
        out.append((u if isinstance(u, int) else pos[u], float(s), float(grade.get((u, i), 0)), u))
    n = len(out)
    # two cases in three interleaved, the third as the case lists them (grouped by user)
    shuffle = n % 3 != 0
    order = sorted(range(n), key=lambda r: ((r * 2654435761) % 4294967296, r)) if shuffle else range(n)
    return [out[r] for r in order]


CLASSES = (
    "RetrievalNormalizedDCG",
    "RetrievalMAP",
    "RetrievalMRR",
    "RetrievalPrecision",
    "RetrievalRecall",
    "RetrievalHitRate",
    "RetrievalFallOut",
    "RetrievalAUROC",
)


def specs(case):
    """label -> (class name, keyword arguments, ignore-index variant?)."""
    out: dict = {}
    for k in [*case["ks"], None]:
        for cls in CLASSES:
            out[f"{cls}|{k}"] = (cls, {"top_k": k}, False)
        out[f"RetrievalPrecision|{k}|adaptive"] = ("RetrievalPrecision", {"top_k": k, "adaptive_k": True}, False)
        out[f"RetrievalAUROC|{k}|fpr"] = ("RetrievalAUROC", {"top_k": k, "max_fpr": 0.4}, False)
    out["RetrievalRPrecision"] = ("RetrievalRPrecision", {}, False)
    k = case["k"]
    for cls in (*CLASSES, "RetrievalRPrecision"):
        kw = {} if cls == "RetrievalRPrecision" else {"top_k": k}
        for action in ("pos", "skip", "error", "neg"):
            out[f"{cls}|{k}|{action}"] = (cls, {**kw, "empty_target_action": action}, False)
        for agg in ("median", "min", "max"):
            out[f"{cls}|{k}|{agg}"] = (cls, {**kw, "aggregation": agg}, False)
        out[f"{cls}|{k}|ignore"] = (cls, {**kw, "ignore_index": IGNORE}, True)
    return out


FUNCTIONS = (
    "retrieval_normalized_dcg",
    "retrieval_average_precision",
    "retrieval_reciprocal_rank",
    "retrieval_precision",
    "retrieval_recall",
    "retrieval_hit_rate",
    "retrieval_fall_out",
    "retrieval_auroc",
)


def functional_specs(case):
    """label -> (function name, keyword arguments)."""
    out: dict = {"retrieval_r_precision": ("retrieval_r_precision", {})}
    for k in (case["k"], None):
        for f in FUNCTIONS:
            out[f"{f}|{k}"] = (f, {"top_k": k})
    out[f"retrieval_precision|{case['k']}|adaptive"] = ("retrieval_precision", {"top_k": case["k"], "adaptive_k": True})
    out["retrieval_auroc|fpr"] = ("retrieval_auroc", {"max_fpr": 0.4})
    return out


def arrays(case, graded, ignore, np):
    """(index, preds, target) numpy arrays of the rows, target as the metric takes it."""
    r = rows(case)
    idx = np.array([x[0] for x in r], dtype=np.int64)
    preds = np.array([x[1] for x in r], dtype=np.float32)
    grades = np.array([x[2] for x in r], dtype=np.float32)
    target = grades if graded else grades > 0
    if ignore:
        target = target.astype(np.float32 if graded else np.int64)
        target[::5] = IGNORE
    return idx, preds, target


def compute(module, case, label_specs, np, to_input, caught_values):
    """Every label's per-query values and aggregate through ``module`` (torchmetrics' retrieval or the compat
    module); the per-query values are those the aggregation callable gets, keyed by the query's user."""
    out: dict = {}
    r = rows(case)
    user_of: dict = {}
    for q, _s, _g, u in r:
        user_of.setdefault(q, u)
    for label, (cls, kw, ignore) in label_specs.items():
        graded = cls == "RetrievalNormalizedDCG"
        idx, preds, target = arrays(case, graded, ignore, np)
        caught: list = []
        agg = kw.get("aggregation", "mean")
        # the per-query values through an aggregation callable, except for the built-in aggregations and the
        # labels "|neg" (the defaults' path: compared as aggregates only)
        by_callable = agg == "mean" and not label.endswith("|neg")

        def aggregate(values, dim=None, _caught=caught):
            _caught.append(caught_values(values))
            return values.mean()

        try:
            m = getattr(module, cls)(**({**kw, "aggregation": aggregate} if by_callable else kw))
            half = len(idx) // 2
            for sl in (slice(0, half), slice(half, None)):
                if sl.stop == 0:
                    continue
                m.update(to_input(preds[sl]), to_input(target[sl]), to_input(idx[sl]))
            mean = m.compute()
        except Exception as e:  # recorded: the compat module must raise the same type
            out[label] = {"per_user": None, "mean": None}
            out[f"{label}|raised:{type(e).__name__}"] = {"per_user": None, "mean": 1.0}
            continue
        per_user = None
        if caught:
            action = kw.get("empty_target_action", "neg" if cls != "RetrievalFallOut" else "pos")
            keep = target != IGNORE if ignore else np.ones(len(idx), dtype=bool)
            qs = sorted(set(idx[keep].tolist()))
            if action == "skip":
                t = target[keep].astype(np.float64)
                ii = idx[keep]
                if cls == "RetrievalFallOut":
                    qs = [q for q in qs if float((1 - t[ii == q]).sum()) != 0]
                else:
                    qs = [q for q in qs if float(t[ii == q].sum()) != 0]
            vals = list(caught[0])
            assert len(vals) == len(qs), (label, len(vals), len(qs))
            per_user = [[user_of[q], _f(v)] for q, v in zip(qs, vals)]
        out[label] = {"per_user": per_user, "mean": _f(mean)}
    return out


def compute_functional(module, case, np, to_input):
    """Each functional form on each query's rows (in the order given), per user; the mean of those values."""
    out: dict = {}
    r = rows(case)
    for label, (fn, kw) in functional_specs(case).items():
        graded = fn == "retrieval_normalized_dcg"
        per = []
        raised = None
        for q in dict.fromkeys(x[0] for x in r):
            mine = [x for x in r if x[0] == q]
            preds = np.array([x[1] for x in mine], dtype=np.float32)
            grades = np.array([x[2] for x in mine], dtype=np.float32)
            target = grades if graded else (grades > 0).astype(np.int64)
            try:
                v = getattr(module, fn)(to_input(preds), to_input(target), **kw)
            except Exception as e:
                raised = type(e).__name__
                break
            per.append([mine[0][3], _f(v)])
        if raised:
            out[label] = {"per_user": None, "mean": None}
            out[f"{label}|raised:{raised}"] = {"per_user": None, "mean": 1.0}
        else:
            vals = [v for _u, v in per]
            out[label] = {"per_user": per, "mean": sum(vals) / len(vals) if vals else None}
    return out


def run(case):
    import numpy as np
    import torch
    from torchmetrics import functional as F
    from torchmetrics import retrieval as R

    if not case["recs"]:
        return {"error": "NoRows", "message": "no listed item: torchmetrics has nothing to evaluate"}

    def to_input(a):
        return torch.from_numpy(np.ascontiguousarray(a))

    def caught_values(v):
        return v.clone().tolist()

    out = compute(R, case, specs(case), np, to_input, caught_values)
    out.update(compute_functional(F.retrieval, case, np, to_input))
    return {"ok": out}


def main(src: str, dst: str) -> None:
    import torch

    torch.set_num_threads(1)
    with open(src) as f:
        cases = json.load(f)["cases"]
    results = []
    for case in cases:
        try:
            results.append(run(case))
        except Exception as e:  # the peer raised outside a metric: reported, not compared
            results.append({"error": type(e).__name__, "message": str(e)[:500]})
    with open(dst, "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
