"""Cornac 3.0's propensity-weighted evaluation, checked live (venv ``cornac``): why rankmeter's ips_* metrics are
not compared with it (docs/metrics.md 3.19.21). ``PropensityStratifiedEvaluation`` evaluates through its own
``ranking_eval``, which in Cornac 3.0 (a) calls ``Dataset.is_unk_user``, which 3.0's ``Dataset`` no longer has,
and (b) hands the ranking metrics the user's positives as a dense vector (divided by the propensities), where
3.0's metrics take the positives' item indices. When a Cornac release changes either, this test fails: compare
the ips_* metrics with it then."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.peers import run_peer_script

PEERS = Path(os.environ.get("RANKMETER_PEERS", Path.home() / ".cache" / "rankmeter-peers"))
PYTHON = PEERS / "cornac" / "bin" / "python"

pytestmark = pytest.mark.skipif(
    not PYTHON.exists(), reason="Cornac's venv is missing: bash bench/peers/setup.sh cornac"
)

SCRIPT = """
import json, sys
import numpy as np
from cornac.data import Dataset
from cornac.eval_methods.propensity_stratified_evaluation import ranking_eval
from cornac.metrics import Recall

train = Dataset.from_uir([("u1", "a", 1.0), ("u1", "b", 1.0), ("u2", "a", 1.0), ("u2", "c", 1.0), ("u3", "d", 1.0)])
test = Dataset.build([("u1", "c", 1.0), ("u1", "d", 1.0), ("u2", "b", 1.0)], fmt="UIR",
                     global_uid_map=train.uid_map, global_iid_map=train.iid_map, exclude_unknowns=True)


class Model:
    name = "stub"

    def rank(self, user_idx, item_indices=None):
        return np.array([3, 2, 1, 0]), np.array([4.0, 3.0, 2.0, 1.0])  # items d, c, b, a: u1's c and d first


out = {}
try:
    ranking_eval(Model(), [Recall(k=2)], train, test)
    out["plain"] = "ran"
except AttributeError as e:
    out["plain"] = str(e)
Dataset.is_unk_user = lambda self, u: u >= self.num_users  # past (a)
avg, _ = ranking_eval(Model(), [Recall(k=2)], train, test)
out["recall_at_2"] = float(avg[0])
json.dump(out, open(sys.argv[2], "w"))
"""


def test_cornac_30_propensity_evaluation_is_not_usable(tmp_path):
    out = run_peer_script(PYTHON, SCRIPT, {}, tmp_path)
    assert "is_unk_user" in out["plain"]
    # user 1's positives c and d are its top 2 (recall 1), user 2's b is third (recall 0): 0.5 if the metric read
    # the positives; Cornac's own path gives 0, reading the dense vector's values as item indices
    assert out["recall_at_2"] == 0.0
