"""Scaling of evaluate(): time vs users, vs k and vs threads, as a table and a plot.

    python bench/scaling.py                       # writes docs/scaling.png and docs/scaling.md
    python bench/scaling.py --max-users 100000    # a quicker run

W1 (SPEC §6) lists are 100 long; the k sweep builds lists of 1000 items on
100k users so that k = 1000 reads real lists. Every point is the median of
``--repeats`` evaluate() calls of ten accuracy metrics (precision, recall, f1,
map, mar, ndcg, dcg, hit_rate, mrr, arhr) at the given k, from numpy buffers.
The plot needs matplotlib (optional); without it only the table is written.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np

import rankmeter as rm

NAMES = ("precision", "recall", "f1", "map", "mar", "ndcg", "dcg", "hit_rate", "mrr", "arhr")
ROOT = Path(__file__).resolve().parent.parent


def timed(truth, recs, metrics, repeats, threads=None) -> float:
    rm.evaluate(truth, recs, metrics, threads=threads)
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        rm.evaluate(truth, recs, metrics, threads=threads)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-users", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "docs"))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    at10 = [f"{m}@10" for m in NAMES]

    users = [n for n in (10_000, 30_000, 100_000, 300_000, 1_000_000) if n <= args.max_users]
    rows_u = []
    for n in users:
        w = rm.datasets.w1(n, seed=0)
        rows_u.append((n, timed(w.truth, w.recs, at10, args.repeats, 1), timed(w.truth, w.recs, at10, args.repeats, 2)))
        print(f"users {n:>9,}: 1 thread {rows_u[-1][1]:.4f} s, 2 threads {rows_u[-1][2]:.4f} s", flush=True)

    n_k = min(100_000, args.max_users)
    wk = rm.datasets.w1(n_k, n_items=100_000, list_len=1000, seed=0)
    rows_k = []
    for k in (10, 30, 100, 300, 1000):
        rows_k.append((k, timed(wk.truth, wk.recs, [f"{m}@{k}" for m in NAMES], args.repeats)))
        print(f"k {k:>5}: {rows_k[-1][1]:.4f} s", flush=True)

    head = (f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"numpy {np.__version__}, rankmeter {rm.__version__}. Medians of {args.repeats} calls; "
            "ten accuracy metrics per call, from numpy buffers.")
    md = [f"# Scaling of `evaluate`\n\n{head}\n\nCommand: `python bench/scaling.py --max-users {args.max_users}`\n",
          "## Users (W1, k = 10)\n", "| users | 1 thread s | 2 threads s | speed-up | µs per user (2 threads) |",
          "|---:|---:|---:|---:|---:|"]
    md += [f"| {n:,} | {a:.4f} | {b:.4f} | {a / b:.2f}x | {b / n * 1e6:.3f} |" for n, a, b in rows_u]
    md += ["", f"## Cutoff k ({n_k:,} users, lists of 1000)\n", "| k | seconds |", "|---:|---:|"]
    md += [f"| {k} | {t:.4f} |" for k, t in rows_k]
    (out / "scaling.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: table only")
        return 0
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    a1.loglog([r[0] for r in rows_u], [r[1] for r in rows_u], "o-", label="1 thread")
    a1.loglog([r[0] for r in rows_u], [r[2] for r in rows_u], "s-", label="2 threads")
    a1.set_xlabel("users (W1, k = 10)")
    a1.set_ylabel("seconds per evaluate (10 metrics)")
    a1.legend()
    a1.grid(True, which="both", alpha=0.3)
    a2.semilogx([r[0] for r in rows_k], [r[1] for r in rows_k], "o-")
    a2.set_ylim(0, max(r[1] for r in rows_k) * 1.3)
    a2.set_xlabel(f"k ({n_k:,} users, lists of 1000)")
    a2.set_ylabel("seconds per evaluate (10 metrics)")
    a2.grid(True, which="both", alpha=0.3)
    fig.suptitle("rankmeter.evaluate scaling (2-core machine)")
    fig.tight_layout()
    fig.savefig(out / "scaling.png", dpi=110)
    print(f"wrote {out / 'scaling.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
