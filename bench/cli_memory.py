"""Peak memory of `rankmeter eval` on a large parquet run: default options (the memory budget streams it)
against --no-stream (read whole), side by side, each in its own process measured by /usr/bin/time.

    python bench/cli_memory.py --users 700000      # 70M rows (100 per user, sorted by user), ~340 MB on disk

Writes the run and truth parquet files under --dir (kept for reruns).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

import numpy as np


def make(d: str, n_users: int) -> tuple[str, str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    run, truth = os.path.join(d, f"run_{n_users}.parquet"), os.path.join(d, f"truth_{n_users}.parquet")
    if os.path.exists(run) and os.path.exists(truth):
        return truth, run
    rng = np.random.default_rng(0)
    schema = pa.schema([("user_id", pa.int64()), ("item_id", pa.int64()), ("score", pa.float32())])
    step = 50_000
    with pq.ParquetWriter(run, schema) as w:
        for lo in range(0, n_users, step):
            hi = min(n_users, lo + step)
            u = np.repeat(np.arange(lo, hi, dtype=np.int64), 100)
            items = rng.integers(0, 200_000, u.size, dtype=np.int64)
            score = np.tile(np.linspace(1, 0, 100, dtype=np.float32), hi - lo)
            w.write_table(pa.table({"user_id": u, "item_id": items, "score": score}, schema=schema))
    u = np.repeat(np.arange(n_users, dtype=np.int64), 5)
    items = (np.tile(np.arange(5), n_users) * 40_000 + rng.integers(0, 40_000, u.size)).astype(np.int64)
    pq.write_table(pa.table({"user_id": u, "item_id": items, "relevance": np.ones(u.size)}), truth)
    return truth, run


def measure(args: list[str]) -> tuple[float, int]:
    cmd = ["/usr/bin/time", "-f", "TIME %e %M", sys.executable, "-m", "rankmeter.cli", *args]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    m = re.search(r"TIME ([\d.]+) (\d+)", p.stderr)
    assert m, p.stderr
    return float(m.group(1)), int(m.group(2)) * 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--users", type=int, default=700_000)
    ap.add_argument("--dir", default="/tmp/rankmeter-cli-memory")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    truth, run = make(a.dir, a.users)
    base = ["eval", truth, run, "-m", "ndcg@10", "P@10", "--duplicates", "first", "--no-progress"]
    for label, extra in (("default (memory budget)", []), ("--no-stream (read whole)", ["--no-stream"])):
        t, rss = measure([*base, *extra])
        print(f"{label:<26} {t:7.2f} s   peak RSS {rss / 2**30:5.2f} GiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
