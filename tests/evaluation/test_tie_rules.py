"""ties={metric: rule}: each metric ranked under its own tie rule in one call (docs/metrics.md 6.3)."""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pytest

import rankmeter as rm
from rankmeter.evaluation import EvalOptions

TRUTH = {"u1": {"a": 1, "b": 2, "c": 0}, "u2": {"x": 1}, "u3": {"z": 1}}
# equal scores everywhere: every rule gives another order
RECS = {
    "u1": {"c": 0.5, "b": 0.5, "a": 0.5, "d": 0.2},
    "u2": {"w": 0.9, "y": 0.9, "x": 0.9},
    "u3": {"q": 0.1, "z": 0.1},
}
RULES = {"ndcg": "average", "precision": "trec", "ap": "item_desc", "*": "input"}
NAMES = ["precision@2", "ndcg@2", "map@2", "rr", "ap@3", "hits@1", "ndcg"]


def _alone(name: str, rule: str, **kw) -> rm.Result:
    return rm.evaluate(TRUTH, RECS, [name], ties=rule, **kw)


def test_each_metric_equals_its_own_rule_alone():
    """Every metric of a mixed call has the per-user values and mean it has alone under its rule; keys as asked,
    aliases and canonical names all answer."""
    res = rm.evaluate(TRUTH, RECS, NAMES, ties=RULES)
    assert list(res.state.names) == ["precision@2", "ndcg@2", "ap@2", "rr", "ap@3", "hits@1", "ndcg"]
    for name in NAMES:
        base = rm.metrics.parse(name).name
        alone = _alone(name, RULES.get(base, RULES["*"]))
        assert res[name] == alone[name]
        np.testing.assert_array_equal(res.per_user[name], alone.per_user[name])
    assert res["ap@2"] == res["map@2"]
    assert res.users.tolist() == ["u1", "u2", "u3"]
    assert res.meta == _alone("hits@1", "input").meta


def test_the_rules_matter_on_these_lists():
    """The test above would pass with one rule for all if the rules gave the same values here: they do not."""
    for name in ("precision@2", "map@2", "ndcg@2"):
        values = {r: _alone(name, r)[name] for r in ("input", "trec", "item_desc", "average") if r != "average"}
        if name.startswith("ndcg"):
            values["average"] = _alone(name, "average")[name]
        assert len(set(values.values())) > 1, (name, values)


def test_means_only_and_partial_states_equal_the_one_call():
    full = rm.evaluate(TRUTH, RECS, NAMES, ties=RULES)
    lean = rm.evaluate(TRUTH, RECS, NAMES, ties=RULES, per_user=False)
    assert [lean[n] for n in NAMES] == [full[n] for n in NAMES]
    a = rm.partial({"u1": TRUTH["u1"]}, RECS, NAMES, ties=RULES, missing="skip")
    b = rm.partial({u: TRUTH[u] for u in ("u2", "u3")}, RECS, NAMES, ties=RULES, missing="skip")
    merged = a.merge(b).finalize()
    assert [merged[n] for n in NAMES] == [full[n] for n in NAMES]


def test_unnamed_metrics_take_star_else_the_default_item_rule():
    no_star = {"ndcg": "average"}
    res = rm.evaluate(TRUTH, RECS, ["ndcg@2", "precision@2"], ties=no_star)
    assert res["precision@2"] == _alone("precision@2", "item")["precision@2"]
    res = rm.evaluate(TRUTH, RECS, ["ndcg@2", "precision@2"], ties={**no_star, "*": "trec"})
    assert res["precision@2"] == _alone("precision@2", "trec")["precision@2"]


def test_an_explicit_rule_replaces_the_presets_mapping():
    res = rm.evaluate(TRUTH, RECS, ["precision@2", "ndcg@2"], preset="torchmetrics", ties="trec")
    alone = rm.evaluate(TRUTH, RECS, ["precision@2", "ndcg@2"], preset="torchmetrics", ties={"*": "trec"})
    assert res["precision@2"] == alone["precision@2"] and res["ndcg@2"] == alone["ndcg@2"]
    with pytest.raises(ValueError, match="defined for dcg and ndcg only"):
        rm.evaluate(TRUTH, RECS, ["precision@2"], preset="torchmetrics", ties="average")


