"""preset="evidently" equals Evidently 0.7 (new and legacy API, ranks and scores, no_feedback_users, min_rel_score)
on random cases: every recsys metric Evidently offers, compared as means (tests/differential/evidently.py)."""

from __future__ import annotations

from tests.differential.harness import SHORT_RUN, check


def test_evidently_preset_equals_evidently_on_random_tables():
    check("evidently", SHORT_RUN)
