"""Instruction counts of the W1 accuracy pass (callgrind): repeatable on a noisy machine.

    python bench/callgrind_w1.py [--users 100000] [--metrics six|twenty] [--threads 1]

Builds W1 at --users, pickles nothing: a child Python process builds the workload and
runs evaluate() once under ``valgrind --tool=callgrind``, bracketed by a run that only
builds the workload, so the difference is the cost of evaluate() alone. Prints both
totals and the difference. Compare two builds of the core by running this script
against each (the count is the same whatever else the machine is doing).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

SIX = ["precision@10", "recall@10", "ap@10", "ndcg@10", "rr@10", "hit_rate@10"]
TWENTY = [
    f"{m}@{k}"
    for k in (10, 100)
    for m in ("precision", "recall", "f1", "map", "mar", "ndcg", "dcg", "hit_rate", "mrr", "arhr")
]

CHILD = """
import sys
import rankmeter as rm
w = rm.datasets.w1({users}, seed=0)
truth, recs = w.truth, w.recs
if {run}:
    rm.evaluate(truth, recs, {metrics!r}, threads={threads})
"""


def count(code: str, only: str = "") -> int:
    """Instructions of the child run; with `only`, those inside functions matching it (inclusive)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
        if only:
            cmd.append(f"--toggle-collect={only}")
        p = subprocess.run([*cmd, sys.executable, "-c", code], capture_output=True, text=True)
        m = re.search(r"Collected : (\d+)", p.stderr)
        if p.returncode != 0 or not m:
            raise SystemExit(f"callgrind failed:\n{p.stderr[-2000:]}")
        return int(m.group(1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--metrics", choices=("six", "twenty"), default="six")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument(
        "--kernel-only",
        action="store_true",
        help="count only the instructions inside the C++ pass (rankmeter::core::evaluate_ranking and what "
        "it calls): no workload bracket, so no Python noise (repeatable to the instruction)",
    )
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    metrics = SIX if args.metrics == "six" else TWENTY
    if args.kernel_only:
        n = count(
            CHILD.format(users=args.users, run=True, metrics=metrics, threads=args.threads), only="*evaluate_ranking*"
        )
        print(f"W1 {args.users:,} users, {len(metrics)} columns ({args.metrics}), {args.threads} thread(s)")
        print(
            f"instructions inside the C++ pass (rankmeter::core::evaluate_ranking): {n:,} ({n / args.users:,.0f} per user)"
        )
        return 0
    base = count(CHILD.format(users=args.users, run=False, metrics=metrics, threads=args.threads))
    full = count(CHILD.format(users=args.users, run=True, metrics=metrics, threads=args.threads))
    print(f"W1 {args.users:,} users, {len(metrics)} columns ({args.metrics}), {args.threads} thread(s)")
    print(
        f"instructions: workload only {base:,}; with evaluate() {full:,}; evaluate() alone {full - base:,} "
        f"({(full - base) / args.users:,.0f} per user)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
