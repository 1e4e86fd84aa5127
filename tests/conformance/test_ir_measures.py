"""preset="ir_measures" and rankmeter.compat.ir_measures against the real ir_measures.

ir_measures (with pytrec_eval-terrier, cwl_eval and gdeval, which needs perl)
lives in a virtual environment of its own (``bash bench/peers/setup.sh --reuse
ir_measures``); a worker runs there and exchanges the data as JSON files.
Random graded qrels and runs over several seeds and shapes (distinct scores: the
providers break ties differently from one another), hand-made edge cases;
per-query values and means at relative 1e-9, ERR at gdeval's printed 5
decimals. Skipped when the environment is missing, except in CI (CI=true).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from rankmeter.compat import ir_measures as compat
from tests.support.peers import peer_env

IRM_PY = (
    Path(os.environ.get("RANKMETER_PEERS", Path.home() / ".cache" / "rankmeter-peers"))
    / "ir_measures"
    / "bin"
    / "python"
)

MEASURES = [
    "nDCG@10",
    "nDCG@3",
    "nDCG",
    "P@5",
    "P@1",
    "P(rel=2)@5",
    "AP",
    "AP@10",
    "AP(rel=2)",
    "RR",
    "RR@10",
    "R@100",
    "R@5",
    "Success@1",
    "Success@5",
    "Rprec",
    "Bpref",
    "Bpref(rel=2)",
    "RBP(rel=1)",
    "RBP(rel=1,p=0.5)",
    "RBP(rel=2,p=0.95)",
    "ERR@10",
    "ERR@3",
    "Judged@10",
    "Judged@3",
    "NumRel",
    "MAP",
    "MRR",
    "NDCG@5",
]

WORKER = r"""
import json, sys, logging
logging.disable(logging.WARNING)
import ir_measures
data = json.load(open(sys.argv[1]))
out = {}
for case, d in data.items():
    ms = [ir_measures.parse_measure(m) for m in d["measures"]]
    per = {}
    for m in ir_measures.iter_calc(ms, d["qrels"], d["run"]):
        per.setdefault(d["measures"][ms.index(m.measure)], {})[m.query_id] = float(m.value)
    agg = ir_measures.calc_aggregate(ms, d["qrels"], d["run"])
    out[case] = {"per": per, "agg": {d["measures"][ms.index(k)]: float(v) for k, v in agg.items()}}
