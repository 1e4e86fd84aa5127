"""The AUC family at scale (docs/metrics.md 3.19.10-3.19.12): one evaluate call per metric, end to end from
numpy buffers (list alignment, item coding and the catalog mask are part of every call).

W1 (1M users, top-100 lists from 100k Zipf items, scores falling along each list): lauc@100 over the
100k-item catalog, auc@100 and gauc@100 over the scored top 100, auc(negatives=catalog)@100.

Score matrix (users x items, float32): every item of a row is a scored candidate (Recs.from_scores with
k = n_items, timed apart), ~10 positives per user drawn uniformly: auc and gauc over the full rows.

    python bench/auc.py --users 1000000 --matrix 20000x100000 --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import numpy as np

import rankmeter as rm


def _time(f, repeats: int) -> tuple[float, float, Any]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--matrix", default="20000x100000", help="users x items of the score matrix (0: skip)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()

    if args.users:
        w = rm.datasets.w1(args.users, seed=0)
        scores = np.tile(np.linspace(1.0, 0.0, 100), w.n_users)
        truth = rm.Truth.from_csr(w.truth_indptr, w.truth_items, w.truth_grades)
        recs = rm.Recs.from_csr(w.recs_indptr, w.recs_items, scores)
        catalog = np.arange(w.n_items, dtype=np.int64)
        print(f"W1: {w.n_users:,} users, top-100 lists, catalog {w.n_items:,} items")
        print(f"{'metric':36s} {'median s':>9s} {'best s':>8s}  value")
        for m in ["lauc@100", "auc@100", "gauc@100", "auc(negatives=catalog)@100"]:
            med, best, res = _time(
                lambda m=m: rm.evaluate(truth, recs, [m], catalog=catalog, threads=args.threads), args.repeats
            )
            print(f"{m:36s} {med:9.3f} {best:8.3f}  {res[m]:.6f}")

    if args.matrix != "0":
        n_u, n_i = (int(x) for x in args.matrix.split("x"))
        rng = np.random.default_rng(1)
        S = rng.random((n_u, n_i), dtype=np.float32)
        n_pos = rng.poisson(10, n_u).clip(1, n_i - 1)
        t_ip = np.zeros(n_u + 1, dtype=np.int64)
        np.cumsum(n_pos, out=t_ip[1:])
        t_items = rng.integers(0, n_i, int(t_ip[-1]))  # repeats within a user: the truth keeps the first
        truth = rm.Truth.from_csr(t_ip, t_items)
        t0 = time.perf_counter()
        recs = rm.Recs.from_scores(S, k=n_i, threads=args.threads)
        t_sel = time.perf_counter() - t0
        print(f"score matrix {n_u:,} x {n_i:,} float32: Recs.from_scores(k={n_i:,}) {t_sel:.3f} s (once)")
        for m in ["auc", "gauc"]:
            med, best, res = _time(
                lambda m=m: rm.evaluate(truth, recs, [m], threads=args.threads, truth_duplicates="first"),
                args.repeats,
            )
            print(f"{m:36s} {med:9.3f} {best:8.3f}  {res[m]:.6f}")


if __name__ == "__main__":
    main()
