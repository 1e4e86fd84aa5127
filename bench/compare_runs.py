"""rankmeter.compare against ranx.compare: 5 runs x W1 users x 4 metrics, every pair, Fisher's test.

    python bench/compare_runs.py                         # 1M users, 10,000 resamples (docs/performance.md)
    python bench/compare_runs.py --users 100000 --ranx-users 20000 --ranx-permutations 100

The runs: W1's lists (rankmeter.datasets.w1) and four perturbations of them (for a growing
share of users the top 20 items are rotated and a few items replaced), so the
differences range from none to large. rankmeter: ``rm.compare(truth, runs,
metrics, test="randomization", n_resamples=R)`` on numpy buffers — its time
includes the five fused evaluations and every paired test. ranx: its
``compare(qrels, runs, metrics, stat_test="fisher", n_permutations=P)`` on
Qrels/Run objects (warm numba), in its own venv (bench/peers/setup.sh ranx),
on the first ``--ranx-users`` users with ``P`` permutations; its time is
extrapolated linearly to all users and R permutations (evaluation ~ users,
Fisher ~ users x permutations), marked "~".
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import rankmeter as rm

HERE = Path(__file__).resolve().parent
METRICS = ["ndcg@10", "map@100", "precision@10", "recall@100"]


def make_runs(w, n_runs: int = 5, seed: int = 1) -> list[np.ndarray]:
    """W1's lists (users x 100) and n_runs - 1 perturbations, vectorized."""
    n = w.n_users
    base = w.recs_items.reshape(n, -1)
    g = np.random.default_rng(seed)
    runs = [base]
    for i in range(1, n_runs):
        r = base.copy()
        users = g.random(n) < 0.1 * i
        top = r[users, :20]
        r[users, :20] = np.roll(top, i, axis=1)
        # replace item 5 of a few users with an item from outside the list (keeps lists duplicate-free)
        swap = g.random(n) < 0.02 * i
        r[swap, 5] = w.n_items + np.arange(int(swap.sum())) % 1000 + 1
        runs.append(r)
    return runs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--ranx-users", type=int, default=100_000)
    ap.add_argument("--ranx-permutations", type=int, default=100)
    ap.add_argument(
        "--peers-dir", default=os.environ.get("RANKMETER_PEERS", str(Path.home() / ".cache" / "rankmeter-peers"))
    )
    ap.add_argument("--no-ranx", action="store_true")
    ap.add_argument("--json", default="")
    args = ap.parse_args()

    t0 = time.perf_counter()
    w = rm.datasets.w1(args.users, seed=0)
    run_items = make_runs(w, args.runs)
    truth = rm.Truth.from_csr(w.truth_indptr, w.truth_items, w.truth_grades)
    runs = {f"run{i}": rm.Recs.from_array(r) for i, r in enumerate(run_items)}
    print(
        f"W1: {w.n_users:,} users, {args.runs} runs x {run_items[0].shape[1]} items, {len(METRICS)} metrics, "
        f"every pair ({args.runs * (args.runs - 1) // 2} pairs, {len(METRICS) * args.runs * (args.runs - 1) // 2} "
        f"comparisons), {args.resamples:,} resamples (built in {time.perf_counter() - t0:.1f} s)"
    )
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numpy {np.__version__}, rankmeter {rm.__version__}, OpenMP {rm.has_openmp}"
    )

    t_eval = []
    for _ in range(args.repeats):
        t1 = time.perf_counter()
        for r in runs.values():
            rm.evaluate(truth, r, METRICS, threads=args.threads)
        t_eval.append(time.perf_counter() - t1)
    times = []
    for _ in range(args.repeats):
        t1 = time.perf_counter()
        cmp = rm.compare(truth, runs, METRICS, test="randomization", n_resamples=args.resamples, threads=args.threads)
        times.append(time.perf_counter() - t1)
    t_rm = statistics.median(times)
    print(
        f"\nrankmeter.compare: {t_rm:.2f} s (median of {len(times)}; of which the 5 evaluations "
        f"{statistics.median(t_eval):.2f} s)"
    )
    print(cmp.to_text())

    out = {"users": args.users, "resamples": args.resamples, "rankmeter": times, "rankmeter_eval": t_eval}
    ranx_py = Path(args.peers_dir) / "ranx" / "bin" / "python"
    if not args.no_ranx and ranx_py.exists():
        n = min(args.ranx_users, args.users)
        with tempfile.TemporaryDirectory(prefix="rm-cmp-") as tmp:
            npz, res_path = Path(tmp) / "runs.npz", Path(tmp) / "ranx.json"
            tp = w.truth_indptr[: n + 1]
            arrays: dict[str, Any] = {f"run_{i}": r[:n] for i, r in enumerate(run_items)}
            np.savez(
                npz,
                truth_indptr=tp,
                truth_items=w.truth_items[: tp[-1]],
                truth_grades=w.truth_grades[: tp[-1]],
                **arrays,
            )
            p = subprocess.run(
                [
                    str(ranx_py),
                    str(HERE / "peers" / "ranx_compare_worker.py"),
                    str(npz),
                    str(args.ranx_permutations),
                    str(res_path),
                ],
                capture_output=True,
                text=True,
                env=dict(os.environ, PYTHONWARNINGS="ignore"),
            )
            if p.returncode != 0:
                print("ranx failed:", p.stderr[-1500:])
                return 1
            rx = json.loads(res_path.read_text())
        scale_u = args.users / n
        t_fisher = max(rx["compare"] - rx["evaluate"], 0.0)
        extrap = rx["evaluate"] * scale_u + t_fisher * scale_u * args.resamples / args.ranx_permutations
        # agreement of the means on ranx's users (rankmeter's defaults equal ranx's here: every W1 user has
        # a relevant item, lists are 100 long)
        sub = rm.datasets.Workload(
            tp,
            w.truth_items[: tp[-1]],
            w.truth_grades[: tp[-1]],
            w.recs_indptr[: n + 1],
            w.recs_items[: w.recs_indptr[n]],
            w.n_items,
        )
        t_sub = rm.Truth.from_csr(sub.truth_indptr, sub.truth_items, sub.truth_grades)
        worst = 0.0
        for i, items in enumerate(run_items):
            res = rm.evaluate(t_sub, rm.Recs.from_array(items[:n]), METRICS, preset="ranx")
            worst = max(worst, max(abs(res[m] - rx["means"][f"run{i}"][m]) for m in METRICS))
        print(
            f"\nranx.compare (stat_test='fisher', warm numba, Qrels/Run objects) on {n:,} users with "
            f"{args.ranx_permutations} permutations: {rx['compare']:.2f} s (evaluation {rx['evaluate']:.2f} s, "
            f"Fisher {t_fisher:.2f} s; conversion to Qrels/Run {rx['convert']:.2f} s, not counted)"
        )
        print(f"  extrapolated to {args.users:,} users and {args.resamples:,} permutations: ~{extrap:,.0f} s")
        print(
            f"  rankmeter speed-up: ~{extrap / t_rm:,.0f}x   (means agree with preset='ranx': max |diff| {worst:.1e})"
        )
        out.update(ranx=rx, ranx_extrapolated=extrap, speedup=extrap / t_rm, max_mean_diff=worst)
    elif not args.no_ranx:
        print(f"\nranx not installed at {ranx_py} (bash bench/peers/setup.sh ranx)")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
