"""State size and merge time at W1 scale (docs/performance.md): a 1M-user state with every
catalog metric, its to_bytes() size, and merge() of two such states (the second
one's users renamed so the two are disjoint), plus two halves against one call.

    python bench/state_w1.py --users 1000000 --repeats 5
"""

import argparse
import statistics
import time

import numpy as np

import rankmeter as rm

CATALOG = [
    "coverage@10",
    "gini@10",
    "gini(over=recommended)@10",
    "personalization@10",
    "personalization(similarity=cosine)@10",
    "score_entropy@10",
    "coverage@100",
    "personalization@100",
]
ACCURACY = ["precision@10", "recall@10", "ap@10", "ndcg@10", "rr@10", "hit_rate@10"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    w = rm.datasets.w1(args.users, seed=1)
    scores = np.tile(np.linspace(1.0, 0.0, 100), args.users)
    half = args.users // 2
    train = (w.recs_indptr[: half + 1], w.recs_items[: w.recs_indptr[half]])

    def part(lo, hi, offset=0):
        ip = w.recs_indptr[lo : hi + 1] - w.recs_indptr[lo]
        sl = slice(w.recs_indptr[lo], w.recs_indptr[hi])
        tip = w.truth_indptr[lo : hi + 1] - w.truth_indptr[lo]
        tsl = slice(w.truth_indptr[lo], w.truth_indptr[hi])
        users = np.arange(lo, hi, dtype=np.int64) + offset
        truth = rm.Truth.from_csr(tip, w.truth_items[tsl], w.truth_grades[tsl], users=users)
        recs = rm.Recs.from_csr(ip, w.recs_items[sl], scores[sl], users=users)
        return rm.partial(truth, recs, ACCURACY + CATALOG, train=train)

    a, b = part(0, half), part(half, args.users)
    full = part(0, args.users)
    blob = full.to_bytes()
    times = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        merged = a.merge(b)
        times.append(time.perf_counter() - t0)
    rt = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        back = rm.State.from_bytes(blob)
        rt.append(time.perf_counter() - t0)
    twin = part(0, args.users, offset=args.users)
    big = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        both = full.merge(twin)
        big.append(time.perf_counter() - t0)
    assert both.meta["n_users"] == 2 * args.users
    fin, one = merged.finalize(), full.finalize()
    bad = [m for m in one if not (fin[m] == one[m] or abs(fin[m] - one[m]) <= 1e-12 * abs(one[m]))]
    assert not bad, bad
    assert back.finalize() == one
    print(f"users {args.users:,}; metrics: {len(ACCURACY)} accuracy + {len(CATALOG)} catalog")
    print(f"to_bytes() of the whole state: {len(blob) / 1e6:.2f} MB")
    print(
        f"merge() of two {half:,}-user states: median {statistics.median(times):.3f} s "
        f"(min {min(times):.3f}, max {max(times):.3f}, {args.repeats} runs)"
    )
    print(
        f"merge() of two {args.users:,}-user states: median {statistics.median(big):.3f} s "
        f"(min {min(big):.3f}, max {max(big):.3f})"
    )
    print(f"from_bytes() of the whole state: median {statistics.median(rt):.3f} s")


if __name__ == "__main__":
    main()
