"""The co-occurrence similarity metrics (diversity and serendipity with ``similarity=cooccurrence``) with n_ab
from the dense count matrix against merging the two items' train-user lists pair by pair, alternating in one
process.

    python bench/cooccurrence.py [--users 6000] [--items 500] [--repeats 3]

W1 lists (rankmeter.datasets.w1: 100-item lists) over ``--items`` items, the truth shifted by 11 items as the
train. The whole lists are read (no @k): 4,950 pairs per user. Prints the medians of the cost rule (the default,
which takes the dense counts where they cost less), of the merges forced (``_core.set_cooc_dense(0)``, a test
hook) and their ratio; the values are checked equal bit for bit.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import rankmeter as rm
from rankmeter import _core

METRICS = ["diversity(similarity=cooccurrence)", "serendipity(relevance=none,similarity=cooccurrence)"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=6000)
    ap.add_argument("--items", type=int, default=500)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args()
    w = rm.datasets.w1(args.users, n_items=args.items, seed=9)
    train = (w.truth_indptr, (w.truth_items + 11) % args.items)
    recs = rm.Recs.from_csr(w.recs_indptr, w.recs_items, np.random.default_rng(9).random(w.recs_items.size))
    times: dict[int, list[float]] = {-1: [], 0: []}
    values: dict[int, bytes] = {}
    for _ in range(args.repeats):
        for mode in (-1, 0):
            before = _core.set_cooc_dense(mode)
            try:
                t0 = time.perf_counter()
                res = rm.evaluate(w.truth, recs, METRICS, train=train, threads=args.threads or None)
                times[mode].append(time.perf_counter() - t0)
            finally:
                _core.set_cooc_dense(before)
            values[mode] = b"".join(res.per_user[m].tobytes() for m in METRICS)
    auto, merged = statistics.median(times[-1]), statistics.median(times[0])
    print(f"{args.users:,} users, {args.items:,} items, whole 100-item lists; medians of {args.repeats}")
    print(f"  cost rule (dense counts where cheaper)   {auto:8.3f} s")
    print(f"  merges of user lists forced              {merged:8.3f} s   {merged / auto:.1f}x")
    print(f"  same bits: {values[-1] == values[0]}")
    return 0 if values[-1] == values[0] else 1


if __name__ == "__main__":
    sys.exit(main())
