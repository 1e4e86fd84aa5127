"""preset="recommenders" against the live Microsoft Recommenders on random cases over the whole data space (a short
run; the long one: ``python -m tests.differential.run recommenders --cases 20000 --seed 1``)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_recommenders_preset_gives_recommenders_numbers_per_user_and_mean_on_random_cases():
    rep = check("recommenders", SHORT_RUN // 3)  # Recommenders' pandas joins take ~0.4 s a case
    assert rep.compared > 0
