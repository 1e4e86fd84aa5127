"""preset="ml_metrics" and preset="recmetrics" against ml_metrics 0.1.4 apk/mapk and recmetrics 0.1.5 mark
(venv `recm`), on lists without repeats (the presets do not keep a repeat's position; the compat modules do)."""

from __future__ import annotations

from typing import Any

import pytest

import rankmeter as rm
from tests.conformance.recsys_helpers import as_inputs, check, random_case, run_peer

SHAPES: list[dict[str, Any]] = [
    dict(n_users=40, k=5),
    dict(n_users=30, k=20, max_len=8),
    dict(n_users=40, k=1),
    dict(n_users=30, k=3, string_ids=True),
    dict(n_users=30, k=10, huge_ids=True),
]
CASES = [random_case(s, graded=False, **sh) for s in range(3) for sh in SHAPES]
EDGE = [{"truth": [[1, 10, 1], [2, 11, 0], [3, 12, 1]], "recs": [[1, 10, 1, 1.0], [2, 11, 1, 1.0]], "k": 3}]


@pytest.fixture(scope="module")
def ml():
    return run_peer("recm", "ml_metrics", CASES + EDGE)


@pytest.fixture(scope="module")
def rec():
    return run_peer("recm", "recmetrics", CASES + EDGE)


@pytest.mark.parametrize("n", range(len(CASES) + len(EDGE)))
def test_ml_metrics_preset(ml, n):
    out = ml[n]["ok"]
    truth, recs, _ = as_inputs((CASES + EDGE)[n])
    # ml_metrics' actual = the relevant items: a user whose truth has none is an empty actual (1.0)
    res = rm.evaluate(truth, recs, [f"map@{(CASES + EDGE)[n]['k']}"], preset="ml_metrics")
    k = (CASES + EDGE)[n]["k"]
    check(res, f"map@{k}", out[f"ap(denominator=min_relevant_k)@{k}"], rel=1e-15, tag="ml_metrics")


@pytest.mark.parametrize("n", range(len(CASES) + len(EDGE)))
def test_recmetrics_preset_mark(rec, n):
    k = (CASES + EDGE)[n]["k"]
    out = rec[n]["ok"]
    truth, recs, _ = as_inputs((CASES + EDGE)[n])
    res = rm.evaluate(truth, recs, [f"ap(denominator=relevant)@{k}"], preset="recmetrics")
    assert res[f"ap(denominator=relevant)@{k}"] == pytest.approx(out[f"mark@{k}"]["mean"], rel=1e-15)
