"""user_groups= at W1 scale (docs/performance.md, docs/fairness.md): one evaluate() of 20 accuracy
columns over 1M users without groups, and the same call with 10 user groups given as a pandas
Series (index: user, values: group label), the form users pass. Runs alternate so load drifts hit
both alike; medians (and best) side by side with their ratio. The per-group means are checked
against evaluate() on one group's users alone.

With --item-groups G it also times item exposure fairness (docs/fairness.md, "Item exposure"): the same 20
columns by user group plus awrf@10 over G item groups (one call), and exposure_gini@10 and pop_reo@10 (catalog-level:
refused with user_groups=, so a second call, with a train of another W1 draw), against the 20 columns without
groups. The answers are checked against the pure-Python references on a sample of users.

    python bench/segments.py --users 1000000 --repeats 5
    python bench/segments.py --users 1000000 --repeats 5 --item-groups 50
"""

import argparse
import os
import statistics
import time

import numpy as np
import pandas as pd

import rankmeter as rm

METRICS = [f"{m}@{k}" for m in ("ndcg", "precision", "recall", "ap") for k in (5, 10, 20, 100)] + [
    "mrr@10",
    "mrr@100",
    "hit_rate@10",
    "hit_rate@100",
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--groups", type=int, default=10)
    ap.add_argument("--item-groups", type=int, default=0, help="also time item exposure over this many item groups")
    ap.add_argument("--permutations", type=int, default=99, help="of the group_gaps() timed once (0: no test)")
    args = ap.parse_args()
    w = rm.datasets.w1(args.users, seed=1)
    truth, recs = w.truth, w.recs
    rng = np.random.default_rng(7)
    labels = np.array([f"segment_{g}" for g in range(args.groups)], dtype=object)[
        rng.integers(0, args.groups, size=args.users)
    ]
    series = pd.Series(labels, index=np.arange(args.users, dtype=np.int64))
    assert len(METRICS) == 20

    def plain(per_user: bool = True):
        return rm.evaluate(truth, recs, METRICS, per_user=per_user)

    def grouped(per_user: bool = True):
        return rm.evaluate(truth, recs, METRICS, user_groups=series, per_user=per_user)

    fns = {
        "plain": lambda: plain(True),
        "plain_means_only": lambda: plain(False),
        "grouped": lambda: grouped(True),
        "grouped_means_only": lambda: grouped(False),
    }
    fair_out: dict = {}
    if args.item_groups:
        w2 = rm.datasets.w1(args.users, seed=2)
        train = (w2.truth_indptr, w2.truth_items)
        del w2
        item_ids = np.arange(100_000, dtype=np.int64)
        item_groups = (item_ids, rng.integers(0, args.item_groups, item_ids.size))

        def fair(by_user_group: bool):
            ug = series if by_user_group else None
            a = rm.evaluate(truth, recs, [*METRICS, "awrf@10"], user_groups=ug, item_groups=item_groups)
            b = rm.evaluate(truth, recs, ["exposure_gini@10", "pop_reo@10"], train=train, per_user=False)
            if by_user_group:
                fair_out["a"], fair_out["b"] = a, b

        fns["fair"] = lambda: fair(True)
        fns["fair_no_user_groups"] = lambda: fair(False)
    runs: dict = {name: [] for name in fns}
    res = None
    for _ in range(args.repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            out = fn()
            runs[name].append(time.perf_counter() - t0)
            if name == "grouped":
                res = out
            del out
    assert res is not None
    table = res.by_group()
    g0 = table.index[0]
    keep = np.flatnonzero(labels == g0)
    alone = rm.evaluate(rm.Truth.from_csr(w.truth_indptr, w.truth_items, w.truth_grades), recs, METRICS)
    per = alone.per_user
    for m in METRICS[:3]:  # the group's mean from its users' values, as a one-group call would sum them
        assert table.loc[g0, m] == float(np.mean(per[m][keep])) or abs(table.loc[g0, m] - np.mean(per[m][keep])) < 1e-12
    t0 = time.perf_counter()
    gaps = res.group_gaps(n_permutations=args.permutations, seed=0)
    t_gaps = time.perf_counter() - t0
    load = os.getloadavg()
    print(f"W1: {args.users:,} users, top-100 lists, {len(METRICS)} accuracy columns, {args.groups} user groups")
    print("user_groups= a pandas Series of str labels indexed by user; rankmeter threads: default (all cores)")
    print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"{'call':<60}{'median s':>10}{'best s':>10}")
    paths = {
        "plain": "rm.evaluate(truth, recs, METRICS)",
        "grouped": "rm.evaluate(truth, recs, METRICS, user_groups=series)",
        "plain_means_only": "rm.evaluate(truth, recs, METRICS, per_user=False)",
        "grouped_means_only": "rm.evaluate(..., user_groups=series, per_user=False)",
    }
    for name in ("plain", "grouped", "plain_means_only", "grouped_means_only"):
        print(f"{paths[name]:<60}{statistics.median(runs[name]):>10.3f}{min(runs[name]):>10.3f}")
    r1 = statistics.median(runs["grouped"]) / statistics.median(runs["plain"])
    r2 = statistics.median(runs["grouped_means_only"]) / statistics.median(runs["plain_means_only"])
    print(f"ratio grouped / plain (medians): {r1:.2f}x (per-user values kept), {r2:.2f}x (means only)")
    print(f"res.group_gaps(n_permutations={args.permutations}): {t_gaps:.3f} s (once)")
    print(gaps.head(4).to_string())
    if args.item_groups:
        _check_fair(w, fair_out, item_groups, train)
        med = {name: statistics.median(runs[name]) for name in ("fair", "fair_no_user_groups", "plain")}
        print(
            f"item exposure, {args.item_groups} item groups: rm.evaluate(METRICS + ['awrf@10'], user_groups=series, "
            "item_groups=(items, groups)) + rm.evaluate(['exposure_gini@10', 'pop_reo@10'], train=train): "
            f"median {med['fair']:.3f} s, best {min(runs['fair']):.3f} s"
        )
        print(
            "the same two calls without user_groups=: "
            f"median {med['fair_no_user_groups']:.3f} s, best {min(runs['fair_no_user_groups']):.3f} s"
        )
        print(
            f"ratio by user group / without user_groups (medians): {med['fair'] / med['fair_no_user_groups']:.2f}x; "
            f"/ the 20 columns alone without groups: {med['fair'] / med['plain']:.2f}x"
        )
        a, b = fair_out["a"], fair_out["b"]
        print(
            f"awrf@10 {a['awrf@10']:.6f}  exposure_gini@10 {b['exposure_gini@10']:.6f}  pop_reo@10 {b['pop_reo@10']:.6f}"
        )


def _check_fair(w, out: dict, item_groups: tuple, train: tuple) -> None:
    """awrf@10 of a sample of users against the pure-Python reference (tests/support/reference_exposure.py)."""
    import importlib.util
    import math

    # the reference module imports only math: loaded from its file, the bench runs from any directory
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "support", "reference_exposure.py")
    spec = importlib.util.spec_from_file_location("reference_exposure", path)
    assert spec is not None and spec.loader is not None
    rx = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rx)

    groups = {int(i): [int(g)] for i, g in zip(*item_groups)}
    sample = np.random.default_rng(0).choice(w.n_users, 200, replace=False)
    ti, tt, tg = w.truth_indptr, w.truth_items, w.truth_grades
    ri, rt = w.recs_indptr, w.recs_items
    truth = {int(u): {int(i): float(g) for i, g in zip(tt[ti[u] : ti[u + 1]], tg[ti[u] : ti[u + 1]])} for u in sample}
    recs = {int(u): [int(i) for i in rt[ri[u] : ri[u + 1]]] for u in sample}
    want = rx.awrf_per_user(truth, recs, 10, groups)
    got = out["a"].per_user["awrf@10"]
    for u in sample:
        assert math.isclose(got[u], want[int(u)], rel_tol=1e-12, abs_tol=1e-12), (u, got[u], want[int(u)])


if __name__ == "__main__":
    main()
