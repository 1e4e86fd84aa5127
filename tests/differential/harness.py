"""The differential runs: random cases (cases.py) computed by a live peer in its own venv and by rankmeter,
compared per user and as means.

A peer module of this package (``tests/differential/<peer>.py``) defines

- ``VENV``: the peer's venv name under ``~/.cache/rankmeter-peers`` (``RANKMETER_PEERS``), built by
  ``bench/peers/setup.sh`` (None: the peer is importable beside rankmeter, e.g. pyspark);
- ``WORKER``: the path of its worker script, run as ``<venv>/bin/python WORKER IN.json OUT.json``; the worker
  imports only the standard library, numpy, pandas and the peer, and writes for each case
  ``{"ok": {label: {"per_user": [[user, value], ...] | null, "mean": value | null}}}`` or
  ``{"error": type name, "message": text}`` (the peer raised);
- ``ALLOW``: the case features (cases.FEATURES) it draws from; ``REL``: the relative tolerance;
- ``ours(case) -> {label: {"per_user": {user: value} | None, "mean": value}}``: rankmeter's values of the
  same labels, every metric of the library in one call;
- optionally ``ISOLATED = True``: the worker runs as ``python -P`` (Python 3.11+), without its own
  directory on ``sys.path``, so that a peer module here (``ml_metrics.py``, ``recmetrics.py``) does not
  shadow the package of that name; such a worker loads cases.py from its file;
- optionally ``draw(seed) -> case``: the peer's own random case (its worker reads it), instead of
  ``cases.draw_case`` (e.g. several runs per case for rank fusion); ``ALLOW`` is then unused;
- optionally ``known(case, peer_result) -> str | dict | None``: the reason a case is one that
  ``rankmeter.presets.describe()`` lists as not reproduced (a peer crash, a random draw), else None; or a
  dict ``{label: reason}`` naming only the labels of the case that are not reproduced (the others are
  compared).

Users absent from one side's per-user values count as NaN there: a user the peer evaluates and rankmeter
leaves out (or the reverse) is a mismatch.

Long run: ``python -m tests.differential.run PEER --cases 20000 --seed 1``.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Optional

from tests.support.peers import peer_env

from .cases import draw_case, rel_close

ROOT = Path(os.environ.get("RANKMETER_PEERS", Path.home() / ".cache" / "rankmeter-peers"))
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


@dataclass
class Report:
    peer: str
    seed: int
    cases: int = 0
    compared: int = 0  # values compared (per-user values and means)
    peer_errors: dict = field(default_factory=dict)  # exception type -> cases
    known: dict = field(default_factory=dict)  # reason -> cases
    mismatches: list = field(default_factory=list)  # (case seed, label, user or "mean", ours, peer)
    seconds: float = 0.0
    largest: float = 0.0  # the largest relative difference |ours - peer| / max(|ours|, |peer|) of finite values
    exact: int = 0  # values compared that are equal (both NaN, or the same float)

    def note(self, a: float, b: float) -> None:
        """Record the difference of one compared pair (ours, peer)."""
        if a == b or (a != a and b != b):
            self.exact += 1
        elif math.isfinite(a) and math.isfinite(b):
            self.largest = max(self.largest, abs(a - b) / max(abs(a), abs(b)))

    def summary(self) -> str:
        errs = ", ".join(f"{k}: {v}" for k, v in sorted(self.peer_errors.items())) or "none"
        known = ", ".join(f"{k}: {v}" for k, v in sorted(self.known.items())) or "none"
        return (
            f"{self.peer}: seed {self.seed}, {self.cases} cases, {self.compared} values compared, "
            f"{len(self.mismatches)} mismatches; {self.exact} values identical, largest relative difference "
            f"{self.largest:.1e}; peer raised on: {errs}; known (describe()): {known}; {self.seconds:.0f} s"
        )


def peer_python(venv: str | None) -> Path:
    """The peer venv's python; ``VENV = None``: the running interpreter (a peer installed beside rankmeter,
    such as pyspark)."""
    return Path(sys.executable) if venv is None else ROOT / venv / "bin" / "python"


def load(peer: str) -> ModuleType:
    return importlib.import_module(f"tests.differential.{peer}")


# the folder of worker_io.py, the case loop the workers share: on every worker's PYTHONPATH
WORKER_PATH = Path(__file__).resolve().with_name("worker_path")


def run_worker(mod: ModuleType, cases: list) -> list:
    py = peer_python(mod.VENV)
    with tempfile.TemporaryDirectory() as d:
        src, dst = Path(d) / "in.json", Path(d) / "out.json"
        src.write_text(json.dumps({"cases": cases}))
        flags = ["-P"] if getattr(mod, "ISOLATED", False) else []
        proc = subprocess.run(
            [str(py), *flags, str(mod.WORKER), str(src), str(dst)],
            capture_output=True,
            text=True,
            timeout=3600,
            env=peer_env(PYTHONPATH=os.pathsep.join(filter(None, [str(WORKER_PATH), os.environ.get("PYTHONPATH")]))),
        )
        if proc.returncode != 0:
            raise RuntimeError(f"{mod.VENV} worker failed:\n{proc.stderr[-3000:]}")
        return json.loads(dst.read_text())["results"]


def _num(v: Any) -> float:
    return math.nan if v is None else float(v)


def compare_case(mod: ModuleType, seed: int, case: dict, peer: dict, rep: Report) -> None:
    if "error" in peer:
        rep.peer_errors[peer["error"]] = rep.peer_errors.get(peer["error"], 0) + 1
        return
    reason = mod.known(case, peer["ok"]) if hasattr(mod, "known") else None
    skip: dict = {}
    if isinstance(reason, dict):  # only some labels of the case are not reproduced
        skip, reason = reason, None
    if reason:
        rep.known[reason] = rep.known.get(reason, 0) + 1
        return
    for why in set(skip.values()):
        rep.known[why] = rep.known.get(why, 0) + 1
    mine = mod.ours(case)
    rel = getattr(mod, "REL", 1e-9)
    for label, want in peer["ok"].items():
        if label in skip:
            continue
        got = mine[label]
        if want.get("per_user") is not None:
            theirs = {_key(u): _num(v) for u, v in want["per_user"]}
            ours_pu = {_key(u): _num(v) for u, v in (got["per_user"] or {}).items()}
            for u in set(theirs) | set(ours_pu):
                a, b = ours_pu.get(u, math.nan), theirs.get(u, math.nan)
                rep.compared += 1
                rep.note(a, b)
                if not rel_close(a, b, rel):
                    rep.mismatches.append((seed, label, u, a, b))
        if "mean" in want:
            a, b = _num(got["mean"]), _num(want["mean"])
            rep.compared += 1
            rep.note(a, b)
            if not rel_close(a, b, rel):
                rep.mismatches.append((seed, label, "mean", a, b))


def _key(u: Any) -> Any:
    return tuple(u) if isinstance(u, list) else u


def case_seeds(seed: int, first: int, n_cases: int) -> list[int]:
    """The seeds of cases first .. first + n_cases - 1 of the run of ``seed``."""
    return [seed * 1_000_003 + j for j in range(first, first + n_cases)]


def differential(
    peer: str,
    n_cases: int,
    seed: int,
    *,
    batch: int = 250,
    on_batch: Optional[Any] = None,
    first: int = 0,
    **draw_kw: Any,
) -> Report:
    """n_cases random cases from seed (case j has seed seed * 1_000_003 + j, j = first, first + 1, ...) through
    the peer and rankmeter. ``first`` splits a long run into slices that together are the same cases as one run
    (slices 0-4999 and 5000-19999 of seed 1 are the run of 20,000 cases of seed 1). ``on_batch(report)``, when
    given, is called after every batch (progress of a long run)."""
    mod = load(peer)
    rep = Report(peer, seed)
    t0 = time.perf_counter()
    all_seeds = case_seeds(seed, first, n_cases)
    for start in range(0, n_cases, batch):
        seeds = all_seeds[start : start + batch]
        if hasattr(mod, "draw"):  # a peer whose cases are not draw_case's (e.g. several runs per case)
            cases = [mod.draw(s) for s in seeds]
        else:
            cases = [draw_case(s, mod.ALLOW, **{**getattr(mod, "DRAW", {}), **draw_kw}) for s in seeds]
        for s, case, res in zip(seeds, cases, run_worker(mod, cases)):
            rep.cases += 1
            compare_case(mod, s, case, res, rep)
        if on_batch is not None:
            rep.seconds = time.perf_counter() - t0
            on_batch(rep)
    rep.seconds = time.perf_counter() - t0
    return rep


def require_peer(venv: str | None) -> None:
    """Skip (fail in CI) when the peer's venv is missing."""
    import pytest

    if venv is None:
        return
    py = peer_python(venv)
    if not py.exists():
        msg = f"peer venv {venv!r} missing at {py}: run `bash bench/peers/setup.sh {venv}`"
        if IN_CI:
            pytest.fail(msg)
        pytest.skip(msg)


def check(peer: str, n_cases: int, seed: int = 0) -> Report:
    """The CI form: a short run that must show no mismatch."""
    mod = load(peer)
    require_peer(mod.VENV)
    rep = differential(peer, n_cases, seed)
    shown = "\n".join(map(repr, rep.mismatches[:20]))
    assert not rep.mismatches, f"{rep.summary()}\nfirst mismatches (case seed, label, user, ours, peer):\n{shown}"
    return rep


SHORT_RUN = int(os.environ.get("RANKMETER_DIFF_CASES", "300"))  # cases per peer in the test suite
