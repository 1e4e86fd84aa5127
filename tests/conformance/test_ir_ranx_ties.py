"""ranx's order among equal scores (ties="ranx", "ranx_comparable", "ranx_dict") against the real ranx.

ranx ranks each query's documents with numba's np.argsort (quicksort: unstable, but deterministic), starting from
the documents in input order: a ``Run`` built from a dict sorts the negated scores once (``sort_dict_by_value``),
``make_comparable=True`` sorts the sorted run again, and a plain dict run is sorted by ``utils.descending_sort``
(argsort of the scores, read backwards). The cases hold lists of up to 60 documents with few distinct scores, so
most lists have ties and many are long enough (16+ entries) for numba's partitioning to reorder them. Per-query
values of order-sensitive metrics are compared at relative 1e-9, through ``rm.evaluate(preset="ranx",
ties=...)`` and through ``rankmeter.compat.ranx.evaluate`` given what ranx is given (plain dicts, or a Run-like
object whose ``to_dict()`` is the real Run's). Skipped when the ranx venv is missing, a failure in CI.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import rankmeter as rm
from rankmeter.compat import ranx as compat
from tests.conformance.recsys_helpers import _record
from tests.support.peers import peer_env

RANX_PY = (
    Path(os.environ.get("RANKMETER_PEERS", Path.home() / ".cache" / "rankmeter-peers")) / "ranx" / "bin" / "python"
)
# (bpref is left out: ranx's batched bpref kernel gives 0 for most queries, see test_ir_ranx.py)
METRICS = ["ndcg@10", "ndcg@5", "map@20", "mrr", "precision@5", "precision@17", "dcg_burges@30", "rbp.8", "hits@12"]

WORKER = r"""
import json, sys
import numpy as np
import ranx
data = json.load(open(sys.argv[1]))
out = {}


def arr(res, metrics):
    return {m: [None if np.isnan(x) else float(x) for x in res[m]] for m in metrics}


for case, d in data.items():
    q, r, ms = d["qrels"], d["run"], d["metrics"]
    qo, ro = ranx.Qrels(q), ranx.Run(r)
    once = ranx.evaluate(qo, ro, ms, return_mean=False, make_comparable=False)
    qids = list(qo.keys())
    sorted_run = {k: list(v.keys()) for k, v in ro.to_dict().items()}  # the Run's order (sorted once)
    twice = ranx.evaluate(ranx.Qrels(q), ranx.Run(r), ms, return_mean=False, make_comparable=True)
    plain = ranx.evaluate(q, r, ms, return_mean=False)  # plain dicts: paired by position, in dict order
    out[case] = {"qids": qids, "dict_qids": list(q.keys()), "run_order": sorted_run,
                 "ranx": arr(once, ms), "ranx_comparable": arr(twice, ms), "ranx_dict": arr(plain, ms)}
