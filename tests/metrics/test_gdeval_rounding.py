"""rounding="gdeval" (err, ndcg): each user's value as gdeval prints it (printf "%.5f", read back), against the
pure-Python reference (tests/support/reference.py: gdeval_printed, err, ndcg)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter as rm
from rankmeter.evaluation._gdeval import round_decimals
from tests.support.reference import gdeval_printed, metric_value

# doubles exactly halfway between two 5-decimal numbers (dyadic: j / 2^m with 6+ decimals ending in 5) and their
# neighbours, where rounding x * 1e5 in floating point could land on the wrong side
HALVES = [j / 64 for j in range(65)] + [j / 2**20 for j in range(0, 2**20, 4099)]
NEAR = [math.nextafter(x, d) for x in HALVES for d in (0.0, 2.0)]


def test_round_decimals_is_printf_on_halfway_and_neighbouring_doubles():
    xs = np.array(HALVES + NEAR + [0.0, 1.0, 0.000005, 0.123455, 0.999995, math.nan])
    got = round_decimals(xs)
    want = [gdeval_printed(x) if not math.isnan(x) else math.nan for x in xs.tolist()]
    np.testing.assert_array_equal(got, np.array(want))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=1.0, allow_nan=False), min_size=1, max_size=50))
def test_round_decimals_is_printf(xs):
    got = round_decimals(np.array(xs))
    assert got.tolist() == [gdeval_printed(x) for x in xs]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.dictionaries(st.integers(0, 12), st.integers(-1, 4), min_size=1, max_size=6),
            st.lists(st.integers(0, 14), min_size=0, max_size=12, unique=True),
        ),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from([None, 1, 2, 3, 10]),
    st.sampled_from(["skip", "zero", "one"]),
)
def test_err_and_ndcg_rounded_per_user_as_the_reference(users, k, empty):
    truth = {u: g for u, (g, _) in enumerate(users)}
    recs = {u: lst for u, (_, lst) in enumerate(users)}
    cut = f"@{k}" if k else ""
    names = [f"err(rounding=gdeval){cut}", f"ndcg(gain=exponential,rounding=gdeval){cut}", f"err{cut}"]
    res = rm.evaluate(truth, recs, names, empty=empty)
    for name in names:
        got = dict(zip(res.users.tolist(), res.per_user[name]))
        for u, (g, lst) in enumerate(users):
            if not any(x > 0 for x in g.values()):
                continue  # the empty= policy, the same with and without rounding
            want = metric_value(name, lst, g, None)
            assert got[u] == want, (name, u, got[u], want)
    # the mean is the mean of the rounded values
    rounded = np.array(res.per_user[names[0]], dtype=float)
    if np.isfinite(rounded).any():
        assert res[names[0]] == pytest.approx(np.nanmean(rounded), rel=1e-15)


def test_preset_ir_measures_rounds_err_as_gdeval():
    truth = {1: {"a": 2, "b": 1}, 2: {"c": 3, "d": 1}}
    recs = {1: ["x", "a", "b"], 2: ["d", "c"]}
    plain = rm.evaluate(truth, recs, ["err@3"]).per_user["err@3"]
    preset = rm.evaluate(truth, recs, ["err@3"], preset="ir_measures").per_user["err@3"]
    assert list(preset) == [gdeval_printed(v) for v in plain]
    assert list(preset) != list(plain)
