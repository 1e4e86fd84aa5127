"""preset="cornac" against the live Cornac: random cases over the whole data space (a short run; the long one:
``python -m tests.differential.run cornac --cases 20000 --seed 1``)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_cornac_preset_gives_cornacs_numbers_per_user_and_mean_on_random_cases():
    rep = check("cornac", SHORT_RUN)
    assert rep.compared > 0
