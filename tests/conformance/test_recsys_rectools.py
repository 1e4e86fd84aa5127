"""preset="rectools" against the real RecTools (venv `rectools` of bench/peers/setup.sh)."""

from __future__ import annotations

from typing import Any

import pytest

import rankmeter as rm
from tests.conformance.recsys_helpers import as_inputs, check, random_case, run_peer

SHAPES: list[dict[str, Any]] = [
    dict(n_users=40, k=5),
    dict(n_users=25, k=20, max_len=8),
    dict(n_users=60, k=1),
    dict(n_users=30, k=3, string_ids=True),
    dict(n_users=30, k=10, huge_ids=True),
]
CASES = [random_case(seed, train=True, positive_grades_only=True, **shape) for seed in range(3) for shape in SHAPES]
# hand-made: a user with an empty list, a user with one item, k beyond every list
EDGE = [
    {
        "truth": [[1, 10, 1], [1, 11, 1], [2, 10, 1], [3, 12, 1]],
        "recs": [[1, 11, 1, 1.0], [1, 10, 2, 0.5], [2, 13, 1, 1.0]],
        "train": [[9, 10], [9, 11], [8, 10]],
        "k": 50,
    }
]


@pytest.fixture(scope="module")
def peer():
    return run_peer("rectools", "rectools", CASES + EDGE)


@pytest.mark.parametrize("n", range(len(CASES) + len(EDGE)))
def test_rectools_preset_matches_rectools(peer, n):
    case = (CASES + EDGE)[n]
    assert "ok" in peer[n], peer[n]
    out = peer[n]["ok"]
    truth, recs, train = as_inputs(case)
    res = rm.evaluate(truth, recs, list(out), preset="rectools", train=train)
    for name, values in out.items():
        check(res, name, values, tag="rectools")
