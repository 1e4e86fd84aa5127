"""Reading TREC files: rankmeter.read_trec_run / read_trec_qrels (C++ parser) vs a plain Python split loop.

    python bench/trec_read.py --queries 100000 --depth 100

Writes a run (queries x depth lines) and a qrels file to a temporary directory
and times both readers (medians of --repeats) against the usual
``for line in f: line.split()`` loop that builds the same dicts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

import rankmeter as rm


def python_loop(path):
    out = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if p:
                out.setdefault(p[0], {})[p[2]] = float(p[4] if len(p) > 4 else p[3])
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        run, qrels = os.path.join(tmp, "run.txt"), os.path.join(tmp, "qrels.txt")
        q = np.repeat(np.arange(args.queries), args.depth)
        d = rng.integers(0, 1_000_000, q.size)
        s = rng.random(q.size)
        rank = np.tile(np.arange(1, args.depth + 1), args.queries)
        with open(run, "w") as f:
            f.writelines(f"q{a} Q0 doc{b} {r} {c:.6f} sys\n" for a, b, r, c in zip(q.tolist(), d.tolist(),
                                                                                rank.tolist(), s.tolist()))
        nq = args.queries * 10
        with open(qrels, "w") as f:
            f.writelines(f"q{a} 0 doc{b} {g}\n" for a, b, g in zip(np.repeat(np.arange(args.queries), 10).tolist(),
                                                                  rng.integers(0, 1_000_000, nq).tolist(),
                                                                  rng.integers(0, 3, nq).tolist()))
        size = os.path.getsize(run) / 1e6
        rows = []
        for name, fn, path in (("rankmeter.read_trec_run", rm.read_trec_run, run),
                               ("Python split loop (run)", python_loop, run),
                               ("rankmeter.read_trec_qrels", rm.read_trec_qrels, qrels),
                               ("Python split loop (qrels)", python_loop, qrels)):
            ts = []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                fn(path)
                ts.append(time.perf_counter() - t0)
            rows.append((name, statistics.median(ts)))
    print(f"run file: {args.queries:,} queries x {args.depth} = {args.queries * args.depth:,} lines, {size:.0f} MB; "
          f"qrels: {args.queries * 10:,} lines; medians of {args.repeats}")
    for name, t in rows:
        print(f"{name:30s} {t:8.3f} s")
    print(f"run speed-up {rows[1][1] / rows[0][1]:.1f}x, qrels speed-up {rows[3][1] / rows[2][1]:.1f}x")


if __name__ == "__main__":
    main()
