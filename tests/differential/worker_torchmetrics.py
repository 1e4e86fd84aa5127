"""torchmetrics' retrieval metrics on the differential cases (tests/differential/cases.py), run in the `torch` venv.

    <venv>/bin/python tests/differential/worker_torchmetrics.py IN.json OUT.json

Imports only the standard library, numpy and torch/torchmetrics, never rankmeter. A case reaches torchmetrics as
its users hold retrieval data: one row per listed item (a repeated item is a second row, a document of its own),
in the order of the case's rows (grouped by user), with ``preds`` = the score, ``target`` = the truth grade of that
(user, item), 0 when the item is not in truth, and ``indexes`` = the user id when ids are integers, else the user's
position (order of first appearance). Truth items that are not listed and users without a listed item are no rows:
torchmetrics never sees them. NDCG gets the grades; the binary metrics (which reject grades outside 0..1) get
grade > 0.

For every cutoff of a case (and top_k=None) the worker asks every retrieval metric class ``preset="torchmetrics"``
reproduces, through the class API (update + compute, as torchmetrics' users call it); the per-query values are
the ones compute() aggregates (caught by an ``aggregation`` callable). Labels are rankmeter's metric names under
the preset; ``|pos`` / ``|skip`` mark empty_target_action='pos' / 'skip', ``|median`` etc. aggregation=. In cases
where no query holds two equal scores, also RetrievalPrecisionRecallCurve(max_k=k) (points ``|curve``) and
RetrievalRecallAtFixedPrecision.
"""

from __future__ import annotations

import json
import math
import sys

# this directory holds tests/differential/torchmetrics.py (the peer module), which would shadow the package
# the worker runs as `python -P` (ISOLATED in the peer module): this directory is not on sys.path


def _f(x):
    x = float(x)
    return None if math.isnan(x) else x


def tensors(case):
    """(users by position, indexes, preds, graded targets) of the case's listed rows, in the case's row order."""
    import torch

    grade = {(u, i): g for u, i, g in case["truth"]}
    users: list = []
    pos: dict = {}
    idx, preds, target = [], [], []
    for u, i, _r, s in case["recs"]:
        if u not in pos:
            pos[u] = len(users)
            users.append(u)
        idx.append(u if isinstance(u, int) else pos[u])
        preds.append(s)
        target.append(grade.get((u, i), 0))
    return (
        users,
        torch.tensor(idx, dtype=torch.long),
        torch.tensor(preds, dtype=torch.float32),
        torch.tensor(target, dtype=torch.float32),
    )


def metric_classes(case):
    """label -> (class, keyword arguments, graded target?)."""
    from torchmetrics import retrieval as R

    out: dict = {}
    for k in [*case["ks"], None]:
        at = "" if k is None else f"@{k}"
        out.update(
            {
                f"precision{at}": (R.RetrievalPrecision, {"top_k": k}, False),
                f"precision(short_lists=evidently){at}": (
                    R.RetrievalPrecision,
                    {"top_k": k, "adaptive_k": True},
                    False,
                ),
                f"recall{at}": (R.RetrievalRecall, {"top_k": k}, False),
                f"ap{at}": (R.RetrievalMAP, {"top_k": k}, False),
                f"rr{at}": (R.RetrievalMRR, {"top_k": k}, False),
                f"hit_rate{at}": (R.RetrievalHitRate, {"top_k": k}, False),
                f"ndcg{at}": (R.RetrievalNormalizedDCG, {"top_k": k}, True),
            }
        )
    out["r_precision"] = (R.RetrievalRPrecision, {}, False)
    k = case["k"]
    for action in ("pos", "skip"):
        out[f"precision@{k}|{action}"] = (R.RetrievalPrecision, {"top_k": k, "empty_target_action": action}, False)
        out[f"ndcg@{k}|{action}"] = (R.RetrievalNormalizedDCG, {"top_k": k, "empty_target_action": action}, True)
    for agg in ("median", "min", "max"):
        out[f"ap@{k}|{agg}"] = (R.RetrievalMAP, {"top_k": k, "aggregation": agg}, False)
    return out


