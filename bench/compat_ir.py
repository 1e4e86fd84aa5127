"""rankmeter.compat.{pytrec_eval, ranx, ir_measures} against the originals on 100,000 queries.

    python bench/compat_ir.py --users 100000 --repeats 3

Builds one random workload (qrels: 8 judged documents per query, grades 0-3;
run: 50 scored documents per query, distinct scores) as Python dicts, then times
each original call and its compat replacement on the same dicts, medians of
--repeats side by side in one run:

* pytrec_eval: RelevanceEvaluator(qrels, measures).evaluate(run), the nested dict
  included (this Python; the module that `import pytrec_eval` finds), and one evaluator
  called query by query on the first --loop-queries queries (time per call, wall and process CPU time, the
  two evaluators alternating repeat by repeat, medians of max(--repeats, 5));
* ranx: ranx.evaluate(qrels, run, metrics) with dict inputs, in ranx's own venv
  (bench/peers/setup.sh ranx), after one warm-up call that compiles numba's kernels;
* ir_measures: ir_measures.calc_aggregate(measures, qrels, run), in its own venv
  (bench/peers/setup.sh ir_measures).

``--floor`` prints instead, for the same dicts in this process: one C-level pass that hashes every document once
(``set().union``), rankmeter's walker of the objects on one and on every thread, and the compat evaluate.

The compat calls run in this Python. Both sides of a pair get the same dicts
and return the same structure (the compat modules' tests check the numbers).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

PEERS = Path(os.environ.get("RANKMETER_PEERS", Path.home() / ".cache" / "rankmeter-peers"))
PT_MEASURES = ["map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank", "bpref"]
RANX_METRICS = ["map@100", "ndcg@10", "precision@10", "recall@100", "mrr", "bpref"]
IRM_MEASURES = ["AP", "nDCG@10", "P@10", "R@100", "RR", "Bpref"]

WORKER = r"""
import json, statistics, sys, time
which, path, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = json.load(open(path))
qrels, run = d["qrels"], d["run"]
if which == "ranx":
    import ranx
    small = dict(list(qrels.items())[:50]); ranx.evaluate(small, {q: run[q] for q in small}, d["ranx"])  # compile
    call = lambda: ranx.evaluate(qrels, run, d["ranx"])
else:
    import logging; logging.disable(logging.WARNING)
    import ir_measures
    ms = [ir_measures.parse_measure(m) for m in d["irm"]]
    call = lambda: ir_measures.calc_aggregate(ms, qrels, run)
times = []
for _ in range(repeats):
    t = time.perf_counter(); out = call(); times.append(time.perf_counter() - t)
