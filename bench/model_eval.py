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

Contenders in their own venvs (bench/peers/setup.sh), on the same factors and exclusions, median of --repeats:

- torch (the `torch` venv, CPU): per block of --mm-block users ``scores = U[b] @ V.T``, the block's train
  entries set to -inf, ``torch.topk(scores, k)``: lists only, no ranks and no metrics;
- RecBole 1.2.1 (the `recbole` venv): its full-sort evaluator on the same score tiles (a padding column 0 at
  -inf, train entries at -inf): ``Collector.eval_batch_collect`` (topk and ``rec.meanrank``, a full sort of every
  row) then NDCG, Precision, Recall, MAP, MRR, Hit @10 and GAUC, on the first --peer-users users, scaled
  linearly to all users (stated, not measured);
- Cornac 3.0 (the `cornac` venv): what its ``ranking_eval`` does per user (the user's scores, the train items
  masked, a full argsort of the catalog, each metric's ``compute``: NDCG, Precision, Recall, MRR @10 and AUC),
  on the first --peer-users users, scaled linearly.

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


TORCH = r"""
import json, sys, time
import numpy as np, torch
d = np.load(sys.argv[1])
U, V, ip, cols = (torch.from_numpy(d[x]) for x in ("U", "V", "ip", "cols"))
k, block, repeats = (int(x) for x in sys.argv[2:5])
ip_np = d["ip"]
times = []
for _ in range(repeats):
    t0 = time.perf_counter()
    Vt = V.T.contiguous()
    for b in range(0, U.shape[0], block):
        e = min(U.shape[0], b + block)
        S = U[b:e] @ Vt
        rows = torch.repeat_interleave(torch.arange(e - b), torch.from_numpy(np.diff(ip_np[b:e + 1])))
        S[rows, cols[ip_np[b]:ip_np[e]]] = -float("inf")
        torch.topk(S, k, dim=1)
    times.append(time.perf_counter() - t0)
json.dump({"seconds": sorted(times)[len(times) // 2], "torch": torch.__version__, "threads": torch.get_num_threads()},
          sys.stdout)
"""

RECBOLE = r"""
import json, sys, time
import numpy as np, torch
from recbole.evaluator.collector import Collector
from recbole.evaluator.metrics import GAUC, MAP, MRR, NDCG, Hit, Precision, Recall
np.float = float  # RecBole 1.2.1's NDCG uses the alias numpy 1.24 removed (as tests/differential/worker_recbole.py)
d = np.load(sys.argv[1])
U, V, ip, cols, t_ip, t_items = (d[x] for x in ("U", "V", "ip", "cols", "t_ip", "t_items"))
block, repeats = int(sys.argv[2]), int(sys.argv[3])
config = {"metrics": ["NDCG", "Precision", "Recall", "MAP", "MRR", "Hit", "GAUC"], "eval_args": {"mode": "full"},
          "topk": [10], "device": torch.device("cpu"), "metric_decimal_place": 15}
Vt = torch.from_numpy(V).T.contiguous()
times = []
for _ in range(repeats):
    t0 = time.perf_counter()
    col = Collector(config)
    for b in range(0, U.shape[0], block):
        e = min(U.shape[0], b + block)
        S = torch.full((e - b, V.shape[0] + 1), -float("inf"))
        S[:, 1:] = torch.from_numpy(U[b:e]) @ Vt
        rows = np.repeat(np.arange(e - b), np.diff(ip[b:e + 1]))
        S[torch.from_numpy(rows), torch.from_numpy(cols[ip[b]:ip[e]] + 1)] = -float("inf")
        pu = np.repeat(np.arange(e - b), np.diff(t_ip[b:e + 1]))
        col.eval_batch_collect(S, None, torch.from_numpy(pu), torch.from_numpy(t_items[t_ip[b]:t_ip[e]] + 1))
    ds = col.get_data_struct()
    for m in (NDCG, Precision, Recall, MAP, MRR, Hit):
        m(config).calculate_metric(ds)
    mr = ds.get("rec.meanrank").numpy()
    GAUC(config).metric_info(mr[:, 0:1], mr[:, 1], mr[:, 2])
    times.append(time.perf_counter() - t0)
json.dump({"seconds": sorted(times)[len(times) // 2]}, sys.stdout)
"""

CORNAC = r"""
import json, sys, time
import numpy as np
from cornac import metrics as M
d = np.load(sys.argv[1])
U, V, ip, cols, t_ip, t_items = (d[x] for x in ("U", "V", "ip", "cols", "t_ip", "t_items"))
repeats = int(sys.argv[2])
ms = [M.NDCG(k=10), M.Precision(k=10), M.Recall(k=10), M.MRR()]
auc = M.AUC()
items = np.arange(V.shape[0])
times = []
for _ in range(repeats):
    t0 = time.perf_counter()
    for u in range(U.shape[0]):
        scores = V @ U[u]
        scores[cols[ip[u]:ip[u + 1]]] = -np.inf
        ranked = np.argsort(-scores, kind="stable")
        gt = np.unique(t_items[t_ip[u]:t_ip[u + 1]])
        for m in ms:
            m.compute(gt_pos=gt, pd_rank=ranked)
        neg = np.ones(V.shape[0], dtype=bool)
        neg[gt] = False
        neg[cols[ip[u]:ip[u + 1]]] = False
        auc.compute(item_indices=items, pd_scores=scores, gt_pos=gt, gt_neg=items[neg])
    times.append(time.perf_counter() - t0)
json.dump({"seconds": sorted(times)[len(times) // 2]}, sys.stdout)
"""


def peer(venv: str, script: str, npz: str, *args: object) -> dict | None:
    """Run ``script`` in the peer venv on the saved workload; None when the venv is missing or fails."""
    import json
    import pathlib
    import tempfile

    py = pathlib.Path(os.path.expanduser(f"~/.cache/rankmeter-peers/{venv}/bin/python"))
    if not py.exists():
        return None
    with tempfile.TemporaryDirectory() as d:
        path = pathlib.Path(d) / "run.py"
        path.write_text(script)
        p = subprocess.run([str(py), str(path), npz, *map(str, args)], capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(p.stdout)


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
    ap.add_argument("--peers", action="store_true", help="also time torch, RecBole and Cornac in their venvs")
    ap.add_argument("--peer-users", type=int, default=2000, help="users RecBole and Cornac are timed on (scaled)")
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
    if args.peers:
        import tempfile

        t = truth
        with tempfile.TemporaryDirectory() as d:
            npz = os.path.join(d, "w.npz")
            np.savez(
                npz,
                U=U,
                V=V,
                ip=train.indptr.astype(np.int64),
                cols=train.indices.astype(np.int64),
                t_ip=np.asarray(t.indptr, dtype=np.int64),
                t_items=np.asarray(t.items, dtype=np.int64),
            )
            got = peer("torch", TORCH, npz, args.k, args.mm_block, args.repeats)
            if got is None:
                print("torch: the torch venv is missing or failed (bash bench/peers/setup.sh torch)")
            else:
                print(
                    f"torch {got['torch']} CPU matmul + train mask + topk (lists only, {got['threads']} threads)  "
                    f"median {got['seconds']:.2f} s  ({got['seconds'] / t_model:.2f}x evaluate_model)"
                )
            n = min(args.peer_users, args.users)
            small = os.path.join(d, "s.npz")
            np.savez(
                small,
                U=U[:n],
                V=V,
                ip=train.indptr[: n + 1].astype(np.int64),
                cols=train.indices[: train.indptr[n]].astype(np.int64),
                t_ip=np.asarray(t.indptr[: n + 1], dtype=np.int64),
                t_items=np.asarray(t.items[: t.indptr[n]], dtype=np.int64),
            )
            for name, venv, script, extra in (
                ("RecBole 1.2.1 full-sort Collector + 7 metrics", "recbole", RECBOLE, (args.mm_block, 1)),
                ("Cornac 3.0 ranking_eval's per-user loop, 5 metrics", "cornac", CORNAC, (1,)),
            ):
                got = peer(venv, script, small, *extra)
                if got is None:
                    print(f"{name}: the {venv} venv is missing or failed (bash bench/peers/setup.sh {venv})")
                    continue
                scaled = got["seconds"] * args.users / n
                print(
                    f"{name}: {got['seconds']:.2f} s for the first {n:,} users, scaled x{args.users / n:g} to "
                    f"{scaled:.0f} s (stated, not measured): {scaled / t_model:.0f}x evaluate_model"
                )
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
