"""ips_ndcg at W1 scale (docs/metrics.md 3.19.21-3.19.26): one evaluate call, end to end, beside plain ndcg.

W1 (1M users, top-100 lists from 100k Zipf items), k = 10; train = W1's truth interactions (about 10.6M rows),
so every relevant item has a train count; propensities: Yang's popularity model with gamma = 1
(``propensity="popularity"``, computed from train inside the call) and, separately, the same passed as an
``(items, propensities)`` pair computed once (``rm.popularity_propensity``). Printed: the median and best wall
time and the median CPU time (all threads) of --repeats whole ``rm.evaluate`` calls, and the value.

    python bench/propensity.py --users 1000000 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

import rankmeter as rm
from rankmeter import _core


def _time(f, repeats: int) -> tuple[float, float, float, Any]:
    """Median and best wall seconds, and the median CPU seconds of the process (every thread)."""
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
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    w = rm.datasets.w1(args.users, seed=0)
    truth = rm.Truth.from_csr(w.truth_indptr, w.truth_items, w.truth_grades)
    recs = rm.Recs.from_csr(w.recs_indptr, w.recs_items)
    train = (w.truth_indptr, w.truth_items)
    pair = rm.popularity_propensity(train)
    print(
        f"W1: {w.n_users:,} users, k=10, train {w.truth_items.size:,} interactions, {pair[0].size:,} items with a "
        f"propensity; rankmeter threads {args.threads or _core.max_threads()}, load average before "
        f"{os.getloadavg()[0]:.1f}"
    )
    print(f"{'what':60s} {'median s':>9s} {'best s':>8s} {'cpu s':>7s}  value")
    runs = [
        ("ndcg@10 (plain, fused pass)", "ndcg@10", {}),
        (
            "ips_ndcg@10, propensity='popularity' (from train)",
            "ips_ndcg@10",
            {"train": train, "propensity": "popularity"},
        ),
        ("ips_ndcg@10, propensity=(items, p)", "ips_ndcg@10", {"propensity": pair}),
        ("ips_ndcg(normalize=snips)@10, propensity=(items, p)", "ips_ndcg(normalize=snips)@10", {"propensity": pair}),
    ]
    for label, m, kw in runs:
        med, best, cpu, res = _time(
            lambda m=m, kw=kw: rm.evaluate(truth, recs, [m], threads=args.threads, **kw), args.repeats
        )
        assert res[m] == res[m], m  # a number, not NaN
        print(f"{label:60s} {med:9.3f} {best:8.3f} {cpu:7.3f}  {res[m]:.6f}")


if __name__ == "__main__":
    main()
