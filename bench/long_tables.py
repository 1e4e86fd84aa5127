"""W1 as long tables (pandas, polars, pyarrow): conversion + evaluate, against the DataFrame peers.

    python bench/long_tables.py --users 1000000 --peer-users 100000

rankmeter is timed end to end from the tables (grouping users, coding ids,
ranking, the fused pass) for NDCG, MAP, precision and recall at 10, once per
table library. RecTools (calc_metrics) and Microsoft Recommenders
(python_evaluation) get the same pandas tables (their column names) in their
own virtual environments (bench/peers/setup.sh), on the first --peer-users
users, extrapolated linearly (marked "~"). The peak extra memory of a pandas
evaluate() is measured in a fresh process: VmHWM is reset after the tables are
built (/proc/self/clear_refs), so the figure is what evaluate() adds on top.

String ids (``--string-users``, default 200,000: 20M recs rows): the same W1
data written twice as parquet files, once with int64 ids and once with string
ids (``"user-<n>"``, ``"item-<n>"``), and ``rankmeter.evaluate(truth_path,
recs_path, ...)`` timed end to end from the files, each run in a fresh process
that reports its wall time and its peak resident memory (VmHWM, the whole
process: interpreter, imports, read tables, evaluation). ``--only-strings``
runs just that part.
"""

from __future__ import annotations

import argparse
import json
import os
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
METRICS = ["ndcg@10", "map@10", "precision@10", "recall@10"]


def columns(w):
    n = w.n_users
    return {
        "t_user": np.repeat(np.arange(n, dtype=np.int64), np.diff(w.truth_indptr)),
        "t_item": w.truth_items,
        "t_rel": w.truth_grades,
        "r_user": np.repeat(np.arange(n, dtype=np.int64), np.diff(w.recs_indptr)),
        "r_item": w.recs_items,
        "r_rank": (np.arange(w.recs_items.size) - np.repeat(w.recs_indptr[:-1], np.diff(w.recs_indptr)) + 1),
    }


def tables(c, lib):
    t = {"user_id": c["t_user"], "item_id": c["t_item"], "relevance": c["t_rel"]}
    r = {"user_id": c["r_user"], "item_id": c["r_item"], "rank": c["r_rank"]}
    if lib == "pandas":
        import pandas as pd

        return pd.DataFrame(t, copy=False), pd.DataFrame(r, copy=False)
    if lib == "polars":
        import polars as pl

        return pl.DataFrame(t), pl.DataFrame(r)
    import pyarrow as pa

    return pa.table(t), pa.table(r)


