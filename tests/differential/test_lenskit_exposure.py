"""exposure_gini against LensKit's ExposureGini: random cases over the whole data space (a short run; the long one:
``python -m tests.differential.run lenskit_exposure --cases 20000 --seed 1``)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_exposure_gini_gives_lenskits_exposure_gini_for_each_weighting_on_random_cases():
    rep = check("lenskit_exposure", SHORT_RUN)
    assert rep.compared > 0
