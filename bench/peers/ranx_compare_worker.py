"""ranx's ``compare`` on the runs of bench/compare_runs.py, in ranx's own venv.

    <ranx venv>/bin/python bench/peers/ranx_compare_worker.py RUNS.npz N_PERMUTATIONS OUT.json

RUNS.npz holds truth_indptr, truth_items, truth_grades and run_<i> (users x L
item ids, best first). Times separately: the conversion to ranx's Qrels/Run
objects (string ids, as ranx needs), ``ranx.evaluate`` of every run (warm), and
``ranx.compare(..., stat_test="fisher")`` (warm: a tiny call compiles numba
first). Writes the times and ranx's means and p-values to OUT.json. Imports only
numpy and ranx.
"""

import json
import sys
import time

import numpy as np
import ranx

METRICS = ["ndcg@10", "map@100", "precision@10", "recall@100"]


def to_ranx(z, n_runs):
    tp, ti, tg = z["truth_indptr"].tolist(), z["truth_items"].tolist(), z["truth_grades"].tolist()
    qrels = {}
    for u in range(len(tp) - 1):
        qrels[str(u)] = {str(ti[p]): int(tg[p]) for p in range(tp[u], tp[u + 1])}
    runs = []
    for r in range(n_runs):
        items = z[f"run_{r}"]
        L = items.shape[1]
        scores = [float(L - j) for j in range(L)]
        run = {str(u): dict(zip(map(str, row), scores)) for u, row in enumerate(items.tolist())}
        runs.append(ranx.Run(run, name=f"run{r}"))
    return ranx.Qrels(qrels), runs


def main():
    path, n_perm, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    z = np.load(path)
    n_runs = sum(1 for k in z.files if k.startswith("run_"))
    # warm-up: numba compiles every kernel once
    wq = ranx.Qrels({"a": {"x": 1, "y": 2}, "b": {"z": 1}})
    wr = [ranx.Run({"a": {"x": 2.0, "w": 1.0}, "b": {"z": 1.0, "x": 0.5}}, name=f"w{i}") for i in range(2)]
    ranx.compare(wq, wr, METRICS, stat_test="fisher", n_permutations=10, max_p=0.05)
    t0 = time.perf_counter()
    qrels, runs = to_ranx(z, n_runs)
    t_convert = time.perf_counter() - t0
    t0 = time.perf_counter()
    means = {r.name: {m: float(v) for m, v in ranx.evaluate(qrels, r, METRICS).items()} for r in runs}
    t_eval = time.perf_counter() - t0
    qrels, runs = to_ranx(z, n_runs)  # fresh objects: ranx caches scores on the Run objects
    t0 = time.perf_counter()
    report = ranx.compare(qrels, runs, METRICS, stat_test="fisher", n_permutations=n_perm, max_p=0.05)
    t_compare = time.perf_counter() - t0
    p = {}
    for i, a in enumerate(runs):
        for b in runs[i + 1 :]:
            for m in METRICS:
                p[f"{a.name}|{b.name}|{m}"] = float(report.comparisons[a.name, b.name][m]["p_value"])
    with open(out, "w") as f:
        json.dump(
            {
                "convert": t_convert,
                "evaluate": t_eval,
                "compare": t_compare,
                "n_permutations": n_perm,
                "n_users": len(z["truth_indptr"]) - 1,
                "means": means,
                "p": p,
            },
            f,
        )


if __name__ == "__main__":
    main()
