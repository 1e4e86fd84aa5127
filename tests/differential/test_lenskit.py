"""preset="lenskit" against the live LensKit: random cases over the whole data space (a short run; the long one:
``python -m tests.differential.run lenskit --cases 20000 --seed 1``)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_lenskit_preset_gives_lenskits_numbers_per_user_and_mean_on_random_cases():
    rep = check("lenskit", SHORT_RUN)
    assert rep.compared > 0
