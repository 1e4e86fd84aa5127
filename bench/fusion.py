"""optimize_fusion: rankmeter against ranx's optimize_fusion on the same weight grid.

3 runs x Q queries x D documents per list (ids from a pool of 1.5 D per query, so the runs overlap), 10
relevant documents per query (grades 1-2); method wsum, norm min-max, metric ndcg (ranx's defaults), ranx's
grid of ``--step`` (0.02: 1,278 weight vectors for 3 runs, every combination of multiples of 0.02 whose
float sum is exactly 1.0, the grid ranx tries). Each contender runs in its own process (ranx in its venv),
alternating, ``--reps`` times; medians. Both get their runs already built (rankmeter: CSR ``Recs``; ranx:
``Run`` objects) and time only the optimisation.

ranx takes tens of seconds per weight vector at full scale (hours for the grid): it runs ``--ranx-trials``
vectors of the grid (its own wsum + evaluate per vector, as its optimize_fusion does, after one
normalisation) on ``--ranx-queries`` queries, and its time for the whole grid on Q queries is extrapolated
linearly in vectors and queries (both are linear in ranx: one fuse and one evaluate per vector, each a loop
over queries). rankmeter is also timed on ``--ranx-queries`` queries, for a ratio measured at one size.

    python bench/fusion.py --queries 10000 --docs 1000 --step 0.02

The worker mode (``--side ranx``) imports only numpy and ranx: it runs in the ranx venv.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

RANX_PY = Path(os.environ.get("RANKMETER_PEERS", Path.home() / ".cache" / "rankmeter-peers")) / "ranx/bin/python"


def make_data(n_q: int, n_d: int, seed: int = 0):
    """(doc ids per run: (3, n_q, n_d) int array, scores (3, n_q, n_d), truth docs (n_q, 10), grades)."""
    rng = np.random.default_rng(seed)
    pool = int(n_d * 1.5)
    truth_docs = np.stack([rng.choice(pool, 10, replace=False) for _ in range(n_q)])
    grades = rng.integers(1, 3, (n_q, 10))
    docs = np.empty((3, n_q, n_d), dtype=np.int64)
    scores = rng.random((3, n_q, n_d))
    for r in range(3):
        for q in range(n_q):
            docs[r, q] = rng.choice(pool, n_d, replace=False)
        rel = (docs[r][:, :, None] == truth_docs[:, None, :]).any(axis=2)
        scores[r] += rel * rng.random((n_q, n_d)) * (0.5 + 0.25 * r)
    return docs, np.round(scores, 6), truth_docs, grades


def ranx_side(args: argparse.Namespace) -> dict:
    from ranx import Qrels, Run
    from ranx.fusion import wsum
    from ranx.fusion_optimization.optimize_weights import get_possible_weights, get_trial_configs
    from ranx.meta import evaluate
    from ranx.normalization import norm_switch

    # warm-up: numba compiles (or loads from its cache) every kernel on the first call
    wd, ws, wt, wg = make_data(20, 10, seed=1)
    wr = [Run() for _ in range(3)]
    for r in range(3):
        wr[r].add_multi([f"q{q}" for q in range(20)], [[f"d{d}" for d in row] for row in wd[r]], ws[r].tolist())
    wq = Qrels()
    wq.add_multi([f"q{q}" for q in range(20)], [[f"d{d}" for d in row] for row in wt], wg.tolist())
    evaluate(wq, wsum([norm_switch("min-max")(x) for x in wr], [0.2, 0.3, 0.5]), "ndcg", save_results_in_run=False)

    docs, scores, tdocs, grades = make_data(args.n, args.docs)
    qid = [f"q{q}" for q in range(args.n)]
    runs = []
    for r in range(3):
        run = Run()
        run.add_multi(qid, [[f"d{d}" for d in row] for row in docs[r]], scores[r].tolist())
        runs.append(run)
    qrels = Qrels()
    qrels.add_multi(qid, [[f"d{d}" for d in row] for row in tdocs], grades.tolist())
    trials = get_trial_configs(get_possible_weights(args.step), 3)
    t0 = time.perf_counter()
    norm = [norm_switch("min-max")(run) for run in runs]
    t_norm = time.perf_counter() - t0
    # vectors without a zero weight: a zero weight ties every document its run lacks, and ranx orders ties
    # with numba's quicksort (rm.optimize_fusion: in order of first appearance), so their ndcg may differ
    positive = [w for w in trials if min(w) > 0]
    picked = positive[:: max(1, len(positive) // args.trials)][: args.trials]
    values = []
    t0 = time.perf_counter()
    for w in picked:
        values.append(float(evaluate(qrels, wsum(norm, w), "ndcg", save_results_in_run=False)))
    t_trials = time.perf_counter() - t0
    return {
        "norm_s": t_norm,
        "trials_s": t_trials,
        "n_trials": len(picked),
        "grid": len(trials),
        "weights": [list(w) for w in picked],
        "values": values,
    }


def ours_side(args: argparse.Namespace) -> dict:
    import rankmeter as rm

    docs, scores, tdocs, grades = make_data(args.n, args.docs)
    qid = np.array([f"q{q}" for q in range(args.n)], dtype=object)
    labels = np.array([f"d{d}" for d in range(int(args.docs * 1.5))], dtype=object)
    indptr = np.arange(args.n + 1, dtype=np.int64) * args.docs
    runs = [
        rm.Recs.from_csr(indptr, labels[docs[r].ravel()], scores[r].ravel(), users=qid, by_score=True) for r in range(3)
    ]
    truth = rm.Truth.from_csr(
        np.arange(args.n + 1, dtype=np.int64) * 10, labels[tdocs.ravel()], grades.ravel().astype(np.float64), users=qid
    )
    t0 = time.perf_counter()
    best, table = rm.optimize_fusion(truth, runs, "ndcg", method="wsum", norm="min-max", step=args.step)
    t = time.perf_counter() - t0
    values = {json.dumps(list(w)): v for w, v in zip(table["weights"], table["ndcg"])}
    return {"seconds": t, "grid": len(table["ndcg"]), "best": list(best), "values": values}


def run_side(side: str, n: int, args: argparse.Namespace) -> dict:
    py = str(RANX_PY) if side == "ranx" else sys.executable
    cmd = [
        py,
        __file__,
        "--side",
        side,
        "--n",
        str(n),
        "--docs",
        str(args.docs),
        "--step",
        str(args.step),
        "--trials",
        str(args.ranx_trials),
    ]
    env = dict(os.environ)
    if side == "ours":
        env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent / "python")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=10000)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--step", type=float, default=0.02)
    ap.add_argument("--ranx-queries", type=int, default=1000)
    ap.add_argument("--ranx-trials", type=int, default=3)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--side", choices=["ours", "ranx"])
    ap.add_argument("--n", type=int)
    ap.add_argument("--trials", type=int, default=3)
    args = ap.parse_args()
    if args.side:
        res = ranx_side(args) if args.side == "ranx" else ours_side(args)
        print(json.dumps(res))
        return
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.python_version()} (shared, noisy)")
    ours_full, ours_small, ranx = [], [], []
    for _ in range(args.reps):  # alternating processes
        ours_full.append(run_side("ours", args.queries, args))
        ranx.append(run_side("ranx", args.ranx_queries, args))
        ours_small.append(run_side("ours", args.ranx_queries, args))
    grid = ours_full[0]["grid"]
    o_full = statistics.median(r["seconds"] for r in ours_full)
    o_small = statistics.median(r["seconds"] for r in ours_small)
    per_trial = statistics.median(r["trials_s"] / r["n_trials"] for r in ranx)
    norm_s = statistics.median(r["norm_s"] for r in ranx)
    ranx_small = norm_s + per_trial * grid
    ranx_full = ranx_small * args.queries / args.ranx_queries
    # the same weight vectors give the same ndcg (ranx's sample against rankmeter's table, small size)
    diffs = [abs(v - ours_small[0]["values"][json.dumps(w)]) for w, v in zip(ranx[0]["weights"], ranx[0]["values"])]
    print(f"grid: step {args.step}, {grid} weight vectors, 3 runs x {args.queries} queries x {args.docs} docs")
    print(f"rankmeter optimize_fusion, {args.queries} queries: {o_full:.2f} s (median of {args.reps})")
    print(f"rankmeter optimize_fusion, {args.ranx_queries} queries: {o_small:.2f} s")
    print(
        f"ranx, {args.ranx_queries} queries: normalisation {norm_s:.2f} s + {per_trial:.2f} s per weight vector "
        f"(median over {args.reps} x {ranx[0]['n_trials']} vectors) -> grid {ranx_small:.0f} s (extrapolated)"
    )
    print(f"ranx, {args.queries} queries, grid (extrapolated x{args.queries / args.ranx_queries:g}): {ranx_full:.0f} s")
    print(
        f"speed-up: {ranx_full / o_full:.0f}x at {args.queries} queries; {ranx_small / o_small:.0f}x at "
        f"{args.ranx_queries} queries"
    )
    print(
        f"ndcg of ranx's sampled vectors vs rankmeter's table: max |difference| {max(diffs):.2e} (equal scores of the "
        "fused run: ranx orders them by numba's quicksort, rankmeter by first appearance)"
    )
    print(f"rankmeter's best weights: {ours_full[0]['best']}")


if __name__ == "__main__":
    main()
