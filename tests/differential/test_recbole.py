"""preset="recbole" against the live RecBole 1.2.1: random full-sort cases (a short run; the long one:
``python -m tests.differential.run recbole --cases 20000 --seed 1``)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_recbole_preset_gives_recboles_numbers_per_user_and_mean_on_random_cases():
    rep = check("recbole", SHORT_RUN)
    assert rep.compared > 0
