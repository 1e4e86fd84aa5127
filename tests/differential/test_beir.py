"""A short differential run of rankmeter.compat.beir against the live BEIR (tests/differential)."""

from .harness import SHORT_RUN, check


def test_compat_beir_gives_beir_values_and_errors_on_random_cases():
    check("beir", SHORT_RUN)
