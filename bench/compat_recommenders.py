"""rankmeter.compat.recommenders against Microsoft Recommenders' python_evaluation, side by side.

    python bench/compat_recommenders.py --users 100000 --repeats 3

One workload, built the same way from one seed in every process (a notebook's shape: per user 10 scored
recommendations, some equal scores, about 5 rating_true rows with ratings 1-5 of which some were recommended,
about 5 train rows of the same items, none of them recommended to that user), as pandas DataFrames with string ids ("u12", "i345") and with
int ids; then per repeat one process of each side, alternating (Recommenders in its own venv, bench/peers/setup.sh
msr; the compat module in this Python). Each process times every function once per id kind, in a notebook's
order (Recommenders caches its last join, so functions of one k after the first reuse it, as in a notebook):
the ranking functions at k=10, the rating functions, and the beyond-accuracy ones (co-occurrence similarity;
``--no-beyond`` leaves them out: Recommenders' pair joins take minutes at 100,000 users).

Prints the medians and checks that both sides returned the same values (relative 1e-9).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

PEERS = Path(os.environ.get("RANKMETER_PEERS", Path.home() / ".cache" / "rankmeter-peers"))

WORKER = r"""
import json, sys, time, warnings
import numpy as np
import pandas as pd
warnings.simplefilter("ignore")
side, n, seed, beyond = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
if side == "msr":
    from recommenders.evaluation import python_evaluation as E
else:
    from rankmeter.compat import recommenders as E
g = np.random.default_rng(seed)
n_items, depth = 20_000, 10
recs = np.argsort(g.random((n, 40)), axis=1)[:, :depth] + (np.arange(n) % (n_items - 50))[:, None]
pred = np.round(np.sort(g.random((n, depth)), axis=1)[:, ::-1] * 20) / 20  # some equal scores
n_true = g.integers(3, 8, n)
true_items = [np.concatenate([recs[u, : int(n_true[u]) // 2], n_items + g.integers(0, 5000, int(n_true[u]) - int(n_true[u]) // 2)]) for u in range(n)]
true_items = [np.unique(t) for t in true_items]
train_draw = g.integers(0, n_items, (n, 5))  # items of the same catalog, never one of the user's recommendations
train_ok = ~(train_draw[:, :, None] == recs[:, None, :]).any(axis=2)
train_items = [np.unique(t[ok]) for t, ok in zip(train_draw, train_ok)]

def frames(kind):
    uid = (lambda a: np.char.add("u", a.astype(str)).astype(object)) if kind == "string" else (lambda a: a)
    iid = (lambda a: np.char.add("i", a.astype(str)).astype(object)) if kind == "string" else (lambda a: a)
    u_true = np.repeat(np.arange(n), [len(t) for t in true_items])
    t_items = np.concatenate(true_items)
    rt = pd.DataFrame({"userID": uid(u_true), "itemID": iid(t_items), "rating": (t_items % 5 + 1).astype(float)})
    rp = pd.DataFrame({"userID": uid(np.repeat(np.arange(n), depth)), "itemID": iid(recs.ravel()), "prediction": pred.ravel()})
    u_train = np.repeat(np.arange(n), [len(t) for t in train_items])
    train = pd.DataFrame({"userID": uid(u_train), "itemID": iid(np.concatenate(train_items))})
    return rt, rp, train

out, times = {}, {}
for kind in ("int", "string"):
    rt, rp, train = frames(kind)
    rt01 = rt.assign(rating=(rt["rating"] > 3).astype(float))
    rp01 = rp.assign(prediction=rp["prediction"] / 1.5)
    reco = rp[["userID", "itemID"]]
    calls = [(f, (rt, rp), {"k": 10}) for f in ("precision_at_k", "recall_at_k", "ndcg_at_k", "map_at_k", "map", "r_precision_at_k")]
    calls += [(f, (rt, rp), {}) for f in ("rmse", "mae", "rsquared", "exp_var")]
    calls += [(f, (rt01, rp01), {}) for f in ("auc", "logloss")]
    if beyond:
        calls += [(f, (train, reco), {}) for f in ("catalog_coverage", "distributional_coverage", "novelty", "diversity", "serendipity")]
    for name, args, kw in calls:
        t = time.perf_counter()
        v = getattr(E, name)(*args, **kw)
        times[f"{kind} {name}"] = time.perf_counter() - t
        out[f"{kind} {name}"] = float(v)
print(json.dumps({"times": times, "out": out}))
"""


def one(side: str, n: int, seed: int, beyond: bool) -> dict:
    py = PEERS / "msr" / "bin" / "python" if side == "msr" else Path(sys.executable)
    flags = ["-P"] if side == "msr" else []
    p = subprocess.run(
        [str(py), *flags, "-c", WORKER, side, str(n), str(seed), "1" if beyond else "0"], capture_output=True, text=True
    )
    if p.returncode != 0:
        raise SystemExit(f"{side} failed:\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300) or a == b


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-beyond", action="store_true", help="leave the beyond-accuracy functions out")
    a = ap.parse_args()
    if not (PEERS / "msr" / "bin" / "python").exists():
        raise SystemExit("Recommenders' venv is missing: bash bench/peers/setup.sh msr")
    runs: dict[str, list] = {"msr": [], "compat": []}
    for _ in range(a.repeats):  # alternating processes
        for side in ("msr", "compat"):
            runs[side].append(one(side, a.users, a.seed, not a.no_beyond))
    ref = runs["msr"][0]["out"]
    bad = [k for r in runs["msr"] + runs["compat"] for k, v in r["out"].items() if not _close(v, ref[k])]
    print(
        f"{a.users} users, 10 recommendations and ~5 rating_true rows each (pandas DataFrames); "
        f"medians of {a.repeats} (alternating processes)"
    )
    print(f"{'call':<36} {'Recommenders':>12}  {'compat':>9}  speed-up")
    totals: dict[str, dict[str, float]] = {"msr": {}, "compat": {}}
    for key in runs["msr"][0]["times"]:
        m = statistics.median(r["times"][key] for r in runs["msr"])
        c = statistics.median(r["times"][key] for r in runs["compat"])
        kind = key.split()[0]
        totals["msr"][kind] = totals["msr"].get(kind, 0.0) + m
        totals["compat"][kind] = totals["compat"].get(kind, 0.0) + c
        print(f"{key:<36} {m:10.3f} s  {c:7.3f} s  {m / c:6.1f}x")
    for kind in totals["msr"]:
        m, c = totals["msr"][kind], totals["compat"][kind]
        print(f"{kind + ' ids, all calls':<36} {m:10.3f} s  {c:7.3f} s  {m / c:6.1f}x")
    print("same values on both sides:", not bad, bad[:5])
    if bad:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
