"""Which way a metric is better, from the registry (RANKMETER_BETTER rows of metrics.def), and the comparison
tables and plots that read it: bold and superscript letters go to the lowest mean of a metric better lower
(arp), to nobody for a count or a diagnostic (num_ret), as before for the others."""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter as rm
from rankmeter import _core
from rankmeter.metrics import SPECS, parse


def test_every_direction_row_names_a_metric_and_conditions_on_its_own_option_values():
    rows = _core.metric_better()
    assert rows, "the registry lists no metric better lower or without a direction"
    for name, _direction in rows:
        assert name in SPECS, name
        for word, cond in SPECS[name].better:
            assert word in ("higher", "lower", "none"), (name, word)
            if cond is not None:
                option, value = cond
                assert option in SPECS[name].options, (name, option)
                parse(f"{name}({option}={value})")  # a value the option takes
    assert len({name for name, _d in rows}) == len(rows), "a metric has two direction rows"


@pytest.mark.parametrize(
    ("metric", "way"),
    [
        ("ndcg@10", "higher"),
        ("precision@5", "higher"),
        ("hits@3", "higher"),
        ("coverage@10", "higher"),
        ("gini@10", "lower"),
        ("arp@10", "lower"),
        ("num_ret", None),
        ("num_rel", None),
        ("judged@5", None),
        ("unjudged@5", None),
        ("rbp_resid", None),
        ("inst", "higher"),
        ("inst(quantity=etu)", "higher"),
        ("inst(quantity=ec)", None),
        ("tbg(quantity=res_eu)", None),
    ],
)
def test_metric_says_which_way_it_is_better(metric, way):
    assert parse(metric).better == way


def _runs():
    """arp: run 'popular' recommends the most interacted items, 'niche' the least; both the same hits."""
    g = np.random.default_rng(3)
    n_users = 40
    # train: user 1000 + j interacted with items 0 .. 49 - j, so item i has 50 - i interactions
    train = {1000 + j: list(range(50 - j)) for j in range(50)}
    truth = {u: {100 + u: 1} for u in range(n_users)}
    popular = {u: [100 + u, *g.choice(10, 4, replace=False).tolist()] for u in range(n_users)}
    niche = {u: [100 + u, *(40 + g.choice(10, 4, replace=False)).tolist()] for u in range(n_users)}
    return truth, {"popular": popular, "niche": niche}, train


def test_compare_bolds_the_lowest_mean_of_a_metric_better_lower_and_letters_point_that_way():
    truth, runs, train = _runs()
    cmp = rm.compare(truth, runs, ["arp@5", "precision@5", "num_ret"], train=train, n_resamples=2000)
    assert cmp.means["niche"]["arp@5"] < cmp.means["popular"]["arp@5"]
    assert cmp.direction("arp@5") == "lower"
    assert cmp.best("arp@5") == ["niche"]
    assert cmp.better_than("niche", "arp@5") == ["popular"]
    assert cmp.better_than("popular", "arp@5") == []
    # equal precision: both best; num_ret has no direction: no bold, no letters
    assert cmp.best("precision@5") == ["popular", "niche"]
    assert cmp.best("num_ret") == [] and cmp.better_than("niche", "num_ret") == []
    md = cmp.to_markdown()
    niche_row = next(line for line in md.splitlines() if "| niche |" in line)
    popular_row = next(line for line in md.splitlines() if "| popular |" in line)
    arp_col = md.splitlines()[0].split("|").index(" arp@5 ")
    assert niche_row.split("|")[arp_col].strip().startswith("**")
    assert not popular_row.split("|")[arp_col].strip().startswith("**")
    assert "Lower is better for arp@5" in md
    assert "No direction (no bold, no letters) for num_ret" in md


def test_the_difference_plots_count_wins_in_the_metrics_direction():
    pytest.importorskip("matplotlib")
    from rankmeter.compare import plot as rmplot

    truth, runs, train = _runs()
    cmp = rm.compare(truth, runs, ["arp@5"], train=train, baseline="popular", n_resamples=500)
    fig = rmplot.plot_per_user_difference(cmp, "arp@5")
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert any(t.startswith("40 wins, 0 losses") for t in texts), texts
    fig = rmplot.plot_significance_matrix(cmp, "arp@5")
    assert fig.axes[0].collections[0].get_cmap().name == "RdYlGn_r"


def test_the_report_draws_no_curve_over_k_for_a_metric_without_a_cutoff():
    pytest.importorskip("matplotlib")
    from rankmeter.compare import plot as rmplot

    truth, runs, train = _runs()
    cmp = rm.compare(truth, runs, ["num_ret", "precision@5"], train=train, n_resamples=200)
    html = cmp.to_html()  # num_ret@1..20 does not exist: the report used to raise here
    assert "precision@k for k = 1..20" in html and "num_ret@k" not in html
    with pytest.raises(ValueError, match="takes no cutoff"):
        rmplot.metric_at_k(truth, runs, "num_ret")
