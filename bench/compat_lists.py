"""Times rankmeter.compat.{ml_metrics,recmetrics} against the originals (venv `recm` of bench/peers/setup.sh).

    python bench/compat_lists.py [--users 100000] [--repeats 3] [--ids int|str] [--only NAME] [--rounds R]

Both sides get the same lists of Python lists (10 predictions, 0-5 truth items per user, 5,000 items; int ids,
or with --ids str the strings "item<n>", each distinct id one str object as when read from a file); the
originals run in their own venv in a subprocess, timed there; rankmeter.compat here. Prints the medians side by
side (seconds) and the speed-up (a call under 0.1 s is repeated until 0.3 s have passed, at most 5,000 times, on
both sides). --rounds R alternates the original's process and ours R times, and takes the medians over all the
rounds' calls (for calls of a millisecond or less, on a machine shared with others). --only NAME times only the
functions whose name contains NAME. catalog_coverage draws 1,000 lists, then as many lists as there are users.
personalization and intra_list_similarity run on fewer users (--pairwise-users): the original personalization
builds an n x n similarity matrix.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(os.environ.get("RANKMETER_PEERS", Path.home() / ".cache" / "rankmeter-peers"))

# Both sides read their lists with this code from the same file, so that both get the same objects laid out
# alike in memory (a list made elsewhere, or ids shared differently, changes a loop's speed by a third)
READ = r"""
import json


def read(path):
    d = json.load(open(path))
    if d["str_ids"]:  # one str object per distinct id, as ids read through a vocabulary
        names = {s: s for s in d["catalog"]}
        d["actual"] = [[names[x] for x in row] for row in d["actual"]]
        d["pred"] = [[names[x] for x in row] for row in d["pred"]]
        d["catalog"] = list(names)
    d["pair_pred"] = d["pred"][: d["pairwise_users"]]
    return d
"""

TIMER = (
    READ
    + r"""
import random, statistics, sys, time, warnings
warnings.simplefilter("ignore")
import numpy as np, pandas as pd
import ml_metrics, recmetrics
d = read(sys.argv[1])
a, p, pp, reps = d["actual"], d["pred"], d["pair_pred"], d["repeats"]
feats = pd.DataFrame(d["features"], index=d["catalog"])
pop = {(i if d["str_ids"] else int(i)): c for i, c in d["pop"].items()}
calls = {
    "ml_metrics.mapk": lambda: ml_metrics.mapk(a, p, 10),
    "ml_metrics.apk, a loop over users": lambda: np.mean([ml_metrics.apk(x, y, 10) for x, y in zip(a, p)]),
    "recmetrics.mark": lambda: recmetrics.mark(a, p, 10),
    "recmetrics.novelty": lambda: recmetrics.novelty(p, pop, d["n_train_users"], 10),
    "recmetrics.prediction_coverage": lambda: recmetrics.prediction_coverage(p, d["catalog"]),
    "recmetrics.catalog_coverage": lambda: (random.seed(1), recmetrics.catalog_coverage(p, d["catalog"], 1000))[1],
    "recmetrics.catalog_coverage, k = users": lambda: (
        random.seed(1), recmetrics.catalog_coverage(p, d["catalog"], len(p))
    )[1],
    "recmetrics.personalization": lambda: recmetrics.personalization(pp),
    "recmetrics.intra_list_similarity": lambda: recmetrics.intra_list_similarity(pp, feats),
}
out = {}
for name, f in calls.items():
    if d["only"] not in name:
        continue
    ts = []
    while len(ts) < reps or (sum(ts) < 0.3 and len(ts) < 5000):  # calls under a millisecond: more repeats
        t = time.perf_counter(); v = f(); ts.append(time.perf_counter() - t)
    out[name] = {"times": ts, "value": float(v[0] if isinstance(v, tuple) else v)}
