"""Beyond-accuracy metrics on a padded 2-D top-k array against the same lists as CSR, side by side.

A model's top-k comes as a ``n_users x k`` array of item ids (``Recs.from_array``); the same lists as CSR
(``Recs.from_csr``) are the reference time. W1 (``rankmeter.datasets.w1``), k = 10, 32-dim item features,
train = W1's truth interactions. For each metric the two forms alternate, ``--repeats`` times, in one
process; medians and their ratio are printed (the target: padded within 1.2x of CSR).

    python bench/beyond_padded.py --users 1000000 --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import numpy as np

import rankmeter as rm

METRICS = ["coverage@10", "personalization@10", "novelty@10", "diversity@10", "gini@10", "arp@10"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--width", type=int, default=10, help="columns of the padded array (the model's k)")
    args = ap.parse_args()
    w = rm.datasets.w1(n_users=args.users)
    k = args.width
    top = np.ascontiguousarray(w.recs_items.reshape(args.users, -1)[:, :k])  # every user's top k, padded form
    indptr = np.arange(0, (args.users + 1) * k, k, dtype=np.int64)
    flat = top.reshape(-1).copy()
    train = rm.Truth.from_csr(w.truth_indptr, w.truth_items)
    feats = np.random.default_rng(0).random((w.n_items, 32))
    ctx: dict[str, Any] = {"train": train, "item_features": (np.arange(w.n_items), feats)}
    forms = {"csr": rm.Recs.from_csr(indptr, flat), "padded": rm.Recs.from_array(top, pad=-1)}
    print(f"W1 {args.users:,} users, top {k} as a {top.shape[0]:,} x {k} array; medians of {args.repeats}")
    print(f"{'metric':22s} {'CSR s':>8s} {'padded s':>9s} {'padded/CSR':>11s}")
    for m in METRICS:
        times: dict = {"csr": [], "padded": []}
        values = {}
        for _ in range(args.repeats):
            for name, recs in forms.items():
                t = time.perf_counter()
                values[name] = rm.evaluate(w.truth, recs, [m], per_user=False, **ctx)[m]
                times[name].append(time.perf_counter() - t)
        assert values["csr"] == values["padded"], (m, values)
        c, p = statistics.median(times["csr"]), statistics.median(times["padded"])
        print(f"{m:22s} {c:8.3f} {p:9.3f} {p / c:10.2f}x")


if __name__ == "__main__":
    main()
