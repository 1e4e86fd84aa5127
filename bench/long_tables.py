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

import numpy as np

import rankmeter as rm

HERE = Path(__file__).resolve().parent
METRICS = ["ndcg@10", "map@10", "precision@10", "recall@10"]


def columns(w):
    n = w.n_users
    return {
        "t_user": np.repeat(np.arange(n, dtype=np.int64), np.diff(w.truth_indptr)),
        "t_item": w.truth_items, "t_rel": w.truth_grades,
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--peer-users", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--peers-dir", default=os.environ.get("RANKMETER_PEERS",
                                                          str(Path.home() / ".cache" / "rankmeter-peers")))
    ap.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.memory_child:
        return memory_child(args.users)

    w = rm.datasets.w1(args.users, seed=0)
    c = columns(w)
    print(f"W1 as long tables: {w.n_users:,} users, {c['r_item'].size:,} rec rows, {c['t_item'].size:,} truth rows; "
          f"{', '.join(METRICS)}; medians of {args.repeats}")
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
    from compare import python_of, run_one, save_slice  # noqa: E402 - bench/ is on sys.path when run from there

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

    p = subprocess.run([sys.executable, __file__, "--memory-child", "--users", str(args.users)], capture_output=True,
                       text=True)
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
        print(f"peak extra memory of a pandas evaluate(): {mem['extra_mb']:,.0f} MB over {mem['base_mb']:,.0f} MB "
              f"resident; the id/grade/rank columns involved are {mem['columns_mb']:,.0f} MB "
              f"(ratio {mem['extra_mb'] / mem['columns_mb']:.2f})")
    else:
        print("memory child failed:", p.stderr[-500:])
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    raise SystemExit(main())
