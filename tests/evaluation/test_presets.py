"""The recommender-library presets: describe(), errors, explicit options win, option tables."""

from __future__ import annotations

import pytest

import rankmeter as rm

RECSYS = [
    "rectools",
    "recommenders",
    "torchmetrics",
    "sklearn",
    "ml_metrics",
    "recmetrics",
    "capri",
    "evidently",
    "lenskit",
    "elliot",
]


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


def test_lenskit_preset_by_hand():
    import math

    # u: a hit at 1 and 3 of a 3-item list, |R| = 3; v: a recs-only user (scored against an empty truth);
    # w: a recs-only user with an empty list (left out); x: a truth user without a list (left out)
    truth = {"u": {"a": 1, "b": 0, "c": 2}, "x": {"a": 1}}
    recs = {"u": ["a", "y", "b"], "v": ["a"], "w": []}
    ms = ["ndcg@5", "dcg@5", "precision@5", "recall@2", "recall", "ap@5", "rbp@5", "ndcg(gain=linear)@5"]
    res = rm.evaluate(truth, recs, ms, preset="lenskit")
    assert res.users.tolist() == ["u", "v"]
    clip = [1.0, 1.0, 1 / math.log2(3)]  # 1 / log2(max(j, 2))
    pu = {m: res.per_user[m].tolist() for m in ms}
    assert pu["ndcg@5"][0] == pytest.approx((clip[0] + clip[2]) / sum(clip), rel=1e-15)
    assert pu["dcg@5"][0] == pytest.approx(clip[0] + clip[2], rel=1e-15)
    assert pu["precision@5"] == [pytest.approx(2 / 3), 0.0]  # / min(5, 3)
    assert pu["recall@2"][0] == pytest.approx(1 / 2) and pu["recall"][0] == pytest.approx(2 / 3)
    assert pu["ap@5"][0] == pytest.approx((1 + 2 / 3) / 3)  # / min(|R|, 5, 3)
    assert pu["rbp@5"][0] == pytest.approx(0.15 * (1 + 0.85**2))
    ideal = 2 * clip[0] + 1 * clip[1] + 0 * clip[2]
    assert pu["ndcg(gain=linear)@5"][0] == pytest.approx((1 * clip[0] + 0 * clip[2]) / ideal, rel=1e-15)
    assert all(pu[m][1] == 0.0 for m in ms)


def test_recs_only_listed_leaves_out_an_empty_list():
    truth, recs = {"u": ["a"]}, {"u": ["a"], "v": ["b"], "w": []}
    assert rm.evaluate(truth, recs, ["hits@2"], recs_only="empty").users.tolist() == ["u", "v", "w"]
    assert rm.evaluate(truth, recs, ["hits@2"], recs_only="listed").users.tolist() == ["u", "v"]


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


def test_cornac_preset_auc_counts_a_tie_as_no_win_and_map_ranks_a_tie_group_last():
    # Cornac's candidates with their scores; positives (rating >= 1) a (0.9) and c (0.5); b ties c at 0.5.
    # AUC: pairs (a,b) (a,d) (c,d) won, (c,b) tied = no win: 3 / 4. MAP: a at rank 1 -> 1/1; c ranks at the end
    # of its tie group {b, c}, rank 3 with 2 positives scored >= 0.5 -> 2/3; mean over the 2 positives.
    truth = {"u": {"a": 1, "c": 2, "d": 0.5}}  # d: rated below the threshold, a negative
    scores = {"u": {"a": 0.9, "b": 0.5, "c": 0.5, "d": 0.1}}
    res = rm.evaluate(truth, scores, ["auc", "ap", "ndcg"], preset="cornac")
    assert res["auc"] == 3 / 4
    assert res["ap"] == (1 + 2 / 3) / 2
    # ties={'ap': 'last', '*': 'input'}: the list metrics read the scores in the order given
    assert res["ndcg"] == rm.evaluate(truth, {"u": ["a", "b", "c", "d"]}, ["ndcg"], preset="cornac")["ndcg"]
