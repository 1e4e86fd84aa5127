"""Short differential runs against the live cwl-eval and ir_measures' cwl_eval provider (the long runs:
``python -m tests.differential.run cwl`` and ``... ir_measures_cwl``). cwl-eval computes every metric with Python
loops over 1000 positions (seconds per case), so these runs take a fifth and a tenth of the usual cases."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_preset_cwl_gives_cwl_eval_numbers_for_every_quantity_on_random_cases():
    check("cwl", max(SHORT_RUN // 5, 1))


def test_compat_ir_measures_gives_the_cwl_eval_providers_numbers_on_random_cases():
    check("ir_measures_cwl", max(SHORT_RUN // 10, 1))
