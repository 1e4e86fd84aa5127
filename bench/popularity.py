"""Popularity and long-tail metrics at W1 scale (docs/performance.md, docs/metrics.md 3.19.13-3.19.19).

W1 (1M users, 100 ranked items each from 100k Zipf items), k = 10, train = W1's truth interactions (about 11M
rows), as bench/beyond_w1.py. Each metric is timed alone (median of --repeats), end to end from the raw numpy
buffers (`Truth.from_csr`, `Recs.from_csr` of int64 ids): the train popularity, the head/tail split and the
list pass are part of every call.

RecBole 1.2.1 (the `recbole` peer venv) is timed beside it for the metrics it has, ShannonEntropy and
TailPercentage, on the first --recbole-users users of the same W1 lists with the full train counter (its TailPercentage
tests membership in a Python list of tail items for every list position, so it cannot run at 1M users): the contender path is
RecBole's `calculate_metric` on a `DataStruct` holding `rec.items` (the n x 10 top-k tensor) and
`data.count_items` (the train Counter), i.e. what its evaluator collects, without the model. Its time is shown
as measured at that size and scaled linearly to 1M users (the work of both is linear in the users; the
scaling is stated, not measured).

    python bench/popularity.py --users 1000000 --repeats 5 --out bench/results/popularity_w1_1m.txt
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import rankmeter as rm

METRICS = [
    "shannon_entropy@10",
    "tail_percentage@10",
    "aplt@10",
    "aclt@10",
    "surprisal@10",
    "epc@10",
    "efd@10",
    "user_coverage@10",
    "user_coverage(served=full)@10",
]

# the existing popularity metrics of the same in-place pass, timed in the same run as anchors (their quiet-machine
# figures are in docs/performance.md), so a loaded machine's inflation can be read off
ANCHORS = ["arp@10", "novelty@10"]

RECBOLE = {"shannon_entropy(normalize=distinct)@10": "ShannonEntropy", "tail_percentage@10": "TailPercentage"}

RECBOLE_SCRIPT = r"""
import json, sys, time
from collections import Counter
import numpy as np, torch
from recbole.evaluator.collector import DataStruct
from recbole.evaluator.metrics import ShannonEntropy, TailPercentage

lists = np.load(sys.argv[1]); train = np.load(sys.argv[2]); repeats = int(sys.argv[3]); which = sys.argv[4]
config = {"topk": [10], "metric_decimal_place": 15, "tail_ratio": 0.1}
ds = DataStruct()
ds.set("rec.items", torch.from_numpy(lists))
ds.set("data.count_items", Counter(train.tolist()))
cls = {"ShannonEntropy": ShannonEntropy, "TailPercentage": TailPercentage}[which]
times, value = [], None
for _ in range(repeats):
    t0 = time.perf_counter()
    value = cls(config).calculate_metric(ds)
    times.append(time.perf_counter() - t0)
json.dump({"times": times, "value": value}, sys.stdout)
"""


REPLAY_SCRIPT = r"""
import json, sys, time
import numpy as np, pandas as pd
from replay.metrics import Surprisal

lists = np.load(sys.argv[1]); t_users = np.load(sys.argv[2]); t_items = np.load(sys.argv[3])
repeats = int(sys.argv[4])
n, k = lists.shape
recs = pd.DataFrame({"query_id": np.repeat(np.arange(n), k), "item_id": lists.reshape(-1),
                     "rating": np.tile(-np.arange(k, dtype=np.float64), n)})
train = pd.DataFrame({"query_id": t_users, "item_id": t_items})
times, value = [], None
for _ in range(repeats):
    t0 = time.perf_counter()
    value = Surprisal([k])(recs, train)
    times.append(time.perf_counter() - t0)
