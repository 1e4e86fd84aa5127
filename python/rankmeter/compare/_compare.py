"""``compare``: evaluate several runs on one truth, then paired tests over users."""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping
from typing import Any, Iterable, Optional, Union

import numpy as np

from .._options import resolve_threads
from ..evaluation import EvalOptions, evaluate_with
from ..evaluation._agreement import TIES as AGREEMENT_TIES
from ..evaluation._agreement import agreement as _agreement
from ..evaluation._agreement import parse_agreement
from ..metrics import Metric, parse
from . import _stats
from ._table import Comparison

__all__ = ["compare", "TESTS", "CORRECTIONS"]

TESTS = ("randomization", "bootstrap", "t", "wilcoxon")
_TEST_ALIASES = {
    "fisher": "randomization",
    "permutation": "randomization",
    "student": "t",
    "ttest": "t",
    "t-test": "t",
    "paired_t": "t",
    "signed_rank": "wilcoxon",
}
CORRECTIONS = ("holm", "bonferroni", "none")


def _check(runs, metrics, baseline, test, alpha, correction, n_resamples, seed):
    if not isinstance(runs, Mapping):
        raise TypeError(
            f"`runs` must be a mapping of run names to recommendations (e.g. a dict), got {type(runs).__name__}"
        )
    names = list(runs)
    for name in names:
        if not isinstance(name, str) or not name:
            raise TypeError(f"`runs` keys must be non-empty strings (run names), got {name!r}")
    if len(names) < 2:
        raise ValueError(f"`runs` must hold at least 2 runs to compare, got {len(names)}")
    if baseline is not None and baseline not in runs:
        raise ValueError(f"`baseline` {baseline!r} is not one of the runs: {', '.join(map(repr, names))}")
    if not isinstance(test, str):
        raise TypeError(f"`test` must be a string, one of {', '.join(map(repr, TESTS))}; got {test!r}")
    key = test.strip().lower()
    key = _TEST_ALIASES.get(key, key)
    if key not in TESTS:
        raise ValueError(f"`test` must be one of {', '.join(map(repr, TESTS))}; got {test!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"`alpha` must be a number in (0, 1), got {alpha!r}")
    if not (0.0 < float(alpha) < 1.0):
        raise ValueError(f"`alpha` must be in (0, 1), got {alpha!r}")
    if not isinstance(correction, str) or correction.lower() not in CORRECTIONS:
        raise ValueError(f"`correction` must be one of {', '.join(map(repr, CORRECTIONS))}; got {correction!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral):
        raise TypeError(f"`n_resamples` must be a positive integer, got {n_resamples!r}")
    if n_resamples < 1:
        raise ValueError(f"`n_resamples` must be >= 1, got {n_resamples}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"`seed` must be a non-negative integer, got {seed!r}")
    if not 0 <= int(seed) < 2**64:
        raise ValueError(f"`seed` must be in [0, 2**64), got {seed}")
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    if not isinstance(metrics, Iterable):
        raise TypeError(f"`metrics` must be a metric name or a list of them, got {type(metrics).__name__}")
    keys = list(dict.fromkeys(m if isinstance(m, str) else str(m) for m in metrics))
    if not keys:
        raise ValueError("`metrics` is empty: name at least one metric, e.g. ['ndcg@10']")
    for k in keys:
        if parse(k).family == "catalog":
            raise ValueError(
                f"`metrics`: {k!r} is a catalog-level metric (one value per run, no per-user values); "
                "paired tests need a value per user"
            )
    return names, keys, key, float(alpha), correction.lower(), int(n_resamples), int(seed)


_IR_PRESETS = ("trec_eval", "ir_measures", "ranx")


def _entity(truth: Any, opts: EvalOptions) -> str:
    """The word every output uses for the evaluated units: "queries" for TREC qrels files and the IR presets
    (trec_eval, ir_measures, ranx), "users" otherwise."""
    from ..inputs._sources import classify

    if isinstance(truth, (str, os.PathLike)) and os.path.exists(truth) and classify(truth) == "trec":
        return "queries"
    return "queries" if opts.preset in _IR_PRESETS else "users"


def _n_truth_users(meta: dict, opts: EvalOptions) -> int:
    """Users of the truth, also those left out for having no recommendations (missing='skip')."""
    n = int(meta["n_users"])
    return n + int(meta["n_missing_recs"]) if opts.resolved().missing == "skip" else n


def _other_users_message(name: str, u: Any, first: str, users: Any, opts: EvalOptions) -> str:
    """Why two runs were evaluated on different users, and the fix."""
    a, b = set(np.asarray(u).tolist()), set(np.asarray(users).tolist())
    only_first, only_this = sorted(b - a, key=str), sorted(a - b, key=str)
    what = []
    if only_first:
        what.append(f"{len(only_first)} user(s) of run {first!r} are not in run {name!r} (e.g. {only_first[0]!r})")
    if only_this:
        what.append(f"{len(only_this)} user(s) of run {name!r} are not in run {first!r} (e.g. {only_this[0]!r})")
    if opts.resolved().missing == "skip":
        fix = (
            "with missing='skip' (trec_eval without -c; the trec_eval preset's default) a truth user without "
            "recommendations is left out of that run only, and paired tests need the same users in every run: pass "
            "missing='zero' (-c on the command line) to score such users as empty lists"
        )
    else:
        fix = "pass the same truth to every run"
    return f"runs {first!r} and {name!r} were evaluated on different users: {'; '.join(what) or 'another order'}; {fix}"


def _pairs(names: list[str], baseline: Optional[str]) -> list[tuple[int, int]]:
    """(run, baseline) index pairs: every run against the baseline, else every pair
    (the later run against the earlier one)."""
    if baseline is not None:
        b = names.index(baseline)
        return [(i, b) for i in range(len(names)) if i != b]
    return [(j, i) for i in range(len(names)) for j in range(i + 1, len(names))]


def compare(
    truth: Any,
    runs: Mapping,
    metrics: Union[str, Iterable[str]],
    *,
    baseline: Optional[str] = None,
    test: str = "randomization",
    alpha: float = 0.05,
    correction: str = "holm",
    n_resamples: int = 10_000,
    seed: int = 0,
    preset: Optional[str] = None,
    threads: Optional[int] = None,
    agreement: Union[str, Iterable[str], None] = None,
    user_groups: Any = None,
    **evaluate_kw: Any,
) -> Comparison:
    """Evaluate several runs on the same truth and test which differences are real.

    Parameters
    ----------
    truth : any truth form accepted by :func:`rankmeter.evaluate`
    runs : mapping of str to any recs form
        Run name -> recommendations. At least two runs.
    metrics : str or list of str
        Per-user metrics (``"ndcg@10"``, ``"map@100"``, ...); catalog-level
        metrics (coverage, gini, ...) have no per-user values and are refused.
    baseline : str, optional
        Compare every run against this one; default: every pair of runs.
    test : {'randomization', 'bootstrap', 't', 'wilcoxon'}
        Paired test over users (aliases: 'fisher', 'student').
    alpha : float in (0, 1)
        Significance level, also of the confidence intervals (1 - alpha).
    correction : {'holm', 'bonferroni', 'none'}
        Multiple-comparison correction over every (pair, metric) of the call.
    n_resamples : int
        Resamples of the randomization and bootstrap tests.
    seed : int
        Seed of the counter-based generator: same seed, same p-values, for any
        thread count.
    agreement : str or list of str, optional
        Agreement metrics between the runs (``"rbo@10"``, ``"jaccard@10"``, ``"unexpectedness@10"``, ...,
        :func:`rankmeter.agreement`): for each compared pair, the mean of each over the users of either run (a
        user one run lacks compared with an empty list), the run as ``run_a`` and its baseline as ``run_b``;
        ``cmp.agreement`` (one row per pair and metric), in :meth:`Comparison.to_dict` and the text table.
        The lists are ranked with the call's ``ties`` when it is one of agreement's rules, else by item id.
    user_groups : mapping, pandas Series, str or rankmeter.activity_groups(...), optional
        A group per user, as in :func:`rankmeter.evaluate`: every run is evaluated with it and
        :meth:`Comparison.by_group` gives each run's exact means per group (docs/fairness.md; the
        tests above stay over all users).
    preset, threads, **evaluate_kw
        The options of :func:`rankmeter.evaluate` (``empty=``, ``ties=``, ``user_col=``,
        ``train=``, ...), the same for every run. ``catalog`` is refused: only
        catalog-level metrics read it.

    Returns
    -------
    Comparison
        Long table (run, baseline, metric, mean, diff, ci_low, ci_high,
        p_value, p_adjusted, significant, ...), exports and plots.

    Notes
    -----
    Users are the truth users (aligned across runs); a user whose value is
    NaN for a run (no relevant item under ``empty="skip"``) is left out of
    that run's comparisons. See docs/compare.md for each test's definition.

    Examples
    --------
    >>> import rankmeter as rm
    >>> truth = {u: {u % 7: 1} for u in range(40)}
    >>> runs = {"good": {u: [u % 7, 100] for u in range(40)}, "bad": {u: [100, 101] for u in range(40)}}
    >>> cmp = rm.compare(truth, runs, ["hit_rate@2"], n_resamples=999)
    >>> row = cmp.rows[0]
    >>> row["run"], row["baseline"], row["diff"], row["p_value"]
    ('bad', 'good', -1.0, 0.001)
    """
    names, keys, test, alpha, correction, n_resamples, seed = _check(
        runs, metrics, baseline, test, alpha, correction, n_resamples, seed
    )
    opts = EvalOptions.from_kwargs("compare", preset=preset, threads=threads, **evaluate_kw)
    if opts.catalog is not None:
        raise TypeError(
            "compare() takes no `catalog`: only catalog-level metrics (coverage, gini) read it, and paired "
            "tests need per-user metrics"
        )
    n_threads = resolve_threads(opts.threads)
    agree_keys: list[str] = []
    if agreement is not None:
        agree_keys = [agreement] if isinstance(agreement, str) else list(agreement)
        if not agree_keys or not all(isinstance(x, str) for x in agree_keys):
            raise TypeError(
                f"`agreement` must be an agreement metric name or a non-empty list of them, got {agreement!r}"
            )
        for text in agree_keys:
            parse_agreement(text)  # a bad name is an error before any run is evaluated

    results = {}
    for name in names:
        results[name] = evaluate_with(truth, runs[name], keys, opts, user_groups=user_groups)
    users = results[names[0]].users
    for name in names[1:]:
        u = results[name].users
        if len(u) != len(users) or not np.array_equal(u, users):
            raise ValueError(_other_users_message(name, u, names[0], users, opts))
    n = len(users)
    pairs = _pairs(names, baseline)

    # per metric: users x runs values (NaN = left out)
    V = {k: np.column_stack([results[r].per_user[k] for r in names]) for k in keys}
    valid = {k: ~np.isnan(V[k]) for k in keys}
    shared = {k: bool(np.all(valid[k] == valid[k][:, :1])) for k in keys}

    comps = [(a, b, k) for k in keys for (a, b) in pairs]
    n_c = len(comps)
    p = np.full(n_c, np.nan)
    diff = np.full(n_c, np.nan)
    ci = np.full((n_c, 2), np.nan)
    effect = np.full(n_c, np.nan)
    n_pair = np.zeros(n_c, dtype=np.int64)
    run_ci: dict[tuple[str, str], tuple[float, float]] = {}

    for i, (a, b, k) in enumerate(comps):
        m = valid[k][:, a] & valid[k][:, b]
        n_pair[i] = int(np.count_nonzero(m))
        if shared[k]:
            diff[i] = results[names[a]][k] - results[names[b]][k]
        elif n_pair[i]:
            diff[i] = float(np.mean(V[k][m, a])) - float(np.mean(V[k][m, b]))
        if n_pair[i] >= 2:
            d = V[k][m, a] - V[k][m, b]
            sd = float(np.std(d, ddof=1))
            effect[i] = diff[i] / sd if sd > 0 else (0.0 if diff[i] == 0 else math.copysign(math.inf, diff[i]))

    if test == "randomization":
        cols: list[np.ndarray] = []
        col_of: dict[tuple, int] = {}
        stat_pairs: list[tuple[int, Optional[int]]] = []
        gamma = np.zeros(n_c)
        for i, (a, b, k) in enumerate(comps):
            if shared[k]:
                for r in (a, b):
                    if (k, r) not in col_of:
                        col_of[(k, r)] = len(cols)
                        cols.append(np.where(valid[k][:, r], V[k][:, r], 0.0))
                ca, cb = col_of[(k, a)], col_of[(k, b)]
                stat_pairs.append((ca, cb))
                gamma[i] = _stats.sign_flip_gamma(n, np.abs(cols[ca]).sum() + np.abs(cols[cb]).sum())
            else:
                m = valid[k][:, a] & valid[k][:, b]
                col_of[(k, a, b)] = len(cols)
                cols.append(np.where(m, V[k][:, a] - V[k][:, b], 0.0))
                stat_pairs.append((len(cols) - 1, None))
                gamma[i] = _stats.sign_flip_gamma(n, np.abs(cols[-1]).sum())
        X = np.empty((n, len(cols)))
        for j, c in enumerate(cols):
            X[:, j] = c
        del cols
        p = _stats.randomization_pvalues(X, stat_pairs, gamma, n_resamples, seed, n_threads)
        p[n_pair == 0] = np.nan
    elif test == "bootstrap":
        # one kernel call per distinct set of users: usually one per metric family
        groups: dict[bytes, tuple[np.ndarray, list]] = {}
        where: dict[tuple, tuple[bytes, int]] = {}
        for a, b, k in comps:
            if shared[k]:
                m = valid[k][:, 0]
                wanted: list[tuple] = [(k, r) for r in range(len(names))]
            else:
                m = valid[k][:, a] & valid[k][:, b]
                wanted = [(k, a, b, a), (k, a, b, b)]
            key = np.packbits(m).tobytes() + m.size.to_bytes(8, "little")
            g = groups.setdefault(key, (m, []))
            for w in wanted:
                if w not in where:
                    where[w] = (key, len(g[1]))
                    g[1].append(w)
        boot: dict[bytes, np.ndarray] = {}
        for key, (m, ws) in groups.items():
            if not np.any(m):
                continue
            X = np.empty((int(np.count_nonzero(m)), len(ws)))
            for j, w in enumerate(ws):
                X[:, j] = V[w[0]][m, w[-1]]
            boot[key] = _stats.bootstrap_means(X, n_resamples, seed, n_threads)
        for i, (a, b, k) in enumerate(comps):
            wa, wb = ((k, a), (k, b)) if shared[k] else ((k, a, b, a), (k, a, b, b))
            key = where[wa][0]
            if key not in boot:
                continue
            ma, mb = boot[key][:, where[wa][1]], boot[key][:, where[wb][1]]
            m = groups[key][0]
            tol = float(_stats.sign_flip_gamma(int(m.sum()), np.abs(V[k][m, a]).sum() + np.abs(V[k][m, b]).sum()))
            p[i] = _stats.bootstrap_pvalues(ma, mb, diff[i], tol)
            ci[i] = _stats.percentile_interval(ma - mb, alpha)
            if shared[k]:
                for r, mr in ((a, ma), (b, mb)):
                    run_ci.setdefault((names[r], k), _stats.percentile_interval(mr, alpha))
    else:
        for i, (a, b, k) in enumerate(comps):
            m = valid[k][:, a] & valid[k][:, b]
            d = V[k][m, a] - V[k][m, b]
            p[i] = _stats.ttest_rel_p(d)[1] if test == "t" else _stats.wilcoxon_p(d)
    if test != "bootstrap":
        for i, (a, b, k) in enumerate(comps):
            m = valid[k][:, a] & valid[k][:, b]
            ci[i] = _stats.t_interval(V[k][m, a] - V[k][m, b], alpha)

    p_adj = _stats.adjust(p, correction)
    rows = []
    for i, (a, b, k) in enumerate(comps):
        rows.append(
            {
                "run": names[a],
                "baseline": names[b],
                "metric": k,
                "mean": results[names[a]][k],
                "baseline_mean": results[names[b]][k],
                "diff": float(diff[i]),
                "ci_low": float(ci[i, 0]),
                "ci_high": float(ci[i, 1]),
                "effect_size": float(effect[i]),
                "p_value": float(p[i]),
                "p_adjusted": float(p_adj[i]),
                "significant": bool(p_adj[i] <= alpha),
                "n_users": int(n_pair[i]),
            }
        )
    meta = {
        "n_users": int(n),
        "n_runs": len(names),
        "n_metrics": len(keys),
        "n_comparisons": n_c,
        "test": test,
        "alpha": alpha,
        "correction": correction,
        "n_resamples": n_resamples,
        "seed": seed,
        "preset": preset,
        "conventions": opts.conventions_text(),
        "entity": _entity(truth, opts),
        "n_truth_users": _n_truth_users(results[names[0]].meta, opts),
        "baseline": baseline,
        "evaluated": {r: dict(results[r].meta) for r in names},
    }
    agree_rows = _agreement_rows(names, runs, pairs, agree_keys, opts, n_threads) if agree_keys else None
    return Comparison(
        names,
        keys,
        rows,
        results,
        meta,
        run_ci,
        inputs=(truth, runs, opts.kwargs()),
        agreement=agree_rows,
    )


def _agreement_rows(
    names: list[str], runs: Mapping, pairs: list[tuple[int, int]], keys: list[str], opts: EvalOptions, threads: int
) -> list[dict]:
    """One row per (run, baseline, agreement metric): the mean over the users of either run."""
    ties = opts.resolved().ties
    rule = ties if isinstance(ties, str) and ties in AGREEMENT_TIES else "item"
    cols = {
        k: v
        for k, v in opts.columns().items()
        if v is not None and k in ("user_col", "item_col", "rank_col", "score_col")
    }
    out = []
    for a, b in pairs:
        res = _agreement(runs[names[a]], runs[names[b]], keys, ties=rule, threads=threads or None, **cols)
        for k in keys:
            out.append({"run": names[a], "baseline": names[b], "metric": k, "mean": res[k], "n_users": res.counts[k]})
    return out
