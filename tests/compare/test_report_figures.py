"""The figures of the comparison report: one word for the evaluated units, counts in the captions, whole-k
ticks, intervals on the means chart, one title per figure, the per-user differences against the baseline
and the pairwise significance matrix."""

from __future__ import annotations

import re

import numpy as np
import pytest

import rankmeter as rm
from rankmeter.compare import plot as P

pytest.importorskip("matplotlib")


def _runs(g, n=60, drop=0):
    truth = {f"q{u}": {f"d{int(i)}": int(g.integers(0, 3)) for i in g.choice(40, 6, replace=False)} for u in range(n)}
    runs = {}
    for name in ("a", "b", "c"):
        runs[name] = {
            u: [f"d{int(i)}" for i in g.choice(40, 12, replace=False)] for j, u in enumerate(truth) if j >= drop
        }
    return truth, runs


def _trec_files(tmp_path, truth, runs):
    q = tmp_path / "qrels.txt"
    q.write_text("".join(f"{u} 0 {i} {gr}\n" for u, items in truth.items() for i, gr in items.items()))
    paths = {}
    for name, lists in runs.items():
        p = tmp_path / f"{name}.run"
        p.write_text(
            "".join(f"{u} Q0 {i} {r + 1} {100 - r} {name}\n" for u, items in lists.items() for r, i in enumerate(items))
        )
        paths[name] = str(p)
    return str(q), paths


def test_trec_input_is_counted_in_queries_and_other_input_in_users(tmp_path):
    g = np.random.default_rng(0)
    truth, runs = _runs(g)
    q, paths = _trec_files(tmp_path, truth, runs)
    by_file = rm.compare(q, paths, ["ndcg@5"], n_resamples=99, preset="trec_eval")
    by_dict = rm.compare(truth, runs, ["ndcg@5"], n_resamples=99)
    assert by_file.meta["entity"] == "queries" and by_dict.meta["entity"] == "users"
    assert "60 queries" in repr(by_file) and "users" not in by_file._legend()
    assert "60 users" in repr(by_dict)
    html = by_file.to_html(plots=True, k_max=5)
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", html)
    assert captions and not any(" user" in c for c in captions), captions
    assert "queries (truth)" in html
    dist = P.plot_distributions(by_file.results, "ndcg@5", entity=by_file.meta["entity"])
    assert dist.axes[0].get_ylabel() == "share of queries" and dist.axes[0].get_xlabel() == "ndcg@5 per query"


def test_captions_give_evaluated_and_total_counts(tmp_path):
    """trec_eval without -c leaves out queries without results: the legend says how many of the truth's."""
    g = np.random.default_rng(1)
    truth, runs = _runs(g, n=50, drop=5)  # every run lacks the first 5 queries
    q, paths = _trec_files(tmp_path, truth, runs)
    cmp = rm.compare(q, paths, ["P@5"], n_resamples=99, preset="trec_eval")
    assert cmp.meta["n_users"] == 45 and cmp.meta["n_truth_users"] == 50
    assert "45 of 50 queries evaluated" in cmp._legend()
    html = cmp.to_html(plots=True, k_max=3)
    assert "45 of 50 queries evaluated" in html
    assert "queries with a value: a 45, b 45, c 45 of 50" in html


def test_metric_at_k_plots_have_whole_k_ticks():
    g = np.random.default_rng(2)
    truth, runs = _runs(g)
    for k_max in (3, 5, 7, 20):
        fig = P.plot_metric_at_k(truth, runs, "ndcg", k_max)
        ticks = fig.axes[0].get_xticks()
        shown = ticks[(ticks >= 1) & (ticks <= k_max)]
        assert shown.size and np.all(shown == np.round(shown)), (k_max, ticks)


