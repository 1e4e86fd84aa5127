"""Differential worker for ranx (runs in the ranx venv: stdlib, numpy and ranx only).

For every case: ``ranx.evaluate`` with every ranx metric (tests/differential/ranx.py, METRICS) in one call, on
the inputs a ranx user gives it (MODES): plain dicts, ``Qrels``/``Run`` objects built from dicts, a ``Run``
filled by ``add_score``, with and without ``make_comparable``; per-query values (by position) and means, the
standard deviations, and what ``save_results_in_run`` leaves in the ``Run``. A call that raises gives the label
``"<mode>|raises <type>"``. numba's thread count is reset to its default before each case (a fresh process).
"""

from __future__ import annotations

import json
import math
import sys
import warnings

warnings.simplefilter("ignore")
# this directory holds the peer module ranx.py: the worker runs as `python -P` (ISOLATED in the peer module),
# so the real ranx comes from the venv

import numba  # noqa: E402
import ranx  # noqa: E402

DEFAULT_THREADS = numba.config.NUMBA_NUM_THREADS
MODES = ("dict", "dict_mc", "qrels_dict", "dict_run", "objects", "objects_mc", "added_mc")
BASES = ("hits", "hit_rate", "precision", "recall", "f1", "mrr", "map", "dcg", "dcg_burges", "ndcg", "ndcg_burges")


def metrics_of(case):
    """Every ranx metric: each base without and with every cutoff of the case, r-precision, bpref (k is ignored),
    rbp at several persistences (both spellings), rel_lvl 2 and 0 (-l2, -l0). Same list as METRICS in ranx.py."""
    ks = case["ks"]
    ms = list(BASES) + [f"{b}@{k}" for b in BASES for k in ks]
    ms += ["r-precision", "bpref", "bpref@5", "rbp.5", "rbp.8", "rbp.95", "rbp.99", "rbp@9"]
    ms += [f"{b}@{ks[0]}-l2" for b in BASES] + ["r-precision-l2", "bpref-l2", "rbp.8-l2"]
    ms += [f"{b}@{ks[0]}-l0" for b in ("hits", "precision", "ndcg", "map")] + ["bpref-l0"]
    return ms


def _f(x):
    x = float(x)
    return None if math.isnan(x) else x


def as_dicts(case, str_ids):
    """qrels {user: {item: grade}}, run {user: {item: score}} in the case's row order (a repeated item keeps
    its first position and its last score, as a dict does)."""
    conv = str if str_ids else (lambda x: x)
    qrels: dict = {}
    run: dict = {}
    for u, i, g in case["truth"]:
        qrels.setdefault(conv(u), {})[conv(i)] = g
    for u, i, _r, s in sorted(case["recs"], key=lambda row: (str(type(row[0])), row[0], row[2])):
        run.setdefault(conv(u), {})[conv(i)] = s
    for u in case.get("empty_lists", []):
        run[conv(u)] = {}
    return qrels, run


def added_run(run):
    """A Run filled by add_score, query by query (unsorted until evaluate sorts it)."""
    r = ranx.Run()
    for q, docs in run.items():
        for d, s in docs.items():
            r.add_score(q, d, s)
    return r


def build(mode, case):
    """(qrels, run, make_comparable) a ranx user of that mode passes."""
    if mode in ("dict", "dict_mc"):
        q, r = as_dicts(case, False)
        return q, r, mode == "dict_mc"
    q, r = as_dicts(case, True)
    if mode == "qrels_dict":
        return ranx.Qrels(q), r, False
    if mode == "dict_run":
        return q, ranx.Run(r), False
    if mode in ("objects", "objects_mc"):
        return ranx.Qrels(q), ranx.Run(r), mode == "objects_mc"
    if mode == "added_mc":
        return ranx.Qrels(q), added_run(r), True
    raise ValueError(mode)


def conflated_ids(case):
    """Distinct int document ids ranx's dict path takes for one (float(hash(id)) equal: ids of 2**53 and more)."""
    ids = {i for _u, i, *_ in case["truth"]} | {i for _u, i, *_ in case["recs"]}
    ints = [i for i in ids if isinstance(i, int)]
    return len({float(hash(i)) for i in ints}) < len(ints)


def one_mode(mode, case, metrics):
    out = {}
    if mode in ("dict", "dict_mc") and conflated_ids(case):
        return {f"{mode}|ids conflated by ranx": {"per_user": None, "mean": 1.0}}
    try:
        numba.set_num_threads(DEFAULT_THREADS)
        qrels, run, mc = build(mode, case)
        per = ranx.evaluate(qrels, run, metrics, return_mean=False, make_comparable=mc)
        numba.set_num_threads(DEFAULT_THREADS)
        qrels2, run2, mc2 = build(mode, case)
        agg = ranx.evaluate(qrels2, run2, metrics, return_std=True, make_comparable=mc2)
    except Exception as e:  # ranx raised: the compat module must raise the same type
        name = "TypeError" if type(e).__name__ == "TypingError" else type(e).__name__
        return {f"{mode}|raises {name}": {"per_user": None, "mean": 1.0}}
    per = per if isinstance(per, dict) else {metrics[0]: per}
    agg = agg if isinstance(agg, dict) and "mean" not in agg else {metrics[0]: agg}
    for m in metrics:
        out[f"{mode}|{m}"] = {"per_user": [[i, _f(v)] for i, v in enumerate(per[m])], "mean": _f(agg[m]["mean"])}
        out[f"{mode}|{m}|std"] = {"per_user": None, "mean": _f(agg[m]["std"])}
    if isinstance(run2, ranx.Run):
        for m in metrics:
            out[f"{mode}|saved|{m}"] = {
                "per_user": [[q, _f(v)] for q, v in run2.scores[m].items()],
                "mean": _f(run2.mean_scores[m]),
            }
            out[f"{mode}|saved_std|{m}"] = {"per_user": None, "mean": _f(run2.std_scores[m])}
    return out


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src) as f:
        data = json.load(f)
    results = []
    for case in data["cases"]:
        res = {}
        metrics = metrics_of(case)
        for mode in MODES:
            res.update(one_mode(mode, case, metrics))
        results.append({"ok": res})
    with open(dst, "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
