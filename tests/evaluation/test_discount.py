"""dcg/ndcg ``discount=``: how a gain meets its discount, checked bit for bit.

``discount="reciprocal"`` (the default) adds ``g * (1 / log_b(j + 1))``; ``"divide"`` adds ``g / log_b(j + 1)``,
the arithmetic of ranx (``np.sum(gains / np.log2(np.arange(1, k + 1) + 1))``) and of most numpy code. Both sum
in list order, so each is compared here with exact equality against a plain loop doing that arithmetic; the
pure-Python reference (tests/support/reference.py) covers the value itself within a tolerance.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm


def _gain(g: float, gain: str) -> float:
    if g <= 0.0:
        return 0.0
    return g if gain == "linear" else 2.0**g - 1.0


def _dcg_loop(gains: list, discount: str, base: float = 2.0) -> float:
    total = 0.0
    for j, g in enumerate(gains, start=1):
        den = math.log2(j + 1) if base == 2.0 else math.log(j + 1) / math.log(base)
        total += g / den if discount == "divide" else g * (1.0 / den)
    return total


def _expected(truth: dict, recs: dict, k: int, gain: str, discount: str, name: str, base: float) -> dict:
    out = {}
    for u, t in truth.items():
        if u not in recs:
            continue
        listed = recs[u][:k]
        d = _dcg_loop([_gain(t.get(i, 0.0), gain) for i in listed], discount, base)
        if name == "dcg":
            out[u] = d
            continue
        ideal = sorted((_gain(g, gain) for g in t.values()), reverse=True)[:k]
        i = _dcg_loop(ideal, discount)
        out[u] = d / i if i > 0 else 0.0
    return out


grades = st.one_of(st.integers(0, 4).map(float), st.floats(0.0, 6.0, allow_nan=False).map(lambda x: round(x, 3)))


@st.composite
def cases(draw):
    n_users = draw(st.integers(1, 5))
    truth, recs = {}, {}
    for u in range(n_users):
        items = draw(st.lists(st.integers(0, 40), min_size=1, max_size=12, unique=True))
        truth[u] = {i: draw(grades) for i in items}
        recs[u] = draw(st.lists(st.integers(0, 40), max_size=30, unique=True))
    return truth, recs


@pytest.mark.parametrize("discount", ["reciprocal", "divide"])
@pytest.mark.parametrize(
    "name,gain,base",
    [("dcg", "linear", 2.0), ("dcg", "exponential", 10.0), ("ndcg", "linear", 2.0), ("ndcg", "exponential", 2.0)],
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), k=st.integers(1, 30))
def test_discount_sums_in_list_order_with_its_arithmetic(case, k, name, gain, base, discount):
    truth, recs = case
    opts = f"gain={gain},discount={discount}" + (f",log_base={base}" if name == "dcg" else "")
    metric = f"{name}({opts})@{k}"
    res = rm.evaluate(truth, recs, [metric], ties="input", empty="zero")
    got = dict(zip(res.users.tolist(), np.asarray(res.per_user[metric]).tolist()))
    want = _expected(truth, recs, k, gain, discount, name, base)
    assert got == want  # exact: the same operations in the same order


def test_divide_and_reciprocal_differ_only_in_rounding_and_do_differ():
    rng = np.random.default_rng(7)
    differ = 0
    for _ in range(200):
        truth = {0: {int(i): float(rng.integers(1, 5)) for i in rng.choice(50, 10, replace=False)}}
        recs = {0: [int(i) for i in rng.permutation(50)[:20]]}
        a = rm.evaluate(truth, recs, ["ndcg@20"])["ndcg@20"]
        b = rm.evaluate(truth, recs, ["ndcg(discount=divide)@20"])["ndcg(discount=divide)@20"]
        assert a == pytest.approx(b, rel=1e-14, abs=0)
        differ += a != b
    assert differ > 0  # the option reaches the kernel


def test_ranx_preset_divides_as_ranx_does():
    truth = {"q": {"a": 3.0, "b": 1.0, "c": 2.0}}
    recs = {"q": ["c", "x", "a", "b"]}
    res = rm.evaluate(truth, recs, ["ndcg@4"], preset="ranx")
    gains = [2.0, 0.0, 3.0, 1.0]
    dcg = float(np.sum(np.asarray(gains) / np.log2(np.arange(1, 5) + 1)))
    idcg = float(np.sum(np.asarray([3.0, 2.0, 1.0]) / np.log2(np.arange(1, 4) + 1)))
    assert float(np.asarray(res.per_user["ndcg@4"])[0]) == dcg / idcg


def test_tie_averaged_gains_refuse_discount_divide():
    with pytest.raises(ValueError, match="discount='divide'"):
        rm.evaluate({0: {1: 1.0}}, {0: {1: 0.5, 2: 0.5}}, ["ndcg(discount=divide)@2"], ties="average")


def test_tie_averaged_gains_refuse_discount_clip():
    with pytest.raises(ValueError, match="'clip' has no meaning"):
        rm.evaluate({0: {1: 1.0}}, {0: {1: 0.5, 2: 0.5}}, ["dcg(discount=clip)@2"], ties="average")


def test_clip_discount_is_lenskits_log_rank_weight_bit_for_bit():
    # LensKit's LogRankWeight: ln 2 / ln max(j, 2), multiplied with the gain and summed in list order
    truth = {"q": {"a": 3.0, "b": 1.0, "c": 2.0}}
    recs = {"q": ["c", "x", "a", "b"]}
    res = rm.evaluate(truth, recs, ["dcg(discount=clip)@4"])
    w = np.log(2) / np.log(np.maximum(np.arange(1, 5), 2))
    want = 0.0
    for g, x in zip([2.0, 0.0, 3.0, 1.0], w):
        want += g * x
    assert float(np.asarray(res.per_user["dcg(discount=clip)@4"])[0]) == pytest.approx(want, rel=1e-15)
