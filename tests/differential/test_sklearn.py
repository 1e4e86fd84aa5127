"""preset="sklearn" gives scikit-learn's ndcg_score, dcg_score and top_k_accuracy_score per row and as means on
random cases (tied scores included), all in one call, against the live scikit-learn (tests/differential)."""

from __future__ import annotations

from .harness import SHORT_RUN, check


def test_sklearn_preset_matches_live_scikit_learn_on_random_cases():
    check("sklearn", SHORT_RUN)
