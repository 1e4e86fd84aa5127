"""rm.evaluate on Python dicts of string ids against the floor of hashing every item once, side by side.

    python bench/dicts_w1.py [--users 1000000] [--repeats 5] [--metrics ndcg@10,...]

Builds workload W1 (rankmeter.datasets.w1: 100-item lists, about 11 truth items per user, 100,000 items) as
the form a Python user holds: ``truth = {"user<u>": ["item<i>", ...]}`` and ``recs`` likewise (lists best
first), every distinct id one str object (as when read from a file or a database). Then alternates, in one
process:

* the floor: ``len(set().union(*truth.values(), *recs.values()))`` -- one C-level pass that hashes every
  item once (a lower bound of any reading of these objects);
* ``rm.evaluate(truth, recs, metrics)`` -- the whole call: the walk of the objects in C++, the users' join,
  the fused pass, the result.

Prints the medians, their ratio and the walk alone (``_core.walk_py``), so the parts can be told apart.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import rankmeter as rm
from rankmeter import _core, datasets


def build(n_users: int) -> tuple[dict, dict]:
    w = datasets.w1(n_users=n_users)
    n_items = int(max(w.recs_items.max(initial=0), w.truth_items.max(initial=0))) + 1
    names = np.array([f"item{i}" for i in range(n_items)], dtype=object)
    users = [f"user{u}" for u in range(n_users)]
    rl, tl = names[w.recs_items].tolist(), names[w.truth_items].tolist()
    ri, ti = w.recs_indptr.tolist(), w.truth_indptr.tolist()
    recs = {users[u]: rl[ri[u] : ri[u + 1]] for u in range(n_users)}
    truth = {users[u]: tl[ti[u] : ti[u + 1]] for u in range(n_users)}
    return truth, recs


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--metrics", default="ndcg@10,precision@10,recall@10,map@10,mrr@10,hit_rate@10")
    args = ap.parse_args()
    metrics = args.metrics.split(",")
    t0 = time.perf_counter()
    truth, recs = build(args.users)
    n_items = sum(map(len, truth.values())) + sum(map(len, recs.values()))
    print(f"{args.users:,} users, {n_items:,} items in the dicts (built in {time.perf_counter() - t0:.1f} s)")
    floor, call, walk = [], [], []
    for _ in range(args.repeats):
        t = time.perf_counter()
        len(set().union(*truth.values(), *recs.values()))
        floor.append(time.perf_counter() - t)
        t = time.perf_counter()
        rm.evaluate(truth, recs, metrics)
        call.append(time.perf_counter() - t)
        t = time.perf_counter()
        _core.walk_py(truth, recs)
        walk.append(time.perf_counter() - t)
    f, c, w = statistics.median(floor), statistics.median(call), statistics.median(walk)
    print(f"medians of {args.repeats}, alternated in one process")
    print(f"  floor  len(set().union(*truth.values(), *recs.values()))   {f:8.3f} s")
    print(f"  rm.evaluate(truth, recs, {len(metrics)} metrics)                   {c:8.3f} s   {c / f:5.2f}x the floor")
    print(f"  of which the walk of the objects (_core.walk_py)          {w:8.3f} s   {w / f:5.2f}x the floor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