def vm(key: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def memory_child(users: int) -> int:
    """Run in a fresh process: peak memory evaluate() adds over the built pandas tables."""
    w = rm.datasets.w1(users, seed=0)
    c = columns(w)
    truth, recs = tables(c, "pandas")
    del w
    cols_mb = sum(c[k].nbytes for k in c) / 2**20
    rm.evaluate(truth.head(1000), recs.head(1000), METRICS)  # imports, thread pool
    base = vm("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset VmHWM to the current RSS
    rm.evaluate(truth, recs, METRICS)
    peak = vm("VmHWM")
    print(json.dumps({"columns_mb": cols_mb, "base_mb": base, "peak_mb": peak, "extra_mb": peak - base}))
    return 0


def write_parquet_pair(users: int, directory: str) -> dict:
    """W1 with ``users`` users as parquet (truth, recs) twice: int64 ids and string ids."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    w = rm.datasets.w1(users, seed=0)
    c = columns(w)
    del w
    paths: dict[str, Any] = {}
    for kind in ("int64", "string"):

        def ids(a, prefix, kind=kind):
            arr = pa.array(a)
            if kind == "int64":
                return arr
            return pc.binary_join_element_wise(prefix, pc.cast(arr, pa.string()), "")

        t = pa.table(
            {"user_id": ids(c["t_user"], "user-"), "item_id": ids(c["t_item"], "item-"), "relevance": c["t_rel"]}
        )
        r = pa.table({"user_id": ids(c["r_user"], "user-"), "item_id": ids(c["r_item"], "item-"), "rank": c["r_rank"]})
        paths[kind] = (
            os.path.join(directory, f"truth_{kind}.parquet"),
            os.path.join(directory, f"recs_{kind}.parquet"),
        )
        pq.write_table(t, paths[kind][0])
        pq.write_table(r, paths[kind][1])
    paths["rows"] = int(c["r_item"].size), int(c["t_item"].size)
    return paths


def parquet_child(truth_path: str, recs_path: str) -> int:
    """Run in a fresh process: evaluate from the two parquet paths; wall time and peak RSS."""
    t0 = time.perf_counter()
    res = rm.evaluate(truth_path, recs_path, METRICS)
    dt = time.perf_counter() - t0
    print(json.dumps({"seconds": dt, "peak_mb": vm("VmHWM"), "means": res.means}))
    return 0


def string_id_runs(users: int, repeats: int) -> None:
    """Time and peak memory of evaluate() from parquet with int64 ids and with string ids (fresh processes)."""
    with tempfile.TemporaryDirectory(prefix="rm-strids-") as tmp:
        paths = write_parquet_pair(users, tmp)
        n_r, n_t = paths["rows"]
        print(
            f"parquet, {users:,} users: {n_r:,} recs rows, {n_t:,} truth rows; evaluate(truth_path, recs_path) in a "
            f"fresh process each time (time: the call; memory: the process's peak RSS); medians of {repeats}",
            flush=True,
        )
        out: dict = {"int64": [], "string": []}
        for _ in range(repeats):
            for kind in ("int64", "string"):  # interleaved: load changes hit both
                p = subprocess.run(
                    [sys.executable, __file__, "--parquet-child", *paths[kind]], capture_output=True, text=True
                )
                if p.returncode != 0:
                    print(f"  {kind}: child failed: {p.stderr[-800:]}")
                    return
                out[kind].append(json.loads(p.stdout.strip().splitlines()[-1]))
        assert out["int64"][0]["means"] == out["string"][0]["means"], (out["int64"][0], out["string"][0])
        med = {
            k: (statistics.median(x["seconds"] for x in v), statistics.median(x["peak_mb"] for x in v))
            for k, v in out.items()
        }
        print("| ids | seconds (median) | runs | peak RSS MB (median) |")
        print("|---|---:|---|---:|")
        for kind in ("int64", "string"):
            runs = ", ".join(f"{x['seconds']:.2f}" for x in out[kind])
            print(f"| {kind} | {med[kind][0]:.3f} | {runs} | {med[kind][1]:,.0f} |")
        print(
            f"string / int64: time {med['string'][0] / med['int64'][0]:.2f}x, "
            f"peak memory {med['string'][1] / med['int64'][1]:.2f}x (target: <= 3x each)",
            flush=True,
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--peer-users", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument(
        "--peers-dir", default=os.environ.get("RANKMETER_PEERS", str(Path.home() / ".cache" / "rankmeter-peers"))
    )
    ap.add_argument(
        "--string-users",
        type=int,
        default=200_000,
        help="users of the parquet string-id vs int64-id run (x 100 recs rows; 0: skip)",
    )
    ap.add_argument("--only-strings", action="store_true", help="only the parquet string-id vs int64-id run")
    ap.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--parquet-child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.memory_child:
        return memory_child(args.users)
    if args.parquet_child:
        return parquet_child(*args.parquet_child)
    if args.only_strings:
        string_id_runs(args.string_users, args.repeats)
        return 0

    w = rm.datasets.w1(args.users, seed=0)
    c = columns(w)
    print(
        f"W1 as long tables: {w.n_users:,} users, {c['r_item'].size:,} rec rows, {c['t_item'].size:,} truth rows; "
        f"{', '.join(METRICS)}; medians of {args.repeats}"
    )
    rows = []
    ref = rm.evaluate(w.truth, w.recs, METRICS)
    for lib in ("pandas", "polars", "pyarrow"):
        try:
            truth, recs = tables(c, lib)
        except ImportError:
            print(f"  {lib}: not installed")
            continue
        res = rm.evaluate(truth, recs, METRICS)
        assert res.means == ref.means, lib
        ts = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            rm.evaluate(truth, recs, METRICS)
            ts.append(time.perf_counter() - t0)
        rows.append((f"rankmeter from {lib} tables", w.n_users, statistics.median(ts), None))
        print(f"  rankmeter/{lib}: {rows[-1][2]:.3f} s", flush=True)
        del truth, recs

    # the DataFrame peers, on a slice, in their own environments
    from compare import python_of, run_one, save_slice  # bench/ is on sys.path: run as python bench/long_tables.py

    n = min(args.peer_users, args.users)
    with tempfile.TemporaryDirectory(prefix="rm-long-") as tmp:
        for name, venv in (("rectools", "rectools"), ("recommenders", "msr")):
            py = python_of(venv, Path(args.peers_dir))
            if py is None:
                print(f"  {name}: not installed (bash bench/peers/setup.sh {venv})")
                continue
            d = Path(tmp) / name
            d.mkdir()
            save_slice(w, n, d / "w.npz")
            res = run_one(name, py, d / "w.npz", args.repeats, 3600)
            if "error" in res:
                print(f"  {name}: {res['error']}")
                continue
            total = statistics.median([a + b for a, b in zip(res["convert"], res["compute"])])
            rows.append((f"{name} (DataFrames in, metrics out)", n, total, res["values"]))
            print(f"  {name}: {total:.3f} s on {n:,} users", flush=True)

    p = subprocess.run(
        [sys.executable, __file__, "--memory-child", "--users", str(args.users)], capture_output=True, text=True
    )
    mem = json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else None

    fastest_rm = min(r[2] for r in rows if r[0].startswith("rankmeter"))
    peers = [r for r in rows if not r[0].startswith("rankmeter")]
    print()
    print(f"| contender | users run | seconds | at {args.users:,} users | vs rankmeter (pandas) |")
    print("|---|---:|---:|---:|---:|")
    rm_pandas = next((r[2] for r in rows if r[0] == "rankmeter from pandas tables"), fastest_rm)
    for name, nu, t, _ in rows:
        full = t * args.users / nu
        mark = "~" if nu != args.users else ""
        print(f"| {name} | {nu:,} | {t:.3f} | {mark}{full:.3f} | {full / rm_pandas:,.1f}x |")
    if peers:
        best = min(r[2] * args.users / r[1] for r in peers)
        print(f"\nfastest DataFrame peer / rankmeter from pandas: {best / rm_pandas:,.1f}x")
    if mem:
        print(
            f"peak extra memory of a pandas evaluate(): {mem['extra_mb']:,.0f} MB over {mem['base_mb']:,.0f} MB "
            f"resident; the id/grade/rank columns involved are {mem['columns_mb']:,.0f} MB "
            f"(ratio {mem['extra_mb'] / mem['columns_mb']:.2f})"
        )
    else:
        print("memory child failed:", p.stderr[-500:])
    if args.string_users:
        print()
        string_id_runs(args.string_users, args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
