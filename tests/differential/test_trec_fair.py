"""rankmeter's awrf / awrf_ndcg against the TREC Fair Ranking 2022 Task 1 evaluation restated in trec_fair.py, by
hypothesis over queries with runs of any length up to k, relevant pages or none, pages without alignment, with no
group or with several, string / int / huge ids, and the three targets."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter as rm

from .trec_fair import rounding_nan, trec_awrf, trec_ndcg

OPTS = "attention=log_trec,multi=each,ungrouped=skip,log_base=e"


@st.composite
def fair_cases(draw):
    kind = draw(st.sampled_from(["int", "str", "huge"]))
    n_items = draw(st.integers(1, 14))
    ids: list = (
        list(range(n_items))
        if kind == "int"
        else [f"p{i}" for i in range(n_items)]
        if kind == "str"
        else [2**63 - 1 - i for i in range(n_items)]
    )
    n_groups = draw(st.integers(1, 4))
    groups = [f"g{j}" for j in range(n_groups)]
    alignment: dict = {}
    for item in ids:
        role = draw(st.sampled_from(["one", "one", "one", "several", "none", "absent"]))
        if role == "one":
            alignment[item] = [draw(st.sampled_from(groups))]
        elif role == "several" and n_groups > 1:
            alignment[item] = draw(st.lists(st.sampled_from(groups), min_size=2, max_size=n_groups, unique=True))
        elif role == "none":
            alignment[item] = []
    k = draw(st.sampled_from([1, 2, 3, 5, 10]))
    runs, rels = {}, {}
    for u in range(draw(st.integers(1, 6))):
        runs[u] = draw(st.lists(st.sampled_from(ids), max_size=k, unique=True))
        rels[u] = draw(st.lists(st.sampled_from(ids), max_size=6, unique=True))
    target = draw(st.sampled_from(["uniform", "catalog", "relevance"]))
    return ids, groups, alignment, k, runs, rels, target


def _target(kind: str, groups: list, alignment: dict, relevant: list) -> np.ndarray:
    """The target distributions of docs/metrics.md 3.23 ("Targets") under multi=each, over the groups used."""
    if kind == "uniform":
        return np.ones(len(groups))
    pool = list(alignment) if kind == "catalog" else [i for i in relevant if i in alignment]
    return np.array([sum(g in alignment[i] for i in pool) for g in groups], dtype=np.float64)


@settings(max_examples=300, deadline=None)
@given(fair_cases())
def test_awrf_and_awrf_ndcg_equal_the_trec_fair_ranking_scripts_per_query(case):
    ids, _groups, alignment, k, runs, rels, target = case
    used = sorted({g for gs in alignment.values() for g in gs})
    if not used:  # no page has a group: rankmeter refuses item_groups without a group (nothing to measure)
        return
    truth = {u: dict.fromkeys(r, 1) for u, r in rels.items() if r}
    if not truth:
        return
    names = [f"awrf({OPTS},target={target})@{k}", f"awrf_ndcg({OPTS},target={target},discount=trec)@{k}"]
    res = rm.evaluate(truth, runs, names, item_groups=alignment, catalog=ids, per_user=True)
    awrf = dict(zip(res.users.tolist(), res.per_user[names[0]].tolist()))
    score = dict(zip(res.users.tolist(), res.per_user[names[1]].tolist()))
    scores = []  # the track's run score: the mean of the per-query scores (pandas' mean, NaN skipped)
    for u, run in runs.items():
        if u not in truth:
            continue
        t = _target(target, used, alignment, rels[u])
        if rounding_nan(run, alignment, used, t):  # the scripts' NaN for an alignment equal to the target (SciPy)
            continue
        want_awrf = trec_awrf(run, alignment, used, t) if t.sum() > 0 else math.nan
        want = want_awrf * trec_ndcg(run, rels[u], k)
        scores.append(want)
        assert _close(awrf[u], want_awrf), (u, awrf[u], want_awrf)
        assert _close(score[u], want), (u, score[u], want)
    finite = [x for x in scores if not math.isnan(x)]
    if len(scores) < sum(u in truth for u in runs):  # a query left out above: the means differ by it
        return
    assert _close(res[names[1]], sum(finite) / len(finite) if finite else math.nan)


def _close(a: float, b: float) -> bool:
    """Equal up to the scripts' float32 discount, or both NaN."""
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-7) or (math.isnan(a) and math.isnan(b))
