"""A short differential run of rankmeter.compat.pytrec_eval against the live pytrec_eval (tests/differential)."""

from .harness import SHORT_RUN, check


def test_compat_pytrec_eval_gives_pytrec_eval_values_on_random_cases():
    check("pytrec_eval", SHORT_RUN)