print(json.dumps({"median": statistics.median(times), "out": {str(k): float(v) for k, v in out.items()}}))
"""


def workload(n: int, seed: int = 0):
    g = np.random.default_rng(seed)
    qrels, run = {}, {}
    n_docs = 100_000
    for q in range(n):
        qid = f"q{q}"
        docs = g.integers(0, n_docs, 8)
        qrels[qid] = {f"d{d}": int(x) for d, x in zip(docs, g.integers(0, 4, 8))}
        lst = np.concatenate([docs[:3], g.integers(0, n_docs, 47)])
        g.shuffle(lst)
        run[qid] = {f"d{d}": float(50 - j) + 0.5 * g.random() for j, d in enumerate(lst)}
    return qrels, run


def median_time(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def peer(which: str, venv: str, path: str, repeats: int):
    py = PEERS / venv / "bin" / "python"
    if not py.exists():
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(WORKER)
    p = subprocess.run(
        [str(py), f.name, which, path, str(repeats)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONWARNINGS="ignore"),
    )
    if p.returncode != 0:
        print(p.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--loop-queries", type=int, default=10_000, help="queries of the query-by-query pytrec_eval loop")
    ap.add_argument(
        "--floor",
        action="store_true",
        help="instead: the floor of reading these dicts beside the walker and the compat evaluate, in one process",
    )
    a = ap.parse_args()
    if a.floor:
        floor(a.users, a.repeats)
        return
    from rankmeter.compat import ir_measures as c_irm
    from rankmeter.compat import pytrec_eval as c_pt
    from rankmeter.compat import ranx as c_ranx

    qrels, run = workload(a.users)
    rows = []
    try:
        import pytrec_eval

        t0, _ = median_time(lambda: pytrec_eval.RelevanceEvaluator(qrels, set(PT_MEASURES)).evaluate(run), a.repeats)
        rows.append(("pytrec_eval RelevanceEvaluator(...).evaluate", t0, pytrec_eval.__file__))
    except ImportError:
        rows.append(("pytrec_eval RelevanceEvaluator(...).evaluate", None, "not installed"))
    t1, _ = median_time(lambda: c_pt.RelevanceEvaluator(qrels, set(PT_MEASURES)).evaluate(run), a.repeats)
    # an evaluator made once and called query by query (the first --loop-queries queries), per-call time
    loop = list(run.items())[: a.loop_queries]

    def per_query(module):
        ev = module.RelevanceEvaluator(qrels, set(PT_MEASURES))
        return lambda: [ev.evaluate({q: r}) for q, r in loop]

    import importlib.util

    _orig = importlib.import_module("pytrec_eval") if importlib.util.find_spec("pytrec_eval") else None
    # the two evaluators alternate, repeat by repeat (a load that comes and goes hits both); wall and process CPU
    # time (the CPU time leaves out the time this process waits for a core on a loaded machine)
    fns = {"orig": per_query(_orig) if _orig else None, "compat": per_query(c_pt)}
    wall: dict = {k: [] for k in fns}
    cpu: dict = {k: [] for k in fns}
    for _ in range(max(a.repeats, 5)):
        for k, fn in fns.items():
            if fn is None:
                continue
            t, c = time.perf_counter(), time.process_time()
            fn()
            cpu[k].append(time.process_time() - c)
            wall[k].append(time.perf_counter() - t)
    t0q = statistics.median(wall["orig"]) if wall["orig"] else None
    t1q = statistics.median(wall["compat"])
    c0q = statistics.median(cpu["orig"]) if cpu["orig"] else None
    c1q = statistics.median(cpu["compat"])
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"qrels": qrels, "run": run, "ranx": RANX_METRICS, "irm": IRM_MEASURES}, f)
    r = peer("ranx", "ranx", f.name, a.repeats)
    t2, _ = median_time(lambda: c_ranx.evaluate(qrels, run, RANX_METRICS), a.repeats)
    i = peer("irm", "ir_measures", f.name, a.repeats)
    t3, _ = median_time(lambda: c_irm.calc_aggregate(IRM_MEASURES, qrels, run), a.repeats)
    os.unlink(f.name)

    def line(name, orig, comp):
        sp = f"{orig / comp:6.1f}x" if orig else "   n/a"
        o = f"{orig:8.2f} s" if orig else "     n/a  "
        print(f"{name:<48} {o}  {comp:8.2f} s  {sp}")

    print(f"{a.users} queries, 8 qrels and 50 run documents each; medians of {a.repeats}")
    print(f"{'call':<48} {'original':>10}  {'compat':>10}  speed-up")
    line("pytrec_eval RelevanceEvaluator.evaluate (6 measures)", rows[0][1], t1)
    n_loop = len(loop)
    for label, orig_q, comp_q in (("wall", t0q, t1q), ("CPU", c0q, c1q)):
        print(f"{'pytrec_eval evaluate({q: run[q]}) per query, us ' + label:<48} ", end="")
        print(f"{orig_q / n_loop * 1e6:8.1f}   " if orig_q else "     n/a   ", end="")
        print(f"{comp_q / n_loop * 1e6:8.1f}    " + (f"{orig_q / comp_q:6.1f}x" if orig_q else "   n/a"))
    line("ranx.evaluate (6 metrics, dicts)", r["median"] if r else None, t2)
    line("ir_measures.calc_aggregate (6 measures)", i["median"] if i else None, t3)


def floor(n: int, repeats: int) -> None:
    """Medians (of max(repeats, 5)) of one C-level pass hashing every document of both dicts once, the walker of
    rankmeter on one and on every thread, and the compat evaluate, on the same objects in this process."""
    from rankmeter import _core
    from rankmeter.compat import pytrec_eval as c_pt

    qrels, run = workload(n)
    ev = c_pt.RelevanceEvaluator(qrels, set(PT_MEASURES))
    r = max(repeats, 5)
    rows = [
        (
            "len(set().union(*qrels.values(), *run.values())), one core",
            lambda: len(set().union(*qrels.values(), *run.values())),
        ),
        ("_core.walk_py(qrels, run), one thread", lambda: _core.walk_py(qrels, run, dict_rows=True, threads=1)),
        ("_core.walk_py(qrels, run), every thread", lambda: _core.walk_py(qrels, run, dict_rows=True)),
        ("compat pytrec_eval evaluate(run) (6 measures)", lambda: ev.evaluate(run)),
    ]
    print(f"{n} queries, 8 qrels and 50 run documents each; medians of {r}, alternating")
    times: dict = {name: [] for name, _ in rows}
    for _ in range(r):
        for name, fn in rows:
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    for name, _ in rows:
        print(f"{name:<62} {statistics.median(times[name]):8.3f} s")


if __name__ == "__main__":
    main()