json.dump({"times": times, "value": value}, sys.stdout)
"""


def _replay(lists: np.ndarray, t_users: np.ndarray, t_items: np.ndarray, repeats: int) -> dict | None:
    py = pathlib.Path(os.path.expanduser("~/.cache/rankmeter-peers/replay/bin/python"))
    if not py.exists():
        return None
    with tempfile.TemporaryDirectory() as d:
        for name, a in (("l", lists), ("u", t_users), ("i", t_items)):
            np.save(f"{d}/{name}.npy", a)
        pathlib.Path(f"{d}/w.py").write_text(REPLAY_SCRIPT)
        p = subprocess.run(
            [str(py), f"{d}/w.py", f"{d}/l.npy", f"{d}/u.npy", f"{d}/i.npy", str(repeats)],
            capture_output=True,
            text=True,
            timeout=3600,
        )
    if p.returncode != 0:
        print(p.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(p.stdout)


def _recbole_python() -> pathlib.Path:
    return pathlib.Path(os.path.expanduser("~/.cache/rankmeter-peers/recbole/bin/python"))


def _recbole(lists: np.ndarray, train_items: np.ndarray, which: str, repeats: int) -> dict | None:
    py = _recbole_python()
    if not py.exists():
        return None
    with tempfile.TemporaryDirectory() as d:
        np.save(f"{d}/l.npy", lists)
        np.save(f"{d}/t.npy", train_items)
        pathlib.Path(f"{d}/w.py").write_text(RECBOLE_SCRIPT)
        p = subprocess.run(
            [str(py), f"{d}/w.py", f"{d}/l.npy", f"{d}/t.npy", str(repeats), which],
            capture_output=True,
            text=True,
            timeout=3600,
        )
    if p.returncode != 0:
        print(p.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(p.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--recbole-users", type=int, default=5_000)
    ap.add_argument("--replay-users", type=int, default=100_000, help="users RePlay's Surprisal is timed on (0: skip)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    w = rm.datasets.w1(args.users, seed=0)
    truth = rm.Truth.from_csr(w.truth_indptr, w.truth_items, w.truth_grades)
    recs = rm.Recs.from_csr(w.recs_indptr, w.recs_items)
    train = (w.truth_indptr, w.truth_items)
    lines = [
        f"W1: {w.n_users:,} users, k=10, train {w.truth_items.size:,} interactions; "
        f"threads={args.threads or rm._core.max_threads()}, load average {os.getloadavg()[0]:.2f} at start",
        "rankmeter: rm.evaluate(Truth.from_csr(...), Recs.from_csr(int64 ids), [metric], train=(indptr, items)), "
        f"median of {args.repeats}",
        f"{'metric':42s} {'median s':>9s} {'best s':>8s}  value",
    ]
    print("\n".join(lines))
    medians = {}
    for m in [*METRICS, *[m for m in RECBOLE if m not in METRICS], *ANCHORS]:
        times = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            res = rm.evaluate(truth, recs, [m], train=train, threads=args.threads)
            times.append(time.perf_counter() - t0)
        medians[m] = statistics.median(times)
        line = f"{m:42s} {medians[m]:9.3f} {min(times):8.3f}  {res[m]:.6f}"
        lines.append(line)
        print(line)
    n = min(args.recbole_users, w.n_users)
    lists = np.ascontiguousarray(w.recs_items[: w.recs_indptr[n]].reshape(n, -1)[:, :10])
    lines.append(
        f"RecBole 1.2.1 calculate_metric on the first {n:,} users' top-10 (median of 3), scaled x{w.n_users / n:g} "
        "to the full user count (linear scaling, not measured), and rankmeter's 1M-user median for the same metric"
    )
    lines.append(f"{'metric':42s} {'RecBole s':>10s} {'scaled s':>9s} {'rankmeter s':>12s} {'ratio':>8s}")
    for m, which in RECBOLE.items():
        got = _recbole(lists, w.truth_items, which, 3)  # the full train: the same tail as rankmeter
        if got is None:
            lines.append(f"{m:42s} RecBole venv missing or failed (bash bench/peers/setup.sh recbole)")
            continue
        t = statistics.median(got["times"])
        scaled = t * w.n_users / n
        lines.append(f"{m:42s} {t:10.3f} {scaled:9.1f} {medians[m]:12.3f} {scaled / medians[m]:8.0f}x")
        print(lines[-1])
    if args.replay_users:
        # RePlay's Surprisal on the first n users' top-10 with the whole train (its popularity needs all of it),
        # beside rankmeter's surprisal@10 on the same users and train: a like-for-like ratio, no scaling
        n = min(args.replay_users, w.n_users)
        top = np.ascontiguousarray(w.recs_items[: w.recs_indptr[n]].reshape(n, -1)[:, :10])
        t_users = np.repeat(np.arange(w.n_users, dtype=np.int64), np.diff(w.truth_indptr))
        got = _replay(top, t_users, w.truth_items, 3)
        sub_t = rm.Truth.from_csr(w.truth_indptr[: n + 1], w.truth_items[: w.truth_indptr[n]])
        sub_r = rm.Recs.from_csr(np.arange(0, 10 * (n + 1), 10, dtype=np.int64), top.reshape(-1))
        times = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            mine = rm.evaluate(sub_t, sub_r, ["surprisal@10"], train=train, threads=args.threads)["surprisal@10"]
            times.append(time.perf_counter() - t0)
        if got is None:
            lines.append("RePlay Surprisal: the replay venv is missing or failed (bash bench/peers/setup.sh replay)")
        else:
            t, ours = statistics.median(got["times"]), statistics.median(times)
            value = got["value"]["Surprisal@10"] if isinstance(got["value"], dict) else got["value"]
            lines.append(
                f"RePlay 0.22 Surprisal([10]) on the first {n:,} users' top-10 and the whole train (pandas, median "
                f"of 3): {t:.3f} s, value {value:.9f}; rankmeter surprisal@10 on the same users and train "
                f"{ours:.3f} s, value {mine:.9f}: {t / ours:.0f}x"
            )
        print(lines[-1])
    lines.append(f"load average at the end {os.getloadavg()[0]:.2f}")
    print(lines[-1])
    if args.out:
        pathlib.Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
