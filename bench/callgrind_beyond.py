"""Instruction counts of the beyond-accuracy calls on W1 (callgrind): repeatable on a noisy machine.

    python bench/callgrind_beyond.py [--users 100000] [--threads 1]
    python bench/callgrind_beyond.py --path /tmp/old --module rankmeter_old   # another build

Like bench/callgrind_w1.py (whose ``count`` it uses): a child process builds W1 and runs one
evaluate() per metric (coverage, gini, arp, novelty, fcp @10, train = W1's truth), bracketed by
a run that only builds the workload; the difference is the cost of the calls. ``--path`` and
``--module`` import another build of the package (e.g. a copy of an older tree renamed, with
its compiled core) to compare two versions on the same counts.
"""

import argparse
import os
import shutil
import sys

from callgrind_w1 import count  # bench/ is on sys.path: run as python bench/callgrind_beyond.py

METRICS = ["coverage@10", "gini@10", "arp@10", "novelty@10", "fcp@10"]

CHILD = """
import {module} as rm
w = rm.datasets.w1({users}, seed=0)
truth = rm.Truth.from_csr(w.truth_indptr, w.truth_items, w.truth_grades)
recs = rm.Recs.from_csr(w.recs_indptr, w.recs_items)
train = (w.truth_indptr, w.truth_items)
for m in {metrics!r}:
    rm.evaluate(truth, recs, [m], train=train, threads={threads})
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--metrics", default=",".join(METRICS))
    ap.add_argument("--path", default="", help="put this directory first on the child's import path (PYTHONPATH)")
    ap.add_argument("--module", default="rankmeter", help="the package to import as rankmeter")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    if args.path:  # the child process (under valgrind) imports from there first
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [args.path, os.environ.get("PYTHONPATH")]))
    kw = dict(module=args.module, users=args.users, threads=args.threads)
    metrics = [m for m in args.metrics.split(",") if m]
    base = count(CHILD.format(metrics=[], **kw))
    full = count(CHILD.format(metrics=metrics, **kw))
    print(f"W1 {args.users:,} users, {args.module}, {args.threads} thread(s), one call each: {', '.join(metrics)}")
    print(
        f"instructions: workload only {base:,}; with the calls {full:,}; the calls alone {full - base:,} "
        f"({(full - base) / args.users:,.0f} per user)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
