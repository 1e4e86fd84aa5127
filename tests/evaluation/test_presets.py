"""The recommender-library presets: describe(), errors, explicit options win, option tables."""

from __future__ import annotations

import pytest

import rankmeter as rm

RECSYS = ["rectools", "recommenders", "torchmetrics", "sklearn", "ml_metrics", "recmetrics", "capri", "evidently"]


@pytest.mark.parametrize("name", [*RECSYS, "trec_eval", "ranx"])
def test_describe_prints_what_the_preset_changes(name, capsys):
    rm.presets.describe(name)
    out = capsys.readouterr().out
    assert out.startswith(f"preset {name!r}") and "evaluate() defaults:" in out
    pre = rm.evaluation.get_preset(name)
    assert pre is not None
    for metric, opts in pre.options.items():
        assert metric in out and all(f"{k}={v}" in out for k, v in opts.items())
    for lib_name, _ in pre.metrics:
        assert lib_name in out
    assert rm.presets.summary(name) == out.rstrip("\n")


def test_describe_without_preset_and_names():
    assert "rankmeter's own defaults" in rm.presets.summary("none")
    assert set(RECSYS) <= set(rm.presets.names())


def test_unknown_preset_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"known presets: .*capri.*evidently.*rectools.*torchmetrics"):
        rm.evaluate({"u": ["a"]}, {"u": ["a"]}, ["ndcg@2"], preset="rec_tools_x")
    with pytest.raises(ValueError, match="known presets"):
        rm.presets.describe("nope")


@pytest.mark.parametrize("name", RECSYS)
def test_option_tables_are_valid_metric_options(name):
    pre = rm.evaluation.get_preset(name)
    assert pre is not None
    for metric, opts in pre.options.items():
        m = rm.metrics.parse(metric + "@5", pre.metric_options)
        assert all(m.options[k] == v for k, v in opts.items())


def test_rectools_ndcg_defaults_and_explicit_wins():
    truth, recs = {"u": ["a", "b"]}, {"u": ["a", "x", "y"]}
    res = rm.evaluate(truth, recs, ["ndcg@3", "ndcg(ideal=cut)@3", "map@3"], preset="rectools")
    disc = [1 / __import__("math").log2(j + 2) for j in range(3)]
    assert res["ndcg@3"] == pytest.approx(disc[0] / sum(disc), rel=1e-15)  # k slots
    assert res["ndcg(ideal=cut)@3"] == pytest.approx(disc[0] / (disc[0] + disc[1]), rel=1e-15)
    # every interaction row is relevant (min_relevance=-inf): v's grade-0 row too; an explicit keyword wins
    t2 = {"u": ["a"], "v": {"z": 0}}
    r2 = {"u": ["a"], "v": ["y"]}
    assert rm.evaluate(t2, r2, ["precision@1"], preset="rectools")["precision@1"] == 0.5
    assert rm.evaluate(t2, r2, ["precision@1"], preset="rectools", min_relevance=0.5)["precision@1"] == 1.0
    both = rm.evaluate(t2, r2, ["precision@1"], preset="rectools", min_relevance=0.5, empty="zero")
    assert both["precision@1"] == 0.5


def test_ml_metrics_preset_scores_an_empty_actual_one():
    res = rm.evaluate({"u": ["a"], "v": []}, {"u": ["b", "a"], "v": ["c"]}, ["map@2"], preset="ml_metrics")
    assert list(res.per_user["map@2"]) == [0.5, 1.0]


def test_capri_preset_equals_the_explicit_capri_options():
    import numpy as np

    g = np.random.default_rng(3)
    lists = {u: g.choice(15, 5, replace=False).tolist() for u in range(6)}
    truth = {u: {lists[u][0]: 1, 99: 2} for u in lists}
    train = {100 + t: g.choice(15, 4).tolist() for t in range(5)}
    a = rm.evaluate(truth, lists, ["map@5", "ndcg@5", "novelty@5", "personalization@5"], preset="capri", train=train)
    b = rm.evaluate(
        truth,
        lists,
        [
            "ap(denominator=min_relevant_k)@5",
            "ndcg(gain=binary,ideal=all,rounding=capri)@5",
            "novelty(unseen=zero,divide_by=k,popularity=interactions)@5",
            "personalization(similarity=cosine)@5",
        ],
        empty="zero",
        train=train,
    )
    assert list(a.means.values()) == list(b.means.values())
