"""Issue 13: comparing runs (paired significance tests, tables, plots, report, CLI)."""

from __future__ import annotations

import json
import math
import re
import struct

import numpy as np
import pytest

import rankmeter as rm
from rankmeter import _core
from rankmeter.compare import _stats, ci, plot_result
from rankmeter.compare import plot as rmplot
from tests.support import reference_stats as ref

EPS = 2.0**-52


def _toy(n_users=60, n_items=40, seed=0, lift=(0.0, 0.15, 0.3)):
    """Truth and a few runs of increasing quality (dicts; every user has a relevant item)."""
    g = np.random.default_rng(seed)
    truth = {}
    for u in range(n_users):
        items = g.choice(n_items, 5, replace=False)
        truth[u] = {int(i): int(g.integers(1, 4)) for i in items}
    runs = {}
    for r, p in enumerate(lift):
        recs = {}
        for u in range(n_users):
            rel = list(truth[u])
            other = [i for i in g.permutation(n_items).tolist() if i not in truth[u]]
            lst = []
            for _pos in range(10):
                if rel and g.random() < 0.2 + p:
                    lst.append(rel.pop(0))
                else:
                    lst.append(other.pop())
            recs[u] = lst
        runs[f"run{r}"] = recs
    return truth, runs


# --------------------------------------------------------------------------- generator and kernels
def test_generator_matches_the_reference():
    for seed, domain, r in [(0, 1, 0), (42, 1, 7), (2**64 - 1, 2, 123456), (7, 2, 0)]:
        words = _core.splitmix_words(seed, domain, r, 5)
        key = ref.resample_key(seed, domain, r)
        assert [int(w) for w in words] == [ref.stream_word(key, w) for w in range(5)]


@pytest.mark.parametrize("n", [1, 5, 37, 64, 300])
def test_sign_flip_sums_equal_the_reference_bit_for_bit(rng, n):
    X = rng.normal(size=(n, 3))
    X[::5, 1] = 0.0
    X[:, 2] = np.round(X[:, 2], 1)  # discrete values: exact ties are common
    sums_ref, obs_ref = ref.sign_flip_sums(X.tolist(), 40, seed=9)
    for threads in (1, 2, 3):
        sums, obs = _core.sign_flip_sums(X, 40, 9, threads)
        assert sums.tolist() == sums_ref
        assert obs.tolist() == obs_ref


@pytest.mark.parametrize("n", [1, 7, 50])
def test_bootstrap_sums_equal_the_reference_bit_for_bit(rng, n):
    X = rng.random((n, 2))
    sums_ref = ref.bootstrap_sums(X.tolist(), 30, seed=5)
    for threads in (1, 2, 4):
        assert _core.bootstrap_sums(X, 30, 5, threads).tolist() == sums_ref


def test_kernels_reject_bad_shapes():
    with pytest.raises(ValueError):
        _core.sign_flip_sums(np.zeros(3), 10, 0, 1)
    with pytest.raises(ValueError):
        _core.bootstrap_sums(np.zeros((3, 1)), 0, 0, 1)
    with pytest.raises(TypeError):
        _core.sign_flip_sums(np.zeros((3, 1), dtype=np.float32), 10, 0, 1)


def test_sign_flip_all_positive_pattern_is_the_observed_sum(rng):
    X = rng.normal(size=(513, 2))
    _, obs = _core.sign_flip_sums(X, 1, 0, 1)
    np.testing.assert_allclose(obs, X.sum(axis=0), rtol=1e-12)


# --------------------------------------------------------------------------- randomization through compare
def test_randomization_p_values_equal_the_reference_exactly():
    truth, runs = _toy(n_users=45, lift=(0.0, 0.1))
    cmp = rm.compare(truth, runs, ["ndcg@10"], n_resamples=300, seed=11)
    row = cmp.rows[0]
    assert (row["run"], row["baseline"]) == ("run1", "run0")
    x1 = cmp.results["run1"].per_user["ndcg@10"]
    x0 = cmp.results["run0"].per_user["ndcg@10"]
    X = np.column_stack([x1, x0])
    sums, obs = ref.sign_flip_sums(X.tolist(), 300, seed=11)
    gamma = len(x1) * EPS * (np.abs(x1).sum() + np.abs(x0).sum())
    assert row["p_value"] == ref.randomization_p(sums, obs, 0, 1, gamma)


