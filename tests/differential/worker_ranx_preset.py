"""Differential worker for ``preset="ranx"`` (runs in the ranx venv: stdlib, numpy and ranx only).

Every ranx metric (the list of worker_ranx.metrics_of) in one ``ranx.evaluate`` call per variant of the inputs
a ranx user gives it, per query (keyed by query id) and as means:

- ``run``: the qrels as a dict and the recommendations as a ``Run`` built from a dict that lists every qrels
  query (an empty one for a user without recommendations; users without qrels left out): equal scores in the
  order of a ``Run`` built from a dict (``ties="ranx"``, the preset's default);
- ``comparable``: ``Qrels`` and ``Run`` objects with ``make_comparable=True`` (``ties="ranx_comparable"``;
  only when every grade is an integer: a ``Qrels`` stores int grades);
- ``dict``: plain dicts (``ties="ranx_dict"``; only when every qrels query has a non-empty list: ranx cannot
  read a plain dict with an empty query).

The dicts list the queries sorted by id, as a ``Run`` does (ranx pairs qrels and run by position). bpref is
computed one query at a time and left out where ranx's value is NaN: both as ``preset="ranx"`` documents
(``rankmeter.presets.describe("ranx")``, unmatched).
"""

from __future__ import annotations

import json
import math
import sys
import warnings

warnings.simplefilter("ignore")

import numba  # noqa: E402
import ranx  # noqa: E402

DEFAULT_THREADS = numba.config.NUMBA_NUM_THREADS
BASES = ("hits", "hit_rate", "precision", "recall", "f1", "mrr", "map", "dcg", "dcg_burges", "ndcg", "ndcg_burges")


def metrics_of(case):
    ks = case["ks"]
    ms = list(BASES) + [f"{b}@{k}" for b in BASES for k in ks]
    ms += ["r-precision", "bpref", "rbp.5", "rbp.8", "rbp.95", "rbp.99"]
    ms += [f"{b}@{ks[0]}-l2" for b in BASES] + ["r-precision-l2", "bpref-l2", "rbp.8-l2"]
    ms += [f"{b}@{ks[0]}-l0" for b in ("hits", "precision", "ndcg", "map")] + ["bpref-l0"]
    return ms


def _f(x):
    x = float(x)
    return None if math.isnan(x) else x


def as_dicts(case):
    qrels: dict = {}
    run: dict = {}
    for u, i, g in case["truth"]:
        qrels.setdefault(str(u), {})[str(i)] = g
    for u, i, _r, s in sorted(case["recs"], key=lambda row: (str(type(row[0])), row[0], row[2])):
        run.setdefault(str(u), {})[str(i)] = s
    for u in case.get("empty_lists", []):
        run[str(u)] = {}
    return qrels, run


def variants(case):
    qrels, run = as_dicts(case)
    keys = sorted(qrels)
    q_sorted = {q: qrels[q] for q in keys}
    out = {}
    if any(run.get(q) for q in keys):  # a Run needs one document
        out["run"] = (q_sorted, ranx.Run({q: run.get(q, {}) for q in keys}), False)
    if all(float(g).is_integer() for d in qrels.values() for g in d.values()) and any(run.values()):
        out["comparable"] = (ranx.Qrels(qrels), ranx.Run({q: d for q, d in run.items() if d} or run), True)
    if all(run.get(q) for q in keys):
        out["dict"] = (q_sorted, {q: run[q] for q in keys}, False)
    return out, q_sorted, run


def one_case(case):
    if not case["truth"]:
        return {}
    metrics = metrics_of(case)
    plain = [m for m in metrics if not m.startswith("bpref")]
    found, q_sorted, run = variants(case)
    out = {}
    for name, (q, r, mc) in found.items():
        numba.set_num_threads(DEFAULT_THREADS)
        per = ranx.evaluate(q, r, plain, return_mean=False, make_comparable=mc)
        qids = list(q_sorted)
        for m in plain:
            vals = per[m]
            out[f"{name}|{m}"] = {
                "per_user": [[qid, _f(v)] for qid, v in zip(qids, vals)],
                "mean": _f(sum(float(v) for v in vals) / len(vals)),
            }
    if found:
        # bpref, one query at a time (ranx's batched kernel stops at a query without relevant documents)
        for m in [m for m in metrics if m.startswith("bpref")]:
            pu = []
            for qid in q_sorted:
                if not run.get(qid):
                    continue  # an empty list: every variant scores 0 (checked through the other metrics)
                numba.set_num_threads(DEFAULT_THREADS)
                v = float(ranx.evaluate({qid: q_sorted[qid]}, {qid: run[qid]}, m))
                if not math.isnan(v):
                    pu.append([qid, v])
            out[f"bpref|{m}"] = {"per_user": pu}
    return out


def main():
    with open(sys.argv[1]) as f:
        data = json.load(f)
    results = []
    for case in data["cases"]:
        try:
            results.append({"ok": one_case(case)})
        except Exception as e:
            results.append({"error": type(e).__name__, "message": str(e)[:300]})
    with open(sys.argv[2], "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