json.dump(out, open(sys.argv[2], "w"))
"""
)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--pairwise-users", type=int, default=5_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ids", choices=["int", "str"], default="int")
    ap.add_argument("--only", default="", help="time only the functions whose name contains this text")
    ap.add_argument(
        "--rounds", type=int, default=1, help="alternate the two sides this many times (medians over all rounds)"
    )
    args = ap.parse_args()
    g = np.random.default_rng(0)
    n_items = 5000
    actual = [g.choice(n_items, int(g.integers(0, 6)), replace=False).tolist() for _ in range(args.users)]
    pred = [g.choice(n_items, 10, replace=False).tolist() for _ in range(args.users)]
    str_ids = args.ids == "str"
    catalog: list = list(range(n_items))
    if str_ids:
        names = [f"item{i}" for i in range(n_items)]
        actual = [[names[i] for i in row] for row in actual]
        pred = [[names[i] for i in row] for row in pred]
        catalog = names
    features = g.integers(0, 2, (n_items, 16)).tolist()
    pop = {(f"item{i}" if str_ids else str(i)): int(c) for i, c in enumerate(g.integers(1, 1000, n_items))}
    data = {
        "actual": actual,
        "pred": pred,
        "pairwise_users": args.pairwise_users,
        "features": features,
        "pop": pop,
        "n_train_users": 2000,
        "n_items": n_items,
        "catalog": catalog,
        "str_ids": str_ids,
        "repeats": args.repeats,
        "only": args.only,
    }
    py = ROOT / "recm" / "bin" / "python"
    with tempfile.TemporaryDirectory() as tmp:
        inp, out = Path(tmp) / "in.json", Path(tmp) / "out.json"
        inp.write_text(json.dumps(data))
        (Path(tmp) / "t.py").write_text(TIMER)
        del actual, pred, data
        space: dict = {}
        exec(READ, space)
        ours = space["read"](str(inp))
        actual, pred, pair_pred, catalog = ours["actual"], ours["pred"], ours["pair_pred"], ours["catalog"]

        import pandas as pd

        from rankmeter.compat import ml_metrics, recmetrics

        feats = pd.DataFrame(features, index=catalog)
        popd = {(i if str_ids else int(i)): c for i, c in pop.items()}
        calls = {
            "ml_metrics.mapk": lambda: ml_metrics.mapk(actual, pred, 10),
            "ml_metrics.apk, a loop over users": lambda: np.mean(
                [ml_metrics.apk(x, y, 10) for x, y in zip(actual, pred)]
            ),
            "recmetrics.mark": lambda: recmetrics.mark(actual, pred, 10),
            "recmetrics.novelty": lambda: recmetrics.novelty(pred, popd, 2000, 10),
            "recmetrics.prediction_coverage": lambda: recmetrics.prediction_coverage(pred, catalog),
            "recmetrics.catalog_coverage": lambda: (
                random.seed(1),
                recmetrics.catalog_coverage(pred, catalog, 1000),
            )[1],
            "recmetrics.catalog_coverage, k = users": lambda: (
                random.seed(1),
                recmetrics.catalog_coverage(pred, catalog, len(pred)),
            )[1],
            "recmetrics.personalization": lambda: recmetrics.personalization(pair_pred),
            "recmetrics.intra_list_similarity": lambda: recmetrics.intra_list_similarity(pair_pred, feats),
        }
        calls = {name: f for name, f in calls.items() if args.only in name}
        theirs: dict = {name: [] for name in calls}
        mine: dict = {name: [] for name in calls}
        values: dict = {}
        for _ in range(args.rounds):  # the original's process, then ours, in turn
            subprocess.run([str(py), str(Path(tmp) / "t.py"), str(inp), str(out)], check=True)
            for name, r in json.loads(out.read_text()).items():
                theirs[name] += r["times"]
                values[name] = r["value"]
            for name, f in calls.items():
                ts: list[float] = []
                while len(ts) < args.repeats or (sum(ts) < 0.3 and len(ts) < 5000):  # as the original's side
                    t = time.perf_counter()
                    v = f()
                    ts.append(time.perf_counter() - t)
                mine[name] += ts
                v = float(v[0] if isinstance(v, tuple) else v)
                if abs(v - values[name]) > 1e-12 * max(1.0, abs(v)):
                    values[name] = None  # a different value: reported below
    print(f"{args.ids} ids" + (f", {args.rounds} rounds" if args.rounds > 1 else ""))
    print(f"{'function':40s} {'users':>8s} {'original s':>11s} {'rankmeter s':>12s} {'speed-up':>9s}  same value")
    for name in calls:
        a, b = statistics.median(theirs[name]), statistics.median(mine[name])
        users = (
            args.pairwise_users
            if name in ("recmetrics.personalization", "recmetrics.intra_list_similarity")
            else args.users
        )
        fmt = ".4f" if min(a, b) >= 0.001 else ".6f"  # calls under a millisecond: to the microsecond
        print(f"{name:40s} {users:8d} {a:11{fmt}} {b:12{fmt}} {a / b:8.1f}x  {values[name] is not None}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