json.dump(out, open(sys.argv[2], "w"))
"""


def _case(seed: int, n_queries: int, n_docs: int, max_len: int):
    g = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = str(100 + q)  # gdeval reads numeric topic ids only
        docs = g.choice(n_docs, int(g.integers(1, min(n_docs, 10))), replace=False)
        qrels[qid] = {f"d{d}": int(x) for d, x in zip(docs, g.integers(0, 5, docs.size))}
        if q % 9 == 4:
            continue  # a qrels query without a run: ir_measures scores it 0
        n = int(g.integers(1, max_len + 1))
        lst = list(dict.fromkeys(g.choice(docs, min(2, docs.size)).tolist() + g.choice(n_docs, n).tolist()))[:n]
        g.shuffle(lst)
        run[qid] = {f"d{d}": float(100 - j) + 0.001 * g.random() for j, d in enumerate(lst)}
    run["999"] = {"d1": 1.0}  # a run query without qrels: ignored
    return qrels, run


CASES = {f"s{seed}_{shape[0]}": _case(seed, *shape) for seed in range(3) for shape in [(30, 25, 8), (90, 150, 30)]}
CASES["edge"] = (
    {"1": {"a": 0, "b": 0}, "2": {"a": 1}, "3": {"a": 4, "b": 2, "c": 0}, "4": {"x": 3}},
    {"1": {"a": 2.0, "b": 1.0}, "2": {"z": 5.0}, "3": {"c": 3.0, "b": 2.0, "a": 1.0, "y": 0.5}, "4": {"x": 1.0}},
)


@pytest.fixture(scope="module")
def irm_out(tmp_path_factory):
    if not IRM_PY.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(
                f"ir_measures is missing at {IRM_PY}: .ci/run builds it (bash bench/peers/setup.sh --reuse ir_measures)"
            )
        pytest.skip(f"ir_measures not installed at {IRM_PY} (bash bench/peers/setup.sh ir_measures)")
    tmp = tmp_path_factory.mktemp("irm")
    inp, out, script = tmp / "in.json", tmp / "out.json", tmp / "worker.py"
    inp.write_text(json.dumps({c: {"qrels": q, "run": r, "measures": MEASURES} for c, (q, r) in CASES.items()}))
    script.write_text(WORKER)
    p = subprocess.run(
        [str(IRM_PY), str(script), str(inp), str(out)],
        capture_output=True,
        text=True,
        timeout=900,
        env=peer_env(PYTHONWARNINGS="ignore"),
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(out.read_text())


def close(m: str, a: float, b: float) -> bool:
    if m.startswith("ERR"):
        return abs(a - b) <= 5e-6 + 1e-12  # gdeval prints 5 decimals
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("case", list(CASES))
def test_iter_calc_equals_ir_measures(irm_out, case):
    qrels, run = CASES[case]
    want = irm_out[case]["per"]
    got: dict = {}
    for metric in compat.iter_calc(MEASURES, qrels, run):
        got.setdefault(str(metric.measure), {})[metric.query_id] = metric.value
    for m in MEASURES:
        key = str(compat.parse_measure(m))
        if m not in want:  # an alias (MAP, MRR, NDCG): the worker files it under the first equal measure
            continue
        for q, w in want[m].items():
            assert close(m, got[key][q], w), (case, m, q, got[key][q], w)
        # ir_measures yields every qrels query (a provider may leave out queries without a run: those are 0 here)
        assert set(want[m]) <= set(got[key])
        assert all(got[key][q] == 0 for q in set(got[key]) - set(want[m]))


@pytest.mark.parametrize("case", list(CASES))
def test_calc_aggregate_equals_ir_measures(irm_out, case):
    qrels, run = CASES[case]
    got = compat.calc_aggregate(MEASURES, qrels, run)
    for m, w in irm_out[case]["agg"].items():
        assert close(m, got[compat.parse_measure(m)], w), (case, m, got[compat.parse_measure(m)], w)


def test_parsing_and_errors():
    assert str(compat.parse_measure("P(rel=1)@5")) == "P@5"
    assert str(compat.parse_measure("RBP(p=0.8,rel=1)")) == "RBP(rel=1)"
    assert compat.parse_measure("MAP") == compat.parse_measure("AP")
    with pytest.raises(NameError):
        compat.parse_measure("Foo@3")
    assert str(compat.parse_measure("ERR")) == "ERR"  # parsed as ir_measures parses it, but no provider takes it:
    with pytest.raises(ValueError, match="Unsupported measures"):
        compat.calc_aggregate(["ERR"], {"1": {"a": 1}}, {"1": {"a": 1.0}})  # gdeval needs a cutoff
    with pytest.raises(ValueError):
        compat.calc_aggregate(["ERR@5"], {"1": {"a": 7}}, {"1": {"a": 1.0}})  # gdeval rejects grades above 4
    # RBP with rel: cwl_eval's binary RBP
    v = compat.calc_aggregate(["RBP(rel=1,p=0.5)"], {"1": {"a": 2}}, {"1": {"x": 2.0, "a": 1.0}})
    assert list(v.values()) == [pytest.approx(0.5 * 1 * 0.5)]


ERROR_WORKER = r"""
import json, sys, logging
logging.disable(logging.WARNING)
import ir_measures
d = json.load(open(sys.argv[1]))
out = {}
for m in d["measures"]:
    ms = [ir_measures.parse_measure(m), ir_measures.parse_measure("P@1")]
    out[m] = {}
    for fn in ("calc_aggregate", "iter_calc"):
        try:
            getattr(ir_measures, fn)(ms, d["qrels"], d["run"])  # iter_calc raises at the call, before iterating
            out[m][fn] = {"error": None, "message": ""}
        except Exception as e:
            out[m][fn] = {"error": type(e).__name__, "message": str(e)}
json.dump(out, open(sys.argv[2], "w"))
"""
RBP_NO_REL = ["RBP(p=0.5)", "RBP", "RBP(p=0.9)"]


def test_rbp_without_rel_raises_as_ir_measures(irm_out, tmp_path):
    """ir_measures has no default provider for RBP without rel= and raises ValueError('Unsupported measures
    {...}.') at the call (iter_calc too, before yielding); the compat module raises the same type and text."""
    qrels, run = {"1": {"a": 2, "b": 0}}, {"1": {"a": 1.0, "b": 0.5}}
    inp, out, script = tmp_path / "in.json", tmp_path / "out.json", tmp_path / "worker.py"
    inp.write_text(json.dumps({"measures": RBP_NO_REL, "qrels": qrels, "run": run}))
    script.write_text(ERROR_WORKER)
    p = subprocess.run(
        [str(IRM_PY), str(script), str(inp), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        env=peer_env(PYTHONWARNINGS="ignore"),
    )
    assert p.returncode == 0, p.stderr[-3000:]
    want = json.loads(out.read_text())
    for measure in RBP_NO_REL:
        for fn in (compat.calc_aggregate, compat.iter_calc):
            assert want[measure][fn.__name__]["error"] == "ValueError", want
            with pytest.raises(ValueError) as e:
                fn([measure, "P@1"], qrels, run)  # no iteration: iter_calc raises at the call
            assert str(e.value) == want[measure][fn.__name__]["message"], (str(e.value), want)