def run(case):
    users, idx, preds, graded = tensors(case)
    if not users:
        return {"error": "NoRows", "message": "no listed item: torchmetrics has nothing to evaluate"}
    binary = graded > 0
    user_of: dict = {}  # index value -> user id
    for q, (u, *_rest) in zip(idx.tolist(), case["recs"]):
        user_of.setdefault(q, u)
    by_index = sorted(user_of)  # compute() stacks the queries' values in the order of their index
    out = {}
    for label, (cls, kw, is_graded) in metric_classes(case).items():
        target = graded if is_graded else binary
        caught: list = []
        agg = kw.get("aggregation", "mean")

        def aggregate(values, dim=None, _caught=caught, _agg=agg):
            _caught.append(values.clone())
            return values.mean() if _agg == "mean" else getattr(values, _agg)()

        m = cls(**{**kw, "aggregation": aggregate})
        m.update(preds, target, indexes=idx)
        mean = m.compute()
        action = kw.get("empty_target_action", "neg")
        evaluated = [q for q in by_index if action != "skip" or float(target[idx == q].sum()) != 0]
        values = caught[0].tolist() if caught else []
        assert len(values) == len(evaluated), (label, len(values), len(evaluated))
        per_user = [[user_of[q], _f(v)] for q, v in zip(evaluated, values)]
        out[label] = {"per_user": None if agg != "mean" else per_user, "mean": _f(mean)}
    if not tied(idx, preds):
        out.update(curves(case, users, idx, preds, binary, user_of, by_index))
    return {"ok": out}


def tied(idx, preds):
    """Whether some query holds two equal (float32) scores."""
    import torch

    for q in torch.unique(idx):
        p = preds[idx == q]
        if torch.unique(p).numel() < p.numel():
            return True
    return False


def curves(case, users, idx, preds, binary, user_of, by_index):
    """RetrievalPrecisionRecallCurve(max_k=k) per query and as means (points j = 1..k), and
    RetrievalRecallAtFixedPrecision's recall at two precision floors; only for cases without equal scores in a
    query (with them the curve's order, topk(max_k), is not the one of precision@j: not reproduced)."""
    from torchmetrics import retrieval as R

    k = case["k"]
    caught: list = []

    def aggregate(values, dim=None, _caught=caught):
        _caught.append(values.clone())
        return values.mean(dim=dim)

    m = R.RetrievalPrecisionRecallCurve(max_k=k, aggregation=aggregate)
    m.update(preds, binary, indexes=idx)
    precision, recall, _ = (t.reshape(-1) for t in m.compute())  # compute() squeezes a one-point curve
    out = {}
    for name, mean, rows in (("precision", precision, caught[0]), ("recall", recall, caught[1])):
        for j in range(k):
            per = [[user_of[q], _f(rows[n, j])] for n, q in enumerate(by_index)]
            out[f"{name}(hit_scores=any)@{j + 1}|curve"] = {"per_user": per, "mean": _f(mean[j])}
    for floor in (0.2718, 0.5772):  # FLOORS of tests/differential/torchmetrics.py
        f = R.RetrievalRecallAtFixedPrecision(min_precision=floor, max_k=k)
        f.update(preds, binary, indexes=idx)
        out[f"recall_at_fixed_precision@{k}|{floor}"] = {"per_user": None, "mean": _f(f.compute()[0])}
    return out


def main(src: str, dst: str) -> None:
    import torch

    torch.set_num_threads(1)
    with open(src) as f:
        cases = json.load(f)["cases"]
    results = []
    for case in cases:
        try:
            results.append(run(case))
        except Exception as e:  # the peer raised: reported, not compared
            results.append({"error": type(e).__name__, "message": str(e)[:500]})
    with open(dst, "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
