"""scikit-learn's ranking scores on the differential cases (tests/differential/cases.py), run in the `torch` venv.

    <venv>/bin/python tests/differential/worker_sklearn.py IN.json OUT.json

Imports only the standard library, numpy and scikit-learn, never rankmeter. A case reaches scikit-learn as its
users hold it: dense matrices, one row per user of the case (truth users, recommendation users, users with an
empty list; in order of first appearance), one column per item of the case (sorted); ``y_score`` = the listed
score, 0 for an item the user's list does not hold; ``y_true`` = the truth grade, 0 when absent. In "single
label" cases (an even number of truth rows) each row keeps one relevant item, its highest grade (the first
column among equal grades), as grade 1, and rows without a relevant item are left out: top_k_accuracy_score's
``y_true`` is that column. Every column is a document of every row.

Labels are rankmeter's metric names under ``preset="sklearn"``; per-user values are the function on one row.
"""

from __future__ import annotations

import json
import math
import sys

# this directory holds tests/differential/sklearn.py (the peer module), which would shadow the package
# the worker runs as `python -P` (ISOLATED in the peer module): this directory is not on sys.path


def _f(x):
    x = float(x)
    return None if math.isnan(x) else x


def _order_key(x):
    return (str(type(x)), x)


def matrices(case):
    """(users, columns, y_true, y_score, labels or None): the dense form of a case (see the module docstring)."""
    import numpy as np

    users: list = []
    seen: set = set()
    for u in [r[0] for r in case["truth"]] + [r[0] for r in case["recs"]] + list(case["empty_lists"]):
        if u not in seen:
            seen.add(u)
            users.append(u)
    cols = sorted({r[1] for r in case["truth"]} | {r[1] for r in case["recs"]} | set(case["catalog"]), key=_order_key)
    at = {c: j for j, c in enumerate(cols)}
    row = {u: n for n, u in enumerate(users)}
    y_true = np.zeros((len(users), len(cols)))
    y_score = np.zeros((len(users), len(cols)))
    for u, i, g in case["truth"]:
        y_true[row[u], at[i]] = g
    for u, i, _r, s in case["recs"]:
        y_score[row[u], at[i]] = s  # a repeated item: its last score
    labels = None
    if len(case["truth"]) % 2 == 0:
        keep = [n for n in range(len(users)) if (y_true[n] > 0).any()]
        labels = np.array([int(np.argmax(y_true[n])) for n in keep], dtype=np.int64)
        users = [users[n] for n in keep]
        y_score = y_score[keep]
        y_true = np.zeros((len(keep), len(cols)))
        y_true[np.arange(len(keep)), labels] = 1.0
    return users, cols, y_true, y_score, labels


def run(case):
    import numpy as np
    from sklearn import config_context
    from sklearn.metrics import dcg_score, ndcg_score, top_k_accuracy_score

    users, cols, y_true, y_score, labels = matrices(case)
    if not users:
        return {"error": "NoRows", "message": "no row"}
    funcs: dict = {}
    for k in [*case["ks"], None]:
        at = "" if k is None else f"@{k}"
        funcs[f"ndcg{at}"] = lambda t, s, _k=k: ndcg_score(t, s, k=_k)
        funcs[f"dcg{at}"] = lambda t, s, _k=k: dcg_score(t, s, k=_k)
        funcs[f"dcg(log_base=10){at}"] = lambda t, s, _k=k: dcg_score(t, s, k=_k, log_base=10)
    out = {}
    classes = np.arange(len(cols))
    for label, f in funcs.items():
        mean = _f(f(y_true, y_score))  # the call as users make it, parameters checked
        with config_context(skip_parameter_validation=True):  # the same function per row, faster
            per = [[u, _f(f(y_true[n : n + 1], y_score[n : n + 1]))] for n, u in enumerate(users)]
        out[label] = {"per_user": per, "mean": mean}
    if labels is not None:
        for k in case["ks"]:
            mean = _f(top_k_accuracy_score(labels, y_score, k=k, labels=classes))
            with config_context(skip_parameter_validation=True):
                hits = [
                    [u, _f(top_k_accuracy_score(labels[n : n + 1], y_score[n : n + 1], k=k, labels=classes))]
                    for n, u in enumerate(users)
                ]
            out[f"hit_rate@{k}"] = {"per_user": hits, "mean": mean}
    return {"ok": out}


def main(src: str, dst: str) -> None:
    import warnings

    warnings.simplefilter("ignore")  # k >= n_classes warns
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
