"""Manual check (not CI): more than 2^31 list entries through one ``evaluate`` call.

Builds a recs CSR with ``--users`` users x 100 items (default 22,000,000 users:
2.2 billion int64 entries, 17.6 GB) in a file under ``--dir``, memory-maps it
read-only, and evaluates it against a truth of one item per user. The data is
built so that every per-user value is known in closed form:

* user u's list is ``(7u + 13j) mod 1000`` for j = 0..99 (distinct: 13 is
  coprime with 1000);
* user u's single relevant item is the one at position ``u mod 100``.

So hits@100 = 1, precision@100 = 1/100, rr = 1 / (u mod 100 + 1) for every
user, with indptr values far beyond 2^31. The script checks every per-user
value and the exact means, reports time and peak RSS, and deletes the file.

    python bench/large_indptr.py --dir /var/tmp --users 22000000
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import time

import numpy as np

import rankmeter as rm

K = 100
N_ITEMS = 1000


def build(path: str, n_users: int, chunk: int = 1_000_000) -> None:
    j = np.arange(K, dtype=np.int64)
    with open(path, "wb") as f:
        for u0 in range(0, n_users, chunk):
            u = np.arange(u0, min(n_users, u0 + chunk), dtype=np.int64)
            block = (7 * u[:, None] + 13 * j[None, :]) % N_ITEMS
            block.tofile(f)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=22_000_000)
    ap.add_argument("--dir", default="/var/tmp")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--keep", action="store_true", help="keep the data file")
    args = ap.parse_args()

    n = args.users
    nnz = n * K
    path = os.path.join(args.dir, f"rankmeter_large_{n}.i64")
    print(f"users {n:,}, list entries {nnz:,} ({nnz / 2**31:.2f} x 2^31), file {nnz * 8 / 1e9:.1f} GB")
    t0 = time.perf_counter()
    if not (os.path.exists(path) and os.path.getsize(path) == nnz * 8):
        build(path, n)
    print(f"built in {time.perf_counter() - t0:.1f} s")
    try:
        items = np.memmap(path, dtype=np.int64, mode="r", shape=(nnz,))
        indptr = np.arange(0, nnz + 1, K, dtype=np.int64)
        u = np.arange(n, dtype=np.int64)
        pos = u % K
        t_items = (7 * u + 13 * pos) % N_ITEMS
        t_indptr = np.arange(n + 1, dtype=np.int64)
        t0 = time.perf_counter()
        res = rm.evaluate(
            (t_indptr, t_items),
            rm.Recs.from_csr(indptr, items),
            ["hits@100", "precision@100", "rr"],
            threads=args.threads,
        )
        dt = time.perf_counter() - t0
        rr = res.per_user["rr"]
        expect_rr = 1.0 / (pos + 1)
        assert np.array_equal(res.per_user["hits@100"], np.ones(n)), "hits@100"
        assert np.array_equal(res.per_user["precision@100"], np.full(n, 0.01)), "precision@100"
        assert np.array_equal(rr, expect_rr), "rr"
        # exact means: math.fsum of the per-user values / n
        reps, rem = divmod(n, K)
        exact_rr = math.fsum([1.0 / (p + 1) for p in range(K)]) * reps + math.fsum(1.0 / (p + 1) for p in range(rem))
        assert res["hits@100"] == 1.0 and res["precision@100"] == 0.01
        assert math.isclose(res["rr"], exact_rr / n, rel_tol=1e-15), (res["rr"], exact_rr / n)
        assert res["rr"] == math.fsum(rr.tolist()) / n
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
        rel = ">" if int(indptr[-1]) > 2**31 else "<="
        print(f"evaluate: {dt:.1f} s; indptr[-1] = {int(indptr[-1]):,} {rel} 2^31 = {2**31:,}")
        print(f"every per-user value and the exact means check out; peak RSS {peak:.1f} GiB (file pages included)")
    finally:
        if not args.keep:
            os.remove(path)


if __name__ == "__main__":
    main()
