"""Reading TREC files: rankmeter.read_trec_run / read_trec_qrels (C++ parser) vs a plain Python split loop.

    python bench/trec_read.py --queries 100000 --depth 100

Writes a run (queries x depth lines) and a qrels file to a temporary directory
and times both readers (medians of --repeats) against the usual
``for line in f: line.split()`` loop that builds the same dicts.

Then (``--eval-queries``, default 2,000, x ``--eval-depth`` 1,000 documents;
0 skips it) a TREC run and qrels with string docnos and tied scores are
evaluated from the files with ``rankmeter.evaluate(qrels_path, run_path,
EVAL_METRICS, preset="trec_eval")`` (reading, coding the docnos, ranking by
(score, docno) and the metrics: the whole call), side by side with
pytrec_eval's ``RelevanceEvaluator.evaluate(run)`` alone on dicts built
beforehand (the evaluator too), in pytrec_eval's peer environment
(``bash bench/peers/setup.sh pytrec_eval``; the ir_measures one also has it),
with the per-query means checked equal.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import rankmeter as rm


def python_loop(path):
    out: dict = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if p:
                out.setdefault(p[0], {})[p[2]] = float(p[4] if len(p) > 4 else p[3])
    return out


EVAL_METRICS = {"map": "map", "ndcg": "ndcg", "P@10": "P_10", "recall@1000": "recall_1000", "mrr": "recip_rank"}

PYTREC_WORKER = r"""
import json, statistics, sys, time
import pytrec_eval
run_path, qrels_path, repeats, measures = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split(",")
def read(path, value, conv):
    out = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if p:
                out.setdefault(p[0], {})[p[2]] = conv(p[value])
    return out
run, qrels = read(run_path, 4, float), read(qrels_path, 3, int)
ev = pytrec_eval.RelevanceEvaluator(qrels, set(measures))
ts = []
for _ in range(repeats):
    t0 = time.perf_counter()
    res = ev.evaluate(run)
    ts.append(time.perf_counter() - t0)
