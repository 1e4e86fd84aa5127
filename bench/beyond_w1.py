"""Beyond-accuracy metrics at W1 scale (docs/performance.md): one evaluate call per metric.

W1 (1M users, 100 ranked items each from 100k Zipf items), k = 10, 32-dim
item features, train = W1's truth interactions (about 11M rows). Each metric
is timed alone (median of --repeats), end to end from numpy buffers: the
context preparation (item coding, train popularity, list alignment) is part of
every call.

    python bench/beyond_w1.py --users 1000000 --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import rankmeter as rm

METRICS = [
    "personalization@10",
    "coverage@10",
    "gini@10",
    "arp@10",
    "novelty@10",
    "diversity@10",
    "fcp@10",
    "serendipity@10",
    "personalization(similarity=cosine)@10",
    "score_entropy@10",
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    w = rm.datasets.w1(args.users, seed=0)
    rng = np.random.default_rng(1)
    feats = rng.normal(size=(w.n_items, 32))
    scores = np.tile(np.linspace(1.0, 0.0, 100), w.n_users)
    truth = rm.Truth.from_csr(w.truth_indptr, w.truth_items, w.truth_grades)
    recs = rm.Recs.from_csr(w.recs_indptr, w.recs_items, scores)
    train = (w.truth_indptr, w.truth_items)
    print(f"W1: {w.n_users:,} users, k=10, 32-dim features, train {w.truth_items.size:,} interactions")
    print(f"{'metric':42s} {'median s':>9s} {'best s':>8s}  value")
    for m in METRICS:
        times = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            res = rm.evaluate(truth, recs, [m], train=train, item_features=feats, threads=args.threads)
            times.append(time.perf_counter() - t0)
        print(f"{m:42s} {statistics.median(times):9.3f} {min(times):8.3f}  {res[m]:.6f}")


if __name__ == "__main__":
    main()
