"""rankmeter.compat.recommenders against the live Microsoft Recommenders: every python_evaluation function, each
relevancy_method, score_type and similarity measure, on random tables over the whole data space (a short run:
Recommenders' pandas joins take about a second a case; the long one:
``python -m tests.differential.run recommenders_compat --cases 20000 --seed 1``)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_recommenders_compat_gives_every_python_evaluation_value_of_the_original_on_random_tables():
    rep = check("recommenders_compat", max(SHORT_RUN // 6, 1))
    assert rep.compared > 0
