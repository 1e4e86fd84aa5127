"""miscalibration at W1 scale (docs/metrics.md 3.19.20, docs/performance.md): one evaluate call, end to end.

W1 (1M users, top-100 lists from 100k Zipf items), k = 10; train = W1's truth interactions (about 10.6M rows)
as the users' histories, as in bench/beyond_w1.py; item categories: 20 genres, each item 1-3 of them (seeded),
passed as the two-column form users pass (an ``(items, genres)`` pair of arrays, one row per (item, genre)).
Printed: the median and best wall time and the median CPU time (all threads) of --repeats whole ``rm.evaluate`` calls (reading ``item_categories``, coding the
items, aligning the histories, the kernel), and the same for the C++ kernel alone on the prepared buffers.

    python bench/calibration.py --users 1000000 --repeats 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

import numpy as np

import rankmeter as rm
from rankmeter import _core


def _time(f, repeats: int) -> tuple[float, float, float, Any]:
    """Median and best wall seconds, and the median CPU seconds of the process (every thread): on a machine
    shared with other jobs the CPU time is the steadier figure."""
    times, cpu, out = [], [], None
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        out = f()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(times), min(times), statistics.median(cpu), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--genres", type=int, default=20)
    args = ap.parse_args()
    w = rm.datasets.w1(args.users, seed=0)
    rng = np.random.default_rng(2)
    per_item = rng.integers(1, 4, w.n_items)
    items = np.repeat(np.arange(w.n_items, dtype=np.int64), per_item)
    # distinct genres within an item: a random permutation's first 1-3 entries
    genres = np.concatenate([rng.permutation(args.genres)[:c] for c in per_item]).astype(np.int64)
    truth = rm.Truth.from_csr(w.truth_indptr, w.truth_items, w.truth_grades)
    recs = rm.Recs.from_csr(w.recs_indptr, w.recs_items)
    train = (w.truth_indptr, w.truth_items)
    cats = (items, genres)
    print(
        f"W1: {w.n_users:,} users, k=10, train {w.truth_items.size:,} interactions, {w.n_items:,} items with "
        f"{items.size:,} (item, genre) rows over {args.genres} genres; rankmeter threads "
        f"{args.threads or _core.max_threads()}, load average before {os.getloadavg()[0]:.1f}"
    )
    print(f"{'what':52s} {'median s':>9s} {'best s':>8s} {'cpu s':>7s}  value")
    for m in ["miscalibration@10", "miscalibration(rank_weight=log2)@10"]:
        med, best, cpu, res = _time(
            lambda m=m: rm.evaluate(truth, recs, [m], train=train, item_categories=cats, threads=args.threads),
            args.repeats,
        )
        print(f"{'rm.evaluate ' + m:52s} {med:9.3f} {best:8.3f} {cpu:7.3f}  {res[m]:.6f}")

    # the kernel alone: the lists cut at 10, the histories (truth rows = train rows here), the item -> genre CSR
    k = 10
    lens = np.minimum(np.diff(w.recs_indptr), k)
    l_ip = np.zeros(w.n_users + 1, dtype=np.int64)
    np.cumsum(lens, out=l_ip[1:])
    pos = np.arange(int(l_ip[-1])) - np.repeat(l_ip[:-1], lens)
    l_items = np.ascontiguousarray(w.recs_items[np.repeat(w.recs_indptr[:-1], lens) + pos], dtype=np.int64)
    c_ip = np.zeros(w.n_items + 1, dtype=np.int64)
    np.cumsum(per_item, out=c_ip[1:])
    order = np.lexsort((genres, items))
    c_cat = np.ascontiguousarray(genres[order])
    h_ip = np.ascontiguousarray(w.truth_indptr, dtype=np.int64)
    h_items = np.ascontiguousarray(w.truth_items, dtype=np.int64)
    threads = args.threads or 0
    med, best, cpu, vals = _time(
        lambda: _core.calibration_values(l_ip, l_items, h_ip, h_items, c_ip, c_cat, args.genres, k, 0.01, 0, threads),
        args.repeats,
    )
    what = "kernel alone (calibration_values), miscalibration@10"
    print(f"{what:52s} {med:9.3f} {best:8.3f} {cpu:7.3f}  {np.nanmean(vals):.6f}")
    print(f"load average after {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
