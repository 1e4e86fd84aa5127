"""shannon_entropy and tail_percentage against the live RecBole 1.2.1 ShannonEntropy and TailPercentage, run in
the `recbole` peer venv (bench/peers/setup.sh recbole); skipped without it (a failure in CI).

The worker hands RecBole's metric classes what its evaluation collects (recbole/evaluator/collector.py): the
top-k item matrix `rec.items` (n_users x max k, every list full) and, for TailPercentage, `data.count_items`,
the train interaction counter of the item ids. The item ids are RecBole's own (they are the ids given here), so
its tie order (count, then id) is rankmeter's.
"""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter as rm
from tests.conformance.recsys_helpers import peer_python
from tests.support.peers import run_peer_script

SCRIPT = r"""
import json, sys
from collections import Counter
import torch
from recbole.evaluator.collector import DataStruct
from recbole.evaluator.metrics import ShannonEntropy, TailPercentage

data = json.load(open(sys.argv[1]))
out = []
for case in data:
    config = {"topk": case["ks"], "metric_decimal_place": 15, "tail_ratio": case["tail_ratio"]}
    ds = DataStruct()
    ds.set("rec.items", torch.tensor(case["lists"], dtype=torch.long))
    ds.set("data.count_items", Counter(i for row in case["train"] for i in row))
    got = {}
    got.update(ShannonEntropy(config).calculate_metric(ds))
    got.update(TailPercentage(config).calculate_metric(ds))
    out.append(got)
json.dump(out, open(sys.argv[2], "w"))
"""


def _cases() -> list:
    rng = np.random.default_rng(7)
    cases = []
    for c in range(30):
        n_users, n_items, k = int(rng.integers(1, 25)), int(rng.integers(5, 60)), int(rng.integers(1, 6))
        k = min(k, n_items)
        # skewed recommendations (repeats across users) over items 1..n_items
        p = rng.random(n_items) ** 4
        p /= p.sum()
        lists = [rng.choice(np.arange(1, n_items + 1), k, replace=False, p=p).tolist() for _ in range(n_users)]
        train = [
            rng.choice(np.arange(1, n_items + 1), int(rng.integers(1, 12)), p=p).tolist()  # repeats: interactions
            for _ in range(int(rng.integers(1, 20)))
        ]
        ratio = [0.1, 0.3, 0.5, 1.0, 2.0, 3.0][c % 6]
        cases.append({"lists": lists, "train": train, "ks": sorted({1, k}), "tail_ratio": ratio})
    return cases


@pytest.fixture(scope="module")
def recbole(tmp_path_factory):
    py = peer_python("recbole")
    cases = _cases()
    tmp = tmp_path_factory.mktemp("recbole_popularity")
    return cases, run_peer_script(py, SCRIPT, cases, tmp)


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-12 * max(1.0, abs(b))  # RecBole rounds to 15 decimals


def test_shannon_entropy_normalize_distinct_equals_recbole_shannon_entropy(recbole):
    cases, want = recbole
    for case, w in zip(cases, want):
        recs = dict(enumerate(case["lists"]))
        truth: dict = {u: {} for u in recs}
        for k in case["ks"]:
            name = f"shannon_entropy(normalize=distinct)@{k}"
            res = rm.evaluate(truth, recs, [name], empty="zero")
            assert _near(res[name], w[f"shannonentropy@{k}"]), (case, k, res[name], w)


def test_tail_percentage_equals_recbole_tail_percentage(recbole):
    cases, want = recbole
    for case, w in zip(cases, want):
        recs = dict(enumerate(case["lists"]))
        truth: dict = {u: {} for u in recs}
        train = dict(enumerate(case["train"]))
        for k in case["ks"]:
            name = f"tail_percentage(tail_ratio={case['tail_ratio']})@{k}"
            res = rm.evaluate(truth, recs, [name], train=train, empty="zero")
            assert _near(res[name], w[f"tailpercentage@{k}"]), (case, k, res[name], w)
