"""``ips_hit_rate(unknown=zero, cap=C)@K`` with ``propensity="popularity"`` against the live RecPack's
IPSHitRateK (venv ``recpack``, bench/peers/setup.sh) on random cases covering every edge: users without a truth
row (RecPack drops them; rankmeter skips a user without a relevant item), truth users without a list (0 in both)
and list users without truth (ignored by both; with no user on both sides the truth users get empty lists, as
rankmeter refuses a call without a common user), short and empty lists, truth items never seen in train (weight 0:
RecPack's ``1 / p = inf -> 0``), repeated train rows, and caps below and above the largest inverse propensity.
The cases run through RecPack in one worker process and through rankmeter here; per-user values and the mean
are compared to a relative 1e-12 (RecPack sums a row of a sparse matrix in column order, rankmeter in list
order).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest

import rankmeter as rm
from tests.support.peers import run_peer_script

PEERS = Path(os.environ.get("RANKMETER_PEERS", Path.home() / ".cache" / "rankmeter-peers"))
PYTHON = PEERS / "recpack" / "bin" / "python"
WORKER = Path(__file__).with_name("worker_recpack.py")
N_CASES = int(os.environ.get("RANKMETER_DIFF_CASES", "300"))

pytestmark = pytest.mark.skipif(
    not PYTHON.exists(), reason="RecPack's venv is missing: bash bench/peers/setup.sh recpack"
)


def make_case(rng: np.random.Generator) -> dict:
    n_u = int(rng.integers(1, 9))
    n_i = int(rng.integers(1, 13))
    train = [(int(rng.integers(n_u)), int(rng.integers(n_i))) for _ in range(int(rng.integers(1, 25)))]
    truth = []
    for u in range(n_u):
        if rng.random() < 0.2:
            continue  # no truth row
        items = rng.choice(n_i, size=int(rng.integers(0, min(n_i, 5) + 1)), replace=False)
        truth += [(u, int(i)) for i in items]
    recs = []
    for u in range(n_u):
        if rng.random() < 0.15:
            continue  # no list
        items = rng.choice(n_i, size=int(rng.integers(0, n_i + 1)), replace=False)
        recs += [(u, int(i), float(len(items) - r)) for r, i in enumerate(items)]  # distinct positive scores
    k = int(rng.integers(1, 8))
    cap = float(rng.choice([10000.0, 3.0, 1.5, 7.0, 25.0]))
    return {"n_users": n_u, "n_items": n_i, "train": train, "truth": truth, "recs": recs, "k": k, "ip_cap": cap}


def ours(case: dict) -> dict | None:
    truth: dict = {}
    for u, i in case["truth"]:
        truth.setdefault(u, {})[i] = 1
    recs: dict = {}
    for u, i, _s in sorted(case["recs"], key=lambda r: (r[0], -r[2])):
        recs.setdefault(u, []).append(i)
    train: dict = {}
    for u, i in case["train"]:
        train.setdefault(u, []).append(i)
    if not truth:
        return None
    name = f"ips_hit_rate(unknown=zero,cap={case['ip_cap']})@{case['k']}"
    if not set(truth) & set(recs):
        # no user on both sides: rankmeter refuses the call (never a silent zero), RecPack scores every truth user
        # 0; the truth users get empty lists here, which both score 0
        recs = {**recs, **{u: [] for u in truth}}
    res = rm.evaluate(truth, recs, [name], train=train, propensity="popularity")
    per = dict(zip(res.users.tolist(), res.per_user[name].tolist()))
    return {"per_user": per, "value": res[name]}


def test_ips_hit_rate_is_recpacks_ips_hit_rate_k_on_random_cases(tmp_path):
    rng = np.random.default_rng(20181002)
    cases = [make_case(rng) for _ in range(N_CASES)]
    (tmp_path / "worker_io.py").write_text((WORKER.with_name("worker_path") / "worker_io.py").read_text())  # beside it
    out = run_peer_script(PYTHON, WORKER.read_text(), {"cases": cases}, tmp_path)["results"]
    compared = largest = 0.0
    for case, got in zip(cases, out):
        mine = ours(case)
        if mine is None:  # no truth row: RecPack averages over no user (NaN)
            continue
        assert "ok" in got, got
        theirs = got["ok"]
        per_theirs = dict(zip(theirs["users"], theirs["per_user"]))
        # RecPack keeps the users with a truth row; rankmeter skips (NaN) the others of the truth
        per_mine = {u: v for u, v in mine["per_user"].items() if not math.isnan(v)}
        assert set(per_mine) == set(per_theirs), (case, per_mine, per_theirs)
        for u, v in per_theirs.items():
            assert math.isclose(per_mine[u], v, rel_tol=1e-12, abs_tol=1e-12), (case, u, per_mine[u], v)
            largest = max(largest, abs(per_mine[u] - v))
        assert math.isclose(mine["value"], theirs["value"], rel_tol=1e-12, abs_tol=1e-12), (case, mine, theirs)
        compared += 1
    assert compared > N_CASES // 2
    print(f"recpack: {int(compared)} cases compared, largest per-user difference {largest:g}")