def test_randomization_p_is_close_to_the_exact_permutation_p():
    # n = 12 users: the exact p enumerates all 4096 sign patterns. With R random
    # patterns, c ~ Binomial(R, p) so (c + 1)/(R + 1) has standard deviation
    # sqrt(p (1 - p) / R) <= 0.0035 at R = 20,000; 5 standard deviations (+ the 1/R
    # of the "+1") bound it with failure probability < 1e-6, and the seed is fixed.
    g = np.random.default_rng(3)
    d_a = g.random(12)
    d_b = d_a - g.normal(0.08, 0.2, 12)
    truth = {u: {0: 1} for u in range(12)}
    R = 20_000
    X = np.column_stack([d_a, d_b])
    gamma = np.array([12 * EPS * (np.abs(d_a).sum() + np.abs(d_b).sum())])
    p = _stats.randomization_pvalues(X, [(0, 1)], gamma, R, 0, 0)[0]
    exact = ref.exact_randomization_p((d_a - d_b).tolist())
    assert abs(p - exact) <= 5 * math.sqrt(exact * (1 - exact) / R) + 1 / R
    assert truth  # the data, not the truth, matter here


def test_randomization_is_deterministic_for_any_thread_count():
    truth, runs = _toy(n_users=300, lift=(0.0, 0.03, 0.05))
    a = rm.compare(truth, runs, ["ndcg@10", "precision@5"], n_resamples=500, threads=1)
    b = rm.compare(truth, runs, ["ndcg@10", "precision@5"], n_resamples=500, threads=2)
    assert [r["p_value"] for r in a.rows] == [r["p_value"] for r in b.rows]
    c = rm.compare(truth, runs, ["ndcg@10", "precision@5"], n_resamples=500, threads=2, seed=1)
    assert [r["p_value"] for r in a.rows] != [r["p_value"] for r in c.rows]
    assert any(0.01 < r["p_value"] < 0.99 for r in a.rows)


def test_clear_difference_is_significant_and_no_difference_is_not():
    truth, runs = _toy(n_users=200, lift=(0.0, 0.6))
    runs["copy"] = runs["run0"]
    cmp = rm.compare(truth, runs, ["ndcg@10"], n_resamples=2000)
    by = {(r["run"], r["baseline"]): r for r in cmp.rows}
    assert by[("run1", "run0")]["significant"] and by[("run1", "run0")]["p_value"] == 1 / 2001
    assert by[("copy", "run0")]["p_value"] == 1.0 and not by[("copy", "run0")]["significant"]
    assert cmp.better_than("run1", "ndcg@10") == ["run0", "copy"]


# --------------------------------------------------------------------------- bootstrap
def test_bootstrap_p_and_intervals_equal_the_reference():
    truth, runs = _toy(n_users=30, lift=(0.0, 0.2))
    cmp = rm.compare(truth, runs, ["rr@10"], test="bootstrap", n_resamples=200, seed=4, alpha=0.1)
    row = cmp.rows[0]
    x0 = cmp.results["run0"].per_user["rr@10"]
    x1 = cmp.results["run1"].per_user["rr@10"]
    sums = np.array(ref.bootstrap_sums(np.column_stack([x0, x1]).tolist(), 200, seed=4))
    m0, m1 = sums[:, 0] / 30, sums[:, 1] / 30
    diff = cmp.results["run1"]["rr@10"] - cmp.results["run0"]["rr@10"]
    gamma = 30 * EPS * (np.abs(x1).sum() + np.abs(x0).sum())
    null = [(a - b) - diff for a, b in zip(m1.tolist(), m0.tolist())]
    c = sum(1 for v in null if abs(v) >= abs(diff) - gamma)
    assert row["p_value"] == (c + 1) / 201
    lo, hi = np.quantile(m1 - m0, [0.05, 0.95])
    assert (row["ci_low"], row["ci_high"]) == (lo, hi)
    assert cmp.run_ci[("run0", "rr@10")] == tuple(np.quantile(m0, [0.05, 0.95]))


