"""A short differential run of preset="trec_eval" against trec_eval as the live pytrec_eval runs it."""

from .harness import SHORT_RUN, check


def test_trec_eval_preset_gives_trec_eval_values_on_random_cases():
    check("trec_eval", SHORT_RUN)
