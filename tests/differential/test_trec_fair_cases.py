"""awrf / awrf_ndcg against the TREC Fair Ranking 2022 Task 1 evaluation (restated) on random cases over the whole
data space (a short run; the long one: ``python -m tests.differential.run trec_fair_cases --cases 20000 --seed 1``)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_awrf_and_awrf_ndcg_give_the_trec_fair_ranking_values_per_query_and_mean_on_random_cases():
    rep = check("trec_fair_cases", SHORT_RUN)
    assert rep.compared > 0
