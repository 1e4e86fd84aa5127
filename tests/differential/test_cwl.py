"""Short differential run against the live cwl-eval (the long run: ``python -m tests.differential.run cwl``)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_preset_cwl_gives_cwl_eval_numbers_for_every_quantity_on_random_cases():
    check("cwl", SHORT_RUN)


def test_compat_ir_measures_gives_the_cwl_eval_providers_numbers_on_random_cases():
    check("ir_measures_cwl", SHORT_RUN)
