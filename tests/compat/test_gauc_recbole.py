"""gauc(negatives=catalog) with `train` against the live RecBole 1.2.1 GAUC, run in the `recbole` peer venv
(bench/peers/setup.sh recbole); skipped without it (a failure in CI).

The worker builds what RecBole's full-sort evaluation builds (recbole/evaluator/collector.py: one score row per
user over every item id, the padding item 0 and the user's history masked with -inf; `rec.meanrank`: average
ranks of tied scores, the positives' rank sum, the finite scores, the positives) with RecBole's own Collector,
then asks RecBole's GAUC.metric_info for the value. RecBole has no LAUC; Elliot's AUC, GAUC and LAUC (not
installed here) are restated in docs/metrics.md 3.19.12.
"""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter as rm
from tests.conformance.recsys_helpers import peer_python
from tests.support.peers import run_peer_script

SCRIPT = r"""
import json, sys
import torch
from recbole.evaluator.collector import Collector
from recbole.evaluator.metrics import GAUC

data = json.load(open(sys.argv[1]))
config = {"metrics": ["GAUC"], "eval_args": {"mode": "full"}, "topk": [1], "device": torch.device("cpu"),
          "metric_decimal_place": 15}
out = []
for case in data:
    n_users, n_items = case["n_users"], case["n_items"]
    scores = torch.tensor(case["scores"], dtype=torch.float64)  # n_users x (n_items + 1), item 0: padding
    scores[:, 0] = -float("inf")
    for u, items in enumerate(case["history"]):
        for i in items:
            scores[u, i] = -float("inf")
    pu = torch.tensor([u for u, items in enumerate(case["positives"]) for _ in items], dtype=torch.long)
    pi = torch.tensor([i for items in case["positives"] for i in items], dtype=torch.long)
    col = Collector(config)
    col.eval_batch_collect(scores, None, pu, pi)
    mean_rank = col.get_data_struct().get("rec.meanrank").numpy()
    rank_sum, user_len, pos_len = mean_rank[:, 0:1], mean_rank[:, 1], mean_rank[:, 2]
    out.append(float(GAUC(config).metric_info(rank_sum, user_len, pos_len)))
json.dump(out, open(sys.argv[2], "w"))
"""


def _cases() -> list:
    rng = np.random.default_rng(11)
    cases = []
    for _ in range(25):
        n_users, n_items = int(rng.integers(2, 30)), int(rng.integers(3, 40))
        scores = np.round(rng.random((n_users, n_items + 1)), 1)  # ties
        history, positives = [], []
        for _u in range(n_users):
            items = rng.permutation(np.arange(1, n_items + 1))
            n_h = int(rng.integers(0, n_items // 2))
            n_p = int(rng.integers(1, n_items - n_h + 1))  # some users: every unmasked item positive
            history.append(items[:n_h].tolist())
            positives.append(items[n_h : n_h + n_p].tolist())
        cases.append(
            {
                "n_users": n_users,
                "n_items": n_items,
                "scores": scores.tolist(),
                "history": history,
                "positives": positives,
            }
        )
    return cases


@pytest.fixture(scope="module")
def recbole(tmp_path_factory):
    py = peer_python("recbole")
    cases = _cases()
    tmp = tmp_path_factory.mktemp("recbole_gauc")
    return cases, run_peer_script(py, SCRIPT, cases, tmp)


def test_gauc_over_catalog_negatives_equals_recbole_gauc(recbole):
    cases, want = recbole
    for case, w in zip(cases, want):
        n_items = case["n_items"]
        S = np.array(case["scores"])
        truth = dict(enumerate(case["positives"]))
        train = {u: items for u, items in enumerate(case["history"]) if items}
        # the model's scores of every item the user has not seen (RecBole ranks those; history is masked)
        recs = {
            u: {i: float(S[u, i]) for i in range(1, n_items + 1) if i not in set(case["history"][u])}
            for u in range(case["n_users"])
        }
        catalog = list(range(1, n_items + 1))
        res = rm.evaluate(truth, recs, ["gauc(negatives=catalog)", "gauc"], train=train, catalog=catalog)
        assert abs(res["gauc(negatives=catalog)"] - w) <= 1e-12 * max(1.0, abs(w)), (res["gauc(negatives=catalog)"], w)
        # every unseen item is scored: the scored candidates are the same
        assert abs(res["gauc"] - w) <= 1e-12 * max(1.0, abs(w))
