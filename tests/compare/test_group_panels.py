"""compare(..., user_groups=...): the per-group panel of the text, Markdown and HTML tables, the gap panel,
and the by-group plot of the report (docs/fairness.md). Every figure shown is checked against rm.evaluate on
the group's users alone (a plain restriction, not the grouped code path)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import rankmeter as rm

pytest.importorskip("pandas")
METRICS = ["ndcg@10", "precision@5", "recall@10"]


def _data():
    rng = np.random.default_rng(7)
    truth = {u: {int(i): 1 for i in rng.choice(40, 3, replace=False)} for u in range(90)}
    runs = {
        "pop": {u: list(range(10)) for u in range(90)},
        "model": {u: [int(i) for i in rng.permutation(40)[:10]] for u in range(90)},
    }
    groups = {u: ("cold" if u < 20 else "regular" if u < 55 else "heavy") for u in range(90)}
    return truth, runs, groups


def _alone(truth, run, groups, label):
    users = [u for u in truth if groups[u] == label]
    return rm.evaluate({u: truth[u] for u in users}, {u: run[u] for u in users}, METRICS)


def test_text_and_markdown_panels_show_each_groups_exact_means_and_the_best_run():
    truth, runs, groups = _data()
    cmp = rm.compare(truth, runs, METRICS, user_groups=groups)
    text, md = cmp.to_text(), cmp.to_markdown()
    assert "By user group" in text and "Gaps between the group means" in text
    for label in ("cold", "regular", "heavy"):
        alone = {r: _alone(truth, runs[r], groups, label) for r in runs}
        for r in runs:
            n = sum(1 for u in truth if groups[u] == label)
            row = f"{label} {r} {n} " + " ".join(f"{alone[r][m]:.4f}" for m in METRICS)
            assert row in re.sub(r"\s+", " ", text), row
        for m in METRICS:
            best = max(alone[r][m] for r in runs)
            winners = [r for r in runs if alone[r][m] == best]
            for r in runs:
                cell = f"**{alone[r][m]:.4f}**"
                line = next(x for x in md.splitlines() if x.startswith(f"| {label} | {r} |"))
                assert (cell in line) == (r in winners and alone[r][m] == best), (label, r, m, line)


def test_gap_panel_is_the_range_ratio_and_mad_of_the_group_means():
    truth, runs, groups = _data()
    cmp = rm.compare(truth, runs, METRICS, user_groups=groups)
    text = re.sub(r"\s+", " ", cmp.to_text())
    for r in runs:
        for m in METRICS:
            means = np.array([_alone(truth, runs[r], groups, g)[m] for g in ("cold", "regular", "heavy")])
            pairs = [abs(a - b) for i, a in enumerate(means) for b in means[i + 1 :]]
            row = f"{r} {m} {means.max() - means.min():.4f} {means.min() / means.max():.4f} {np.mean(pairs):.4f}"
            assert row in text, row


def test_html_tables_and_report_carry_the_group_panels_and_plots():
    pytest.importorskip("matplotlib")
    truth, runs, groups = _data()
    cmp = rm.compare(truth, runs, METRICS, user_groups=groups)
    html = cmp.html_tables()
    assert 'class="rm-groups"' in html and 'class="rm-gaps"' in html
    report = cmp.to_html()
    for m in METRICS:
        assert f"{m} by user group: each run" in report
    plain = rm.compare(truth, runs, METRICS)
    assert "rm-groups" not in plain.html_tables() and "by user group" not in plain.to_html()
    assert "By user group" not in plain.to_text() and "By user group" not in plain.to_markdown()


def test_by_group_plot_bars_are_the_group_means_with_t_intervals():
    pytest.importorskip("matplotlib")
    from rankmeter.compare import plot as P

    truth, runs, groups = _data()
    cmp = rm.compare(truth, runs, METRICS, user_groups=groups)
    fig = cmp.plot("groups", "ndcg@10")
    ax = fig.axes[0]
    heights = [b.get_height() for b in ax.patches]
    labels = list(cmp.results["pop"].by_group().index)
    want = [_alone(truth, runs[r], groups, g)["ndcg@10"] for r in runs for g in labels]
    assert heights == pytest.approx(want, abs=0, rel=0)
    iv = P.group_mean_intervals(cmp.results, "ndcg@10", 0.05)
    for r in runs:
        for g in labels:
            v = np.asarray(_alone(truth, runs[r], groups, g).per_user["ndcg@10"], dtype=float)
            lo, hi = iv[(r, g)]
            assert lo < np.mean(v) < hi
    res = rm.evaluate(truth, runs["model"], ["ndcg@10"], user_groups=groups)
    assert len(P.plot_result(res, "ndcg@10", kind="groups").axes[0].patches) == 3


def test_by_group_plot_refuses_results_without_groups():
    pytest.importorskip("matplotlib")
    from rankmeter.compare import plot as P

    truth, runs, _ = _data()
    res = rm.evaluate(truth, runs["pop"], ["ndcg@10"])
    with pytest.raises(ValueError, match=r"run 'run' has no user groups; evaluate or compare with user_groups="):
        P.plot_by_group(res, "ndcg@10")
    cmp = rm.compare(truth, runs, ["ndcg@10"])
    with pytest.raises(ValueError, match="has no user groups"):
        cmp.plot("groups", "ndcg@10")
