"""Agreement between two runs at W1 scale (docs/metrics.md 3.22): every agreement metric @10 in one call.

Run A is W1's lists (1M users, 100 ranked items each from 100k Zipf items); run B the same lists with each one's
first 30 items shuffled (a top 10 then shares about 3.3 items with A's, in another order). Read as CSR ``Recs``
(100 items a list) and as padded 1M x 10 arrays. Median of --repeats, end to end from the numpy buffers (reading,
the C++ pass, exact means); wall time and the process's CPU time (the machine may be shared).

    python bench/agreement.py --users 1000000 --repeats 5
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np

import rankmeter as rm

METRICS = [
    "overlap@10",
    "intersection@10",
    "jaccard@10",
    "rbo(p=0.9)@10",
    "rbo(variant=min)@10",
    "kendall_tau@10",
    "spearman@10",
    "unexpectedness@10",
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    w = rm.datasets.w1(args.users, seed=0)
    lists_a = w.recs_items.reshape(args.users, -1)
    rng = np.random.default_rng(1)
    lists_b = np.concatenate([rng.permuted(lists_a[:, :30], axis=1), lists_a[:, 30:]], axis=1)
    runs = {
        "CSR Recs, 100 items per list": (
            rm.Recs.from_csr(w.recs_indptr, w.recs_items),
            rm.Recs.from_csr(w.recs_indptr, lists_b.reshape(-1)),
        ),
        "padded n x 10 int64 arrays": (
            np.ascontiguousarray(lists_a[:, :10]),
            np.ascontiguousarray(lists_b[:, :10]),
        ),
    }
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {load:.1f}")
    print(f"W1 x 2 runs: {args.users:,} users, {len(METRICS)} agreement metrics @10 in one call")
    for label, (a, b) in runs.items():
        times, cpu = [], []
        for _ in range(args.repeats):
            c0, t0 = time.process_time(), time.perf_counter()
            res = rm.agreement(a, b, METRICS, threads=args.threads)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        print(
            f"{label:32s} wall median {statistics.median(times):.3f} s (best {min(times):.3f}), "
            f"CPU median {statistics.median(cpu):.3f} s"
        )
    print("  " + ", ".join(f"{m} {res[m]:.4f}" for m in METRICS))


if __name__ == "__main__":
    main()
