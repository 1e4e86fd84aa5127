"""preset="ranx" and rankmeter.compat.ranx against the real ranx.

ranx lives in a virtual environment of its own (``bash bench/peers/setup.sh
--reuse ranx``); a worker script runs there and exchanges the data as JSON
files. Random qrels (grades 0-3, some queries without a relevant document) and
runs (short lists, k beyond the list, distinct scores: ranx orders equal scores
with an unstable sort) over several seeds and shapes, every metric ranx offers,
at rel_lvl 1 and 2; per-query values and means at relative 1e-9. Skipped when
the environment is missing, except in CI (CI=true), where it is a failure.
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
from tests.support.peers import peer_env

RANX_PY = (
    Path(os.environ.get("RANKMETER_PEERS", Path.home() / ".cache" / "rankmeter-peers")) / "ranx" / "bin" / "python"
)

BASES = ["hits", "hit_rate", "precision", "recall", "f1", "mrr", "map", "dcg", "dcg_burges", "ndcg", "ndcg_burges"]
METRICS = [f"{b}@{k}" for b in BASES for k in (1, 5, 20)] + BASES + ["r-precision", "bpref", "rbp.8", "rbp.95", "rbp.5"]
METRICS = METRICS + [m + "-l2" for m in METRICS]

WORKER = r"""
import json, sys
import numpy as np
import ranx
data = json.load(open(sys.argv[1]))
out = {}
for case, d in data.items():
    qrels, run = ranx.Qrels(d["qrels"]), ranx.Run(d["run"])
    res = ranx.evaluate(qrels, run, d["metrics"], return_mean=False, make_comparable=True)
    qids = list(qrels.keys())
    # ranx's batched bpref gives 0 for most queries after the first (observed with ranx 0.3.x: a bug of its
    # parallel kernel); one query at a time it gives trec_eval's value, which is what the preset reproduces.
    for m in [m for m in d["metrics"] if m.startswith("bpref")]:
        res[m] = np.array([float(ranx.evaluate({q: d["qrels"][q]}, {q: d["run"][q]}, m)) if d["run"].get(q) else 0.0
                           for q in qids])
    out[case] = {"qids": qids, "scores": {m: [None if np.isnan(x) else float(x) for x in v] for m, v in res.items()},
                 "means": {m: float(ranx.evaluate(qrels, run, m, make_comparable=True)) for m in d["metrics"][:6]}}
json.dump(out, open(sys.argv[2], "w"))
"""


def _case(seed: int, n_queries: int, n_docs: int, max_len: int):
    g = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = g.choice(n_docs, int(g.integers(1, min(n_docs, 10))), replace=False)
        grades = g.integers(0, 4, docs.size)
        grades[0] = 0  # one judged non-relevant document per query (ranx's bpref is NaN without one)
        qrels[f"q{q}"] = {f"d{d}": int(x) for d, x in zip(docs, grades)}
        if q % 11 == 5:
            continue  # a qrels query without a run
        n = int(g.integers(0, max_len + 1))
        lst = g.choice(n_docs, min(n, n_docs), replace=False)
        if n and g.random() < 0.5:  # put some relevant documents in
            put = g.choice(docs, min(3, len(lst)), replace=True)
            lst[: put.size] = put
            lst = np.array(list(dict.fromkeys(lst.tolist())))
        if len(lst):
            run[f"q{q}"] = {f"d{d}": float(100 - j) + 0.001 * g.random() for j, d in enumerate(lst)}
    return qrels, run


CASES = {f"s{seed}_{shape[0]}": _case(seed, *shape) for seed in range(3) for shape in [(40, 30, 8), (120, 200, 25)]}
CASES["edge"] = (
    {"a": {"x": 0, "y": 0}, "b": {"x": 1, "z": 0}, "c": {"x": 3, "y": 1, "z": 0}, "d": {"9" * 30: 2, "w": 0}},
    {"a": {"x": 1.0, "y": 2.0}, "b": {"y": 5.0}, "c": {"x": 1.0, "y": 2.0, "v": 3.0}, "d": {"9" * 30: 1.0}},
)


@pytest.fixture(scope="module")
def ranx_out(tmp_path_factory):
    if not RANX_PY.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"ranx is missing at {RANX_PY}: .ci/run must build it (bash bench/peers/setup.sh --reuse ranx)")
        pytest.skip(f"ranx not installed at {RANX_PY} (bash bench/peers/setup.sh ranx)")
    tmp = tmp_path_factory.mktemp("ranx_ir")
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


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("case", list(CASES))
def test_compat_per_query_equals_ranx(ranx_out, case):
    qrels, run = CASES[case]
    want = ranx_out[case]
    # what the worker gives ranx: Qrels and Run objects, make_comparable=True (queries sorted by id, as
    # want["qids"]). bpref is left out: the worker asks ranx one query at a time (its batched kernel stops at a
    # query without a relevant document, which compat.ranx reproduces: tests/compat/test_ranx_compat.py).
    got = compat.evaluate(compat.Qrels(qrels), compat.Run(run), METRICS, return_mean=False, make_comparable=True)
    order = list(range(len(want["qids"])))
    worst = 0.0
    for m in [m for m in METRICS if not m.startswith("bpref")]:
        for i, q in enumerate(want["qids"]):
            w = want["scores"][m][i]
            if w is None:
                assert m.startswith("bpref"), (m, q)  # ranx's NaN: a query without a relevant document
                continue
            g = float(got[m][order[i]])
            worst = max(worst, abs(g - w) / max(abs(w), 1e-300) if w else abs(g))
            assert close(g, w), (case, m, q, g, w)
    assert worst < 1e-9


@pytest.mark.parametrize("case", list(CASES))
def test_preset_means_equal_ranx(ranx_out, case):
    qrels, run = CASES[case]
    for m, w in ranx_out[case]["means"].items():
        name, lvl = compat.to_rankmeter(m)
        res = rm.evaluate(qrels, run, [name], preset="ranx", min_relevance=lvl)
        assert close(res[name], w), (case, m, res[name], w)


def test_compat_outputs_and_errors():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}
    run = {"q1": {"a": 0.9, "x": 0.8}, "q2": {"x": 0.5, "c": 0.4}}
    assert isinstance(compat.evaluate(qrels, run, "ndcg@5"), float)
    both = compat.evaluate(qrels, run, ["ndcg@5", "mrr"])
    assert set(both) == {"ndcg@5", "mrr"} and both["mrr"] == 0.75
    std = compat.evaluate(qrels, run, "mrr", return_std=True)
    assert std == {"mean": 0.75, "std": 0.25}
    with pytest.raises(AssertionError):
        compat.evaluate(qrels, {"q1": run["q1"]}, "mrr")
    with pytest.raises(ValueError):
        compat.evaluate(qrels, run, "rbp")
    with pytest.raises(ValueError):
        compat.evaluate(qrels, run, "nope@3")


def test_rel_lvl_keeps_grade_one_items_out_of_the_ideal():
    # ranx with rel_lvl=2 drops grade-1 items from the ideal: the preset reproduces it
    qrels = {"q": {"a": 1, "b": 2, "c": 1, "d": 1}}
    run = {"q": {"x": 4.0, "a": 3.0, "y": 2.0, "b": 1.0}}
    plain = rm.evaluate(qrels, run, ["ndcg@4"], min_relevance=2)["ndcg@4"]
    preset = rm.evaluate(qrels, run, ["ndcg@4"], preset="ranx", min_relevance=2)["ndcg@4"]
    assert preset == pytest.approx(1 / math.log2(5))  # only b (grade 2) counts, at position 4, ideal 2
    assert plain != pytest.approx(preset)
