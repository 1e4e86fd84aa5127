"""A short differential run against the live ml_metrics (tests/differential/ml_metrics.py): compat.ml_metrics
and preset="ml_metrics" give its apk/mapk on random data with repeated predictions, empty lists and users on
one side only."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_ml_metrics_compat_and_preset_equal_the_original_on_random_data():
    check("ml_metrics", SHORT_RUN)
