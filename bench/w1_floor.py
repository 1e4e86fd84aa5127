"""W1 through evaluate() against the memory floor, side by side in one process.

    python bench/w1_floor.py [--users 1000000] [--repeats 7] [--threads N]

Builds workload W1 (rankmeter.datasets.w1) as numpy CSR buffers, then alternates, `repeats`
times, each contender once per round:

* evaluate() of the 20 accuracy columns (precision, recall, f1, map, mar, ndcg,
  dcg, hit_rate, mrr, arhr at k = 10 and 100), with and without per-user
  columns, against one read pass over the same input buffers (np.add.reduce
  over each array);
* evaluate() of the six @10 (precision, recall, map, ndcg, mrr, hit_rate), with
  and without per-user columns, against one read of what they need: the truth
  arrays and the first 10 items of every list (W1's lists all have 100 items,
  so the prefixes are a strided view).

Prints the medians and the ratios (the contract asks for <= 3 on both).
`bench/compare.py` prints the same rows from `floor_rows`.
"""

import argparse
import os
import platform
import statistics
import sys
import time
from typing import Any

import numpy as np

import rankmeter as rm

METRICS = [
    f"{m}@{k}"
    for k in (10, 100)
    for m in ("precision", "recall", "f1", "map", "mar", "ndcg", "dcg", "hit_rate", "mrr", "arhr")
]
SIX = ["precision@10", "recall@10", "map@10", "ndcg@10", "mrr@10", "hit_rate@10"]


def floor_rows(w, repeats: int, threads=None) -> dict:
    """Median seconds of each contender, alternating in rounds (see the module docstring)."""
    arrays = (w.truth_indptr, w.truth_items, w.truth_grades, w.recs_indptr, w.recs_items)
    n = w.n_users
    lengths = np.diff(w.recs_indptr)
    prefix: Any = w.recs_items.reshape(n, -1)[:, :10] if n and (lengths == lengths[0]).all() else None
    truth, recs = w.truth, w.recs

    def read_all():
        for a in arrays:
            np.add.reduce(a)

    def read_six():
        for a in arrays[:4]:
            np.add.reduce(a)
        np.add.reduce(prefix, axis=None)

    contenders = {
        "evaluate, 20 columns": lambda: rm.evaluate(truth, recs, METRICS, threads=threads),
        "evaluate, 20 columns, per_user=False": lambda: rm.evaluate(
            truth, recs, METRICS, threads=threads, per_user=False
        ),
        "read pass over all the buffers": read_all,
        "evaluate, six @10": lambda: rm.evaluate(truth, recs, SIX, threads=threads),
        "evaluate, six @10, per_user=False": lambda: rm.evaluate(truth, recs, SIX, threads=threads, per_user=False),
    }
    if prefix is not None:
        contenders["read of the truth arrays + the 10-item prefixes"] = read_six
    for f in contenders.values():  # warm-up (page cache, thread pool)
        f()
    times: dict = {k: [] for k in contenders}
    for _ in range(repeats):
        for k, f in contenders.items():
            t0 = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t0)
    return times


def print_floor_rows(times: dict) -> None:
    print(f"{'contender':<52}{'median s':>10}{'min s':>10}")
    for k, ts in times.items():
        print(f"{k:<52}{statistics.median(ts):>10.4f}{min(ts):>10.4f}")
    med = {k: statistics.median(ts) for k, ts in times.items()}
    full = med["read pass over all the buffers"]
    print(
        f"20 columns / read pass (medians): {med['evaluate, 20 columns'] / full:.2f}x; "
        f"per_user=False {med['evaluate, 20 columns, per_user=False'] / full:.2f}x  (target <= 3x)"
    )
    six = med.get("read of the truth arrays + the 10-item prefixes")
    if six:
        print(
            f"six @10 / read of the truth + 10-item prefixes (medians): {med['evaluate, six @10'] / six:.2f}x; "
            f"per_user=False {med['evaluate, six @10, per_user=False'] / six:.2f}x  (target <= 3x)"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()

    w = rm.datasets.w1(args.users, seed=0)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numpy {np.__version__}, rankmeter {rm.__version__}, OpenMP {rm.has_openmp}"
    )
    print(
        f"W1: {w.n_users:,} users, {w.recs_items.size:,} rec items, {w.truth_items.size:,} truth items, "
        f"{w.nbytes / 1e6:,.0f} MB; {args.repeats} rounds"
    )
    print_floor_rows(floor_rows(w, args.repeats, args.threads))
    return 0


if __name__ == "__main__":
    sys.exit(main())
