"""W1 through evaluate() against the memory floor, side by side in one process.

    python bench/w1_floor.py [--users 1000000] [--repeats 7] [--threads N]

Builds workload W1 (SPEC §6) as numpy CSR buffers, then alternates, `repeats`
times: one evaluate() of the 20 accuracy columns (precision, recall, f1, map,
mar, ndcg, dcg, hit_rate, mrr, arhr at k = 10 and 100) and one read pass over
the same input buffers (np.add.reduce over each array). Prints both medians
and their ratio (the contract asks for <= 3).
"""

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

import rankmeter as rm

METRICS = [f"{m}@{k}" for k in (10, 100)
           for m in ("precision", "recall", "f1", "map", "mar", "ndcg", "dcg", "hit_rate", "mrr", "arhr")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()

    w = rm.datasets.w1(args.users, seed=0)
    arrays = (w.truth_indptr, w.truth_items, w.truth_grades, w.recs_indptr, w.recs_items)
    truth, recs = w.truth, w.recs
    rm.evaluate(truth, recs, METRICS, threads=args.threads)  # warm-up (page cache, thread pool)
    t_eval, t_read = [], []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        rm.evaluate(truth, recs, METRICS, threads=args.threads)
        t_eval.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        for a in arrays:
            np.add.reduce(a)
        t_read.append(time.perf_counter() - t0)
    me, mr = statistics.median(t_eval), statistics.median(t_read)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"numpy {np.__version__}, rankmeter {rm.__version__}, OpenMP {rm.has_openmp}")
    print(f"W1: {w.n_users:,} users, {w.recs_items.size:,} rec items, {w.truth_items.size:,} truth items, "
          f"{w.nbytes / 1e6:,.0f} MB; {len(METRICS)} metric columns; {args.repeats} repeats")
    print(f"{'contender':<34}{'median s':>10}{'min s':>10}")
    print(f"{'rankmeter.evaluate (20 columns)':<34}{me:>10.4f}{min(t_eval):>10.4f}")
    print(f"{'read pass (np.add.reduce)':<34}{mr:>10.4f}{min(t_read):>10.4f}")
    print(f"ratio evaluate / read pass (medians): {me / mr:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
