"""rankmeter's personalization against recmetrics.personalization, side by side.

recmetrics builds the users x users cosine matrix, so it is measured at growing
user counts (W1 lists cut at k = 10) until a run takes longer than --limit
seconds or fails; rankmeter runs on the same lists (its exact O(total list
length) identity) and then on all 1M users. recmetrics pins old numpy/pandas/
matplotlib, so it runs in its own virtual environment (--peer-python), and the
lists travel as .npz files.

    python -m venv /tmp/recm && /tmp/recm/bin/pip install recmetrics "numpy<2" "matplotlib<3.9"
    python bench/personalization_recmetrics.py --peer-python /tmp/recm/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def child(path: str) -> None:
    import numpy as np
    import recmetrics

    lists = np.load(path)["lists"].tolist()
    t0 = time.perf_counter()
    value = recmetrics.personalization(lists)
    print(json.dumps({"seconds": time.perf_counter() - t0, "value": float(value)}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer-python", required=True)
    ap.add_argument("--sizes", default="1000,2000,5000,10000,20000")
    ap.add_argument("--limit", type=float, default=120.0)
    ap.add_argument("--full", type=int, default=1_000_000)
    args = ap.parse_args()

    import numpy as np

    import rankmeter as rm

    w = rm.datasets.w1(args.full, seed=0)
    lists_all = w.recs_items.reshape(w.n_users, -1)[:, :10]
    print(f"{'users':>9s} {'recmetrics s':>13s} {'rankmeter s':>12s} {'speed-up':>9s}  {'|difference|':>12s}")
    with tempfile.TemporaryDirectory() as d:
        for n in [int(s) for s in args.sizes.split(",")]:
            lists = np.ascontiguousarray(lists_all[:n])
            path = os.path.join(d, f"lists_{n}.npz")
            np.savez(path, lists=lists)
            t0 = time.perf_counter()
            res = rm.evaluate({u: [] for u in range(n)}, lists, ["personalization(similarity=cosine)@10"])
            ours = time.perf_counter() - t0
            value = res["personalization(similarity=cosine)@10"]
            try:
                out = subprocess.run(
                    [args.peer_python, __file__, "--child", path], capture_output=True, text=True, timeout=args.limit
                )
                peer = json.loads(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else None
                why = out.stderr.strip().splitlines()[-1] if out.returncode else ""
            except subprocess.TimeoutExpired:
                peer, why = None, f"over {args.limit:.0f} s"
            if peer is None:
                print(f"{n:9d} {'failed':>13s} {ours:12.3f}  ({why})")
                break
            print(
                f"{n:9d} {peer['seconds']:13.3f} {ours:12.4f} {peer['seconds'] / ours:9.0f}  "
                f"{abs(peer['value'] - value):12.2e}"
            )
        t0 = time.perf_counter()
        res = rm.evaluate(w.truth, lists_all, ["personalization(similarity=cosine)@10", "personalization@10"])
        print(
            f"rankmeter, all {w.n_users:,} users, both variants in one call: {time.perf_counter() - t0:.3f} s "
            f"(cosine {res['personalization(similarity=cosine)@10']:.6f}, overlap {res['personalization@10']:.6f})"
        )


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        main()
