"""Evaluation straight from factors (docs/model.md): rm.evaluate_model beside the matrix products alone.

100,000 users x 100,000 items x 64 dimensions of float32 factors (standard normal / 8), truth = W1's truth
(rankmeter.datasets.w1, seed 0: Poisson(10)+1 Zipf items per user, grades 1-3), exclusions = another W1's
truth (seed 1) as the training interactions. One call: top-100 lists, the exact rank of every truth item,
six accuracy metrics @10 on the lists and auc, gauc and mrr over every item not excluded.

Beside it, in the same process: the same matrix products alone, as numpy computes them with BLAS
(``np.matmul(U[b], V.T, out=buf)`` over blocks of --mm-block users into one reused buffer: every score made
once, nothing else), and rankmeter's own products alone (rm.factor_scores over blocks of users, which also
writes each block out). Medians of --repeats, wall seconds and the process CPU seconds (all threads). Peak RSS
beyond the factors is measured in a fresh process per variant (``--rss``).

    python bench/model_eval.py                      # 100k x 100k x 64
    python bench/model_eval.py --users 20000 --items 20000 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np
import scipy.sparse as sp

import rankmeter as rm

METRICS = ["ndcg@10", "precision@10", "recall@10", "map@10", "mrr@10", "hit_rate@10", "auc", "gauc", "mrr"]


def workload(n_users: int, n_items: int, dim: int) -> tuple:
    rng = np.random.default_rng(0)
    U = (rng.standard_normal((n_users, dim), dtype=np.float32) / np.float32(8)).astype(np.float32)
    V = (rng.standard_normal((n_items, dim), dtype=np.float32) / np.float32(8)).astype(np.float32)
    w = rm.datasets.w1(n_users, n_items, list_len=min(100, n_items), seed=0)
    tr = rm.datasets.w1(n_users, n_items, list_len=min(100, n_items), seed=1)
    train = sp.csr_matrix(
        (np.ones(tr.truth_items.size, dtype=np.float32), tr.truth_items, tr.truth_indptr), shape=(n_users, n_items)
    )
    train.sum_duplicates()
    return U, V, w.truth, train


def matmul_alone(U: np.ndarray, V: np.ndarray, block: int) -> float:
    buf = np.empty((block, V.shape[0]), dtype=np.float32)
    Vt = V.T
    acc = 0.0
    for b in range(0, U.shape[0], block):
        e = min(U.shape[0], b + block)
        out = buf[: e - b]
        np.matmul(U[b:e], Vt, out=out)
        acc += float(out[0, 0])
    return acc


def ours_products_alone(U: np.ndarray, V: np.ndarray, block: int, threads) -> float:
    acc = 0.0
    for b in range(0, U.shape[0], block):
        acc += float(rm.factor_scores(U[b : b + block], V, threads=threads)[0, 0])
    return acc


def timed(f, repeats: int) -> tuple[float, float, object]:
    runs, out = [], None
    for _ in range(repeats):
        c0, t0 = time.process_time(), time.perf_counter()
        out = f()
        runs.append((time.perf_counter() - t0, time.process_time() - c0))
    runs.sort()
    med = runs[len(runs) // 2]
    return med[0], med[1], out


def rss_child(args: argparse.Namespace, what: str) -> None:
    """Run one variant once in this (fresh) process and print the peak RSS beyond the moment after setup."""
    U, V, truth, train = workload(args.users, args.items, args.dim)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with open("/proc/self/status") as f:
        now = next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))
    if what == "model":
        rm.evaluate_model(truth, U, V, METRICS, exclude=train, k=args.k, threads=args.threads)
    else:
        matmul_alone(U, V, args.mm_block)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{max(peak - max(now, 0), 0) / 1024:.0f} {max(peak - base, 0) / 1024:.0f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--mm-block", type=int, default=256, help="users per numpy matmul block")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--rss", action="store_true", help="also measure peak RSS, one fresh process per variant")
    ap.add_argument("--rss-child", choices=["model", "matmul"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rss_child:
        rss_child(args, args.rss_child)
        return
    U, V, truth, train = workload(args.users, args.items, args.dim)
    print(
        f"{args.users:,} users x {args.items:,} items x {args.dim} dims float32; truth {truth.n_entries:,} "
        f"entries, exclude {train.nnz:,} train interactions; top-{args.k}; cores {os.cpu_count()}; "
        f"kernel path {rm._core.factor_tile_path()} (3 AVX-512 + float16 counts, 2 AVX-512, 1 AVX2, 0 scalar)"
    )
    t_model, c_model, res = timed(
        lambda: rm.evaluate_model(truth, U, V, METRICS, exclude=train, k=args.k, threads=args.threads), args.repeats
    )
    t_mm, c_mm, _ = timed(lambda: matmul_alone(U, V, args.mm_block), args.repeats)
    t_own, c_own, _ = timed(lambda: ours_products_alone(U, V, args.mm_block, args.threads), args.repeats)
    print(
        f"rm.evaluate_model (top-{args.k}, ranks, {len(METRICS)} metrics)  median {t_model:.2f} s  cpu {c_model:.2f} s"
    )
    print(f"numpy matmul alone (blocks of {args.mm_block} users)        median {t_mm:.2f} s  cpu {c_mm:.2f} s")
    print(f"rm.factor_scores alone (blocks of {args.mm_block} users)    median {t_own:.2f} s  cpu {c_own:.2f} s")
    print(f"ratio evaluate_model / numpy matmul: {t_model / t_mm:.2f}x; load {os.getloadavg()[0]:.2f}")
    assert isinstance(res, rm.Result) and 0.0 <= res["auc"] <= 1.0 and res.meta
    print("  " + "  ".join(f"{k}={res[k]:.5f}" for k in METRICS))
    if args.rss:
        for what in ("model", "matmul"):
            cmd = [
                sys.executable,
                __file__,
                "--rss-child",
                what,
                "--users",
                str(args.users),
                "--items",
                str(args.items),
            ]
            cmd += ["--dim", str(args.dim), "--k", str(args.k), "--mm-block", str(args.mm_block)]
            if args.threads:
                cmd += ["--threads", str(args.threads)]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
            print(f"peak RSS beyond factors + inputs, {what}: {out[0]} MiB")


if __name__ == "__main__":
    statistics.median([0.0])
    main()
