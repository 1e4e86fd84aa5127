"""preset="recommenders" against Microsoft Recommenders' python_evaluation (venv `msr`).

Recommenders counts every rating_true row as relevant (the preset: min_relevance=-inf). Its ndcg_at_k averages
over every rating_true user while the other metrics average over users in both tables: the preset sets
ndcg(missing_recs="zero") beside missing="skip_empty", so one call gives every function's value.
"""

from __future__ import annotations

from typing import Any

import pytest

import rankmeter as rm
from tests.conformance.recsys_helpers import as_inputs, check, random_case, run_peer

SHAPES: list[dict[str, Any]] = [
    dict(n_users=15, k=5),
    dict(n_users=10, k=20, max_len=8),
    dict(n_users=15, k=1),
    dict(n_users=10, k=3, string_ids=True),
    dict(n_users=10, k=10, huge_ids=True),
]
CASES = [random_case(s, positive_grades_only=True, **sh) for s in range(2) for sh in SHAPES]
# every truth user has predictions (random_case may leave a list empty: such a user is absent from rating_pred)
EDGE = [
    {
        "truth": [[1, 10, 5], [1, 11, 3], [2, 10, 1], [3, 12, 4]],
        "recs": [[1, 11, 1, 0.9], [1, 10, 2, 0.5], [1, 14, 3, 0.4], [2, 13, 1, 0.9], [3, 12, 1, 0.3]],
        "k": 2,
    }
]


@pytest.fixture(scope="module")
def peer():
    return run_peer("msr", "recommenders", CASES + EDGE)


@pytest.mark.parametrize("n", range(len(CASES) + len(EDGE)))
def test_recommenders_preset_matches_recommenders(peer, n):
    case = (CASES + EDGE)[n]
    assert "ok" in peer[n], peer[n]
    out = peer[n]["ok"]
    truth, recs, _ = as_inputs(case)
    res = rm.evaluate(truth, recs, list(out), preset="recommenders")
    for name, values in out.items():
        check(res, name, values, tag="recommenders")
