"""preset="elliot" against the restatement of Elliot's published code (tests/support/reference_elliot.py): random
cases over the whole data space (a short run; the long one: ``python -m tests.differential.run elliot --cases
20000 --seed 1``)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_elliot_preset_gives_elliots_numbers_per_user_and_mean_on_random_cases():
    rep = check("elliot", SHORT_RUN)
    assert rep.compared > 0