def test_ci_of_one_run():
    truth, runs = _toy(n_users=80)
    res = rm.evaluate(truth, runs["run1"], ["ndcg@10"])
    lo, hi = ci(res, "ndcg@10", method="bootstrap", n_resamples=2000)
    assert lo < res["ndcg@10"] < hi
    scipy_stats = pytest.importorskip("scipy.stats")
    v = res.per_user["ndcg@10"]
    exp = scipy_stats.t.interval(0.95, v.size - 1, loc=v.mean(), scale=scipy_stats.sem(v))
    np.testing.assert_allclose(ci(res, "ndcg@10", method="t"), exp, rtol=1e-12)
    with pytest.raises(ValueError, match="method"):
        ci(res, "ndcg@10", method="jackknife")
    # the same through the Result method: res.ci("ndcg@10", method="bootstrap")
    assert res.ci("ndcg@10", method="bootstrap", n_resamples=2000) == (lo, hi)  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- t-test and Wilcoxon
@pytest.mark.parametrize("n", [3, 10, 57, 500])
def test_t_test_equals_scipy(rng, n):
    stats = pytest.importorskip("scipy.stats")
    x, y = rng.random(n), rng.random(n)
    exp = stats.ttest_rel(x, y)
    for use in (True, False):
        t, p = _stats.ttest_rel_p(x - y, use_scipy=use)
        assert abs(t - exp.statistic) <= 1e-10 * max(1, abs(exp.statistic))
        assert abs(p - exp.pvalue) <= 1e-10


def _wilcoxon_cases(rng):
    yield rng.normal(size=20)  # exact, no ties
    yield rng.normal(size=50)  # exact, largest n
    yield np.round(rng.normal(size=10), 1)  # n <= 13 with ties: permutation
    yield np.array([0.0, 0.5, -0.2, 0.3, 0.3, 1.0, -0.7, 0.0, 0.9])  # zeros and ties, n <= 13
    yield np.round(rng.normal(size=30), 1)  # ties, n in 14..50: normal approximation
    yield np.concatenate([np.zeros(5), np.round(rng.normal(size=80), 1)])  # n > 50, zeros and ties
    yield rng.normal(0.3, 1, size=400)


def test_wilcoxon_equals_scipy_with_its_defaults(rng):
    stats = pytest.importorskip("scipy.stats")
    for d in _wilcoxon_cases(rng):
        exp = stats.wilcoxon(d).pvalue
        assert abs(_stats.wilcoxon_p(d, use_scipy=True) - exp) <= 1e-10
        assert abs(_stats.wilcoxon_p(d, use_scipy=False) - exp) <= 1e-10, d


def test_wilcoxon_and_t_through_compare_equal_scipy():
    stats = pytest.importorskip("scipy.stats")
    truth, runs = _toy(n_users=70)
    for test, fn in (
        ("t", lambda a, b: stats.ttest_rel(a, b).pvalue),
        ("wilcoxon", lambda a, b: stats.wilcoxon(a, b).pvalue),
    ):
        cmp = rm.compare(truth, runs, ["ndcg@10"], test=test, correction="none")
        for row in cmp.rows:
            a = cmp.results[row["run"]].per_user["ndcg@10"]
            b = cmp.results[row["baseline"]].per_user["ndcg@10"]
            assert abs(row["p_value"] - fn(a, b)) <= 1e-10
            assert row["p_adjusted"] == row["p_value"]


