"""Plots of runs and comparisons (matplotlib, imported inside the functions).

Every function returns a ``matplotlib.figure.Figure`` built without pyplot, so
it works headless (no display, no backend selection) and can be saved with
``fig.savefig("x.png")`` or ``"x.svg"``.

Curves come from one evaluation per run: ``metric@1 .. metric@K`` are columns
of the same fused pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import numpy as np

from ..evaluation import evaluate
from ..metrics import parse

__all__ = [
    "metric_at_k",
    "pr_curve",
    "plot_metric_at_k",
    "plot_pr_curve",
    "plot_distributions",
    "plot_result",
    "plot_comparison_means",
    "plot_per_user_difference",
    "plot_significance_matrix",
    "plot_by_group",
    "group_mean_intervals",
    "run_mean_intervals",
    "base_name",
]


def _figure(figsize=(6.4, 4.0)):
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("plots need matplotlib: pip install 'rankmeter[plot]'") from None
    return Figure(figsize=figsize, layout="constrained")


def _integer_ticks(ax: Any) -> None:
    """Ticks at whole numbers only (cutoffs k)."""
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def _singular(entity: str) -> str:
    return {"queries": "query", "users": "user"}.get(entity, entity)


def base_name(metric: str) -> str:
    """The metric without its cutoff, options kept: 'ndcg(gain=binary)@10' -> 'ndcg(gain=binary)'."""
    m = parse(metric)
    return str(m).rsplit("@", 1)[0] if m.k is not None else str(m)


def takes_cutoff(metric: str) -> bool:
    """Whether ``metric`` takes ``@k`` (the registry's cutoff rule): those without one have no curve over k."""
    from ..metrics import SPECS

    return SPECS[parse(metric).name].cutoff


def _check_k_max(k_max: Any) -> int:
    if isinstance(k_max, bool) or not isinstance(k_max, (int, np.integer)):
        raise TypeError(f"`k_max` must be a positive integer, got {k_max!r}")
    if k_max < 1:
        raise ValueError(f"`k_max` must be >= 1, got {k_max}")
    return int(k_max)


def _runs(runs: Any) -> Mapping:
    if not isinstance(runs, Mapping) or not runs:
        raise TypeError("`runs` must be a non-empty mapping of run names to recommendations")
    return runs


def metric_at_k(
    truth: Any, runs: Mapping, metric: str = "ndcg", k_max: int = 20, **evaluate_kw: Any
) -> dict[str, np.ndarray]:
    """run -> mean of ``metric@k`` for k = 1..k_max (one evaluate call per run)."""
    k_max = _check_k_max(k_max)
    if not takes_cutoff(metric):
        raise ValueError(
            f"`metric` {metric!r} takes no cutoff (it is defined on the whole list): it has no curve over k; "
            "plot a metric with @k, such as 'ndcg' or 'recall'"
        )
    name = base_name(metric)
    names = [f"{name}@{k}" for k in range(1, k_max + 1)]
    out = {}
    for run, recs in _runs(runs).items():
        res = evaluate(truth, recs, names, **evaluate_kw)
        out[run] = np.array([res[n] for n in names])
    return out


def pr_curve(
    truth: Any, runs: Mapping, k_max: int = 20, **evaluate_kw: Any
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """run -> (precision@k, recall@k) for k = 1..k_max, from one evaluate call per run."""
    k_max = _check_k_max(k_max)
    names = [f"{m}@{k}" for k in range(1, k_max + 1) for m in ("precision", "recall")]
    out = {}
    for run, recs in _runs(runs).items():
        res = evaluate(truth, recs, names, **evaluate_kw)
        out[run] = (
            np.array([res[f"precision@{k}"] for k in range(1, k_max + 1)]),
            np.array([res[f"recall@{k}"] for k in range(1, k_max + 1)]),
        )
    return out


def plot_metric_at_k(
    truth: Any, runs: Mapping, metric: str = "ndcg", k_max: int = 20, *, title: bool = True, **evaluate_kw: Any
):
    """``metric@k`` against k = 1..k_max, one line per run (ticks at whole k). ``title=False``: no title
    (the report captions every figure)."""
    curves = metric_at_k(truth, runs, metric, k_max, **evaluate_kw)
    fig = _figure()
    ax = fig.add_subplot()
    ks = np.arange(1, k_max + 1)
    for run, ys in curves.items():
        ax.plot(ks, ys, marker="o", markersize=3, label=str(run))
    ax.set_xlabel("k")
    ax.set_ylabel(f"{base_name(metric)}@k")
    _integer_ticks(ax)
    if title:
        ax.set_title(f"{base_name(metric)}@k, k = 1..{k_max}")
    ax.grid(True, alpha=0.3)
    ax.legend()
    return fig


def plot_pr_curve(truth: Any, runs: Mapping, k_max: int = 20, *, title: bool = True, **evaluate_kw: Any):
    """Precision against recall, one point per cutoff k = 1..k_max, one line per run."""
    curves = pr_curve(truth, runs, k_max, **evaluate_kw)
    fig = _figure()
    ax = fig.add_subplot()
    for run, (p, r) in curves.items():
        ax.plot(r, p, marker="o", markersize=3, label=str(run))
    ax.set_xlabel("recall@k")
    ax.set_ylabel("precision@k")
    if title:
        ax.set_title(f"precision-recall, k = 1..{k_max}")
    ax.grid(True, alpha=0.3)
    ax.legend()
    return fig


def plot_distributions(results: Mapping, metric: str, bins: int = 30, *, entity: str = "users", title: bool = True):
    """Per-user distribution of ``metric`` for every run (histograms, NaN users left out); ``entity`` names
    the units on the axes ("users", or "queries" for TREC data)."""
    fig = _figure()
    ax = fig.add_subplot()
    data = {}
    for run, res in results.items():
        v = np.asarray(res.per_user[metric], dtype=np.float64)
        data[run] = v[~np.isnan(v)]
    allv = np.concatenate(list(data.values())) if data else np.zeros(0)
    lo, hi = (float(allv.min()), float(allv.max())) if allv.size else (0.0, 1.0)
    if hi <= lo:
        hi = lo + 1.0
    edges = np.linspace(lo, hi, bins + 1)
    for run, v in data.items():
        counts, _ = np.histogram(v, bins=edges)
        share = counts / max(v.size, 1)
        ax.stairs(share, edges, label=f"{run} (mean {v.mean():.4f})" if v.size else str(run))
    ax.set_xlabel(f"{metric} per {_singular(entity)}")
    ax.set_ylabel(f"share of {entity}")
    if title:
        ax.set_title(f"per-{_singular(entity)} {metric}")
    ax.grid(True, alpha=0.3)
    ax.legend()
    return fig


def plot_result(res: Any, metric: Optional[str] = None, kind: str = "distribution", bins: int = 30):
    """A figure of one :class:`rankmeter.Result`.

    ``kind="distribution"``: the per-user values of ``metric`` (default: the
    first metric). ``kind="curve"``: every evaluated ``name@k`` of the metric
    family of ``metric`` against k (evaluate ``[f"ndcg@{k}" for k in range(1, 21)]``
    first: one pass). ``kind="groups"``: the mean of ``metric`` per user group
    (:func:`plot_by_group`; evaluate with ``user_groups=``).
    """
    names = res.keys()
    metric = metric or names[0]
    if kind == "distribution":
        return plot_distributions({"run": res}, metric, bins=bins)
    if kind == "curve":
        family = base_name(metric)
        pts = sorted((parse(n).k, res[n]) for n in names if parse(n).k is not None and base_name(n) == family)
        if not pts:
            raise ValueError(f"the result holds no {family}@k columns to draw a curve from")
        fig = _figure()
        ax = fig.add_subplot()
        ax.plot([k for k, _ in pts], [v for _, v in pts], marker="o", markersize=3)
        ax.set_xlabel("k")
        _integer_ticks(ax)
        ax.set_ylabel(f"{family}@k")
        ax.grid(True, alpha=0.3)
        return fig
    if kind == "groups":
        return plot_by_group(res, metric)
    raise ValueError(f"`kind` must be 'distribution', 'curve' or 'groups', got {kind!r}")


def run_mean_intervals(cmp: Any, metrics: Optional[list] = None) -> dict:
    """(run, metric) -> the (1 - alpha) interval of the run's mean: the comparison's bootstrap percentile
    interval when it ran the bootstrap test, else the Student t interval of the mean of the per-user values
    (NaN users left out; no interval below two values)."""
    from ._stats import t_interval

    out = {}
    for run in cmp.runs:
        for m in metrics or cmp.metrics:
            if (run, m) in cmp.run_ci:
                out[(run, m)] = tuple(cmp.run_ci[(run, m)])
                continue
            v = np.asarray(cmp.results[run].per_user[m], dtype=np.float64)
            v = v[~np.isnan(v)]
            out[(run, m)] = t_interval(v, cmp.meta["alpha"]) if v.size >= 2 else (np.nan, np.nan)
    return out


def plot_comparison_means(cmp: Any, metrics: Optional[list] = None):
    """Means per run and metric (grouped bars) with the (1 - alpha) interval of each mean as error bars
    (:func:`run_mean_intervals`)."""
    metrics = metrics or cmp.metrics
    entity = cmp.meta.get("entity", "users")
    fig = _figure(figsize=(max(6.4, 1.2 * len(metrics) * max(1, len(cmp.runs)) * 0.5), 4.0))
    ax = fig.add_subplot()
    width = 0.8 / len(cmp.runs)
    x = np.arange(len(metrics))
    intervals = run_mean_intervals(cmp, metrics)
    for i, run in enumerate(cmp.runs):
        ys = np.array([cmp.results[run][m] for m in metrics])
        lo = np.array([intervals[(run, m)][0] for m in metrics])
        hi = np.array([intervals[(run, m)][1] for m in metrics])
        err = np.nan_to_num(np.clip(np.vstack([ys - lo, hi - ys]), 0.0, None))
        ax.bar(x + (i - (len(cmp.runs) - 1) / 2) * width, ys, width, yerr=err, label=str(run), capsize=3)
    ax.set_xticks(x, [str(m) for m in metrics])
    ax.set_ylabel(f"mean over {entity}")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    return fig


def _reference(cmp: Any, baseline: Optional[str]) -> str:
    ref = baseline if baseline is not None else cmp.meta.get("baseline") or cmp.runs[0]
    if ref not in cmp.runs:
        raise ValueError(f"`baseline` {ref!r} is not a run of the comparison; runs: {', '.join(cmp.runs)}")
    return ref


def per_user_differences(cmp: Any, metric: str, baseline: Optional[str] = None) -> dict:
    """run -> the per-user differences run - baseline on ``metric``, over the users both runs evaluated
    (sorted descending: wins first)."""
    if metric not in cmp.metrics:
        raise ValueError(f"`metric` {metric!r} is not a metric of the comparison; metrics: {', '.join(cmp.metrics)}")
    ref = _reference(cmp, baseline)
    b = np.asarray(cmp.results[ref].per_user[metric], dtype=np.float64)
    out = {}
    for run in cmp.runs:
        if run == ref:
            continue
        a = np.asarray(cmp.results[run].per_user[metric], dtype=np.float64)
        both = ~np.isnan(a) & ~np.isnan(b)
        out[run] = np.sort(a[both] - b[both])[::-1]
    return out


def plot_per_user_difference(cmp: Any, metric: str, baseline: Optional[str] = None, *, title: bool = True):
    """Each run's per-user difference against the baseline on ``metric``, sorted: one bar per user; a win
    (green) is a difference in the metric's better direction (above zero, below for a metric better lower),
    and a metric without a direction has grey bars and counts of higher and lower users (the figure IR papers
    show per query). One panel per run; the baseline is ``baseline``, else the comparison's, else its first
    run."""
    ref = _reference(cmp, baseline)
    diffs = per_user_differences(cmp, metric, ref)
    way = cmp.direction(metric)
    entity = cmp.meta.get("entity", "users")
    fig = _figure(figsize=(6.4, 1.0 + 2.2 * max(1, len(diffs))))
    axes = fig.subplots(max(1, len(diffs)), 1, squeeze=False)[:, 0]
    for ax, (run, d) in zip(axes, diffs.items()):
        x = np.arange(1, d.size + 1)
        up, down = d > 0, d < 0
        if way is None:
            colors = np.where(up | down, "#607d8b", "#9e9e9e")
        else:
            win, loss = (up, down) if way == "higher" else (down, up)
            colors = np.where(win, "#2e7d32", np.where(loss, "#c62828", "#9e9e9e"))
        ax.bar(x, d, width=1.0, color=colors, linewidth=0)
        ax.axhline(0.0, color="#444", linewidth=0.8)
        n_up, n_down = int(np.count_nonzero(up)), int(np.count_nonzero(down))
        if way is None:
            counts = f"{n_up} higher, {n_down} lower, {d.size - n_up - n_down} equal"
        else:
            wins, losses = (n_up, n_down) if way == "higher" else (n_down, n_up)
            counts = f"{wins} wins, {losses} losses, {d.size - wins - losses} ties"
        ax.set_ylabel(f"{metric}\n{run} - {ref}")
        ax.text(
            0.99,
            0.95,
            counts,
            transform=ax.transAxes,
            ha="right",
            va="top",
            fontsize=8,
        )
        ax.set_xlim(0.5, max(d.size, 1) + 0.5)
        _integer_ticks(ax)
        ax.grid(True, axis="y", alpha=0.3)
    axes[-1].set_xlabel(f"{entity}, sorted by difference")
    if title:
        fig.suptitle(f"per-{_singular(entity)} difference in {metric} against {ref}")
    return fig


def significance_matrix(cmp: Any, metric: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """runs x runs: (mean difference row - column, adjusted p, significant) on ``metric``; NaN/False where the
    pair was not compared (a baseline comparison) and on the diagonal."""
    if metric not in cmp.metrics:
        raise ValueError(f"`metric` {metric!r} is not a metric of the comparison; metrics: {', '.join(cmp.metrics)}")
    n = len(cmp.runs)
    pos = {r: i for i, r in enumerate(cmp.runs)}
    diff = np.full((n, n), np.nan)
    padj = np.full((n, n), np.nan)
    sig = np.zeros((n, n), dtype=bool)
    for row in cmp.rows:
        if row["metric"] != metric:
            continue
        a, b = pos[row["run"]], pos[row["baseline"]]
        diff[a, b], diff[b, a] = row["diff"], -row["diff"]
        padj[a, b] = padj[b, a] = row["p_adjusted"]
        sig[a, b] = sig[b, a] = row["significant"]
    return diff, padj, sig


def plot_significance_matrix(cmp: Any, metric: str, *, title: bool = True):
    """The pairwise comparisons of the runs on ``metric`` as a matrix: cell (row, column) is the mean
    difference row - column (green: row better, red: worse, in the metric's direction; purple and orange for a
    metric without a direction), annotated with the adjusted p-value, bold with a star where significant; blank
    where the pair was not compared."""
    diff, padj, sig = significance_matrix(cmp, metric)
    way = cmp.direction(metric)
    n = len(cmp.runs)
    fig = _figure(figsize=(1.6 + 1.15 * n, 1.2 + 0.95 * n))
    ax = fig.add_subplot()
    lim = float(np.nanmax(np.abs(diff))) if np.any(~np.isnan(diff)) else 1.0
    # pcolormesh and an unrasterized colour bar: the figure stays vector (no embedded image in its SVG)
    img = ax.pcolormesh(
        np.arange(n + 1) - 0.5,
        np.arange(n + 1) - 0.5,
        np.ma.masked_invalid(diff),
        cmap={"higher": "RdYlGn", "lower": "RdYlGn_r"}.get(way or "", "PuOr"),
        vmin=-lim or -1.0,
        vmax=lim or 1.0,
    )
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_aspect("equal")
    for i in range(n):
        for j in range(n):
            if i == j or np.isnan(diff[i, j]):
                continue
            text = f"{diff[i, j]:+.4f}\np={padj[i, j]:.3g}" + (" *" if sig[i, j] else "")
            dark = abs(diff[i, j]) > 0.6 * lim  # the ends of the colour map: white text
            ax.text(
                j,
                i,
                text,
                ha="center",
                va="center",
                fontsize=8,
                color="white" if dark else "black",
                fontweight="bold" if sig[i, j] else "normal",
            )
    labels = [str(r) for r in cmp.runs]
    ax.set_xticks(np.arange(n), labels, rotation=30, ha="right")
    ax.set_yticks(np.arange(n), labels)
    ax.set_xlabel("baseline (column)")
    ax.set_ylabel("run (row)")
    bar = fig.colorbar(img, ax=ax, shrink=0.8, label="row - column")
    bar.solids.set_rasterized(False)
    if title:
        ax.set_title(f"{metric}: row - column, adjusted p (* significant)")
    return fig


def _grouped(results: Mapping, what: str) -> None:
    for run, res in results.items():
        if getattr(res, "_grouping", None) is None:
            raise ValueError(
                f"{what}: run {run!r} has no user groups; evaluate or compare with user_groups=... (docs/fairness.md)"
            )


def group_mean_intervals(results: Mapping, metric: str, alpha: float = 0.05) -> dict:
    """(run, group) -> the Student t interval (1 - alpha) of the mean of ``metric`` over the group's users
    (NaN users left out; NaN bounds below two values or without per-user values)."""
    from ._stats import t_interval

    _grouped(results, "group_mean_intervals")
    out = {}
    for run, res in results.items():
        gs, codes = res._grouping
        v = None if codes is None else np.asarray(res.per_user[metric], dtype=np.float64)
        for g, label in enumerate(gs.groups):
            if v is None:
                out[(run, label)] = (np.nan, np.nan)
                continue
            x = v[(codes == g) & ~np.isnan(v)]
            out[(run, label)] = t_interval(x, alpha) if x.size >= 2 else (np.nan, np.nan)
    return out


def plot_by_group(results: Any, metric: str, *, alpha: float = 0.05, title: bool = True):
    """The mean of ``metric`` in each user group (bars, one per run, groups along the x axis, each group's
    user count under its label) with the Student t interval (1 - ``alpha``) of each group mean as error bars,
    and each run's mean over all users as a dashed line. ``results``: a :class:`rankmeter.Result` or
    :class:`rankmeter.Comparison` (or a mapping run -> Result) evaluated with ``user_groups=``."""
    if hasattr(results, "results") and hasattr(results, "runs"):  # a Comparison
        alpha = results.meta.get("alpha", alpha)
        results = {r: results.results[r] for r in results.runs}
    elif not isinstance(results, Mapping):
        results = {"run": results}
    _grouped(results, "plot_by_group")
    runs = list(results)
    single = runs == ["run"]  # one Result: its bars are not labelled
    first = results[runs[0]]
    labels = list(first._grouping[0].groups)
    tables = {r: results[r].by_group() for r in runs}
    if metric not in tables[runs[0]].columns:
        raise ValueError(f"`metric` {metric!r} is not a column of these results: {list(tables[runs[0]].columns)[1:]}")
    intervals = group_mean_intervals(results, metric, alpha)
    fig = _figure(figsize=(max(6.4, 0.9 * len(labels) * max(1, len(runs)) * 0.6 + 2), 4.0))
    ax = fig.add_subplot()
    width = 0.8 / len(runs)
    x = np.arange(len(labels))
    for i, run in enumerate(runs):
        t = tables[run]
        ys = np.array([float(t.loc[g, metric]) for g in labels])
        lo = np.array([intervals[(run, g)][0] for g in labels])
        hi = np.array([intervals[(run, g)][1] for g in labels])
        err = np.nan_to_num(np.clip(np.vstack([ys - lo, hi - ys]), 0.0, None))
        bars = ax.bar(
            x + (i - (len(runs) - 1) / 2) * width, ys, width, yerr=err, capsize=3, label=None if single else str(run)
        )
        ax.axhline(
            results[run][metric],
            color=bars.patches[0].get_facecolor(),
            linestyle="--",
            linewidth=1,
            label="mean over all users" if single else None,
        )
    n = tables[runs[0]]["n_users"]
    ax.set_xticks(x, [f"{g}\n({int(n.loc[g]):,} users)" for g in labels])
    ax.set_ylabel(f"mean {metric}")
    ax.grid(True, axis="y", alpha=0.3)
    if single:
        ax.legend(fontsize="small")
    else:
        ax.legend(title="dashed: mean over all users", fontsize="small", title_fontsize="small")
    if title:
        ax.set_title(f"{metric} by user group ({100 * (1 - alpha):g}% t intervals)")
    return fig
