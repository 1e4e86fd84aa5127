"""The AUC family at scale (docs/metrics.md 3.19.10-3.19.12): one evaluate call per metric, end to end from
numpy buffers (list alignment, item coding and the catalog mask are part of every call).

W1 (1M users, top-100 lists from 100k Zipf items, scores falling along each list): lauc@100 over the
100k-item catalog, auc@100 and gauc@100 over the scored top 100, auc(negatives=catalog)@100.

Score matrix (users x items, float32): every item of a row is a scored candidate, ~10 positives per user drawn
uniformly: auc and gauc over the full rows with rankmeter.auc_scores (the matrix read in place, no ranking),
beside the bandwidth floor (numpy's sum of the matrix, one read) and, with --from-scores, the older path
(Recs.from_scores(k = n_items) then evaluate; it materialises n_users x n_items ranked entries, 16 bytes each).
Every line gives wall seconds and the process CPU seconds (all threads) of the median run: on a shared machine
the CPU time says what the work costs when the wall clock waits for other jobs.

RecBole 1.2.1 (the `recbole` peer venv, bench/peers/setup.sh recbole) is timed beside the matrix for its GAUC,
the full-sort path of its evaluator: `Collector.eval_batch_collect` on the score rows (a padding column 0 at
-inf, as RecBole's full sort has; it ranks every row with a full sort for `rec.meanrank`) then
`GAUC.metric_info`, on the first --recbole-rows rows of the same matrix (median of 3), scaled linearly to the
matrix's rows (stated, not measured), with its value beside rankmeter's gauc of the same rows.

    python bench/auc.py --users 1000000 --matrix 20000x100000 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import tempfile
import time
from typing import Any

import numpy as np

import rankmeter as rm


def _time(f, repeats: int) -> tuple[float, float, float, Any]:
    """(median wall s, best wall s, CPU s of all threads for the median run, the last result)."""
    runs, out = [], None
    for _ in range(repeats):
        c0, t0 = time.process_time(), time.perf_counter()
        out = f()
        runs.append((time.perf_counter() - t0, time.process_time() - c0))
    runs.sort()
    med = runs[len(runs) // 2]
    return med[0], runs[0][0], med[1], out


_RECBOLE = r"""
import json, sys, time
import numpy as np
import torch
from recbole.evaluator.collector import Collector
from recbole.evaluator.metrics import GAUC

S = np.load(sys.argv[1])
t_ip, t_items = np.load(sys.argv[2]), np.load(sys.argv[3])
n_u, n_i = S.shape
config = {"metrics": ["GAUC"], "eval_args": {"mode": "full"}, "topk": [1], "device": torch.device("cpu"),
          "metric_decimal_place": 15}
scores = torch.full((n_u, n_i + 1), -float("inf"), dtype=torch.float32)
scores[:, 1:] = torch.from_numpy(S)
pu, pi = [], []
for u in range(n_u):
    items = list(dict.fromkeys(t_items[t_ip[u] : t_ip[u + 1]].tolist()))
    pu += [u] * len(items)
    pi += [i + 1 for i in items]
pu, pi = torch.tensor(pu, dtype=torch.long), torch.tensor(pi, dtype=torch.long)
times, value = [], None
for _ in range(3):
    t0 = time.perf_counter()
    col = Collector(config)
    col.eval_batch_collect(scores, None, pu, pi)
    mr = col.get_data_struct().get("rec.meanrank").numpy()
    value = float(GAUC(config).metric_info(mr[:, 0:1], mr[:, 1], mr[:, 2]))
    times.append(time.perf_counter() - t0)
