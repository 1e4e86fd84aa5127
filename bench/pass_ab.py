"""Two builds of the fused accuracy pass timed side by side in one process, on W1.

    python bench/pass_ab.py --old OLD/_core.so [--users 1000000] [--rounds 15]

The new build is the ``rankmeter`` this interpreter imports (its ``_core``); the old one is loaded from
the given file. Both compiled cores live in one interpreter; the script calls their
``ranking_pass`` on the same W1 buffers (``rankmeter.datasets.w1``), alternating old and new in every
round, for the six @10 columns and the twenty columns of bench/callgrind_w1.py. Prints the median of
each and the ratio new / old, and checks that both builds return the same bytes. The old build may
take its columns as the positional integer rows of earlier versions (``col_ints``/``col_floats``);
the script passes whichever form each build's signature asks for (also for the duplicates policy).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import time

import numpy as np

import rankmeter as rm
from rankmeter import metrics

SIX = ["precision@10", "recall@10", "ap@10", "ndcg@10", "rr@10", "hit_rate@10"]
TWENTY = [
    f"{m}@{k}"
    for k in (10, 100)
    for m in ("precision", "recall", "f1", "map", "mar", "ndcg", "dcg", "hit_rate", "mrr", "arhr")
]


def load(name: str, path: str):
    spec = importlib.util.spec_from_file_location(f"{name}._core", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def columns_for(core, names: list):
    """The columns argument(s) in the form this build's ranking_pass takes."""
    cols = [metrics.parse(n)._column() for n in names]
    if "col_ints" not in core.ranking_pass.__doc__:
        return {"columns": cols}, core.EmptyPolicy.skip
    ints, floats = [], []
    for c in cols:
        param = (
            c.beta
            if c.kind.name == "fbeta"
            else c.p
            if c.kind.name == "rbp"
            else c.max_grade
            if c.kind.name == "err"
            else 1.0
        )
        ints.append(
            [int(c.kind), c.cutoff, int(c.denominator), int(c.gain), int(c.ideal), int(c.below_min), int(c.short_lists)]
        )
        floats.append([c.log_base, param])
    return {"col_ints": np.array(ints, dtype=np.int64), "col_floats": np.array(floats, dtype=np.float64)}, 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True)
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument(
        "--means-only",
        action="store_true",
        help="per_user=False: no per-user output matrix (its fresh pages are a large, noisy part of a call)",
    )
    args = ap.parse_args()
    cores = {"old": load("rm_old", args.old), "new": rm._core}
    w = rm.datasets.w1(args.users, seed=0)
    t, r = w.truth, w.recs
    base = dict(
        t_indptr=t.indptr,
        t_items=t.items_native,
        t_grades=t.grades_native,
        r_indptr=r.indptr,
        r_items=r.items_native,
        r_stride=0,
        r_pad=-1,
        r_rowmap=None,
        min_relevance=None,
        max_items=0,
        threads=args.threads,
    )
    what = "means only (per_user=False)" if args.means_only else "per-user columns"
    print(
        f"W1 {args.users:,} users, {args.threads} threads, {what}, {args.rounds} rounds alternating old/new (medians)"
    )
    for label, names in (("six @10", SIX), ("twenty", TWENTY)):
        calls = {}
        for side, core in cores.items():
            cols, empty = columns_for(core, names)
            # the duplicates policy as each build takes it (earlier builds: a dup_first flag)
            dups = {"duplicates": core.DupPolicy.error} if hasattr(core, "DupPolicy") else {"dup_first": False}
            calls[side] = (core, {**base, **cols, **dups, "empty": empty})
        outs = {side: core.ranking_pass(**kw) for side, (core, kw) in calls.items()}
        same = all((a is None and b is None) or np.array_equal(a, b) for a, b in zip(outs["old"][:3], outs["new"][:3]))
        times: dict = {"old": [], "new": []}
        for _ in range(args.rounds):
            for side in ("old", "new"):
                core, kw = calls[side]
                t0 = time.perf_counter()
                core.ranking_pass(**kw)
                times[side].append(time.perf_counter() - t0)
        mo, mn = statistics.median(times["old"]), statistics.median(times["new"])
        print(f"{label:8s} old {mo:.4f} s  new {mn:.4f} s  new/old {mn / mo:.3f}  identical outputs: {same}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
