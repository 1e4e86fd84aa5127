"""Short differential runs against the live ir_measures (the long run: ``python -m tests.differential.run
ir_measures``)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_compat_ir_measures_gives_ir_measures_numbers_on_random_cases():
    check("ir_measures", SHORT_RUN)


def test_preset_ir_measures_gives_ir_measures_numbers_on_random_cases():
    check("ir_measures_preset", SHORT_RUN)