json.dump({"seconds": sorted(times)[1], "value": value}, open(sys.argv[4], "w"))
"""


def _recbole_gauc(S: np.ndarray, t_ip: np.ndarray, t_items: np.ndarray) -> dict | None:
    """RecBole's full-sort GAUC on the rows of ``S`` in its venv: {"seconds": median of 3, "value": GAUC}."""
    py = pathlib.Path(os.path.expanduser("~/.cache/rankmeter-peers/recbole/bin/python"))
    if not py.exists():
        return None
    with tempfile.TemporaryDirectory() as d:
        paths = [os.path.join(d, f) for f in ("S.npy", "ip.npy", "items.npy", "out.json", "run.py")]
        np.save(paths[0], S)
        np.save(paths[1], t_ip)
        np.save(paths[2], t_items)
        pathlib.Path(paths[4]).write_text(_RECBOLE)
        p = subprocess.run([str(py), paths[4], *paths[:4]], capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stderr[-2000:])
            return None
        return json.loads(pathlib.Path(paths[3]).read_text())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--matrix", default="20000x100000", help="users x items of the score matrix (0: skip)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--from-scores", action="store_true", help="also time Recs.from_scores(k=n_items) + evaluate")
    ap.add_argument(
        "--recbole-rows", type=int, default=200, help="rows of the matrix RecBole's GAUC is timed on (0: skip)"
    )
    args = ap.parse_args()

    if args.users:
        w = rm.datasets.w1(args.users, seed=0)
        scores = np.tile(np.linspace(1.0, 0.0, 100), w.n_users)
        truth = rm.Truth.from_csr(w.truth_indptr, w.truth_items, w.truth_grades)
        recs = rm.Recs.from_csr(w.recs_indptr, w.recs_items, scores)
        catalog = np.arange(w.n_items, dtype=np.int64)
        print(f"W1: {w.n_users:,} users, top-100 lists, catalog {w.n_items:,} items")
        print(f"{'metric':36s} {'median s':>9s} {'best s':>8s} {'cpu s':>7s}  value")
        for m in ["ndcg@100", "lauc@100", "auc@100", "gauc@100", "auc(negatives=catalog)@100"]:
            med, best, cpu, res = _time(
                lambda m=m: rm.evaluate(truth, recs, [m], catalog=catalog, threads=args.threads), args.repeats
            )
            print(f"{m:36s} {med:9.3f} {best:8.3f} {cpu:7.3f}  {res[m]:.6f}")

    if args.matrix != "0":
        n_u, n_i = (int(x) for x in args.matrix.split("x"))
        rng = np.random.default_rng(1)
        S = rng.random((n_u, n_i), dtype=np.float32)
        n_pos = rng.poisson(10, n_u).clip(1, n_i - 1)
        t_ip = np.zeros(n_u + 1, dtype=np.int64)
        np.cumsum(n_pos, out=t_ip[1:])
        t_items = rng.integers(0, n_i, int(t_ip[-1]))  # repeats within a user: the truth keeps the first
        truth = rm.Truth.from_csr(t_ip, t_items)
        print(f"score matrix {n_u:,} x {n_i:,} float32 ({S.nbytes / 1e9:.1f} GB)")
        med, best, cpu, _ = _time(lambda: S.sum(dtype=np.float32), args.repeats)
        print(f"{'floor: numpy S.sum() (one read)':36s} {med:9.3f} {best:8.3f} {cpu:7.3f}")
        for ms in (["auc"], ["gauc"], ["auc", "gauc"]):
            med, best, cpu, res = _time(lambda ms=ms: rm.auc_scores(truth, S, ms, threads=args.threads), args.repeats)
            name = "auc_scores " + "+".join(ms)
            print(f"{name:36s} {med:9.3f} {best:8.3f} {cpu:7.3f}  " + " ".join(f"{res[m]:.6f}" for m in ms))
        # the kernel paths side by side, alternating run by run: the default (one search per score where the CPU
        # has AVX-512) and the counting loop (RANKMETER_SIMD=avx2), with one read of the matrix beside them
        walls: dict = {"one search per score (default)": [], "counting loop (RANKMETER_SIMD=avx2)": [], "read": []}
        before = os.environ.get("RANKMETER_SIMD")
        for _ in range(args.repeats):
            for name, simd in (("one search per score (default)", ""), ("counting loop (RANKMETER_SIMD=avx2)", "avx2")):
                os.environ["RANKMETER_SIMD"] = simd
                t0 = time.perf_counter()
                rm.auc_scores(truth, S, ["auc"], threads=args.threads)
                walls[name].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            S.sum(dtype=np.float32)
            walls["read"].append(time.perf_counter() - t0)
        if before is None:
            os.environ.pop("RANKMETER_SIMD", None)
        else:
            os.environ["RANKMETER_SIMD"] = before
        print("auc_scores auc, kernel paths alternating (median wall s):")
        for name, v in walls.items():
            label = "numpy S.sum() (one read, 1 thread)" if name == "read" else name
            print(f"  {label:40s} {sorted(v)[len(v) // 2]:9.3f}")
        if args.recbole_rows:
            n = min(args.recbole_rows, n_u)
            sub_ip = t_ip[: n + 1]
            sub_items = t_items[: int(sub_ip[-1])]
            got = _recbole_gauc(np.ascontiguousarray(S[:n]), sub_ip, sub_items)
            mine = rm.auc_scores(rm.Truth.from_csr(sub_ip, sub_items), S[:n], ["gauc"])["gauc"]
            if got is None:
                print("RecBole GAUC: the recbole venv is missing or failed (bash bench/peers/setup.sh recbole)")
            else:
                scaled = got["seconds"] * n_u / n
                print(
                    f"RecBole 1.2.1 GAUC (full sort), first {n:,} rows: {got['seconds']:.3f} s (median of 3), scaled "
                    f"x{n_u / n:g} to {n_u:,} rows: {scaled:.1f} s (stated, not measured); its value {got['value']:.9f}, "
                    f"rankmeter's gauc of the same rows {mine:.9f}"
                )
        if args.from_scores:
            t0 = time.perf_counter()
            recs = rm.Recs.from_scores(S, k=n_i, threads=args.threads)
            t_sel = time.perf_counter() - t0
            print(f"Recs.from_scores(k={n_i:,}) {t_sel:.3f} s (once), then evaluate:")
            for m in ["auc", "gauc"]:
                med, best, cpu, res = _time(
                    lambda m=m: rm.evaluate(truth, recs, [m], threads=args.threads, truth_duplicates="first"),
                    args.repeats,
                )
                print(f"{m:36s} {med:9.3f} {best:8.3f} {cpu:7.3f}  {res[m]:.6f}")


if __name__ == "__main__":
    main()
