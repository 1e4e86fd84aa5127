"""preset="torchmetrics" gives torchmetrics' per-query values and means on random cases (every retrieval metric
it reproduces in one call, its own tie rule each), against the live torchmetrics (tests/differential)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_torchmetrics_preset_matches_live_torchmetrics_on_random_cases():
    check("torchmetrics", SHORT_RUN)
