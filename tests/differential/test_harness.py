"""The harness itself (no peer needed)."""

from __future__ import annotations

from .harness import case_seeds


def test_slices_of_a_long_run_are_the_cases_of_the_whole_run():
    whole = case_seeds(1, 0, 20_000)
    assert case_seeds(1, 0, 5_000) + case_seeds(1, 5_000, 15_000) == whole
    assert len(set(whole)) == 20_000
    assert not set(case_seeds(2, 0, 20_000)) & set(whole)
