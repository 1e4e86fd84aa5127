"""Speed of rm.expected_exposure (docs/metrics.md 3.23.10) against the restatement of the authors' evaluator
(tests/differential/expeval.py: expeval's per-query dict loops), and of rm.bias_disparity (3.23.11) against the
restatement of Elliot's BiasDisparityBS/BR/BD (tests/differential/elliot_bias_disparity.py), on the input forms users
pass: a list of sampled runs as numpy CSR (rankmeter) and the dicts each peer reads.

python bench/expected_exposure.py [--users 20000 --samples 10 --k 20 --repeat 5]

Samples: each user's 50 candidate items ranked by Plackett-Luce draws (Gumbel noise on fixed log-weights), the top k
kept; truth: 5 graded items among the candidates. Prints medians of --repeat runs and their ratio.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import rankmeter as rm
from tests.differential.elliot_bias_disparity import elliot_bias_disparity
from tests.differential.expeval import expeval


def _median(f, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=20000)
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--k", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    n, s, k, n_cand = a.users, a.samples, a.k, 50
    cand = np.stack([rng.choice(5000, n_cand, replace=False) for _ in range(n)])
    logw = rng.normal(size=(n, n_cand))
    truth = {u: {int(i): int(g) for i, g in zip(cand[u, :5], rng.integers(1, 4, 5))} for u in range(n)}
    runs = []
    for _ in range(s):
        order = np.argsort(-(logw + rng.gumbel(size=logw.shape)), axis=1)[:, :k]
        items = np.take_along_axis(cand, order, axis=1)
        runs.append((np.arange(0, n * k + 1, k, dtype=np.int64), items.ravel().astype(np.int64)))
    run_dicts = [{u: [int(i) for i in r[1][u * k : (u + 1) * k]] for u in range(n)} for r in runs]
    ours = _median(lambda: rm.expected_exposure(truth, runs), a.repeat)
    peer = _median(lambda: expeval(truth, run_dicts), max(1, a.repeat // 2))
    print(
        f"expected_exposure  {n} users x {s} samples x {k}: rankmeter {ours:.3f} s  expeval restatement {peer:.3f} s"
        f"  ratio {peer / ours:.1f}x"
    )
    item_groups = {int(i): int(i) % 7 for i in range(5000)}
    user_groups = {u: u % 4 for u in range(n)}
    train = {u: [int(i) for i in cand[u, 5:25]] for u in range(n)}
    ours = _median(
        lambda: rm.bias_disparity(train, run_dicts[0], item_groups=item_groups, user_groups=user_groups, k=k), a.repeat
    )
    tr = {u: dict.fromkeys(v, 1) for u, v in train.items()}
    peer = _median(lambda: elliot_bias_disparity(tr, run_dicts[0], k, user_groups, item_groups), a.repeat)
    print(
        f"bias_disparity     {n} users, k={k}: rankmeter {ours:.3f} s  Elliot restatement {peer:.3f} s"
        f"  ratio {peer / ours:.1f}x"
    )


if __name__ == "__main__":
    main()
