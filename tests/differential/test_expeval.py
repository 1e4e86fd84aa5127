"""``rm.expected_exposure`` against the restatement of the authors' evaluator (tests/differential/expeval.py,
diazf/expeval) on hypothesis data: the same values to 1e-12 everywhere but the one documented departure (a user
with relevant items of one grade and no sampled list: expeval's difference reads relevance's zeroed bound and gives
0, the best value; rankmeter gives ||eps*||^2, the loss of an all-zero exposure; docs/metrics.md 3.23.10)."""

from __future__ import annotations

import math

from hypothesis import assume, given

import rankmeter as rm
from tests.differential.expeval import expeval
from tests.metrics.test_expected_exposure import SETTINGS, cases


def _one_level_without_list(truth: dict, samples: list, user, binary: bool) -> bool:
    grades = {(1 if binary else g) for g in truth[user].values() if g > 0}
    return len(grades) == 1 and not any(samples_lists for s in samples if (samples_lists := s.get(user)))


@SETTINGS
@given(cases())
def test_expected_exposure_equals_the_authors_evaluator(case):
    truth, samples, o = case
    o = {**o, "k": None}  # expeval has no cutoff
    assume(set(truth) & {u for s in samples for u in s})  # rankmeter refuses runs without a truth user
    got = rm.expected_exposure(truth, samples, **o)
    want = expeval(truth, samples, o["model"], o["patience"], o["utility"], o["normalize"], o["binary"])
    assert list(got.per_user["user"]) == list(want)
    for row in got.per_user.itertuples():
        wl, wd, wr = want[row.user]
        assert math.isclose(row.ee_d, wd, rel_tol=1e-12, abs_tol=1e-13)
        assert math.isclose(row.ee_r, wr, rel_tol=1e-12, abs_tol=1e-13)
        if _one_level_without_list(truth, samples, row.user, o["binary"]):
            assert wl == 0.0 and row.ee_l > 0.0  # the documented departure
        else:
            assert math.isclose(row.ee_l, wl, rel_tol=1e-12, abs_tol=1e-13)
