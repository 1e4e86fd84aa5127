"""rm.train_fusion (the training of ranx's trained fusion methods) against the pure-Python reference
(tests/support/reference_fusion_train.py) on random runs, optimize_fusion of the trained methods, the compat
import paths, and the errors of bad arguments."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.support import reference_fusion_train as ref

TRAINED = ["posfuse", "slidefuse", "probfuse", "segfuse", "bayesfuse", "mapfuse"]
NORMS = [None, "min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda"]


@st.composite
def training_cases(draw):
    int_ids = draw(st.booleans())
    pool = draw(st.integers(1, 40))
    doc = (lambda d: d) if int_ids else (lambda d: f"d{d}")
    n_q = draw(st.integers(1, 5))
    truth = {}
    for q in range(n_q):  # some queries without any relevant document, or without any judgment
        docs = draw(st.lists(st.integers(0, pool - 1), unique=True, max_size=min(pool, 8)))
        truth[f"q{q}"] = {doc(d): draw(st.integers(0, 3)) for d in docs}
    score = st.sampled_from([0.0, 1.0, 2.0, -1.0]) if draw(st.booleans()) else st.floats(-5, 5, allow_nan=False)
    runs = []
    for _ in range(draw(st.integers(1, 3))):
        run = {}
        for q in range(n_q):
            if draw(st.integers(0, 4)) == 0:
                continue  # the query is missing from this run
            docs = draw(st.lists(st.integers(0, pool - 1), unique=True, max_size=pool))  # may be empty
            run[f"q{q}"] = {doc(d): draw(score) for d in docs}
        runs.append(run)
    method = draw(st.sampled_from(TRAINED))
    norm = draw(st.sampled_from(NORMS))
    level = draw(st.sampled_from([None, 1, 2]))
    k = draw(st.integers(1, 7)) if method == "probfuse" else None
    return truth, runs, method, norm, level, k


def _close(got, want) -> bool:
    g = np.atleast_1d(np.asarray(got, dtype=np.float64))
    w = np.atleast_1d(np.asarray(want, dtype=np.float64))
    return g.shape == w.shape and bool(np.allclose(g, w, rtol=1e-12, atol=1e-15))


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(training_cases())
def test_train_fusion_equals_the_reference_for_every_method_and_normalisation(case):
    truth, runs, method, norm, level, k = case
    got = rm.train_fusion(truth, runs, method, norm=norm, min_relevance=level, n_segments=k)
    want = ref.train(truth, runs, method, n_segments=k, level=level, norm=norm)
    assert len(got) == len(runs)
    for g, w in zip(got, want):
        assert _close(g, w), (method, norm, g, w)


def test_train_fusion_returns_ranx_forms():
    truth = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}
    runs = [{"q1": {"a": 0.5, "b": 0.9, "x": 0.1}, "q2": {"c": 1.0, "a": 2.0}}, {"q1": {"b": 0.5}, "q2": {"z": 1.0}}]
    probs = rm.train_fusion(truth, runs, "probfuse", n_segments=3)
    assert isinstance(probs, np.ndarray) and probs.shape == (2, 3)
    # run 0: q1 ranks b, a, x (a relevant at the 2nd of 3 segments); q2 ranks a, c (c in the 2nd segment)
    assert probs[0].tolist() == [0.0, 1.0, 0.0] and probs[1].tolist() == [0.0, 0.0, 0.0]
    pos = rm.train_fusion(truth, runs, "posfuse")
    assert [p.tolist() for p in pos] == [[0.0, 1.0, 0.0], [0.0]]
    odds = rm.train_fusion(truth, runs, "bayesfuse")
    assert [o.shape for o in odds] == [(1000,), (1000,)]
    assert odds[0][0] == pytest.approx(np.log(0.2 / 0.8)) and odds[1][0] == pytest.approx(np.log(0.001 / 0.999))
    assert [s.shape for s in rm.train_fusion(truth, runs, "segfuse")] == [(10,), (10,)]
    assert rm.train_fusion(truth, runs, "mapfuse") == [pytest.approx(0.5), 0.0]


def test_train_fusion_counts_a_truth_query_no_run_lists_as_empty_lists():
    runs = [{"q1": {"a": 1.0}}]
    assert rm.train_fusion({"q1": {"a": 1}}, runs, "probfuse", n_segments=1)[0].tolist() == [1.0]
    assert rm.train_fusion({"q1": {"a": 1}, "q2": {"b": 1}}, runs, "probfuse", n_segments=1)[0].tolist() == [0.5]


@pytest.mark.parametrize(
    "kw, err, match",
    [
        ({"method": "wsum"}, ValueError, "has no training"),
        ({"method": 3}, TypeError, "string"),
        ({"method": "probfuse"}, ValueError, "n_segments"),
        ({"method": "probfuse", "n_segments": 0}, ValueError, "n_segments"),
        ({"method": "posfuse", "n_segments": 2}, TypeError, "n_segments"),
        ({"method": "posfuse", "min_relevance": "1"}, TypeError, "min_relevance"),
    ],
)
def test_train_fusion_rejects_bad_arguments(kw, err, match):
    with pytest.raises(err, match=match):
        rm.train_fusion({"q1": {"a": 1}}, [{"q1": {"a": 1.0}}], **kw)


def test_train_fusion_refuses_a_run_query_the_truth_lacks():
    with pytest.raises(ValueError, match="'q2', which `truth` lacks"):
        rm.train_fusion({"q1": {"a": 1}}, [{"q1": {"a": 1.0}, "q2": {"b": 1.0}}], "posfuse")


def _data(seed: int = 5):
    rng = np.random.default_rng(seed)
    qs = [f"q{i}" for i in range(10)]
    runs = [
        {q: {f"d{d}": float(rng.integers(0, 5)) for d in rng.choice(20, int(rng.integers(1, 15)), False)} for q in qs}
        for _ in range(3)
    ]
    truth = {q: {f"d{d}": int(rng.integers(0, 3)) for d in rng.choice(20, 5, False)} for q in qs}
    return truth, runs


@pytest.mark.parametrize("method", ["probfuse", "slidefuse"])
def test_optimize_fusion_of_a_trained_method_tries_each_value_and_keeps_the_last_best(method):
    truth, runs = _data()
    key = "n_segments" if method == "probfuse" else "w"
    values = [1, 2, 3, 5, 8]
    tried: dict = {key: values}
    best, table = rm.optimize_fusion(truth, runs, "ndcg@5", method=method, **tried)
    expected = []
    for v in values:
        if method == "probfuse":
            p = {"probs": rm.train_fusion(truth, runs, method, n_segments=v)}
        else:
            p = {"probs": rm.train_fusion(truth, runs, method), "w": v}
        expected.append(rm.evaluate(truth, rm.fuse(runs, method=method, **p), ["ndcg@5"])["ndcg@5"])
    assert np.allclose(table["ndcg@5"], expected, rtol=1e-12)
    last = max(i for i, e in enumerate(expected) if e == max(expected))
    if method == "probfuse":
        assert np.array_equal(best["probs"], rm.train_fusion(truth, runs, method, n_segments=values[last]))
    else:
        assert best["w"] == values[last] and all(np.array_equal(a, b) for a, b in zip(best["probs"], p["probs"]))


@pytest.mark.parametrize("method", ["bayesfuse", "mapfuse", "posfuse", "segfuse"])
def test_optimize_fusion_of_a_training_only_method_returns_its_table_and_the_fused_metric(method):
    truth, runs = _data()
    best, table = rm.optimize_fusion(truth, runs, "map", method=method, norm="max")
    trained = rm.train_fusion(truth, runs, method, norm="max")
    key = {"bayesfuse": "log_odds", "mapfuse": "map_scores"}.get(method, "probs")
    assert list(best) == [key] and all(np.array_equal(a, b) for a, b in zip(best[key], trained))
    fused = rm.fuse(runs, method=method, norm="max", **{key: trained})
    assert list(table["map"]) == [pytest.approx(rm.evaluate(truth, fused, ["map"])["map"], rel=1e-12)]


def test_optimize_fusion_of_a_trained_method_refuses_a_given_table():
    truth, runs = _data()
    with pytest.raises(TypeError, match="trains `probs` itself"):
        rm.optimize_fusion(truth, runs, "ndcg", method="posfuse", probs=[[0.5]] * 3)
    with pytest.raises(ValueError, match="needs `n_segments`"):
        rm.optimize_fusion(truth, runs, "ndcg", method="probfuse")


def test_compat_ranx_exposes_the_training_functions_at_ranx_import_path():
    from rankmeter.compat import ranx as cr
    from rankmeter.compat.ranx.fusion import (  # noqa: F401  ranx's path
        bayesfuse_train,
        mapfuse_train,
        posfuse_train,
        probfuse_train,
        segfuse_train,
        slidefuse_train,
    )

    qrels = cr.Qrels({"q1": {"a": 1}, "q2": {"c": 1}})
    runs = [cr.Run({"q1": {"a": 0.5, "b": 0.9}, "q2": {"c": 1.0}}), cr.Run({"q1": {"b": 0.5}, "q2": {"c": 1.0}})]
    # run 0: q1 ranks b, a (a relevant at position 1), q2 ranks c (relevant at position 0)
    assert [p.tolist() for p in posfuse_train(qrels, runs)] == [[0.5, 1.0], [0.5]]
    assert mapfuse_train(qrels, runs) == [pytest.approx(0.75), 0.5]
    assert runs[0].mean_scores == {"map": pytest.approx(0.75)}  # as ranx's evaluate saves it
    with pytest.raises(ValueError, match="reads past the run"):
        probfuse_train(qrels, [cr.Run({"q1": {"a": 1.0}})], 2)


def test_compat_ranx_optimize_fusion_of_a_training_only_method_has_no_report():
    from rankmeter.compat import ranx as cr

    qrels = cr.Qrels({"q1": {"a": 1}})
    runs = [cr.Run({"q1": {"a": 0.5}}), cr.Run({"q1": {"a": 1.0}})]
    with pytest.raises(ValueError, match="does not support optimization report"):
        cr.optimize_fusion(qrels, runs, method="posfuse", return_optimization_report=True)
    with pytest.raises(TypeError, match="unexpected keyword"):
        cr.optimize_fusion(qrels, runs, method="segfuse", show_progress=False)
    assert [p.tolist() for p in cr.optimize_fusion(qrels, runs, method="posfuse")["probs"]] == [[1.0], [1.0]]


@pytest.mark.parametrize("bitmap", [True, False])
def test_train_fusion_refuses_a_document_listed_twice_in_one_list(monkeypatch, bitmap):
    from rankmeter.evaluation import _fusion_train

    if not bitmap:
        monkeypatch.setattr(_fusion_train, "_BITMAP_MAX", 0)  # the sorted-keys path of large inputs
    run = rm.Recs.from_csr(np.array([0, 3]), np.array(["a", "b", "a"]), np.array([3.0, 2.0, 1.0]), users=["q1"])
    with pytest.raises(ValueError, match="twice"):
        rm.train_fusion({"q1": {"a": 1}}, [run], "posfuse")


def test_train_fusion_large_input_path_gives_the_same_tables(monkeypatch):
    from rankmeter.evaluation import _fusion_train

    truth, runs = _data(9)
    want = rm.train_fusion(truth, runs, "segfuse")
    monkeypatch.setattr(_fusion_train, "_BITMAP_MAX", 0)
    got = rm.train_fusion(truth, runs, "segfuse")
    assert all(np.array_equal(a, b) for a, b in zip(got, want)) and any(a.any() for a in want)
