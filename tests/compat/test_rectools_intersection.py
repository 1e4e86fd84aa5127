"""rm.agreement's ``intersection(ref_k=...)@k`` with ``missing="run_a"`` gives RecTools' ``Intersection`` per user
and mean, live: RecTools runs in its own venv (~/.cache/rankmeter-peers/rectools) on the same random runs (int and
string ids, lists shorter than k, users of one run only, several k and ref_k)."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import rankmeter as rm
from tests.conformance.recsys_helpers import peer_python
from tests.support.peers import peer_env

CUTS = [(1, None), (3, None), (5, None), (3, 1), (3, 6), (10, 2)]

_WORKER = """
import json, sys
import pandas as pd
from rectools import Columns
from rectools.metrics import Intersection

data = json.load(open(sys.argv[1]))
out = []
for case in data:
    reco = pd.DataFrame(case["a"], columns=[Columns.User, Columns.Item, Columns.Rank])
    ref = pd.DataFrame(case["b"], columns=[Columns.User, Columns.Item, Columns.Rank])
    res = {}
    for k, ref_k in case["cuts"]:
        m = Intersection(k=k, ref_k=ref_k)
        per = m.calc_per_user(reco, ref)
        res[f"{k}/{ref_k}"] = {"users": [str(u) for u in per.index], "values": per.tolist(), "mean": m.calc(reco, ref)}
    out.append(res)
json.dump(out, open(sys.argv[2], "w"))
"""


def _case(seed: int) -> tuple[list, list]:
    rng = np.random.default_rng(seed)
    strings = seed % 2 == 1
    n_users, pool = int(rng.integers(1, 30)), int(rng.integers(2, 25))

    def run() -> list:
        rows = []
        for u in range(n_users):
            if rng.random() < 0.2:
                continue
            n = int(rng.integers(1, min(pool, 12) + 1))
            for r, i in enumerate(rng.choice(pool, size=n, replace=False)):
                rows.append([f"u{u}" if strings else u, f"i{i}" if strings else int(i), r + 1])
        return rows or [["u0" if strings else 0, "i0" if strings else 0, 1]]

    return run(), run()


def test_intersection_equals_rectools_per_user_and_mean():
    py = peer_python("rectools")
    cases = [_case(seed) for seed in range(40)]
    with tempfile.TemporaryDirectory() as d:
        src, dst, script = Path(d) / "in.json", Path(d) / "out.json", Path(d) / "worker.py"
        src.write_text(json.dumps([{"a": a, "b": b, "cuts": CUTS} for a, b in cases]))
        script.write_text(_WORKER)
        proc = subprocess.run(
            [str(py), str(script), str(src), str(dst)], capture_output=True, text=True, timeout=900, env=peer_env()
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        theirs = json.loads(dst.read_text())
    compared = 0
    for (a, b), res in zip(cases, theirs):
        cols = ["user_id", "item_id", "rank"]
        names = [f"intersection(ref_k={rk})@{k}" if rk else f"intersection@{k}" for k, rk in CUTS]
        ours = rm.agreement(pd.DataFrame(a, columns=cols), pd.DataFrame(b, columns=cols), names, missing="run_a")
        users = [str(u) for u in ours.users]
        for (k, rk), name in zip(CUTS, names):
            want = res[f"{k}/{rk}"]
            got = dict(zip(users, ours.per_user[name].tolist()))
            assert sorted(want["users"]) == sorted(users)
            for u, v in zip(want["users"], want["values"]):
                assert abs(got[u] - v) <= 1e-12, (name, u, got[u], v)
                compared += 1
            assert abs(ours[name] - want["mean"]) <= 1e-12 * max(1.0, abs(want["mean"]))
    assert compared > 500
