"""rankmeter.compat.beir against BEIR's EvaluateRetrieval on string ids, side by side.

    python bench/compat_beir.py --users 100000 --repeats 3

One workload, built the same way from one seed in every process (BEIR's typical shape: qrels of 1-4 relevant
documents per query, grades 1-2, a few grade-0 rows; results of 100 scored documents per query, ids like
"doc123", some equal scores, no document equal to its query id), then per repeat one process of each side,
alternating (BEIR in its own venv, bench/peers/setup.sh beir; the compat module in this Python), each timing
two calls after building the dicts (the first of a process pays lazy imports; the second shows the steady
state):

* ``EvaluateRetrieval.evaluate(qrels, results, [1, 3, 5, 10, 100, 1000])`` (ignore_identical_ids=True, BEIR's
  default; NDCG, MAP, Recall and P at 6 cutoffs);
* ``EvaluateRetrieval.evaluate_custom(qrels, results, same k, "mrr")``.

Prints the medians and checks that both sides returned the same dicts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

PEERS = Path(os.environ.get("RANKMETER_PEERS", Path.home() / ".cache" / "rankmeter-peers"))

WORKER = r"""
import json, logging, sys, time
import numpy as np
side, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
logging.disable(logging.CRITICAL)
if side == "beir":
    from beir.retrieval.evaluation import EvaluateRetrieval
else:
    from rankmeter.compat.beir import EvaluateRetrieval
g = np.random.default_rng(seed)
n_docs, depth = 1_000_000, 100
n_rel = g.integers(1, 5, n)
rel_docs = g.integers(0, n_docs, int(n_rel.sum())).tolist()
grades = g.choice([0, 1, 1, 2], int(n_rel.sum())).tolist()
run_docs = g.integers(0, n_docs, n * depth).reshape(n, depth)
hit = g.random((n, depth)) < 0.02
starts = np.concatenate(([0], np.cumsum(n_rel)[:-1]))
run_docs[hit] = np.asarray(rel_docs)[starts[np.nonzero(hit)[0]]]  # some relevant documents retrieved
scores = np.round(np.sort(g.random((n, depth)), axis=1)[:, ::-1] * 1000) / 1000  # some equal scores
qrels, results, j = {}, {}, 0
for q in range(n):
    k = int(n_rel[q])
    qrels[f"q{q}"] = {f"doc{d}": x for d, x in zip(rel_docs[j:j + k], grades[j:j + k])}
    j += k
    results[f"q{q}"] = dict(zip([f"doc{d}" for d in run_docs[q].tolist()], scores[q].tolist()))
ks = [1, 3, 5, 10, 100, 1000]
kw = {} if side == "beir" else {"ignore_identical_ids": False}
times = {}
for call in ("first", "second"):  # the first call of a process pays lazy imports (pandas for rankmeter)
    t = time.perf_counter(); ev = EvaluateRetrieval.evaluate(qrels, results, ks); times["evaluate " + call] = time.perf_counter() - t
    t = time.perf_counter(); m = EvaluateRetrieval.evaluate_custom(qrels, results, ks, "mrr", **kw); times["mrr " + call] = time.perf_counter() - t
print(json.dumps({**times, "out": [ev, m]}))
"""


def one(side: str, n: int, seed: int) -> dict:
    py = PEERS / "beir" / "bin" / "python" if side == "beir" else Path(sys.executable)
    flags = ["-P"] if side == "beir" else []
    p = subprocess.run([str(py), *flags, "-c", WORKER, side, str(n), str(seed)], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{side} failed:\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if not (PEERS / "beir" / "bin" / "python").exists():
        raise SystemExit("BEIR's venv is missing: bash bench/peers/setup.sh beir")
    runs: dict[str, list] = {"beir": [], "compat": []}
    for _ in range(a.repeats):  # alternating processes
        for side in ("beir", "compat"):
            runs[side].append(one(side, a.users, a.seed))
    same = all(r["out"] == runs["beir"][0]["out"] for r in runs["beir"] + runs["compat"])
    print(
        f"{a.users} queries, string ids, 100 results and 1-4 qrels each; medians of {a.repeats} (alternating processes)"
    )
    print(f"{'call':<40} {'BEIR':>9}  {'compat':>9}  speed-up")
    for key, name in (
        ("evaluate first", "evaluate (6 k), first call"),
        ("evaluate second", "evaluate (6 k), second call"),
        ("mrr first", "evaluate_custom 'mrr', first call"),
        ("mrr second", "evaluate_custom 'mrr', second call"),
    ):
        b = statistics.median(r[key] for r in runs["beir"])
        c = statistics.median(r[key] for r in runs["compat"])
        print(f"{name:<40} {b:7.2f} s  {c:7.2f} s  {b / c:6.1f}x")
    print("same dicts on both sides:", same)
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
