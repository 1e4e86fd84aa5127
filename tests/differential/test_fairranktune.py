"""FairRankTune's EXP, ERBE, ERBP and AWRF (every combo) against the group exposures of res.exposure(): random cases over
the whole data space (a short run; the long one: ``python -m tests.differential.run fairranktune --cases 20000
--seed 1``)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_group_exposures_give_fairranktunes_exp_erbe_erbp_and_awrf_for_every_combo_on_random_cases():
    rep = check("fairranktune", SHORT_RUN)
    assert rep.compared > 0
