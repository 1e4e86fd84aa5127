"""The beyond-accuracy rows of bench/compare.py (docs/performance.md): each target of the table, measured
side by side in this process, medians of --repeats.

* coverage, gini, arp, novelty @10 on W1 from raw buffers (train = W1's truth interactions,
  about 11M rows), one evaluate() call per metric, end to end: target <= 0.15 s each;
* FCP @10 on W1: target <= 0.5 s;
* Recs.from_scores on a float32 users x items matrix to the top 100 against one read of the
  same matrix with the same threads (``one_read``: numpy's max over one row block per
  thread, in threads; numpy releases the GIL): target <= 1.5x.

    python bench/beyond_rows.py --users 1000000 --topk-users 20000   # alone
    python bench/compare.py ...                                       # part of the full table
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time

import numpy as np

import rankmeter as rm

BEYOND_TARGETS = [("coverage@10", 0.15), ("gini@10", 0.15), ("arp@10", 0.15), ("novelty@10", 0.15), ("fcp@10", 0.5)]
TOPK_TARGET = 1.5


def one_read(S: np.ndarray, threads: int) -> float:
    """One read of the whole matrix: the max of each thread's block of rows, in ``threads`` threads."""
    bounds = np.linspace(0, S.shape[0], threads + 1).astype(int)
    out = [-np.inf] * threads

    def work(i: int) -> None:
        if bounds[i + 1] > bounds[i]:
            out[i] = float(S[bounds[i] : bounds[i + 1]].max())

    ts = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return max(out)


def score_matrix(users: int, items: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    S = np.empty((users, items), dtype=np.float32)
    for r0 in range(0, users, 1000):
        S[r0 : r0 + 1000] = rng.random((min(1000, users - r0), items), dtype=np.float32)
    return S


def _median(f, repeats: int) -> float:
    f()  # warm
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def beyond_rows(w, repeats: int, topk_users: int, topk_items: int = 100_000, k: int = 100, threads=None) -> list:
    """[(row label, rankmeter s, reference label, reference s or None, ratio or None, target text, met)]."""
    truth = rm.Truth.from_csr(w.truth_indptr, w.truth_items, w.truth_grades)
    recs = rm.Recs.from_csr(w.recs_indptr, w.recs_items)
    train = (w.truth_indptr, w.truth_items)
    rows: list[tuple] = []
    for m, target in BEYOND_TARGETS:
        t = _median(lambda m=m: rm.evaluate(truth, recs, [m], train=train, threads=threads), repeats)
        rows.append((f"{m} on W1, train {w.truth_items.size:,} rows", t, "", None, None, f"<= {target} s", t <= target))
    if topk_users > 0:
        S = score_matrix(topk_users, topk_items)
        n_threads = threads or int(os.environ.get("RANKMETER_NUM_THREADS", 0)) or os.cpu_count() or 1
        ts, tr = [], []
        rm.Recs.from_scores(S, k, threads=threads)
        one_read(S, n_threads)
        for _ in range(repeats):  # alternating, so both see the same machine
            t0 = time.perf_counter()
            rm.Recs.from_scores(S, k, threads=threads)
            ts.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            one_read(S, n_threads)
            tr.append(time.perf_counter() - t0)
        t, r = statistics.median(ts), statistics.median(tr)
        label = f"Recs.from_scores {topk_users:,} x {topk_items:,} float32 -> top-{k}"
        ref = f"one read of the matrix (numpy max, {n_threads} threads)"
        rows.append((label, t, ref, r, t / r, f"<= {TOPK_TARGET}x one read", t / r <= TOPK_TARGET))
    return rows


def print_rows(rows) -> None:
    print("\n| beyond-accuracy target | rankmeter s | reference | reference s | ratio | target | met |")
    print("|---|---:|---|---:|---:|---|---|")
    for label, t, ref, r, ratio, target, met in rows:
        rtxt = f"{r:.3f}" if r is not None else ""
        qtxt = f"{ratio:.2f}x" if ratio is not None else ""
        print(f"| {label} | {t:.3f} | {ref} | {rtxt} | {qtxt} | {target} | {'yes' if met else 'no'} |")
    print(f"(load: {' '.join(f'{x:.2f}' for x in os.getloadavg())})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--topk-users", type=int, default=20_000, help="rows of the score matrix (0: skip)")
    ap.add_argument("--topk-items", type=int, default=100_000)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    w = rm.datasets.w1(args.users, seed=0)
    print(f"W1: {w.n_users:,} users; {args.repeats} repeats, medians; load {os.getloadavg()[0]:.2f}")
    print_rows(beyond_rows(w, args.repeats, args.topk_users, args.topk_items, threads=args.threads))
    return 0


if __name__ == "__main__":
    sys.exit(main())
