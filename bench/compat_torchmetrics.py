"""rankmeter.compat.torchmetrics against torchmetrics' retrieval metrics on tensors, side by side.

    python bench/compat_torchmetrics.py --queries 100000 --docs 50 --repeats 3

One workload, built the same way from one seed in every process (the original's own input form: ``preds`` a
float32 tensor of scores with some equal values and some <= 0, ``target`` a bool tensor with about 10% positives,
``indexes`` an int64 tensor, ``--docs`` rows per query, the rows of the queries interleaved), then per repeat one
process of each side, alternating, both in the torch venv (bench/peers/setup.sh torch; the compat side imports
rankmeter from this checkout's python/ directory and is given the same tensors). Each process pays its imports
on a small warm-up batch, then times, per metric, ``update`` + ``compute`` of a fresh instance:
``RetrievalMAP(top_k=10)``, ``RetrievalNormalizedDCG(top_k=10)``, ``RetrievalRecall(top_k=10)`` and
``RetrievalFallOut(top_k=10)`` (``--metrics`` to choose); then the functional ``retrieval_average_precision``,
``retrieval_normalized_dcg`` and ``retrieval_recall`` (top_k=10) called once per query in a Python loop over
``--loop`` queries of their own (a port that keeps its per-query loop).

Prints the medians side by side and checks that both sides computed the same values (relative 1e-5).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
from pathlib import Path

PEERS = Path(os.environ.get("RANKMETER_PEERS", Path.home() / ".cache" / "rankmeter-peers"))
PYTHON_DIR = Path(__file__).resolve().parent.parent / "python"
METRICS = ("RetrievalMAP", "RetrievalNormalizedDCG", "RetrievalRecall", "RetrievalFallOut")

WORKER = r"""
import json, sys, time
import numpy as np, torch
side, n_q, n_d, seed, names = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5].split(",")
torch.set_num_threads(1)
if side == "torchmetrics":
    from torchmetrics import retrieval as R
else:
    from rankmeter.compat import torchmetrics as R
g = np.random.default_rng(seed)
n = n_q * n_d
perm = g.permutation(n)
indexes = torch.from_numpy(np.repeat(np.arange(n_q, dtype=np.int64), n_d)[perm])
preds = torch.from_numpy((np.round(g.random(n) * 200) / 200 - 0.02).astype(np.float32)[perm])
target = torch.from_numpy((g.random(n) < 0.1)[perm])
small = slice(0, 1000)
for name in names:  # warm-up: imports, lazy loads
    m = getattr(R, name)(top_k=10)
    m.update(preds[small], target[small], indexes[small])
    m.compute()
times, values = {}, {}
for name in names:
    t = time.perf_counter()
    m = getattr(R, name)(top_k=10)
    m.update(preds, target, indexes)
    v = m.compute()
    times[name] = time.perf_counter() - t
    values[name] = float(v)
# the functional forms called once per query in a loop, on the first `loop` queries (their own rows)
F = R
if side == "torchmetrics":
    from torchmetrics.functional import retrieval as F
loop = int(sys.argv[6])
P = torch.from_numpy((np.round(g.random((loop, n_d)) * 200) / 200 - 0.02).astype(np.float32))
T = torch.from_numpy(g.random((loop, n_d)) < 0.1)
for fn in ("retrieval_average_precision", "retrieval_normalized_dcg", "retrieval_recall"):
    f = getattr(F, fn)
    f(P[0], T[0], top_k=10)
    t = time.perf_counter()
    total = 0.0
    for q in range(loop):
        total += float(f(P[q], T[q], top_k=10))
    times[fn] = time.perf_counter() - t
    values[fn] = total / loop
print(json.dumps({"times": times, "values": values}))
"""


def one(side: str, a: argparse.Namespace) -> dict:
    py = PEERS / "torch" / "bin" / "python"
    env = dict(os.environ)
    if side == "compat":
        env["PYTHONPATH"] = str(PYTHON_DIR)
    args = [str(py), "-P", "-c", WORKER, side, str(a.queries), str(a.docs), str(a.seed), ",".join(a.metrics)]
    args.append(str(a.loop))
    p = subprocess.run(args, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise SystemExit(f"{side} failed:\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--docs", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--metrics", nargs="+", default=list(METRICS))
    ap.add_argument("--loop", type=int, default=10_000, help="queries of the once-per-query loop")
    a = ap.parse_args()
    if not (PEERS / "torch" / "bin" / "python").exists():
        raise SystemExit("torchmetrics' venv is missing: bash bench/peers/setup.sh torch")
    runs: dict[str, list] = {"torchmetrics": [], "compat": []}
    for _ in range(a.repeats):  # alternating processes
        for side in ("torchmetrics", "compat"):
            runs[side].append(one(side, a))
    print(
        f"{a.queries} queries x {a.docs} documents (tensors, rows interleaved, float32 preds with ties), top_k=10; "
        f"update + compute, medians of {a.repeats} (alternating processes, 1 torch thread)"
    )
    print(f"{'metric':<26} {'torchmetrics':>12}  {'compat':>9}  speed-up")
    same = True
    loops = ("retrieval_average_precision", "retrieval_normalized_dcg", "retrieval_recall")
    for name in [*a.metrics, *loops]:
        if name == loops[0]:
            print(f"functional form called once per query, {a.loop} queries x {a.docs} documents, top_k=10:")
        t = statistics.median(r["times"][name] for r in runs["torchmetrics"])
        c = statistics.median(r["times"][name] for r in runs["compat"])
        print(f"{name:<26} {t:10.2f} s  {c:7.3f} s  {t / c:7.1f}x")
        want = runs["torchmetrics"][0]["values"][name]
        same = same and all(
            math.isclose(r["values"][name], want, rel_tol=1e-5) for r in runs["torchmetrics"] + runs["compat"]
        )
    print("same values on both sides:", same)
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
