"""A short differential run against the live recmetrics, release 0.1.5 and GitHub source
(tests/differential/recmetrics.py): every function compat.recmetrics replaces and preset="recmetrics" on random
data with repeated predictions, empty and one-item lists, users on one side only."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_recmetrics_compat_and_preset_equal_the_original_on_random_data():
    check("recmetrics", SHORT_RUN)
