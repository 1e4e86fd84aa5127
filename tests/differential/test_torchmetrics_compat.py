"""rankmeter.compat.torchmetrics gives torchmetrics' values (every retrieval class and functional form, each
empty_target_action, aggregation, ignore_index, rows interleaved over several update() calls) and raises the
same exception types, on random cases, against the live torchmetrics (tests/differential)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_torchmetrics_compat_matches_live_torchmetrics_on_random_cases():
    check("torchmetrics_compat", SHORT_RUN)
