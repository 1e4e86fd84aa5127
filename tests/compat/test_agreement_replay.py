"""unexpectedness against the live RePlay 0.22 Unexpectedness (pandas path, per user and mean; `run_b` the
baseline, `missing="run_a"`: RePlay scores the users of the recommendations), run in the `replay` peer venv
(bench/peers/setup.sh replay); skipped without it (a failure in CI)."""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter as rm
from tests.conformance.recsys_helpers import peer_python
from tests.support.peers import run_peer_script

SCRIPT = r"""
import json, sys
import pandas as pd
from replay.metrics import PerUser, Unexpectedness

def frame(lists):
    rows = [(u, i, float(len(items) - j)) for u, items in lists for j, i in enumerate(items)]
    return pd.DataFrame(rows, columns=["query_id", "item_id", "rating"])

data = json.load(open(sys.argv[1]))
out = []
for case in data:
    recs, base = frame(case["recs"]), frame(case["base"])
    mean = Unexpectedness(case["ks"])(recs, base)
    per = Unexpectedness(case["ks"], mode=PerUser())(recs, base)
    out.append({"mean": mean, "per": {k: {str(u): v for u, v in d.items()} for k, d in per.items()}})
json.dump(out, open(sys.argv[2], "w"))
"""


def _cases() -> list:
    """Recommendations and a baseline over a small item pool (so they overlap): lists of 1-8 distinct items, ranked
    by distinct scores; some users of the recommendations lack a baseline, some baseline users have no
    recommendations; cutoffs below, at and above the list lengths."""
    rng = np.random.default_rng(5)

    def lists(pool: int, n_users: int, skip: float) -> list:
        return [
            [u, rng.choice(pool, int(rng.integers(1, min(8, pool) + 1)), replace=False).tolist()]
            for u in range(n_users)
            if rng.random() >= skip
        ]

    cases = []
    for _ in range(40):
        pool, n_users = int(rng.integers(3, 20)), int(rng.integers(1, 12))
        recs, base = lists(pool, n_users, 0.0), lists(pool, n_users, 0.3)
        base.append([100, [0, 1]])  # a baseline user without recommendations: not scored
        cases.append({"recs": recs, "base": base, "ks": [1, 3, 5, 10]})
    return cases


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    py = peer_python("replay")
    cases = _cases()
    tmp = tmp_path_factory.mktemp("replay_unexpectedness")
    return cases, run_peer_script(py, SCRIPT, cases, tmp)


def test_unexpectedness_equals_replay_unexpectedness_per_user_and_mean(replay):
    cases, want = replay
    for case, w in zip(cases, want):
        recs, base = dict(case["recs"]), dict(case["base"])
        names = [f"unexpectedness@{k}" for k in case["ks"]]
        res = rm.agreement(recs, base, names, missing="run_a")
        assert res.users.tolist() == list(recs)
        for k, name in zip(case["ks"], names):
            per = w["per"][f"Unexpectedness-PerUser@{k}"]
            assert sorted(per) == sorted(map(str, recs)), (case, k)
            for u, g in zip(recs, res.per_user[name].tolist()):
                assert abs(g - per[str(u)]) <= 1e-12, (case, k, u, g, per[str(u)])
            assert abs(res[name] - w["mean"][f"Unexpectedness@{k}"]) <= 1e-12, (case, k)
