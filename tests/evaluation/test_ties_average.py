"""ties="average": tie-averaged DCG/NDCG against the pure-Python reference and scikit-learn."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.support import reference as ref
from tests.support.engines import need

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("dcg", {}),
    ("dcg", {"gain": "exponential", "log_base": 10.0}),
    ("ndcg", {}),
    ("ndcg", {"gain": "exponential"}),
    ("ndcg", {"gain": "binary", "ideal": "all"}),
    ("ndcg", {"ideal": "k_slots"}),
    ("ndcg", {"below_min": "zero"}),
]


def name(base: str, opts: dict, k) -> str:
    o = ",".join(f"{a}={b}" for a, b in opts.items())
    return base + (f"({o})" if o else "") + ("" if k is None else f"@{k}")


@st.composite
def scenarios(draw):
    n_users = draw(st.integers(0, 6))
    truth: dict = {}
    recs: dict = {}
    for u in range(n_users):
        items = draw(st.lists(st.integers(0, 12), max_size=8, unique=True))
        truth[u] = {i: draw(st.integers(-1, 4)) for i in items}
        if draw(st.integers(0, 5)):
            scored = draw(st.lists(st.integers(0, 14), max_size=10, unique=True))
            recs[u] = {i: float(draw(st.integers(0, 3))) for i in scored}  # few scores: many ties
    return truth, recs


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    scenarios(),
    st.sampled_from([None, 1, 2, 3, 7, 50]),
    st.sampled_from([None, 2.0]),
    st.sampled_from(["skip", "zero", "one"]),
)
def test_against_reference(scenario, k, min_rel, empty):
    truth, recs = scenario
    metrics = [name(b, o, k) for b, o in VARIANTS]
    res = rm.evaluate(truth, recs, metrics, ties="average", min_relevance=min_rel, empty=empty)
    for (base, opts), m in zip(VARIANTS, metrics):
        for idx, u in enumerate(truth):
            grades = {i: float(g) for i, g in truth[u].items()}
            nrel = len(ref.relevant_set(grades, min_rel))
            scores = recs.get(u, {})
            if base == "dcg":
                want = ref.tie_averaged_dcg(scores, grades, k, min_rel, **opts)
                if nrel == 0 and empty == "skip":
                    want = math.nan
            elif nrel == 0 and empty != "zero":
                want = {"skip": math.nan, "one": 1.0}[empty]
            else:
                want = ref.tie_averaged_ndcg(scores, grades, k, min_rel, **opts)
            got = float(res.per_user[m][idx])
            assert (math.isnan(want) and math.isnan(got)) or math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12), (
                m,
                u,
                got,
                want,
            )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [None, 1, 3, 5, 20])
def test_against_sklearn(seed, k):
    need("sklearn.metrics", "pip install scikit-learn")
    from sklearn.metrics import dcg_score, ndcg_score

    rng = np.random.default_rng(seed)
    n, m = 40, 3 + seed * 4
    yt = rng.integers(0, 4, (n, m))
    ys = np.round(rng.normal(size=(n, m)), 0)  # rounded: ties
    truth = {u: {i: int(yt[u, i]) for i in range(m)} for u in range(n)}
    recs = {u: {i: float(ys[u, i]) for i in range(m)} for u in range(n)}
    key, dkey = name("ndcg", {}, k), name("dcg", {}, k)
    res = rm.evaluate(truth, recs, [key, dkey], ties="average", empty="zero")
    want_n = [ndcg_score(yt[u : u + 1], ys[u : u + 1], k=k) if yt[u].any() else 0.0 for u in range(n)]
    want_d = [dcg_score(yt[u : u + 1], ys[u : u + 1], k=k) for u in range(n)]
    np.testing.assert_allclose(res.per_user[key], want_n, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(res.per_user[dkey], want_d, rtol=1e-12, atol=1e-12)
    assert math.isclose(res[key], ndcg_score(yt, ys, k=k), rel_tol=1e-12)
    assert math.isclose(res[dkey], dcg_score(yt, ys, k=k), rel_tol=1e-12)


def test_rejected_combinations():
    truth, recs = {0: {1: 1}}, {0: {1: 0.5, 2: 0.5}}
    with pytest.raises(ValueError, match="dcg and ndcg only"):
        rm.evaluate(truth, recs, ["ndcg@2", "precision@2"], ties="average")
    with pytest.raises(ValueError, match="max_items"):
        rm.evaluate(truth, recs, ["ndcg@2"], ties="average", max_items=1)


def test_straddling_group():
    # positions 1..3 tied; k=1: the relevant item at (input) position 3 adds 1/3 of discount(1)
    res = rm.evaluate({0: {"c": 1}}, {0: {"a": 1.0, "b": 1.0, "c": 1.0}}, ["dcg@1", "ndcg@1"], ties="average")
    assert math.isclose(res["dcg@1"], 1 / 3)
    assert math.isclose(res["ndcg@1"], 1 / 3)
