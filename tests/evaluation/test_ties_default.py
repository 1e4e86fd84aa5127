"""The default tie rule (``ties="item"``): score-ranked input gives the same numbers whatever its row order.

Equal scores are ordered by item id ascending (integers numerically, strings by code point), so shuffling
the rows of a table (or the keys of a ``{item: score}`` dict) changes no bit of any mean or per-user value;
``ties="input"`` keeps the input order when asked; ``res.meta["n_tied_users"]`` counts the users whose read
part of the list holds equal scores; presets keep their library's rule (docs/metrics.md 6.3)."""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter as rm
from rankmeter.presets import summary
from tests.support import reference as ref

ACCURACY = ["precision@3", "recall@5", "ndcg@3", "ndcg", "ap@4", "rr", "hit_rate@2", "r_precision", "bpref", "dcg@5"]
CATALOG = ("coverage@3", "gini@3")
BEYOND = ["coverage@3", "gini@3", "diversity(similarity=cooccurrence)@3", "novelty@3", "arp@3"]


@st.composite
def tied_tables(draw):
    """(truth table, recs table with few distinct scores, string ids or not, train table)."""
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    strings = draw(st.booleans())
    huge = draw(st.booleans())
    n_users, n_items = draw(st.integers(1, 12)), draw(st.integers(1, 15))

    def item(i):
        if strings:
            return f"i{i}"  # "i10" < "i2" as strings: the order is not the integers'
        return i * (2**40) + 7 if huge else i

    levels = draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, -1.0, 3.0]), min_size=1, max_size=3))
    t_rows, r_rows, tr_rows = [], [], []
    for u in range(n_users):
        user = f"u{u}" if strings else u
        # user 0 is on both sides (users that match nowhere are an error of their own)
        for i in rnd.sample(range(n_items), rnd.randrange(u == 0, min(n_items, 5) + 1)):
            t_rows.append((user, item(i), rnd.choice([0, 1, 2])))
        if u == 0 or rnd.random() < 0.85:
            for i in rnd.sample(range(n_items), rnd.randrange(u == 0, n_items + 1)):
                r_rows.append((user, item(i), rnd.choice(levels)))
        for i in rnd.sample(range(n_items), rnd.randrange(0, min(n_items, 3) + 1)):
            tr_rows.append((user, item(i)))
    truth = pd.DataFrame(t_rows, columns=["user_id", "item_id", "relevance"])
    recs = pd.DataFrame(r_rows, columns=["user_id", "item_id", "score"])
    train = pd.DataFrame(tr_rows, columns=["user_id", "item_id"])
    if not len(recs):  # an empty table has object columns: give them their kinds
        recs = recs.astype({"item_id": object if strings else np.int64, "score": np.float64})
    return truth, recs, train


def _same(a: rm.Result, b: rm.Result) -> None:
    assert a.keys() == b.keys()
    for k in a:
        x, y = a[k], b[k]
        assert (math.isnan(x) and math.isnan(y)) or x == y, (k, x, y)  # bit-identical, not close
        if k not in CATALOG:  # per user, matched by id (the users follow the truth's order)
            pa = dict(zip(a.users.tolist(), a.per_user[k].tolist()))
            pb = dict(zip(b.users.tolist(), b.per_user[k].tolist()))
            assert pa.keys() == pb.keys()
            assert all((math.isnan(pa[u]) and math.isnan(pb[u])) or pa[u] == pb[u] for u in pa), k
    assert a.meta == b.meta


@settings(max_examples=150, deadline=None)
@given(tied_tables(), st.integers(0, 2**32 - 1), st.sampled_from([1, 2]))
def test_shuffling_the_rows_of_a_score_table_leaves_every_value_bit_identical(data, seed, threads):
    truth, recs, train = data
    shuffled = recs.sample(frac=1.0, random_state=seed % (2**32)).reset_index(drop=True)
    kw = {"train": train, "empty": "zero", "threads": threads}
    a = rm.evaluate(truth, recs, ACCURACY + BEYOND, **kw)
    b = rm.evaluate(truth, shuffled, ACCURACY + BEYOND, **kw)
    _same(a, b)
    # the truth's row order does not matter either
    c = rm.evaluate(truth.iloc[::-1].reset_index(drop=True), shuffled, ACCURACY + BEYOND, **kw)
    _same(a, c)