# --------------------------------------------------------------------------- corrections
def test_corrections_equal_a_hand_computation():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # Holm: sorted 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> running max 0.06
    np.testing.assert_allclose(_stats.adjust(p, "holm"), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(_stats.adjust(p, "bonferroni"), [0.04, 0.16, 0.12, 0.02])
    np.testing.assert_allclose(_stats.adjust(np.array([0.5, 0.4]), "bonferroni"), [1.0, 0.8])
    assert ref.holm(p.tolist()) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    out = _stats.adjust(np.array([0.01, np.nan, 0.02]), "holm")
    assert math.isnan(out[1]) and out[0] == pytest.approx(0.02) and out[2] == pytest.approx(0.02)


def test_correction_spans_all_comparisons_of_the_call():
    truth, runs = _toy(n_users=100)
    raw = rm.compare(truth, runs, ["ndcg@10", "recall@10"], correction="none", n_resamples=999)
    hol = rm.compare(truth, runs, ["ndcg@10", "recall@10"], correction="holm", n_resamples=999)
    bon = rm.compare(truth, runs, ["ndcg@10", "recall@10"], correction="bonferroni", n_resamples=999)
    p = [r["p_value"] for r in raw.rows]
    assert len(p) == 6
    assert [r["p_adjusted"] for r in hol.rows] == pytest.approx(ref.holm(p))
    assert [r["p_adjusted"] for r in bon.rows] == pytest.approx([min(1, 6 * x) for x in p])


# --------------------------------------------------------------------------- users, baseline, effect
def test_users_without_relevant_items_are_left_out_under_skip():
    truth = {u: ({1: 1, 2: 1} if u % 4 else {3: 0}) for u in range(40)}
    runs = {"a": {u: [1, 2, 5] if u % 3 else [5, 1, 2] for u in range(40)}, "b": {u: [5, 6, 1] for u in range(40)}}
    skip = rm.compare(truth, runs, ["ndcg@3"], n_resamples=199)
    assert skip.rows[0]["n_users"] == 30
    zero = rm.compare(truth, runs, ["ndcg@3"], n_resamples=199, empty="zero")
    assert zero.rows[0]["n_users"] == 40
    a = skip.results["b"].per_user["ndcg@3"]
    b = skip.results["a"].per_user["ndcg@3"]
    ok = ~np.isnan(a)
    stats = pytest.importorskip("scipy.stats")
    t = rm.compare(truth, runs, ["ndcg@3"], test="t")
    assert t.rows[0]["p_value"] == pytest.approx(stats.ttest_rel(a[ok], b[ok]).pvalue, abs=1e-10)


def test_baseline_compares_each_run_against_it():
    truth, runs = _toy(n_users=50)
    cmp = rm.compare(truth, runs, ["ndcg@10"], baseline="run1", n_resamples=99)
    assert [(r["run"], r["baseline"]) for r in cmp.rows] == [("run0", "run1"), ("run2", "run1")]
    every = rm.compare(truth, runs, ["ndcg@10"], n_resamples=99)
    assert [(r["run"], r["baseline"]) for r in every.rows] == [("run1", "run0"), ("run2", "run0"), ("run2", "run1")]


def test_means_diff_and_effect_size():
    truth, runs = _toy(n_users=64)
    cmp = rm.compare(truth, runs, ["map@10"], test="t")
    for row in cmp.rows:
        a = cmp.results[row["run"]].per_user["map@10"]
        b = cmp.results[row["baseline"]].per_user["map@10"]
        assert row["mean"] == cmp.results[row["run"]]["map@10"]
        assert row["diff"] == pytest.approx(a.mean() - b.mean(), abs=1e-15)
        assert row["effect_size"] == pytest.approx((a - b).mean() / (a - b).std(ddof=1), rel=1e-12)
        assert row["ci_low"] < row["diff"] < row["ci_high"]


def test_runs_in_any_recs_form():
    truth = {0: {1: 1}, 1: {2: 1}, 2: {3: 1}}
    cmp = rm.compare(
        truth,
        {"lists": {0: [1], 1: [5], 2: [3]}, "array": rm.Recs.from_array(np.array([[1], [2], [4]]), users=[0, 1, 2])},
        ["hit_rate@1"],
        n_resamples=99,
    )
    assert cmp.means == {"lists": {"hit_rate@1": 2 / 3}, "array": {"hit_rate@1": 2 / 3}}


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "kw, exc, match",
    [
        (dict(test="anova"), ValueError, "`test`"),
        (dict(alpha=0.0), ValueError, "`alpha`"),
        (dict(alpha=1.5), ValueError, "`alpha`"),
        (dict(alpha="x"), TypeError, "`alpha`"),
        (dict(correction="fdr"), ValueError, "`correction`"),
        (dict(n_resamples=0), ValueError, "`n_resamples`"),
        (dict(n_resamples=2.5), TypeError, "`n_resamples`"),
        (dict(baseline="nope"), ValueError, "`baseline`"),
        (dict(seed=-1), ValueError, "`seed`"),
        (dict(threads=0), ValueError, "`threads`"),
    ],
)
def test_bad_arguments_name_the_argument(kw, exc, match):
    truth, runs = _toy(n_users=10)
    with pytest.raises(exc, match=match):
        rm.compare(truth, runs, ["ndcg@10"], **kw)


