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
    "base_name",
]


def _figure(figsize=(6.4, 4.0)):
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("plots need matplotlib: pip install 'rankmeter[plot]'") from None
    return Figure(figsize=figsize, layout="constrained")


def base_name(metric: str) -> str:
    """The metric without its cutoff, options kept: 'ndcg(gain=binary)@10' -> 'ndcg(gain=binary)'."""
    m = parse(metric)
    return str(m).rsplit("@", 1)[0] if m.k is not None else str(m)


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


def plot_metric_at_k(truth: Any, runs: Mapping, metric: str = "ndcg", k_max: int = 20, **evaluate_kw: Any):
    """``metric@k`` against k = 1..k_max, one line per run."""
    curves = metric_at_k(truth, runs, metric, k_max, **evaluate_kw)
    fig = _figure()
    ax = fig.add_subplot()
    ks = np.arange(1, k_max + 1)
    for run, ys in curves.items():
        ax.plot(ks, ys, marker="o", markersize=3, label=str(run))
    ax.set_xlabel("k")
    ax.set_ylabel(f"{base_name(metric)}@k")
    ax.set_title(f"{base_name(metric)}@k, k = 1..{k_max}")
    ax.grid(True, alpha=0.3)
    ax.legend()
    return fig


def plot_pr_curve(truth: Any, runs: Mapping, k_max: int = 20, **evaluate_kw: Any):
    """Precision against recall, one point per cutoff k = 1..k_max, one line per run."""
    curves = pr_curve(truth, runs, k_max, **evaluate_kw)
    fig = _figure()
    ax = fig.add_subplot()
    for run, (p, r) in curves.items():
        ax.plot(r, p, marker="o", markersize=3, label=str(run))
    ax.set_xlabel("recall@k")
    ax.set_ylabel("precision@k")
    ax.set_title(f"precision-recall, k = 1..{k_max}")
    ax.grid(True, alpha=0.3)
    ax.legend()
    return fig


def plot_distributions(results: Mapping, metric: str, bins: int = 30):
    """Per-user distribution of ``metric`` for every run (histograms, NaN users left out)."""
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
    ax.set_xlabel(f"{metric} per user")
    ax.set_ylabel("share of users")
    ax.set_title(f"per-user {metric}")
    ax.grid(True, alpha=0.3)
    ax.legend()
    return fig


def plot_result(res: Any, metric: Optional[str] = None, kind: str = "distribution", bins: int = 30):
    """A figure of one :class:`rankmeter.Result`.

    ``kind="distribution"``: the per-user values of ``metric`` (default: the
    first metric). ``kind="curve"``: every evaluated ``name@k`` of the metric
    family of ``metric`` against k (evaluate ``[f"ndcg@{k}" for k in range(1, 21)]``
    first: one pass).
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
        ax.set_ylabel(f"{family}@k")
        ax.grid(True, alpha=0.3)
        return fig
    raise ValueError(f"`kind` must be 'distribution' or 'curve', got {kind!r}")


def plot_comparison_means(cmp: Any, metrics: Optional[list] = None):
    """Means per run and metric (grouped bars); bootstrap intervals of the means as
    error bars when the comparison ran the bootstrap test."""
    metrics = metrics or cmp.metrics
    fig = _figure(figsize=(max(6.4, 1.2 * len(metrics) * max(1, len(cmp.runs)) * 0.5), 4.0))
    ax = fig.add_subplot()
    width = 0.8 / len(cmp.runs)
    x = np.arange(len(metrics))
    for i, run in enumerate(cmp.runs):
        ys = np.array([cmp.results[run][m] for m in metrics])
        err = None
        if all((run, m) in cmp.run_ci for m in metrics):
            lo = np.array([cmp.run_ci[(run, m)][0] for m in metrics])
            hi = np.array([cmp.run_ci[(run, m)][1] for m in metrics])
            err = np.clip(np.vstack([ys - lo, hi - ys]), 0.0, None)
        ax.bar(x + (i - (len(cmp.runs) - 1) / 2) * width, ys, width, yerr=err, label=str(run), capsize=2)
    ax.set_xticks(x, [str(m) for m in metrics])
    ax.set_ylabel("mean over users")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    return fig
