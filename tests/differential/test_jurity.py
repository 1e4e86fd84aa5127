"""jurity's StatisticalParity and DisparateImpact on per-user hits by user group against by_group() / group_gaps(), and
its InterListDiversity against personalization:
random cases over the whole data space (a short run; the long one:
``python -m tests.differential.run jurity --cases 20000 --seed 1``)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_group_means_and_gaps_give_juritys_statistical_parity_and_disparate_impact_on_random_cases():
    rep = check("jurity", SHORT_RUN)
    assert rep.compared > 0
