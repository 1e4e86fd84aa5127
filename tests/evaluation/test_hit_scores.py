"""hit_scores="positive" (torchmetrics' precision, recall, MAP, MRR: an item scored <= 0 keeps its rank but is never
a hit) against a plain-Python restatement, on seeded random data and edge cases."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

import rankmeter as rm
from tests.support import reference as ref

NAMES = ["precision@3", "precision", "recall@5", "recall", "ap@4", "ap(denominator=hits)@10", "rr@3", "rr"]


def _expected(truth, recs, name, empty):
    """Per user: the list ranked by score (equal scores by ascending item id, the default rule), every item scored <= 0 replaced by a
    placeholder no truth holds, then the reference metric."""
    out = {}
    for u, t in truth.items():
        scored = recs.get(u, {})
        ranked = ref.order_scored(scored, "item")
        gated = [i if scored[i] > 0 else ("placeholder", j) for j, i in enumerate(ranked)]
        has_rel = any(g > 0 for g in t.values())
        if not has_rel:
            out[u] = {"skip": math.nan, "zero": 0.0, "one": 1.0}[empty]
            continue
        out[u] = ref.metric_value(name, gated, t, None)
    return out


@pytest.mark.parametrize("seed", range(5))
def test_hit_scores_positive_equals_the_restatement(seed):
    rng = random.Random(seed)
    truth, recs = {}, {}
    for u in range(60):
        truth[u] = {i: rng.choice([0, 1, 2]) for i in rng.sample(range(30), rng.randrange(0, 6))}
        if rng.random() < 0.9:
            items = rng.sample(range(30), rng.randrange(0, 12))
            recs[u] = {i: rng.choice([-1.0, 0.0, 0.5, 1.0, 2.0]) + rng.random() * (rng.random() < 0.7) for i in items}
    for empty in ("skip", "zero"):
        names = [n.replace("@", "(hit_scores=positive)@") if "@" in n else n + "(hit_scores=positive)" for n in NAMES]
        names = [n.replace(")(", ",") for n in names]
        res = rm.evaluate(truth, recs, names, empty=empty)
        for name, plain in zip(names, NAMES):
            want = _expected(truth, recs, plain, empty)
            got = dict(zip(res.users.tolist(), np.asarray(res.per_user[name]).tolist()))
            for u in truth:
                if math.isnan(want[u]):
                    assert math.isnan(got[u]), (name, u)
                else:
                    assert math.isclose(got[u], want[u], rel_tol=1e-12, abs_tol=1e-15), (name, u, got[u], want[u])


def test_hit_scores_edge_cases():
    truth = {"a": {"x": 1, "y": 1}, "b": {"x": 1}, "c": {}, "d": {2**62: 1}}
    recs = {"a": {"x": -0.5, "z": 0.9, "y": 0.1}, "b": {"x": 0.0}, "c": {"x": 1.0}, "d": {}}
    res = rm.evaluate(
        truth,
        recs,
        [
            "precision(hit_scores=positive)@2",
            "rr(hit_scores=positive)",
            "recall(hit_scores=positive)",
            "ap(hit_scores=positive)@3",
        ],
        empty="zero",
    )
    # a: ranked z (0.9), y (0.1), x (-0.5): y is a hit at 2, x is not (score < 0) though relevant
    assert res.per_user["precision(hit_scores=positive)@2"].tolist() == [0.5, 0.0, 0.0, 0.0]
    assert res.per_user["rr(hit_scores=positive)"].tolist() == [0.5, 0.0, 0.0, 0.0]
    assert res.per_user["recall(hit_scores=positive)"].tolist() == [0.5, 0.0, 0.0, 0.0]  # |R| still counts x
    assert res.per_user["ap(hit_scores=positive)@3"].tolist() == [0.25, 0.0, 0.0, 0.0]
    # ranked lists without scores are not affected; padded 2-D arrays neither
    plain = rm.evaluate({0: [1]}, {0: [1, 2]}, ["precision(hit_scores=positive)@1"])
    assert plain["precision(hit_scores=positive)@1"] == 1.0
    # huge ids and an int64 item range with no room below: the placeholders go above
    lo = -(2**63)
    t = {0: {lo: 1, lo + 1: 1}}
    r = {0: {lo: 1.0, lo + 1: -1.0, 2**63 - 100: 0.5}}
    got = rm.evaluate(t, r, ["precision(hit_scores=positive)@3", "precision@3"])
    assert got["precision(hit_scores=positive)@3"] == pytest.approx(1 / 3)
    assert got["precision@3"] == pytest.approx(2 / 3)
    # duplicates are still reported, whether or not one copy is scored <= 0
    with pytest.raises(ValueError, match="more than once"):
        rm.evaluate({0: [1]}, rm.Recs.from_csr([0, 2], [1, 1], [1.0, -1.0]), ["precision(hit_scores=positive)@2"])
    # zero users
    assert math.isnan(rm.evaluate({}, {}, ["rr(hit_scores=positive)"])["rr(hit_scores=positive)"])


def test_hit_scores_state_and_names():
    m = rm.metrics.parse("map(hit_scores=positive)@5")
    assert str(m) == "ap(hit_scores=positive)@5"
    with pytest.raises(ValueError, match="hit_scores"):
        rm.metrics.parse("ap(hit_scores=negative)@5")
    with pytest.raises(ValueError, match="unknown option"):
        rm.metrics.parse("ndcg(hit_scores=positive)@5")
    truth = {u: {u % 7: 1, (u + 1) % 7: 2} for u in range(50)}
    recs = {u: {i: float(i - 3) for i in range(7)} for u in range(50)}
    whole = rm.evaluate(truth, recs, ["ap(hit_scores=positive)@5", "precision@5"])
    parts = [
        rm.partial(
            {u: truth[u] for u in range(i, 50, 2)},
            {u: recs[u] for u in range(i, 50, 2)},
            ["ap(hit_scores=positive)@5", "precision@5"],
        )
        for i in range(2)
    ]
    fin = rm.State.merge_all(parts).finalize()
    assert fin["ap(hit_scores=positive)@5"] == whole["ap(hit_scores=positive)@5"]
    assert fin["precision@5"] == whole["precision@5"]