means = {m: sum(v[m] for v in res.values()) / len(res) for m in measures}
print(json.dumps({"seconds": ts, "means": means, "version": getattr(pytrec_eval, "__version__", "?")}))
"""


def pytrec_python(peers_dir: Path):
    for venv in ("pytrec_eval", "ir_measures"):
        exe = peers_dir / venv / "bin" / "python"
        if exe.exists():
            return str(exe)
    return None


def write_eval_files(tmp: str, queries: int, depth: int, rng) -> tuple[str, str]:
    """A run of queries x depth lines (distinct docnos per query, of mixed length; scores rounded to 3
    decimals so ties occur; a rank column unrelated to the score, as trec_eval ignores it) and qrels of 100
    judged docnos per query (half of them from the run), grades 0..2."""
    run, qrels = os.path.join(tmp, "eval_run.txt"), os.path.join(tmp, "eval_qrels.txt")
    judged = 100
    # docno = a per-query rotation of distinct offsets (injective per query); offsets >= depth are unretrieved
    offsets = np.argsort(rng.random((queries, depth + judged // 2)), axis=1)
    docs_all = (np.arange(queries)[:, None] * 7919 + offsets * 3331) % 5_000_000
    d = docs_all[:, :depth].reshape(-1)
    q = np.repeat(np.arange(queries), depth)
    s = np.round(rng.random(q.size) * 20, 3)
    rank = np.tile(np.arange(1, depth + 1), queries)
    with open(run, "w") as f:
        f.writelines(
            f"Q{a} Q0 D{b} {r} {c} run\n" for a, b, r, c in zip(q.tolist(), d.tolist(), rank.tolist(), s.tolist())
        )
    qq = np.repeat(np.arange(queries), judged)
    docs = np.concatenate([docs_all[:, : judged // 2], docs_all[:, depth:]], axis=1).reshape(-1)
    with open(qrels, "w") as f:
        f.writelines(
            f"Q{a} 0 D{b} {g}\n" for a, b, g in zip(qq.tolist(), docs.tolist(), rng.integers(0, 3, docs.size).tolist())
        )
    return run, qrels


def eval_runs(args, rng) -> None:
    names = list(EVAL_METRICS)
    with tempfile.TemporaryDirectory() as tmp:
        run, qrels = write_eval_files(tmp, args.eval_queries, args.eval_depth, rng)
        ours = rm.evaluate(qrels, run, names, preset="trec_eval")  # warm: imports, thread pool
        ts = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            rm.evaluate(qrels, run, names, preset="trec_eval")
            ts.append(time.perf_counter() - t0)
        py = pytrec_python(Path(args.peers_dir))
        peer = None
        if py is None:
            print("pytrec_eval: not installed (bash bench/peers/setup.sh pytrec_eval)")
        else:
            p = subprocess.run(
                [py, "-c", PYTREC_WORKER, run, qrels, str(args.repeats), ",".join(EVAL_METRICS.values())],
                capture_output=True,
                text=True,
            )
            if p.returncode != 0:
                print("pytrec_eval failed:", p.stderr[-800:])
            else:
                peer = json.loads(p.stdout.strip().splitlines()[-1])
    print(
        f"\nTREC run {args.eval_queries:,} queries x {args.eval_depth:,} docs (string docnos, tied scores), "
        f"{', '.join(names)}; medians of {args.repeats}"
    )
    print("| contender | exact path | seconds (median) | runs |")
    print("|---|---|---:|---|")
    print(
        f"| rankmeter | evaluate(qrels_path, run_path, preset='trec_eval'): read + code + rank + metrics | "
        f"{statistics.median(ts):.3f} | {', '.join(f'{t:.3f}' for t in ts)} |"
    )
    if peer:
        pt = statistics.median(peer["seconds"])
        print(
            f"| pytrec_eval {peer['version']} | RelevanceEvaluator(qrels, measures).evaluate(run) on dicts and an "
            f"evaluator built beforehand | {pt:.3f} | {', '.join(f'{t:.3f}' for t in peer['seconds'])} |"
        )
        print(f"pytrec_eval evaluate alone / rankmeter from the files: {pt / statistics.median(ts):.2f}x")
        for ours_name, theirs in EVAL_METRICS.items():
            a, b = ours.means[ours_name], peer["means"][theirs]
            assert abs(a - b) <= 1e-9 * max(1.0, abs(b)), (ours_name, a, b)
        print("means equal to pytrec_eval's (1e-9)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--eval-queries", type=int, default=2_000)
    ap.add_argument("--eval-depth", type=int, default=1_000)
    ap.add_argument("--only-eval", action="store_true", help="only the evaluate-vs-pytrec_eval part")
    ap.add_argument(
        "--peers-dir", default=os.environ.get("RANKMETER_PEERS", str(Path.home() / ".cache" / "rankmeter-peers"))
    )
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    if args.only_eval:
        eval_runs(args, rng)
        return
    with tempfile.TemporaryDirectory() as tmp:
        run, qrels = os.path.join(tmp, "run.txt"), os.path.join(tmp, "qrels.txt")
        q = np.repeat(np.arange(args.queries), args.depth)
        d = rng.integers(0, 1_000_000, q.size)
        s = rng.random(q.size)
        rank = np.tile(np.arange(1, args.depth + 1), args.queries)
        with open(run, "w") as f:
            f.writelines(
                f"q{a} Q0 doc{b} {r} {c:.6f} sys\n"
                for a, b, r, c in zip(q.tolist(), d.tolist(), rank.tolist(), s.tolist())
            )
        nq = args.queries * 10
        with open(qrels, "w") as f:
            f.writelines(
                f"q{a} 0 doc{b} {g}\n"
                for a, b, g in zip(
                    np.repeat(np.arange(args.queries), 10).tolist(),
                    rng.integers(0, 1_000_000, nq).tolist(),
                    rng.integers(0, 3, nq).tolist(),
                )
            )
        size = os.path.getsize(run) / 1e6
        rows = []
        for name, fn, path in (
            ("rankmeter.read_trec_run", rm.read_trec_run, run),
            ("Python split loop (run)", python_loop, run),
            ("rankmeter.read_trec_qrels", rm.read_trec_qrels, qrels),
            ("Python split loop (qrels)", python_loop, qrels),
        ):
            ts = []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                fn(path)
                ts.append(time.perf_counter() - t0)
            rows.append((name, statistics.median(ts)))
    print(
        f"run file: {args.queries:,} queries x {args.depth} = {args.queries * args.depth:,} lines, {size:.0f} MB; "
        f"qrels: {args.queries * 10:,} lines; medians of {args.repeats}"
    )
    for name, t in rows:
        print(f"{name:30s} {t:8.3f} s")
    print(f"run speed-up {rows[1][1] / rows[0][1]:.1f}x, qrels speed-up {rows[3][1] / rows[2][1]:.1f}x")
    if args.eval_queries:
        eval_runs(args, rng)


if __name__ == "__main__":
    main()
