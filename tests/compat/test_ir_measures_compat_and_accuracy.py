"""rankmeter.compat.ir_measures' Compat and Accuracy against the live ir_measures: Compat's ideal ranking among
relevant documents of equal grade (by run score, 0.0 for a document the run lacks, so that negative scores come
after absent documents, then in qrels order), its ranking among equal scores (document id ascending), Accuracy's
queries (only those with a relevant document retrieved, no defaults when it is the only provider asked), rel=0
(documents without a qrels row relevant), and the ZeroDivisionErrors of both. The ir_measures venv runs the
same data in a subprocess; skipped without it (a failure in CI)."""

from __future__ import annotations

import json
import math
import subprocess

import numpy as np
import pytest

from rankmeter.compat import ir_measures as compat
from tests.conformance.recsys_helpers import peer_python
from tests.support.peers import peer_env

NAMES = [
    "Compat", "Compat(p=0.8)", "Compat(normalize=False)", "Compat(p=0.5,normalize=False)", "Compat(p=1.0)",
    "Accuracy", "Accuracy@3", "Accuracy(rel=2)", "Accuracy(rel=0)", "Accuracy(rel=2)@5",
]  # fmt: skip
CALLS = [
    ["Compat", "Compat(p=0.8)", "Compat(normalize=False)", "Compat(p=0.5,normalize=False)", "Compat(p=1.0)"],
    ["Accuracy"],
    ["Accuracy@3", "Accuracy(rel=2)"],
    ["Accuracy(rel=0)"],
    ["Accuracy(rel=2)@5", "P@3", "Compat"],
]

SCRIPT = r"""
import json, sys, logging
logging.disable(logging.CRITICAL)
import ir_measures
d = json.load(open(sys.argv[1]))
out = {"parsed": {n: repr(ir_measures.parse_measure(n)) for n in d["names"]}, "calls": []}
for case in d["cases"]:
    rows = []
    for names in d["calls"]:
        ms = [ir_measures.parse_measure(n) for n in names]
        try:
            per = {}
            for m in ir_measures.iter_calc(ms, case["qrels"], case["run"]):
                per.setdefault(repr(m.measure), {})[m.query_id] = float(m.value)
            agg = {repr(k): float(v) for k, v in ir_measures.calc_aggregate(ms, case["qrels"], case["run"]).items()}
            rows.append({"per": per, "agg": agg})
        except Exception as e:
            rows.append({"raises": type(e).__name__})
    out["calls"].append(rows)
json.dump(out, open(sys.argv[2], "w"))
"""


def _cases():
    """Graded (and fractional, negative) qrels, runs with few score values, negative scores, relevant documents the
    run lacks, queries on one side only; then cases where one provider raises."""
    g = np.random.default_rng(11)
    cases = []
    for i in range(12):
        qrels, run = {}, {}
        grades = [-1, 0, 0, 0.5, 1, 1, 2, 3] if i % 3 == 0 else [-1, 0, 0, 1, 1, 2, 3]  # pytrec_eval: int only
        for q in range(int(g.integers(2, 9))):
            qid = f"q{q}"
            if g.random() < 0.9:
                docs = g.choice(20, int(g.integers(1, 9)), replace=False)
                qrels[qid] = {f"d{d}": g.choice(grades).item() for d in docs}
            if g.random() < 0.9:
                lst = g.choice(20, int(g.integers(3, 12)), replace=False)
                run[qid] = {f"d{d}": float(g.choice([-1.0, -0.5, 0.0, 0.5, 1.0])) for d in lst}
        cases.append({"qrels": qrels, "run": run})
    # Compat: an empty ranking without a grade > 0 (0 / 0); Accuracy: a query whose ranking is all relevant
    cases.append({"qrels": {"a": {"x": 0}, "b": {"y": 1}}, "run": {"a": {}, "b": {"y": 1.0, "z": 0.5}}})
    cases.append({"qrels": {"a": {"x": 1, "y": 2}}, "run": {"a": {"x": 1.0, "y": 1.0}}})
    # rel=0: a document without a qrels row is relevant, one graded below 0 is not
    cases.append({"qrels": {"a": {"x": -1, "y": 2}, "b": {"x": 1}}, "run": {"a": {"x": 1.0, "y": 0.5, "z": 0.2}}})
    return cases


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    py = peer_python("ir_measures")
    cases = _cases()
    tmp = tmp_path_factory.mktemp("irm_compat_accuracy")
    (tmp / "in.json").write_text(json.dumps({"cases": cases, "calls": CALLS, "names": NAMES}))
    (tmp / "w.py").write_text(SCRIPT)
    p = subprocess.run(
        [str(py), str(tmp / "w.py"), str(tmp / "in.json"), str(tmp / "out.json")],
        capture_output=True,
        text=True,
        env=peer_env(),
        timeout=900,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return cases, json.loads((tmp / "out.json").read_text())


def test_compat_and_accuracy_names_parse_as_ir_measures_parses_them(live):
    _, want = live
    for name in NAMES:
        assert repr(compat.parse_measure(name)) == want["parsed"][name], name


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def test_compat_and_accuracy_values_queries_and_errors_are_ir_measures(live):
    cases, want = live
    raised = 0
    for case, rows in zip(cases, want["calls"]):
        for names, row in zip(CALLS, rows):
            if "raises" in row:
                raised += 1
                with pytest.raises(Exception) as err:
                    list(compat.iter_calc(names, case["qrels"], case["run"]))
                assert type(err.value).__name__ == row["raises"], (names, case)
                continue
            per: dict = {}
            for m in compat.iter_calc(names, case["qrels"], case["run"]):
                per.setdefault(repr(m.measure), {})[m.query_id] = m.value
            assert per.keys() == row["per"].keys(), (names, case)
            for key, values in row["per"].items():
                assert per[key].keys() == values.keys(), (key, case)  # the same queries, defaults included
                for q, v in values.items():
                    assert _same(per[key][q], v), (key, q, per[key][q], v, case)
            agg = {repr(k): v for k, v in compat.calc_aggregate(names, case["qrels"], case["run"]).items()}
            for key, v in row["agg"].items():
                assert _same(agg[key], v), (key, agg[key], v, case)
    assert raised >= 2  # both errors were met
