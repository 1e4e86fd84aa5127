"""The ``rankmeter`` command.

``rankmeter demo``     build workload W1 in memory and evaluate it; time a plain
                       per-user Python loop on a sample for comparison.
``rankmeter eval``     evaluate a TREC run file against a qrels file.
``rankmeter metrics``  list the metric names.
``rankmeter compare``  compare runs on one truth with paired significance tests.
``rankmeter report``   the same comparison as one self-contained HTML report.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from typing import Optional, Sequence

from . import _core, datasets, evaluate, metrics, read_trec_qrels, read_trec_run
from ._version import __version__

DEMO_METRICS = ("precision", "recall", "f1", "map", "mar", "ndcg", "dcg", "hit_rate", "mrr", "arhr")
DEMO_KS = (10, 100)


# ----------------------------------------------------------------- the slow way
def python_loop(truth: list[dict], lists: list[list], ks: Sequence[int]) -> dict[str, float]:
    """The per-user Python loop rankmeter replaces: textbook formulas, one user at a time."""
    sums = {f"{m}@{k}": 0.0 for k in ks for m in DEMO_METRICS}
    for grades, items in zip(truth, lists):
        relevant = {i for i, g in grades.items() if g > 0}
        n_rel = len(relevant)
        ideal = sorted((g for g in grades.values() if g > 0), reverse=True)
        for k in ks:
            top = items[:k]
            hits = ap = arhr = dcg = 0.0
            ar = 0.0
            first = 0
            for j, item in enumerate(top, 1):
                if item in grades:
                    dcg += max(grades[item], 0.0) / math.log2(j + 1)
                if item in relevant:
                    hits += 1
                    ap += hits / j
                    ar += hits / n_rel
                    arhr += 1.0 / j
                    if not first:
                        first = j
            idcg = sum(g / math.log2(j + 2) for j, g in enumerate(ideal[:k]))
            p, r = hits / k, hits / n_rel
            sums[f"precision@{k}"] += p
            sums[f"recall@{k}"] += r
            sums[f"f1@{k}"] += 2 * p * r / (p + r) if p + r else 0.0
            sums[f"map@{k}"] += ap / n_rel
            sums[f"mar@{k}"] += ar / n_rel
            sums[f"ndcg@{k}"] += dcg / idcg if idcg else 0.0
            sums[f"dcg@{k}"] += dcg
            sums[f"hit_rate@{k}"] += 1.0 if hits else 0.0
            sums[f"mrr@{k}"] += 1.0 / first if first else 0.0
            sums[f"arhr@{k}"] += arhr
    return {name: s / len(truth) for name, s in sums.items()}


def _sample_as_python(w: datasets.Workload, n: int) -> tuple[list[dict], list[list]]:
    # only the sample's users become Python objects (the whole workload as lists would take GBs)
    ti, ri = w.truth_indptr[: n + 1].tolist(), w.recs_indptr[: n + 1].tolist()
    tit, tg = w.truth_items[: ti[n]].tolist(), w.truth_grades[: ti[n]].tolist()
    rit = w.recs_items[: ri[n]].tolist()
    truth = [dict(zip(tit[ti[u] : ti[u + 1]], tg[ti[u] : ti[u + 1]])) for u in range(n)]
    lists = [rit[ri[u] : ri[u + 1]] for u in range(n)]
    return truth, lists


# ----------------------------------------------------------------- commands
def demo(users: int, threads: Optional[int], loop_users: int, repeats: int, seed: int) -> int:
    print(f"rankmeter {__version__} demo: the standard workload W1, built in memory")
    t0 = time.perf_counter()
    w = datasets.w1(users, seed=seed)
    build = time.perf_counter() - t0
    print(f"  {w.n_users:,} users x 100 ranked items, catalog 100,000 (Zipf 1.1), truth Poisson(10)+1, grades 1-3")
    print(
        f"  built in {build:.1f} s: {w.nbytes / 1e6:,.0f} MB of CSR buffers; "
        f"OpenMP: {'yes' if _core.has_openmp else 'no'}, cores: {_core.max_threads()}"
    )
    names = [f"{m}@{k}" for k in DEMO_KS for m in DEMO_METRICS]
    truth, recs = w.truth, w.recs
    times = []
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        res = evaluate(truth, recs, names, threads=threads)
        times.append(time.perf_counter() - t0)
    t_eval = statistics.median(times)
    print(f"\nevaluate(): {len(names)} metric columns in one pass, {t_eval:.3f} s (median of {len(times)})\n")
    print(f"  {'metric':<10}" + "".join(f"{'@' + str(k):>12}" for k in DEMO_KS))
    for m in DEMO_METRICS:
        print(f"  {m:<10}" + "".join(f"{res[f'{m}@{k}']:>12.6f}" for k in DEMO_KS))

    n = min(loop_users, w.n_users)
    if n == 0:
        return 0
    sample_truth, sample_lists = _sample_as_python(w, n)
    t0 = time.perf_counter()
    slow = python_loop(sample_truth, sample_lists, DEMO_KS)
    t_loop = time.perf_counter() - t0
    extrapolated = t_loop * w.n_users / n
    sample = w.head(n)
    head = evaluate(sample.truth, sample.recs, names, threads=threads)
    worst = max(abs(head[name] - slow[name]) / max(abs(slow[name]), 1e-300) for name in names)
    print(
        f"\nplain per-user Python loop, same metrics, on {n:,} users: {t_loop:.2f} s "
        f"-> {extrapolated:,.0f} s extrapolated to {w.n_users:,} users"
    )
    print(
        f"speed-up of rankmeter: {extrapolated / t_eval:,.0f}x   "
        f"(agreement on the sample: max relative difference {worst:.1e})"
    )
    return 0


def eval_files(
    qrels: str,
    run: str,
    metric_names: Sequence[str],
    preset: Optional[str],
    max_items: Optional[int],
    min_relevance: Optional[float],
    per_query: bool,
    complete: bool = False,
) -> int:
    res = evaluate(
        read_trec_qrels(qrels),
        read_trec_run(run),
        list(metric_names),
        preset=preset,
        max_items=max_items,
        min_relevance=min_relevance,
        missing="zero" if complete else None,
    )
    if per_query:
        for i, user in enumerate(res.users.tolist()):
            for name in res:
                print(f"{name:<24}\t{user}\t{res.per_user[name][i]:.4f}")
    for name in res:
        print(f"{name:<24}\tall\t{res[name]:.4f}")
    return 0


def _run_name(path: str, taken: set) -> str:
    import os

    base = os.path.basename(path.rstrip("/\\")) or path
    for ext in (".gz", ".parquet", ".txt", ".trec", ".run"):
        if base.endswith(ext) and len(base) > len(ext):
            base = base[: -len(ext)]
    name, i = base, 2
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    taken.add(name)
    return name


def _comparison(args):
    from .compare import compare

    taken: set = set()
    runs = {_run_name(path, taken): path for path in args.runs}
    return compare(
        args.truth,
        runs,
        args.metric,
        baseline=args.baseline,
        test=args.test,
        alpha=args.alpha,
        correction=args.correction,
        n_resamples=args.n_resamples,
        seed=args.seed,
        preset=args.preset,
        threads=args.threads,
    )


def compare_files(args) -> int:
    cmp = _comparison(args)
    fmt = args.format
    if fmt == "table":
        text = repr(cmp)
    elif fmt == "markdown":
        text = cmp.to_markdown()
    elif fmt == "latex":
        text = cmp.to_latex()
    elif fmt == "json":
        text = cmp.to_json()
    else:
        text = cmp.to_html(plots=not args.no_plots)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text if text.endswith("\n") else text + "\n")
    else:
        print(text)
    return 0


def report_files(args) -> int:
    cmp = _comparison(args)
    cmp.to_html(args.output, plots=not args.no_plots, k_max=args.k_max)
    print(f"report written to {args.output}")
    return 0


def _compare_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("truth", help="qrels: a TREC qrels file or a parquet table")
    p.add_argument("runs", nargs="+", help="runs: TREC run files or parquet tables (at least two)")
    p.add_argument(
        "-m", "--metric", nargs="+", action="extend", required=True, help="metric names (e.g. -m ndcg@10 map@100)"
    )
    p.add_argument("--test", default="randomization", help="randomization (default), bootstrap, t or wilcoxon")
    p.add_argument("--baseline", default=None, help="compare every run against this one (default: every pair)")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--correction", default="holm", help="holm (default), bonferroni or none")
    p.add_argument("--n-resamples", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--preset", default=None, help="conventions of another tool, e.g. trec_eval or ranx")
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--no-plots", action="store_true", help="HTML without plots")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="rankmeter", description="Fast, exact offline evaluation of rankings.")
    parser.add_argument("--version", action="version", version=f"rankmeter {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("demo", help="evaluate the standard workload W1 and compare with a Python loop")
    p.add_argument("--users", type=int, default=1_000_000, help="users in the workload (default 1,000,000)")
    p.add_argument("--threads", type=int, default=None, help="threads (default: all cores)")
    p.add_argument("--loop-users", type=int, default=10_000, help="users timed in the Python loop (default 10,000)")
    p.add_argument("--repeats", type=int, default=3, help="timed evaluate() calls (median reported)")
    p.add_argument("--seed", type=int, default=0)

    p = sub.add_parser("eval", help="evaluate a TREC run against qrels")
    p.add_argument("qrels")
    p.add_argument("run")
    p.add_argument("-m", "--metric", action="append", required=True, help="metric name, repeatable (e.g. -m ndcg@10)")
    p.add_argument("--preset", default="trec_eval")
    p.add_argument("-M", "--max-items", type=int, default=None)
    p.add_argument("-l", "--min-relevance", type=float, default=None)
    p.add_argument("-q", "--per-query", action="store_true")
    p.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="qrels queries without results count as empty lists (trec_eval -c)",
    )

    sub.add_parser("metrics", help="list metric names")

    p = sub.add_parser("compare", help="compare runs with paired significance tests")
    _compare_args(p)
    p.add_argument("--format", choices=("table", "markdown", "latex", "html", "json"), default="table")
    p.add_argument("-o", "--output", default=None, help="write here instead of printing")

    p = sub.add_parser("report", help="one self-contained HTML report comparing runs")
    _compare_args(p)
    p.add_argument(
        "-o", "--output", default="rankmeter-report.html", help="the HTML file (default rankmeter-report.html)"
    )
    p.add_argument("--k-max", type=int, default=20, help="largest cutoff of the curves (default 20)")

    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            if args.users < 1:
                parser.error("--users must be >= 1")
            return demo(args.users, args.threads, args.loop_users, args.repeats, args.seed)
        if args.command == "eval":
            return eval_files(
                args.qrels,
                args.run,
                args.metric,
                args.preset,
                args.max_items,
                args.min_relevance,
                args.per_query,
                args.complete,
            )
        if args.command == "compare":
            return compare_files(args)
        if args.command == "report":
            return report_files(args)
        print("\n".join(metrics.list()))
        return 0
    except (ValueError, TypeError, OSError) as e:
        print(f"rankmeter: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
