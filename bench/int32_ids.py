"""int32 item ids and float32 grades against int64/float64 on W1 (docs/performance.md).

    python bench/int32_ids.py --users 1000000 --repeats 7

Builds W1 once, makes int32/float32 copies of its buffers, and times, alternating in
rounds: ``Truth.from_csr`` + ``Recs.from_csr`` (construction) and ``evaluate`` of the six
@10 metrics (per_user=False and True) on each dtype combination. The int32 ids and
float32 grades are read in place, so construction costs the same for every combination
and the pass about the same. Prints medians and checks the means are identical.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import rankmeter as rm

SIX = ["precision@10", "recall@10", "map@10", "ndcg@10", "mrr@10", "hit_rate@10"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    w = rm.datasets.w1(args.users, seed=0)
    ti32, ri32 = w.truth_items.astype(np.int32), w.recs_items.astype(np.int32)
    g32 = w.truth_grades.astype(np.float32)
    cases = {
        "int64 ids, float64 grades": (w.truth_items, w.recs_items, w.truth_grades),
        "int32 ids, float64 grades": (ti32, ri32, w.truth_grades),
        "int64 ids, float32 grades": (w.truth_items, w.recs_items, g32),
        "int32 ids, float32 grades": (ti32, ri32, g32),
    }
    times: dict = {k: {"construct": [], "per_user=False": [], "per_user=True": []} for k in cases}
    means: dict = {}
    for k, (a, b, g) in cases.items():  # warm-up
        means[k] = rm.evaluate(rm.Truth.from_csr(w.truth_indptr, a, g), rm.Recs.from_csr(w.recs_indptr, b), SIX).means
    for _ in range(args.repeats):
        for k, (a, b, g) in cases.items():
            t0 = time.perf_counter()
            truth, recs = rm.Truth.from_csr(w.truth_indptr, a, g), rm.Recs.from_csr(w.recs_indptr, b)
            times[k]["construct"].append(time.perf_counter() - t0)
            for pu in (False, True):
                t0 = time.perf_counter()
                rm.evaluate(truth, recs, SIX, per_user=pu)
                times[k][f"per_user={pu}"].append(time.perf_counter() - t0)
    print(f"W1 {args.users:,} users, six @10, {args.repeats} rounds, medians (s); 2 threads")
    print("| ids, grades | Truth + Recs construction | evaluate per_user=False | evaluate per_user=True |")
    print("|---|---:|---:|---:|")
    for k, t in times.items():
        med = {c: statistics.median(v) for c, v in t.items()}
        print(f"| {k} | {med['construct']:.4f} | {med['per_user=False']:.4f} | {med['per_user=True']:.4f} |")
    base = means["int64 ids, float64 grades"]
    same = all(means[k] == base for k in means)
    print(f"means identical across the four: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