def test_torchmetrics_preset_computes_every_retrieval_metric_in_one_call():
    """The call of the preset's users: precision next to NDCG no longer raises (each metric its own rule)."""
    names = ["precision@10", "ndcg@10", "recall@10", "map@10", "mrr@10", "hit_rate@10", "r_precision"]
    res = rm.evaluate(TRUTH, RECS, names, preset="torchmetrics")
    assert all(0.0 <= res[n] <= 1.0 for n in names)


def test_torch_topk_groups_by_cutoff():
    """topk ranks the top min(k, n) of each list: one group per cutoff, each equal to its cutoff alone."""
    names = ["ap@1", "ap@2", "ap@3", "ap"]
    res = rm.evaluate(TRUTH, RECS, names, ties="torch_topk")
    for n in names:
        np.testing.assert_array_equal(res.per_user[n], _alone(n, "torch_topk").per_user[n])


def test_catalog_metrics_of_one_cutoff_need_one_rule():
    with pytest.raises(ValueError, match="catalog-level metrics at cutoff 2"):
        rm.evaluate(TRUTH, RECS, ["coverage@2", "gini@2"], ties={"coverage": "trec", "gini": "input"}, catalog="abc")
    res = rm.evaluate(
        TRUTH, RECS, ["coverage@2", "precision@2"], ties={"precision": "trec"}, catalog=["a", "b", "x", "y"]
    )
    assert res["coverage@2"] == rm.evaluate(TRUTH, RECS, ["coverage@2"], catalog=["a", "b", "x", "y"])["coverage@2"]


@pytest.mark.parametrize(
    "ties, exc, message",
    [
        ({"ndcg@10": "average"}, ValueError, "`ties` keys are metric names without options or cutoff"),
        ({"nope": "average"}, ValueError, "`ties` key 'nope' is no metric name"),
        ({"ndcg": "sideways"}, ValueError, "`ties['ndcg']` must be one of"),
        ({"ap": "trec", "map": "input"}, ValueError, "`ties` gives 'ap' two rules"),
        ({3: "trec"}, TypeError, "`ties` keys must be metric names (str) or '*'"),
    ],
)
def test_bad_mappings_name_the_key(ties, exc, message):
    for call in (lambda: EvalOptions(ties=ties), lambda: rm.evaluate(TRUTH, RECS, ["ndcg"], ties=ties)):
        with pytest.raises(exc, match=re.escape(message)):
            call()


def test_the_callers_mapping_is_neither_kept_nor_written():
    mine = {"map": "trec", "*": "input"}
    opts = EvalOptions(ties=mine)
    assert opts.ties == {"ap": "trec", "*": "input"} and opts.ties is not mine
    assert mine == {"map": "trec", "*": "input"}


def test_every_entry_point_takes_a_mapping():
    want = rm.evaluate(TRUTH, RECS, ["ap@2"], ties="item_desc")["ap@2"]
    rules = {"ap": "item_desc", "*": "trec"}
    assert rm.map(TRUTH, RECS, 2, ties=rules) == want
    table = pa.table(
        {
            "user_id": [u for u in RECS for _ in RECS[u]],
            "item_id": [i for u in RECS for i in RECS[u]],
            "score": [s for u in RECS for s in RECS[u].values()],
        }
    )
    got = rm.evaluate_stream(TRUTH, [table], ["ap@2", "precision@2"], ties=rules, progress=False)
    assert got["ap@2"] == want
    cmp = rm.compare(TRUTH, {"a": RECS, "b": RECS}, ["ap@2", "precision@2"], ties=rules, n_resamples=9)
    assert cmp.results["a"]["ap@2"] == want


def test_metrics_given_as_a_generator_are_read_once():
    names = (n for n in ["precision@2", "ndcg@2"])
    res = rm.evaluate(TRUTH, RECS, names, ties=RULES)
    assert res["ndcg@2"] == _alone("ndcg@2", "average")["ndcg@2"]
    one = rm.evaluate(TRUTH, RECS, (n for n in ["precision@2"]), ties=RULES)
    assert one["precision@2"] == _alone("precision@2", "trec")["precision@2"]