def test_bad_runs_and_metrics():
    truth, runs = _toy(n_users=10)
    with pytest.raises(TypeError, match="`runs`"):
        rm.compare(truth, list(runs.values()), ["ndcg@10"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least 2"):
        rm.compare(truth, {"a": runs["run0"]}, ["ndcg@10"])
    with pytest.raises(TypeError, match="`runs` keys"):
        rm.compare(truth, {1: runs["run0"], 2: runs["run1"]}, ["ndcg@10"])
    with pytest.raises(ValueError, match="catalog-level"):
        rm.compare(truth, runs, ["coverage@10"])
    with pytest.raises(ValueError, match=r"unknown metric|metric"):
        rm.compare(truth, runs, ["nope@10"])
    with pytest.raises(ValueError, match="empty"):
        rm.compare(truth, runs, [])


# --------------------------------------------------------------------------- exports
def test_exports():
    pd = pytest.importorskip("pandas")
    truth, runs = _toy(n_users=150, lift=(0.0, 0.5, 0.2))
    cmp = rm.compare(truth, runs, ["ndcg@10", "precision@5"], n_resamples=999)
    df = cmp.to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == 6
    assert list(df.columns[:3]) == ["run", "baseline", "metric"]
    assert {"mean", "diff", "ci_low", "ci_high", "p_value", "p_adjusted", "significant"} <= set(df.columns)
    md = cmp.to_markdown()
    best = cmp.best("ndcg@10", 4)[0]
    assert best == "run1"
    assert f"**{cmp.results['run1']['ndcg@10']:.4f}**ᵃᶜ" in md  # run1 beats run0 (a) and run2 (c)
    assert "superscript letter" in md
    tex = cmp.to_latex()
    assert "\\textbf{" in tex and "$^{ac}$" in tex and "\\toprule" in tex and "\\hphantom" in tex
    text = repr(cmp)
    assert "run1" in text and "ᵃᶜ" in text and "p_adj" in text
    assert "<table" in cmp._repr_html_() and "<sup>ac</sup>" in cmp._repr_html_()
    data = json.loads(cmp.to_json())
    assert data["meta"]["test"] == "randomization" and len(data["rows"]) == 6


def test_html_report_is_self_contained(tmp_path):
    pytest.importorskip("matplotlib")
    truth, runs = _toy(n_users=80)
    cmp = rm.compare(truth, runs, ["ndcg@10", "recall@10"], n_resamples=499)
    path = tmp_path / "report.html"
    text = cmp.to_html(str(path), k_max=10)
    assert path.read_text(encoding="utf-8") == text
    # means, 2 metric@k curves, PR curve, then per metric: differences against the baseline, the pairwise
    # significance matrix and the distribution
    assert text.count("<svg") == 1 + 2 + 1 + 3 * 2
    # nothing is fetched: no src/href other than in-document fragments, no <script>, no @import
    assert all(u.startswith("#") for u in re.findall(r'(?:src|href)="([^"]*)"', text))
    assert "<script" not in text and "@import" not in text and not re.search(r"url\((?!#)", text)
    assert "Holm" in text and "80" in text and "Fisher" in text


# --------------------------------------------------------------------------- plots
def _png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_plots_headless(tmp_path):
    pytest.importorskip("matplotlib")
    truth, runs = _toy(n_users=60)
    fig = rmplot.plot_metric_at_k(truth, runs, "ndcg", k_max=10)
    fig.savefig(tmp_path / "ndcg_at_k.png", dpi=100)
    assert _png_size(tmp_path / "ndcg_at_k.png") == (640, 400)
    assert (tmp_path / "ndcg_at_k.png").stat().st_size > 10_000
    fig = rmplot.plot_pr_curve(truth, runs, k_max=10)
    fig.savefig(tmp_path / "pr.png", dpi=100)
    assert _png_size(tmp_path / "pr.png") == (640, 400)
    fig.savefig(tmp_path / "pr.svg")
    assert (tmp_path / "pr.svg").read_text().lstrip().startswith("<?xml")
    curves = rmplot.metric_at_k(truth, runs, "ndcg@5", k_max=10)
    res = rm.evaluate(truth, runs["run2"], [f"ndcg@{k}" for k in range(1, 11)])
    assert curves["run2"].tolist() == [res[f"ndcg@{k}"] for k in range(1, 11)]
    _p, r = rmplot.pr_curve(truth, runs, k_max=10)["run0"]
    assert np.all(np.diff(r) >= 0)


def test_result_and_comparison_plots():
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    truth, runs = _toy(n_users=60)
    res = rm.evaluate(truth, runs["run1"], [f"ndcg@{k}" for k in range(1, 11)])
    assert isinstance(plot_result(res), Figure)
    assert isinstance(plot_result(res, "ndcg@5", kind="curve"), Figure)
    assert isinstance(res.plot("ndcg@5", kind="curve"), Figure)  # type: ignore[attr-defined]  # delegates to plot_result
    cmp = rm.compare(truth, runs, ["ndcg@10"], n_resamples=99, test="bootstrap")
    for kind in ("means", "distribution", "curve", "pr"):
        assert isinstance(cmp.plot(kind, k_max=5) if kind in ("curve", "pr") else cmp.plot(kind), Figure)
    with pytest.raises(ValueError, match="kind"):
        cmp.plot("pie")


# --------------------------------------------------------------------------- CLI
def _trec_files(tmp_path, truth, runs):
    q = tmp_path / "qrels.txt"
    q.write_text("".join(f"{u} 0 d{i} {g}\n" for u, items in truth.items() for i, g in items.items()))
    paths = []
    for name, recs in runs.items():
        p = tmp_path / f"{name}.txt"
        p.write_text(
            "".join(f"{u} Q0 d{i} {r + 1} {100 - r} {name}\n" for u, lst in recs.items() for r, i in enumerate(lst))
        )
        paths.append(str(p))
    return str(q), paths


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex", "html", "json"])
def test_cli_compare(tmp_path, capsys, fmt):
    from rankmeter.cli import main

    truth, runs = _toy(n_users=40)
    q, paths = _trec_files(tmp_path, truth, runs)
    args = [
        "compare",
        q,
        *paths,
        "-m",
        "ndcg@10",
        "map@100",
        "--test",
        "randomization",
        "--n-resamples",
        "199",
        "--format",
        fmt,
    ]
    if fmt == "html":
        args.append("--no-plots")
    assert main(args) == 0
    out = capsys.readouterr().out
    # TREC files: the command line's default conventions are trec_eval's (rankmeter eval's too)
    expected = rm.compare(
        q, dict(zip(["run0", "run1", "run2"], paths)), ["ndcg@10", "map@100"], n_resamples=199, preset="trec_eval"
    )
    if fmt == "json":
        data = json.loads(out)
        assert [r["p_value"] for r in data["rows"]] == [r["p_value"] for r in expected.rows]
    elif fmt == "markdown":
        assert out.strip() == expected.to_markdown().strip()
    elif fmt == "latex":
        assert "\\begin{tabular}" in out
    elif fmt == "html":
        assert out.lstrip().startswith("<!DOCTYPE html>")
    else:
        assert "run0" in out and "p_adj" in out


def test_cli_report_and_errors(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from rankmeter.cli import main

    truth, runs = _toy(n_users=40)
    q, paths = _trec_files(tmp_path, truth, runs)
    out = tmp_path / "r.html"
    assert main(["report", q, *paths, "-m", "ndcg@10", "--n-resamples", "99", "-o", str(out), "--k-max", "5"]) == 0
    assert out.read_text(encoding="utf-8").count("<svg") >= 4
    assert main(["compare", q, paths[0], "-m", "ndcg@10"]) == 2
    assert "at least 2" in capsys.readouterr().err
    assert main(["compare", q, *paths, "-m", "ndcg@10", "--test", "anova"]) == 2


def test_ranx_preset_is_registered():
    assert "ranx" in rm.PRESETS
    doc = rm.PRESETS["ranx"].doc
    assert "verified" in doc and "ndcg" in doc
