"""rm.fuse and rm.optimize_fusion: the C++ fusion against the pure-Python reference (tests/support/
reference_fusion.py) on random runs, and the errors of bad arguments."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.differential.cases import rel_close
from tests.support import reference_fusion as ref

METHODS = [
    "sum",
    "mnz",
    "max",
    "min",
    "med",
    "anz",
    "gmnz",
    "wsum",
    "wmnz",
    "mixed",
    "rrf",
    "isr",
    "log_isr",
    "logn_isr",
    "rbc",
    "bordafuse",
    "w_bordafuse",
    "condorcet",
    "w_condorcet",
    "bayesfuse",
    "posfuse",
    "probfuse",
    "segfuse",
    "slidefuse",
    "mapfuse",
]
NORMS = [None, "min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda"]
WEIGHTED = {"wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet"}


@st.composite
def fusion_cases(draw):
    n_runs = draw(st.integers(1, 4))
    int_ids = draw(st.booleans())
    pool = draw(st.integers(1, 12))
    score = st.sampled_from([0.0, 1.0, 2.0, -1.0]) if draw(st.booleans()) else st.floats(-5, 5, allow_nan=False)
    runs = []
    for _ in range(n_runs):
        run = {}
        for q in range(draw(st.integers(0, 4))):
            if draw(st.integers(0, 4)) == 0:
                continue  # the query is missing from this run
            docs = draw(st.lists(st.integers(0, pool - 1), unique=True, max_size=pool))
            run[f"q{q}"] = {(d if int_ids else f"d{d}"): draw(score) for d in docs}
        runs.append(run)
    method = draw(st.sampled_from(METHODS))
    norm = draw(st.sampled_from(NORMS))
    params: dict = {}
    u = st.floats(0, 1, allow_nan=False)
    if method == "gmnz":
        params["gamma"] = draw(st.floats(0, 2))
    elif method == "rrf" and draw(st.booleans()):
        params["k"] = draw(st.integers(0, 100))
    elif method == "logn_isr" and draw(st.booleans()):
        params["sigma"] = draw(u)
    elif method == "rbc":
        params["phi"] = draw(u)
    elif method == "bayesfuse":
        params["log_odds"] = [draw(st.lists(st.floats(-3, 3), min_size=pool + 1, max_size=pool + 1)) for _ in runs]
    elif method in ("posfuse", "slidefuse"):
        params["probs"] = [draw(st.lists(u, min_size=1, max_size=15)) for _ in runs]
        if method == "slidefuse":
            params["w"] = draw(st.integers(0, 4))
    elif method == "probfuse":
        params["probs"] = [draw(st.lists(u, min_size=n, max_size=n)) for n in [draw(st.integers(1, 5))] * n_runs]
    elif method == "segfuse":
        params["probs"] = [draw(st.lists(u, min_size=10, max_size=10)) for _ in runs]
    elif method == "mapfuse":
        params["map_scores"] = [draw(u) for _ in runs]
    weights = [draw(st.floats(0, 2)) for _ in runs] if method in WEIGHTED and draw(st.booleans()) else None
    return runs, method, norm, weights, params


def _as_dict(recs) -> dict:
    out: dict = {}
    ip, items, scores = recs.indptr, recs.items_native.tolist(), recs.scores.tolist()
    for i, q in enumerate(recs.users.tolist()):
        out[q] = dict(zip(items[ip[i] : ip[i + 1]], scores[ip[i] : ip[i + 1]]))
    return out


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(fusion_cases())
def test_fuse_equals_the_reference_for_every_method_and_normalisation(case):
    runs, method, norm, weights, params = case
    got = rm.fuse(runs, method=method, norm=norm, weights=weights, **params)
    want = ref.fuse(runs, method, weights, norm, **params)
    mine = _as_dict(got)
    assert list(mine) == list(want)  # queries in order of first appearance over the runs
    for q in want:
        assert set(mine[q]) == set(want[q]), q
        for d, v in want[q].items():
            assert rel_close(mine[q][d], v, 1e-12, 1e-12), (q, d, mine[q][d], v)
    # each fused list is ranked by fused score, descending
    s = got.scores
    for i in range(len(got.users)):
        seg = s[got.indptr[i] : got.indptr[i + 1]]
        assert np.all(seg[:-1] >= seg[1:])


def test_fuse_lists_every_query_of_any_run_and_every_document_of_any_run():
    a = {"q1": {"x": 3.0, "y": 1.0}}
    b = {"q1": {"z": 2.0}, "q2": {"w": 1.0}}
    out = _as_dict(rm.fuse([a, b], method="rrf", k=0, norm=None))
    assert out == {"q1": {"x": 1.0, "z": 1.0, "y": 0.5}, "q2": {"w": 1.0}}


def test_fuse_reads_a_ranx_run_in_its_own_order():
    from rankmeter.compat.ranx import Run

    r1, r2 = Run({"q": {"a": 1.0, "b": 1.0}}), Run({"q": {"b": 2.0}})
    order = list(r1.to_dict()["q"])  # ranx's order of the tie
    out = _as_dict(rm.fuse([r1, r2], method="rrf", k=0, norm=None))
    assert out["q"][order[0]] == (1.0 if order[0] == "a" else 2.0)  # first place: 1 / (0 + 1)


@pytest.mark.parametrize(
    ("kw", "err", "match"),
    [
        ({"method": "nope"}, ValueError, "unknown fusion method"),
        ({"method": "rbc"}, TypeError, "needs the parameter `phi`"),
        ({"method": "rrf", "phi": 0.5}, TypeError, "unexpected parameter"),
        ({"method": "wsum", "weights": [1.0]}, ValueError, "one number per run"),
        ({"method": "rrf", "weights": [1.0, 1.0]}, TypeError, "takes no `weights`"),
        ({"method": "sum", "norm": "nope"}, ValueError, "unknown normalisation"),
        ({"method": "logn_isr", "sigma": 2.0}, ValueError, "sigma"),
        ({"method": "sum", "ties": "random"}, ValueError, "ties"),
    ],
)
def test_fuse_rejects_bad_arguments_before_any_work(kw, err, match):
    with pytest.raises(err, match=match):
        rm.fuse([{"q": {"a": 1.0}}, {"q": {"b": 1.0}}], **kw)


def test_fuse_rejects_a_query_listed_twice_in_one_run():
    recs = rm.Recs.from_csr([0, 1, 2], ["a", "b"], [1.0, 2.0], users=["q", "q"])
    with pytest.raises(ValueError, match="twice"):
        rm.fuse([recs, {"q": {"a": 1.0}}], method="sum")


def test_fuse_rejects_a_document_listed_twice_in_one_list():
    recs = rm.Recs.from_csr([0, 2], ["a", "a"], [1.0, 2.0], users=["q"])
    with pytest.raises(ValueError, match="one document twice"):
        rm.fuse([recs, {"q": {"a": 1.0}}], method="sum")


def test_optimize_fusion_tries_ranx_grid_and_keeps_the_last_best():
    from rankmeter.evaluation._fusion import weight_grid

    grid = weight_grid(0.1, 3)
    assert all(abs(sum(w) - 1.0) == 0.0 for w in grid)
    assert len(grid) == len(set(grid)) and (0.0, 0.0, 1.0) in grid
    truth = {"q": {"b": 1}}
    runs = [{"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 2.0, "a": 1.0}}]
    best, table = rm.optimize_fusion(truth, runs, "mrr", step=0.5)
    rows = list(zip(table["weights"], table["mrr"]))
    assert rows == [((0.0, 1.0), 1.0), ((0.5, 0.5), 0.5), ((1.0, 0.0), 0.5)]
    assert best == (0.0, 1.0)
    best, table = rm.optimize_fusion(truth, runs, "mrr", method="rrf", k=[1, 10])
    assert best == {"k": 10} and list(table["k"]) == [1, 10]  # equal scores: the last one wins


@pytest.mark.parametrize("metric", ["ndcg", "ndcg@10", "mrr", "mrr@5", "recall@20", "precision@10", "hit_rate@3"])
def test_optimize_fusion_weighted_sum_from_ranks_equals_fuse_then_evaluate(metric):
    rng = np.random.default_rng(7)
    runs = [
        {f"q{q}": {f"d{d}": float(rng.integers(0, 5)) for d in rng.choice(60, 30, replace=False)} for q in range(40)}
        for _ in range(3)
    ]
    truth = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in rng.choice(60, 8, replace=False)} for q in range(45)}
    grid = [(0.0, 0.0, 1.0), (0.2, 0.3, 0.5), (0.5, 0.5, 0.0), (1.0, 0.0, 0.0), (0.1, 0.1, 0.8)]
    best, table = rm.optimize_fusion(truth, runs, metric, weights=grid)  # the ranks kernel
    for w, got in zip(grid, table[metric]):
        want = rm.evaluate(truth, rm.fuse(runs, method="wsum", weights=list(w)), [metric])[metric]
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
    assert best in grid
