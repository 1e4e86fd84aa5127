"""A short differential run against the live pyspark RankingMetrics (tests/differential/spark.py):
preset="spark" gives Spark's per-user values and means on random data with repeated predictions (each
occurrence a hit), empty lists and users on one side only. Spark is slow to start: a few dozen cases."""

from __future__ import annotations

import os

import pytest

from tests.support.engines import need_spark

from .harness import check

pytestmark = pytest.mark.engines

SPARK_CASES = int(os.environ.get("RANKMETER_DIFF_SPARK_CASES", "40"))


def test_spark_preset_equals_pyspark_ranking_metrics_on_random_data():
    need_spark()
    check("spark", SPARK_CASES)
