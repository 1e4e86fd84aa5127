"""Top-k from a dense score matrix: Recs.from_scores (C++) against numpy, side by side.

The workload of docs/performance.md: 20,000 users x 100,000 items of float32 scores (8 GB) to
top-100. The numpy baseline is the usual argpartition + argsort of the
partition, row blocks at a time (a full-matrix argpartition would need 16 GB of
int64 indices); the floor is one read of the matrix (numpy's max over one row block per
thread, in as many threads as rankmeter uses); ties are not made stable by it, so the answers are compared on
scores (equal multisets of top-k scores per row), and rankmeter's column order
on ties is checked by the test suite. Medians of --repeats, one process.

    python bench/topk_scores.py --users 20000 --items 100000 --k 100
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import rankmeter as rm
from beyond_rows import one_read, score_matrix


def numpy_topk(S: np.ndarray, k: int, block: int = 512):
    out = np.empty((S.shape[0], k), dtype=np.int64)
    for r0 in range(0, S.shape[0], block):
        W = S[r0 : r0 + block]
        part = np.argpartition(-W, k - 1, axis=1)[:, :k]
        vals = np.take_along_axis(W, part, axis=1)
        order = np.argsort(-vals, axis=1, kind="stable")
        out[r0 : r0 + block] = np.take_along_axis(part, order, axis=1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=20_000)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    S = score_matrix(args.users, args.items)
    threads = int(os.environ.get("RANKMETER_NUM_THREADS", 0)) or os.cpu_count() or 1
    ours, theirs, read = [], [], []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        recs = rm.Recs.from_scores(S, args.k)
        ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ref = numpy_topk(S, args.k)
        theirs.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        one_read(S, threads)
        read.append(time.perf_counter() - t0)
    got = recs.items.reshape(args.users, args.k)
    same = np.array_equal(np.sort(np.take_along_axis(S, got, 1), 1), np.sort(np.take_along_axis(S, ref, 1), 1))
    print(f"{args.users:,} x {args.items:,} float32 -> top-{args.k}, {args.repeats} repeats, 2 cores")
    print(f"rankmeter Recs.from_scores      median {statistics.median(ours):.3f} s (best {min(ours):.3f})")
    print(f"numpy argpartition + sort       median {statistics.median(theirs):.3f} s (best {min(theirs):.3f})")
    print(
        f"one read of the matrix (numpy max, one row block per thread, {threads} threads) "
        f"median {statistics.median(read):.3f} s"
    )
    print(
        f"speed-up {statistics.median(theirs) / statistics.median(ours):.1f}x; "
        f"{statistics.median(ours) / statistics.median(read):.2f}x one read; same top-k scores: {same}; "
        f"load {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
