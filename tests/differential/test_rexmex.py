"""coverage, user_coverage and personalization against the live rexmex: random cases over the whole data space (a
short run; the long one: ``python -m tests.differential.run rexmex --cases 20000 --seed 1``)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_coverage_user_coverage_and_personalization_give_rexmex_values_on_random_cases():
    rep = check("rexmex", SHORT_RUN)
    assert rep.compared > 0
