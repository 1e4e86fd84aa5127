"""Short differential run of the intent-aware diversity measures against the live ndeval (pyndeval); the long
run: ``python -m tests.differential.run ndeval``."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_subtopic_measures_give_ndeval_values_per_query_and_mean_on_random_and_real_shaped_data():
    check("ndeval", SHORT_RUN)
