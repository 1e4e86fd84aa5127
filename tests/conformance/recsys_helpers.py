"""Helpers of the recommender-library conformance tests (test_recsys_*.py).

``run_peer(venv, library, cases)`` runs ``peer_worker.py`` in the peer's venv
and returns its results; ``random_case``/``edge_cases`` build the data as rows
(truth [user, item, grade], recs [user, item, rank, score], train [user, item]);
``as_inputs`` turns a case into rankmeter's dict inputs; ``check`` compares
per-user values and means.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from tests.support.peers import peer_env

ROOT = Path(os.environ.get("RANKMETER_PEERS", Path.home() / ".cache" / "rankmeter-peers"))
WORKER = Path(__file__).with_name("peer_worker.py")
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
WORST: dict = {}  # preset -> (largest absolute difference, largest relative difference) seen by check()


def peer_python(venv: str) -> Path:
    """The venv's python; skip (fail in CI) when the venv was not built."""
    py = ROOT / venv / "bin" / "python"
    if not py.exists():
        msg = f"peer venv {venv!r} missing at {py}: run `bash bench/peers/setup.sh {venv}`"
        if IN_CI:
            pytest.fail(msg)
        pytest.skip(msg)
    return py


def run_peer(venv: str, library: str, cases: list) -> list:
    py = peer_python(venv)
    with tempfile.TemporaryDirectory() as d:
        src, dst = Path(d) / "in.json", Path(d) / "out.json"
        src.write_text(json.dumps({"cases": cases}))
        proc = subprocess.run(
            [str(py), str(WORKER), library, str(src), str(dst)],
            capture_output=True,
            text=True,
            timeout=900,
            env=peer_env(),
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        return json.loads(dst.read_text())["results"]


def random_case(
    seed: int,
    n_users: int = 40,
    n_items: int = 30,
    max_len: int = 12,
    k: int = 5,
    *,
    graded: bool = True,
    zero_grades: bool = True,
    ties: bool = False,
    string_ids: bool = False,
    huge_ids: bool = False,
    all_listed: bool = False,
    train: bool = False,
    positive_grades_only: bool = False,
) -> dict:
    """Random truth/recs rows. all_listed: every truth item is in the user's list (torchmetrics/sklearn: the
    documents of a query are its list)."""
    g = np.random.default_rng(seed)

    def uid(u):
        u = int(u)
        return f"user {u}" if string_ids else (2**62 + u if huge_ids else u)

    def iid(i):
        i = int(i)
        return f"item-{i}" if string_ids else (2**63 - 1 - i if huge_ids else i)

    truth, recs, train_rows = [], [], []
    for u in range(n_users):
        length = int(g.integers(0 if not all_listed else 2, max_len + 1))
        lst = g.choice(n_items, length, replace=False)
        if all_listed:
            judged = lst[g.random(length) < 0.5]
            if judged.size == 0:
                judged = lst[:1]
        else:
            judged = g.choice(n_items, int(g.integers(1, 8)), replace=False)
        for i in judged:
            if positive_grades_only:
                grade = int(g.integers(1, 4)) if graded else 1
            else:
                grade = int(g.integers(0 if zero_grades else 1, 4)) if graded else 1
            truth.append([uid(u), iid(i), grade])
        scores = np.sort(g.random(length) + 0.5)[::-1]
        if ties and length:
            scores = np.round(scores * 3) / 3 + 0.5  # few distinct values: many ties
        for r, (i, s) in enumerate(zip(lst, scores)):
            recs.append([uid(u), iid(i), r + 1, float(s)])
    if train:
        for t in range(n_users + 5):
            for i in g.choice(n_items + 5, int(g.integers(1, 9)), replace=False):
                train_rows.append([f"t{t}" if string_ids else 10**6 + t, iid(i)])
    return {"truth": truth, "recs": recs, "train": train_rows, "k": k}


def as_inputs(case: dict, *, scored: bool = False):
    """rankmeter inputs of a case: truth {user: {item: grade}}, recs {user: [items]} (or {user: {item: score}}),
    train {user: [items]}."""
    truth: dict = {}
    for u, i, gr in case["truth"]:
        truth.setdefault(u, {})[i] = gr
    recs: dict = {}
    for u, i, _r, s in sorted(case["recs"], key=lambda row: (str(row[0]), row[2])):
        if scored:
            recs.setdefault(u, {})[i] = s
        else:
            recs.setdefault(u, []).append(i)
    train: dict = {}
    for u, i in case.get("train") or []:
        train.setdefault(u, []).append(i)
    return truth, recs, train


def check(
    res, name: str, peer: dict, *, rel: float = 1e-9, abs_: float = 0.0, means_only: bool = False, tag: str = ""
) -> float:
    """Compare rankmeter's Result column `name` with the peer's per-user values and mean; returns the largest
    absolute difference seen."""
    worst = 0.0
    if peer["per_user"] is not None and not means_only:
        mine = res.per_user[name]
        users = list(res.users)
        pos = {u: n for n, u in enumerate(users)}
        for u, v in peer["per_user"]:
            got = float(mine[pos[u]])
            if v is None:
                assert math.isnan(got), (name, u, got)
                continue
            assert math.isclose(got, v, rel_tol=rel, abs_tol=abs_), (name, u, got, v)
            worst = max(worst, abs(got - v))
            _record(tag, got, v)
    if peer["mean"] is not None:
        got = float(res[name])
        assert math.isclose(got, peer["mean"], rel_tol=rel, abs_tol=abs_), (name, "mean", got, peer["mean"])
        worst = max(worst, abs(got - peer["mean"]))
        _record(tag, got, peer["mean"])
    return worst


def _record(tag: str, got: float, want: float) -> None:
    a, r = WORST.get(tag, (0.0, 0.0))
    d = abs(got - want)
    WORST[tag] = (max(a, d), max(r, d / abs(want) if want else 0.0))