@pytest.mark.parametrize("test", ["randomization", "t", "wilcoxon", "bootstrap"])
def test_means_chart_has_an_interval_for_every_run_whatever_the_test(test):
    from rankmeter.compare._stats import t_interval

    g = np.random.default_rng(3)
    truth, runs = _runs(g)
    cmp = rm.compare(truth, runs, ["ndcg@5", "recall@5"], n_resamples=199, test=test)
    iv = P.run_mean_intervals(cmp)
    for run in cmp.runs:
        for m in cmp.metrics:
            lo, hi = iv[(run, m)]
            assert lo <= cmp.results[run][m] <= hi
            if test == "bootstrap":
                assert (lo, hi) == tuple(cmp.run_ci[(run, m)])
            else:
                v = np.asarray(cmp.results[run].per_user[m], dtype=float)
                assert (lo, hi) == t_interval(v[~np.isnan(v)], cmp.meta["alpha"])
    fig = P.plot_comparison_means(cmp)
    from matplotlib.container import BarContainer

    bars = [c for c in fig.axes[0].containers if isinstance(c, BarContainer) and c.errorbar is not None]
    assert len(bars) == len(cmp.runs)


def test_report_figures_have_no_title_of_their_own(monkeypatch):
    """The report captions every figure; a title inside the figure would say it twice."""
    from rankmeter.compare import report

    g = np.random.default_rng(4)
    truth, runs = _runs(g)
    cmp = rm.compare(truth, runs, ["ndcg@5"], n_resamples=99)
    seen = []
    real = report.figure_svg

    def spy(fig):
        seen.append(fig)
        return real(fig)

    monkeypatch.setattr(report, "figure_svg", spy)
    html = cmp.to_html(plots=True, k_max=4)
    assert len(seen) == html.count("<figcaption>") == 1 + 1 + 1 + 3
    for fig in seen:
        assert fig._suptitle is None and all(ax.get_title() == "" for ax in fig.axes)


def test_per_user_differences_are_sorted_wins_first_over_users_evaluated_by_both():
    g = np.random.default_rng(5)
    truth, runs = _runs(g)
    cmp = rm.compare(truth, runs, ["ap@5"], n_resamples=99)  # empty='skip': users without relevant items NaN
    d = P.per_user_differences(cmp, "ap@5", "a")
    base = np.asarray(cmp.results["a"].per_user["ap@5"], dtype=float)
    for run in ("b", "c"):
        other = np.asarray(cmp.results[run].per_user["ap@5"], dtype=float)
        both = ~np.isnan(other) & ~np.isnan(base)
        want = sorted((other[both] - base[both]).tolist(), reverse=True)
        assert d[run].tolist() == want
    fig = P.plot_per_user_difference(cmp, "ap@5", "a")
    assert len(fig.axes) == 2
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    wins = int(np.count_nonzero(d["b"] > 0))
    assert any(t.startswith(f"{wins} wins") for t in texts)
    with pytest.raises(ValueError, match="baseline"):
        P.plot_per_user_difference(cmp, "ap@5", "nope")
    with pytest.raises(ValueError, match="metric"):
        P.per_user_differences(cmp, "ndcg@5")


@pytest.mark.parametrize("baseline", [None, "b"])
def test_significance_matrix_holds_each_pair_once_antisymmetric(baseline):
    g = np.random.default_rng(6)
    truth, runs = _runs(g)
    cmp = rm.compare(truth, runs, ["ndcg@5"], n_resamples=199, baseline=baseline)
    diff, padj, sig = P.significance_matrix(cmp, "ndcg@5")
    pos = {r: i for i, r in enumerate(cmp.runs)}
    compared = set()
    for row in cmp.rows:
        a, b = pos[row["run"]], pos[row["baseline"]]
        assert diff[a, b] == row["diff"] == -diff[b, a]
        assert padj[a, b] == padj[b, a] == row["p_adjusted"]
        assert sig[a, b] == sig[b, a] == row["significant"]
        compared |= {(a, b), (b, a)}
    for i in range(3):
        for j in range(3):
            if (i, j) not in compared:
                assert np.isnan(diff[i, j]) and not sig[i, j]
    fig = P.plot_significance_matrix(cmp, "ndcg@5")
    assert len(fig.axes[0].texts) == len(compared)