@settings(max_examples=100, deadline=None)
@given(tied_tables(), st.integers(0, 2**32 - 1))
def test_the_default_rule_equals_the_reference_ranked_by_ascending_item_id(data, seed):
    truth, recs, _ = data
    t: dict = {}
    for u, i, g in truth.itertuples(index=False):
        t.setdefault(u, {})[i] = int(g)
    r: dict = {}
    rows = list(recs.itertuples(index=False))
    random.Random(seed).shuffle(rows)  # dict insertion order: another row order
    for u, i, s in rows:
        r.setdefault(u, {})[i] = float(s)
    res = rm.evaluate(t, r, ACCURACY, empty="zero")
    means, per_user, _ = ref.reference_evaluate(t, r, ACCURACY, empty="zero", ties="item")
    for name in ACCURACY:
        assert math.isclose(res[name], means[name], rel_tol=1e-12, abs_tol=1e-15) or (
            math.isnan(res[name]) and math.isnan(means[name])
        ), name
        np.testing.assert_allclose(res.per_user[name], per_user[name], rtol=1e-12, atol=1e-15)


def test_equal_scores_go_to_the_smaller_item_id_first():
    truth = {"u": {10: 1}, "v": {"b": 1}}
    recs = {"u": {10: 0.5, 9: 0.5, 100: 0.5}, "v": {"b": 1.0, "a": 1.0, "B": 1.0}}
    res = rm.evaluate(truth, recs, ["rr"])
    # u: 9, 10, 100 (numerically, not "10" < "100" < "9"); v: "B" < "a" < "b" (code points)
    assert res.per_user["rr"].tolist() == [0.5, 1 / 3]
    # ties="input" keeps the order given when asked
    kept = rm.evaluate(truth, recs, ["rr"], ties="input")
    assert kept.per_user["rr"].tolist() == [1.0, 1.0]


def test_ids_of_mixed_kinds_get_a_fixed_order_under_the_default():
    truth = {"u": {"x": 1}}
    recs = {"u": {"x": 0.5, 3: 0.5, "a": 0.5}}
    # integers first, then the strings by code point: 3, "a", "x"
    assert rm.evaluate(truth, recs, ["rr"]).per_user["rr"].tolist() == [1 / 3]
    with pytest.raises(TypeError, match="one kind"):
        rm.evaluate(truth, recs, ["rr"], ties="item_desc")


def _tied_users(recs: dict, read: int | None, users: list) -> int:
    """Plain restatement: users with two equal scores of which at least one is within the first `read`
    positions of the list ranked by score."""
    n = 0
    for u in users:
        scores = sorted(recs.get(u, {}).values(), reverse=True)
        top = scores if read is None else scores[:read]
        rest = scores if read is None else scores[: read + 1]
        n += any(top.count(s) > 1 or rest.count(s) > 1 for s in top)
    return n


@pytest.mark.parametrize("names, read", [(["ndcg@2"], 2), (["ndcg@2", "precision@4"], 4), (["ap"], None)])
def test_meta_counts_the_users_with_ties_in_the_part_read(names, read):
    rnd = random.Random(3)
    truth = {u: dict.fromkeys(rnd.sample(range(20), 3), 1) for u in range(200)}
    recs = {u: {i: rnd.choice([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]) for i in rnd.sample(range(20), 6)} for u in range(190)}
    res = rm.evaluate(truth, recs, names, empty="zero")
    assert res.meta["n_tied_users"] == _tied_users(recs, read, list(truth))
    # ranked lists carry no scores: no ties
    lists = {u: [i for i, _ in sorted(d.items(), key=lambda p: -p[1])] for u, d in recs.items()}
    assert rm.evaluate(truth, lists, names).meta["n_tied_users"] == 0
    # partial states of disjoint users add up
    half = {u: truth[u] for u in range(100)}, {u: truth[u] for u in range(100, 200)}
    states = [rm.partial(h, {u: recs[u] for u in h if u in recs}, names, empty="zero") for h in half]
    assert rm.State.merge_all(states).meta["n_tied_users"] == res.meta["n_tied_users"]


def test_presets_keep_their_librarys_tie_rule():
    truth = {"u": {"b": 1}}
    recs = pd.DataFrame({"user_id": ["u", "u"], "item_id": ["b", "a"], "score": [1.0, 1.0]})
    for preset in ("rectools", "recommenders", "spark", "ml_metrics", "recmetrics", "capri"):
        assert "  ties='input' (rankmeter: 'item')" in summary(preset).splitlines(), preset
    # Recommenders ranks with rank(method="first"): equal scores in row order, "b" first
    res = rm.evaluate(truth, recs, ["precision@1"], preset="recommenders")
    assert res["precision@1"] == 1.0
    assert rm.evaluate(truth, recs, ["precision@1"])["precision@1"] == 0.0  # default: "a" before "b"
    assert rm.evaluate(truth, recs, ["precision@1"], preset="trec_eval")["precision@1"] == 1.0  # docno descending
