"""surprisal against the live RePlay 0.22 Surprisal (pandas path, per user and mean), run in the `replay` peer
venv (bench/peers/setup.sh replay); skipped without it (a failure in CI)."""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter as rm
from tests.conformance.recsys_helpers import peer_python
from tests.support.peers import run_peer_script

SCRIPT = r"""
import json, sys
import pandas as pd
from replay.metrics import PerUser, Surprisal

data = json.load(open(sys.argv[1]))
out = []
for case in data:
    rows = [(u, i, -float(j)) for u, items in case["lists"] for j, i in enumerate(items)]
    recs = pd.DataFrame(rows, columns=["query_id", "item_id", "rating"])
    train = pd.DataFrame([(u, i) for u, items in case["train"] for i in items], columns=["query_id", "item_id"])
    mean = Surprisal(case["ks"])(recs, train)
    per = Surprisal(case["ks"], mode=PerUser())(recs, train)
    out.append({"mean": mean, "per": {k: {str(u): v for u, v in d.items()} for k, d in per.items()}})
json.dump(out, open(sys.argv[2], "w"))
"""


def _cases() -> list:
    rng = np.random.default_rng(3)
    cases = []
    for _ in range(30):
        n_items = int(rng.integers(4, 40))
        p = rng.random(n_items) ** 3
        p /= p.sum()
        lists = [
            [u, rng.choice(np.arange(n_items), int(rng.integers(1, min(8, n_items) + 1)), replace=False, p=p).tolist()]
            for u in range(int(rng.integers(1, 15)))
        ]
        # item n_items + 5 etc. never in train: cold items weigh 1
        for row in lists[::3]:
            row[1].append(n_items + 5)
        train = [[u, rng.choice(np.arange(n_items), int(rng.integers(1, 9)), p=p).tolist()] for u in range(2, 12)]
        cases.append({"lists": lists, "train": train, "ks": [1, 3, 5]})
    return cases


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    py = peer_python("replay")
    cases = _cases()
    tmp = tmp_path_factory.mktemp("replay_surprisal")
    return cases, run_peer_script(py, SCRIPT, cases, tmp)


def test_surprisal_equals_replay_surprisal_per_user_and_mean(replay):
    cases, want = replay
    for case, w in zip(cases, want):
        recs = dict(case["lists"])
        train = dict(case["train"])
        for k in case["ks"]:
            res = rm.evaluate({u: {} for u in recs}, recs, [f"surprisal@{k}"], train=train, empty="zero")
            got = res.per_user[f"surprisal@{k}"].tolist()
            per = w["per"][f"Surprisal-PerUser@{k}"]
            for u, g in zip(recs, got):
                assert abs(g - per[str(u)]) <= 1e-12, (case, k, u, g, per[str(u)])
            assert abs(res[f"surprisal@{k}"] - w["mean"][f"Surprisal@{k}"]) <= 1e-12
