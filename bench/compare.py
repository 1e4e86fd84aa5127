"""rankmeter against every installed peer on workload W1, side by side in one run.

    python bench/compare.py --users 1000000            # the published table
    python bench/compare.py --users 100000 --repeats 5 --only ranx,numpy

Builds W1 (rankmeter.datasets.w1) once at ``--users``, writes it (and the smaller slices the
slow peers run on) as .npz files, then runs every contender in a subprocess of
its own (bench/peers/worker.py), with the Python of the contender's virtual
environment (bench/peers/setup.sh makes them; ``--peers-dir`` or
RANKMETER_PEERS says where). Each subprocess reports its conversion time
(buffers -> the peer's input form) and compute time separately, medians of
``--repeats``, its peak RSS, and the mean of every metric it computed.

Peers too slow for the full user count run on the first N users (column
"users") and their times are extrapolated linearly to ``--users`` (marked
"~"). Agreement: rankmeter evaluates the same users with its options set to
each peer's convention (the mapping below) and the largest absolute
difference over the peer's metrics is printed.

The beyond-accuracy targets (coverage, gini, arp, novelty, FCP on W1; Recs.from_scores
against one read of its matrix) follow in a table of their own (bench/beyond_rows.py).

Speed-up = the peer's (extrapolated) compute time / rankmeter's compute time
for ten accuracy metrics at k = 10 and 100 (20 columns) on all users: a peer
computing fewer metrics is not credited for it.
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
WORKER = HERE / "peers" / "worker.py"

# name: (venv or None for this Python, users by default (None = all), {peer value: rankmeter metric}, evaluate kw)
CONTENDERS: dict[str, tuple[Any, Any, dict, dict]] = {
    "rankmeter": (None, None, {}, {}),
    "floor": (None, None, {}, {}),
    # implicit's precision is a micro-average (sum of hits / sum of min(K, |R|)): not compared.
    # ranking_metrics_at_k returns only the means, so rankmeter is asked for the means only too.
    "implicit": (
        "implicit",
        None,
        {"map": "map(denominator=min_relevant_k)@10", "ndcg": "ndcg(gain=binary)@10"},
        {"per_user": False},
    ),
    "numpy": (None, None, {"precision": "precision@10", "recall": "recall@10", "map": "map@10", "ndcg": "ndcg@10"}, {}),
    "ranx": (
        "ranx",
        100_000,
        {
            "precision@10": "precision@10",
            "recall@10": "recall@10",
            "map@10": "map@10",
            "ndcg@10": "ndcg@10",
            "mrr@10": "mrr@10",
            "hit_rate@10": "hit_rate@10",
        },
        {},
    ),
    "ranx_fast": (
        "ranx",
        100_000,
        {
            "precision@10": "precision@10",
            "recall@10": "recall@10",
            "map@10": "map@10",
            "ndcg@10": "ndcg@10",
            "mrr@10": "mrr@10",
            "hit_rate@10": "hit_rate@10",
        },
        {},
    ),
    # the 16 columns ranx has of rankmeter's 20 (no AR, no ARHR), on its fastest path
    "ranx_fast16": (
        "ranx",
        100_000,
        {
            f"{m}@{k}": f"{m}@{k}"
            for m in ("precision", "recall", "f1", "map", "ndcg", "dcg", "hit_rate", "mrr")
            for k in (10, 100)
        },
        {},
    ),
    "pytrec_eval": (
        "pytrec_eval",
        100_000,
        {
            "P_10": "precision@10",
            "recall_10": "recall@10",
            "map_cut_10": "map@10",
            "ndcg_cut_10": "ndcg@10",
            "recip_rank": "mrr",
            "success_10": "success@10",
        },
        {"preset": "trec_eval"},
    ),
    "pytrec_eval_top": (
        "ir_measures",
        100_000,
        {
            "P_10": "precision@10",
            "recall_10": "recall@10",
            "map_cut_10": "map@10",
            "ndcg_cut_10": "ndcg@10",
            "recip_rank": "mrr@10",
            "success_10": "success@10",
        },
        {"preset": "trec_eval"},
    ),
    "rectools": (
        "rectools",
        100_000,
        {
            "precision": "precision@10",
            "recall": "recall@10",
            "map": "map@10",
            "ndcg": "ndcg(gain=binary,ideal=k_slots)@10",
            "mrr": "mrr@10",
            "hit_rate": "hit_rate@10",
        },
        {},
    ),
    "recommenders": (
        "msr",
        20_000,
        {
            "precision": "precision@10",
            "recall": "recall@10",
            "map": "map(denominator=min_relevant_k)@10",
            "ndcg": "ndcg(gain=binary)@10",
        },
        {},
    ),
    "torchmetrics": (
        "torch",
        20_000,
        {
            "precision": "precision@10",
            "recall": "recall@10",
            "map": "map(denominator=hits)@10",
            "ndcg": "ndcg@10",
            "mrr": "mrr@10",
            "hit_rate": "hit_rate@10",
        },
        {},
    ),
    "evidently": (
        "evidently",
        10_000,
        {
            "precision": "precision@10",
            "recall": "recall@10",
            "map": "map@10",
            "ndcg": "ndcg(gain=binary)@10",
            "mrr": "mrr@10",
            "hit_rate": "hit_rate@10",
        },
        {},
    ),
    "ml_metrics": (
        "recm",
        100_000,
        {"ml_metrics.mapk": "map(denominator=min_relevant_k)@10", "recmetrics.mark": "map@10"},
        {},
    ),
    "python_loops": (
        None,
        100_000,
        {"precision": "precision@10", "recall": "recall@10", "map": "map@10", "ndcg": "ndcg@10"},
        {},
    ),
}

LABEL = {
    "rankmeter": "rankmeter.evaluate (20 columns)",
    "floor": "memory floor (np.add.reduce)",
    "implicit": "implicit.evaluation (stand-in model; same metrics: rankmeter on the top-10 lists it receives)",
    "numpy": "numpy (vectorised, 4 metrics)",
    "ranx": "ranx (warm numba; Qrels/Run + ranx.evaluate)",
    "ranx_fast": "ranx fastest path (warm numba kernels on typed-List qrels + UxKx2 run array)",
    "ranx_fast16": "ranx fastest path, its 16 columns (8 metrics x k 10, 100; warm numba kernels, Ux100x2 run array)",
    "pytrec_eval": "pytrec_eval",
    "pytrec_eval_top": "pytrec_eval on its run cut to the top 10 (evaluator built beforehand; rankmeter on the same top-10 run)",
    "rectools": "RecTools calc_metrics",
    "recommenders": "MS Recommenders python_evaluation",
    "torchmetrics": "torchmetrics retrieval",
    "evidently": "Evidently Report (recsys metrics)",
    "ml_metrics": "ml_metrics.mapk + recmetrics.mark",
    "python_loops": "per-user Python loops",
}


def save_slice(w, n: int, path: Path) -> None:
    tp, rp = w.truth_indptr[: n + 1], w.recs_indptr[: n + 1]
    np.savez(
        path,
        truth_indptr=tp,
        truth_items=w.truth_items[: tp[-1]],
        truth_grades=w.truth_grades[: tp[-1]],
        recs_indptr=rp,
        recs_items=w.recs_items[: rp[-1]],
    )


def python_of(venv, peers_dir: Path):
    if venv is None:
        return sys.executable
    exe = peers_dir / venv / "bin" / "python"
    return str(exe) if exe.exists() else None


def run_one(name, python, npz, repeats, timeout):
    out = npz.parent / f"{name}.json"
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    t0 = time.perf_counter()
    try:
        p = subprocess.run(
            [python, str(WORKER), name, str(npz), str(repeats), str(out)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    if p.returncode != 0 or not out.exists():
        tail = (p.stderr or p.stdout).strip().splitlines()[-1:] or ["?"]
        return {"error": f"exit {p.returncode}: {tail[0][:120]}"}
    res = json.loads(out.read_text())
    res["wall"] = time.perf_counter() - t0
    return res


def agreement(w, n, mapping, kw, values):
    if not mapping or not values:
        return None
    tp, rp = w.truth_indptr[: n + 1], w.recs_indptr[: n + 1]
    truth = rm.Truth.from_csr(tp, w.truth_items[: tp[-1]], w.truth_grades[: tp[-1]])
    recs = rm.Recs.from_csr(rp, w.recs_items[: rp[-1]])
    ours = rm.evaluate(truth, recs, sorted(set(mapping.values())), **kw)
    diffs = {k: abs(values[k] - ours[m]) for k, m in mapping.items() if k in values}
    return max(diffs.values()) if diffs else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--only", default="", help="comma-separated contenders (default: all that are installed)")
    ap.add_argument("--peer-users", default="", help="overrides, e.g. ranx=1000000,torchmetrics=50000")
    ap.add_argument(
        "--peers-dir", default=os.environ.get("RANKMETER_PEERS", str(Path.home() / ".cache" / "rankmeter-peers"))
    )
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per contender")
    ap.add_argument("--json", default="", help="also write the raw results here")
    ap.add_argument(
        "--topk-users",
        type=int,
        default=20_000,
        help="rows of the float32 score matrix of the Recs.from_scores row (0: skip; 20,000 = 8 GB)",
    )
    ap.add_argument("--no-beyond", action="store_true", help="leave out the beyond-accuracy target rows")
    ap.add_argument(
        "--reuse",
        default="",
        help="take the contenders' results from this --json file of an earlier "
        "run at the same --users (only rankmeter's same-metric timings are measured again)",
    )
    args = ap.parse_args()
    peers_dir = Path(args.peers_dir)
    only = [x for x in args.only.split(",") if x]
    overrides = {k: int(v) for k, v in (x.split("=") for x in args.peer_users.split(",") if x)}

    t0 = time.perf_counter()
    w = rm.datasets.w1(args.users, seed=0)
    print(
        f"W1: {w.n_users:,} users, {w.recs_items.size:,} rec rows, {w.truth_items.size:,} truth rows, "
        f"{w.nbytes / 1e6:,.0f} MB of buffers (built in {time.perf_counter() - t0:.1f} s)"
    )
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Linux {platform.release()}, "
        f"Python {platform.python_version()}, numpy {np.__version__}, rankmeter {rm.__version__}; "
        f"{args.repeats} repeats, medians",
        flush=True,
    )

    results = json.loads(Path(args.reuse).read_text()) if args.reuse else {}
    with tempfile.TemporaryDirectory(prefix="rm-compare-") as tmp_name:
        tmp = Path(tmp_name)
        files = {}
        for name, (venv, n_default, mapping, kw) in CONTENDERS.items():
            if args.reuse:
                break
            if only and name not in only and name not in ("rankmeter", "floor"):
                continue
            python = python_of(venv, peers_dir)
            if python is None:
                results[name] = {"error": f"not installed (no venv {peers_dir / venv}; bash bench/peers/setup.sh)"}
                print(f"  {name:<14} skipped: not installed", flush=True)
                continue
            n = min(overrides.get(name, n_default or args.users), args.users)
            if n not in files:
                files[n] = tmp / f"w1_{n}.npz"
                save_slice(w, n, files[n])
            d = tmp / name
            d.mkdir()
            npz = d / "w.npz"
            os.link(files[n], npz)
            res = run_one(name, python, npz, args.repeats, args.timeout)
            res["n"] = n
            if "error" not in res:
                try:
                    res["diff"] = agreement(w, n, mapping, kw, res["values"])
                except Exception as e:  # pragma: no cover - reported, not fatal
                    res["diff_error"] = str(e)
            results[name] = res
            msg = res.get("error") or f"compute {statistics.median(res['compute']):.4f} s on {n:,} users"
            print(f"  {name:<14} {msg}", flush=True)

    # rankmeter on each peer's own metric set (its conventions), all users, in this process
    truth = rm.Truth.from_csr(w.truth_indptr, w.truth_items, w.truth_grades)
    recs = rm.Recs.from_csr(w.recs_indptr, w.recs_items)
    for name, res in results.items():
        _, _, mapping, kw = CONTENDERS[name]
        if "error" in res or not mapping:
            continue
        ms = sorted(set(mapping.values()))
        r_in = recs
        if name in ("implicit", "pytrec_eval_top"):
            # implicit only ever sees the top K of each list (model.recommend(N=K)), and
            # pytrec_eval_top gets its run cut to the top 10: rankmeter gets the same K items
            # per user, as CSR built before the clock starts (with preset="trec_eval" it would
            # otherwise read whole lists for duplicates, as trec_eval does)
            n = w.n_users
            top = np.ascontiguousarray(w.recs_items.reshape(n, -1)[:, :10]).ravel()
            r_in = rm.Recs.from_csr(np.arange(0, 10 * n + 1, 10, dtype=np.int64), top)
        rm.evaluate(truth, r_in, ms, **kw)
        ts = []
        for _ in range(args.repeats):
            t1 = time.perf_counter()
            rm.evaluate(truth, r_in, ms, **kw)
            ts.append(time.perf_counter() - t1)
        res["rankmeter_same"] = statistics.median(ts)
    print_table(results, args.users)
    from w1_floor import floor_rows, print_floor_rows

    print("\nrankmeter against the memory floors (this process, the contenders alternating in rounds):")
    print_floor_rows(floor_rows(w, args.repeats))
    if not args.no_beyond:
        from beyond_rows import beyond_rows, print_rows

        print_rows(beyond_rows(w, args.repeats, args.topk_users))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


def print_table(results, users):
    rmk = results.get("rankmeter", {})
    base = statistics.median(rmk["compute"]) if "compute" in rmk else float("nan")
    print()
    print(
        f"| contender | users run | convert s | compute s | compute at {users:,} users | speed-up of rankmeter "
        f"(20 columns) | rankmeter, same metrics s | speed-up, same metrics | peak RSS MB | max abs diff |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        if "error" in r:
            print(f"| {LABEL[name]} | | | | {r['error']} | | | | | |")
            continue
        n = r["n"]
        conv, comp = statistics.median(r["convert"]), statistics.median(r["compute"])
        scale = users / n if n else 1.0
        full = comp * scale
        mark = "~" if n != users else ""
        ratio = full / base if name != "rankmeter" else 1.0
        diff = r.get("diff")
        dtxt = "" if diff is None else f"{diff:.1e}"
        same = r.get("rankmeter_same")
        stxt = f"{same:.4f} | {full / same:,.1f}x" if same else " | "
        print(
            f"| {LABEL[name]} | {n:,} | {conv:.3f} | {comp:.4f} | {mark}{full:.3f} | "
            f"{ratio:,.1f}x | {stxt} | {r['rss_mb']:,.0f} | {dtxt} |"
        )
        if name == "ranx" and r.get("cold") is not None:
            cold = r["cold"] * scale
            stxt = f"{same:.4f} | {cold / same:,.1f}x" if same else " | "
            print(
                f"| ranx (cold: first call, numba JIT) | {n:,} | | {r['cold']:.3f} | {mark}{cold:.3f} | "
                f"{cold / base:,.1f}x | {stxt} | | |"
            )
    if "floor" in results and "compute" in results["floor"]:
        fl = statistics.median(results["floor"]["compute"])
        print(f"\nrankmeter / memory floor: {base / fl:.2f}x  (rankmeter {base:.4f} s, one read pass {fl:.4f} s)")


if __name__ == "__main__":
    sys.exit(main())