json.dump(out, open(sys.argv[2], "w"))
"""


def _case(seed: int, n_queries: int, n_docs: int, max_len: int, levels: int):
    g = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = g.choice(n_docs, int(g.integers(2, 15)), replace=False)
        grades = g.integers(0, 4, docs.size)
        grades[0] = 0  # a judged non-relevant document (ranx's bpref is NaN without one)
        qrels[f"q{q:03d}"] = {f"d{d}": int(x) for d, x in zip(docs, grades)}
        n = int(g.integers(1, max_len + 1))
        lst = list(dict.fromkeys(g.choice(docs, min(4, docs.size)).tolist() + g.choice(n_docs, n).tolist()))[:n]
        g.shuffle(lst)
        # few distinct scores: ties everywhere, some of them across the cutoffs
        run[f"q{q:03d}"] = {f"d{d}": float(g.integers(0, levels)) / 2 for d in lst}
    return qrels, run


CASES = {
    f"s{seed}_{shape[0]}_{shape[3]}": _case(seed, *shape)
    for seed in range(3)
    for shape in [(40, 80, 20, 3), (60, 200, 60, 5), (30, 100, 40, 2)]
}


@pytest.fixture(scope="module")
def ranx_out(tmp_path_factory):
    if not RANX_PY.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"ranx is missing at {RANX_PY}: .ci/run must build it (bash bench/peers/setup.sh --reuse ranx)")
        pytest.skip(f"ranx not installed at {RANX_PY} (bash bench/peers/setup.sh ranx)")
    tmp = tmp_path_factory.mktemp("ranx_ties")
    inp, out, script = tmp / "in.json", tmp / "out.json", tmp / "worker.py"
    inp.write_text(json.dumps({c: {"qrels": q, "run": r, "metrics": METRICS} for c, (q, r) in CASES.items()}))
    script.write_text(WORKER)
    p = subprocess.run(
        [str(RANX_PY), str(script), str(inp), str(out)],
        capture_output=True,
        text=True,
        timeout=900,
        env=peer_env(PYTHONWARNINGS="ignore"),
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(out.read_text())


def _compare(case, got_by_qid, want, qids, tag):
    worst = 0.0
    for m in METRICS:
        for i, q in enumerate(qids):
            w = want[m][i]
            g = float(got_by_qid[m][q])
            if w is None:
                assert m == "bpref", (tag, case, m, q)
                continue
            assert math.isclose(g, w, rel_tol=1e-9, abs_tol=1e-12), (tag, case, m, q, g, w)
            worst = max(worst, abs(g - w))
            _record("ranx ties", g, w)
    return worst


def _by_qid(res_or_dict, users, names):
    return {m: dict(zip(users, np.asarray(res_or_dict[n], dtype=float).tolist())) for m, n in names.items()}


@pytest.mark.parametrize("mode", ["ranx", "ranx_comparable", "ranx_dict"])
@pytest.mark.parametrize("case", list(CASES))
def test_preset_ties_equal_ranx(ranx_out, case, mode):
    qrels, run = CASES[case]
    want = ranx_out[case]
    names = {m: compat.to_rankmeter(m)[0] for m in METRICS}
    res = rm.evaluate(qrels, run, list(dict.fromkeys(names.values())), preset="ranx", ties=mode)
    qids = want["dict_qids"] if mode == "ranx_dict" else want["qids"]
    _compare(case, _by_qid(res.per_user, list(res.users), names), want[mode], qids, mode)


def test_ties_matter_in_these_cases(ranx_out):
    """The three orders differ from one another and from input order on these cases (the test above could not
    pass with a stable sort)."""
    qrels, run = CASES["s0_60_5"]
    per = {}
    for mode in ("input", "ranx", "ranx_comparable", "ranx_dict"):
        per[mode] = np.asarray(rm.evaluate(qrels, run, ["ndcg@10"], preset="ranx", ties=mode).per_user["ndcg@10"])
    modes = list(per)
    for i, a in enumerate(modes):
        for b in modes[i + 1 :]:
            assert not np.allclose(per[a], per[b]), (a, b)


class _RunLike:
    """What compat.ranx reads of a ranx Run: to_dict() in the Run's (sorted) order, and its `sorted` flag."""

    def __init__(self, order: dict, scores: dict):
        self._d = {q: {d: scores[q][d] for d in docs} for q, docs in order.items()}
        self.sorted = True
        self.mean_scores: dict = {}

    def to_dict(self):
        return self._d


class _QrelsLike:
    def __init__(self, q: dict):
        self._q = q

    def to_dict(self):
        return self._q


@pytest.mark.parametrize("case", list(CASES))
def test_compat_ties_equal_ranx(ranx_out, case):
    qrels, run = CASES[case]
    want = ranx_out[case]
    users = list(qrels)
    plain = compat.evaluate(qrels, run, METRICS, return_mean=False)
    _compare(
        case,
        {m: dict(zip(users, v.tolist())) for m, v in plain.items()},
        want["ranx_dict"],
        want["dict_qids"],
        "compat dict",
    )
    q_obj = _QrelsLike({q: qrels[q] for q in want["qids"]})
    for make_comparable, key in ((False, "ranx"), (True, "ranx_comparable")):
        r_obj = _RunLike({q: want["run_order"][q] for q in want["qids"]}, run)
        got = compat.evaluate(q_obj, r_obj, METRICS, return_mean=False, make_comparable=make_comparable)
        _compare(
            case,
            {m: dict(zip(want["qids"], v.tolist())) for m, v in got.items()},
            want[key],
            want["qids"],
            f"compat Run make_comparable={make_comparable}",
        )
