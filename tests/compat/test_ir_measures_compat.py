"""rankmeter.compat.ir_measures against the live ir_measures on the cases where the two used to differ: ERR@k
rounded by gdeval, each provider's order among equal scores (Judged@k, RR@k, RBP, P@k, ERR@k in one call), and
the API users call (measure objects and their own calc_aggregate/iter_calc/calc, providers, evaluator,
parse_measure of every measure rankmeter computes). The ir_measures venv runs the same data in a subprocess;
skipped without it (a failure in CI)."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from rankmeter.compat import ir_measures as compat
from tests.conformance.recsys_helpers import peer_python
from tests.support.peers import peer_env

NAMES = [
    "P@5", "P(rel=2)@10", "P(judged_only=True)@5", "R@10", "AP", "AP@10", "MAP", "RR", "MRR", "RR@10",
    "RR(rel=2)@5", "nDCG", "nDCG@10", "NDCG@5", "nDCG(dcg='exp-log2')@10", "nDCG(gains={0:0,1:1,2:5})@10",
    "Success@5", "Rprec", "RPrec", "Bpref", "BPref", "Bpref(rel=2)", "RBP(rel=1)", "RBP(rel=2,p=0.5)",
    "RBP(p=0.9,rel=1)", "ERR@10", "Judged@10", "Judged", "NumRel", "NumRelRet", "NumRet", "NumRet(rel=2)",
    "NumQ", "SetP", "SetRelP", "SetR", "SetF", "SetF(beta=0.5)", "SetAP", "Precision@3", "Recall@3",
]  # fmt: skip
TIED = ["Judged@10", "Judged@3", "RR@5", "RBP(rel=1,p=0.5)", "P@5", "ERR@10", "nDCG(dcg='exp-log2')@5"]

SCRIPT = r"""
import json, sys, logging
logging.disable(logging.CRITICAL)
import ir_measures
d = json.load(open(sys.argv[1]))
out = {"parsed": {n: repr(ir_measures.parse_measure(n)) for n in d["names"]}}
def per(ms, q, r):
    res = {}
    for m in ir_measures.iter_calc(ms, q, r):
        res.setdefault(repr(m.measure), {})[m.query_id] = float(m.value)
    return res
ms = [ir_measures.parse_measure(n) for n in d["tied_measures"]]
out["tied"] = {"per": per(ms, d["qrels"], d["run"]),
               "agg": {repr(k): float(v) for k, v in ir_measures.calc_aggregate(ms, d["qrels"], d["run"]).items()}}
err = ir_measures.ERR @ 20
out["err"] = {"per": {m.query_id: m.value for m in err.iter_calc(d["qrels"], d["run"])},
              "agg": err.calc_aggregate(d["qrels"], d["run"])}
ev = ir_measures.evaluator([ir_measures.nDCG @ 5, ir_measures.P @ 3], d["qrels"])
out["evaluator"] = {repr(k): float(v) for k, v in ev.calc_aggregate(d["run"]).items()}
agg, perq = ir_measures.calc([ir_measures.AP, ir_measures.Judged @ 5], d["qrels"], d["run"])
out["calc"] = {"agg": {repr(k): float(v) for k, v in agg.items()}, "n": len(perq)}
out["judged_provider"] = [[m.query_id, m.value] for m in ir_measures.judged.iter_calc([ir_measures.Judged @ 3],
                                                                                      d["qrels"], d["run"])]
out["gdeval_provider"] = {repr(k): v for k, v in ir_measures.gdeval.calc_aggregate([ir_measures.nDCG @ 4],
                                                                                    d["qrels"], d["run"]).items()}
json.dump(out, open(sys.argv[2], "w"))
"""


def _data(seed: int = 0):
    """Graded qrels and runs whose scores take few values: ties in every list, across the cutoffs."""
    g = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(40):
        qid = str(100 + q)
        docs = g.choice(60, int(g.integers(3, 15)), replace=False)
        qrels[qid] = {f"d{d}": int(x) for d, x in zip(docs, g.integers(0, 5, docs.size))}
        lst = g.choice(60, int(g.integers(5, 30)), replace=False)
        run[qid] = {f"d{d}": float(g.integers(0, 4)) / 2 for d in lst}
    return qrels, run


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    py = peer_python("ir_measures")
    qrels, run = _data()
    tmp = tmp_path_factory.mktemp("irm_compat")
    (tmp / "in.json").write_text(json.dumps({"qrels": qrels, "run": run, "names": NAMES, "tied_measures": TIED}))
    (tmp / "w.py").write_text(SCRIPT)
    p = subprocess.run(
        [str(py), str(tmp / "w.py"), str(tmp / "in.json"), str(tmp / "out.json")],
        capture_output=True,
        text=True,
        env=peer_env(),
        timeout=900,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return qrels, run, json.loads((tmp / "out.json").read_text())


def test_every_measure_name_parses_as_ir_measures_parses_it(live):
    *_, want = live
    for name in NAMES:
        assert repr(compat.parse_measure(name)) == want["parsed"][name], name


def test_each_provider_orders_equal_scores_its_own_way_in_one_call(live):
    qrels, run, want = live
    got: dict = {}
    for m in compat.iter_calc(TIED, qrels, run):
        got.setdefault(repr(m.measure), {})[m.query_id] = m.value
    for key, per in want["tied"]["per"].items():
        for q, v in per.items():
            assert got[key][q] == pytest.approx(v, rel=1e-12, abs=1e-15), (key, q)
    agg = compat.calc_aggregate(TIED, qrels, run)
    for key, v in want["tied"]["agg"].items():
        assert agg[compat.parse_measure(key)] == pytest.approx(v, rel=1e-12, abs=1e-15), key


def test_err_is_gdeval_rounded_per_query_and_averaged_rounded(live):
    qrels, run, want = live
    err = compat.ERR @ 20
    got = {m.query_id: m.value for m in err.iter_calc(qrels, run)}
    assert got == want["err"]["per"]  # the 5-decimal values, bit for bit
    assert err.calc_aggregate(qrels, run) == pytest.approx(want["err"]["agg"], rel=1e-15)
    assert all(round(v, 5) == v for v in got.values())


def test_evaluator_calc_and_providers_as_ir_measures(live):
    qrels, run, want = live
    ev = compat.evaluator([compat.nDCG @ 5, compat.P @ 3], qrels)
    for key, v in ev.calc_aggregate(run).items():
        assert v == pytest.approx(want["evaluator"][repr(key)], rel=1e-12)
    agg, perq = compat.calc([compat.AP, compat.Judged @ 5], qrels, run)
    assert len(perq) == want["calc"]["n"]
    for key, v in agg.items():
        assert v == pytest.approx(want["calc"]["agg"][repr(key)], rel=1e-12)
    got = [[m.query_id, m.value] for m in compat.judged.iter_calc([compat.Judged @ 3], qrels, run)]
    assert sorted(got) == sorted(want["judged_provider"])
    # gdeval's provider computes its own nDCG (exponential gain, rounded) whatever dcg= says
    g = compat.gdeval.calc_aggregate([compat.nDCG @ 4], qrels, run)
    assert g[compat.nDCG @ 4] == pytest.approx(want["gdeval_provider"]["nDCG@4"], rel=1e-15)


def _python_types(d):
    """The three type sets as Python's own scans give them (the reference of _core.nested_types)."""
    return (
        set(map(type, d)),
        {type(k) for v in d.values() for k in v},
        {type(x) for v in d.values() for x in v.values()},
    )


def test_nested_types_gives_the_type_sets_pythons_scans_give():
    from rankmeter import _core

    class Sub(str):
        pass

    cases = [
        {},
        {"q": {}},
        {"q1": {"d1": 1, "d2": 2}, "q2": {"d1": 0}},
        {"q": {"d": 1, Sub("e"): 2.5, 3: True, np.int64(4): np.int32(1)}, 7: {"d": np.float32(0.5)}},
        {np.str_("q"): {"d": None, b"x": "1"}},
    ]
    for d in cases:
        assert _core.nested_types(d) == _python_types(d), d
    # a value that is not a plain dict (or the outer object): None, the caller's Python scan answers
    assert _core.nested_types({"q": [("d", 1)]}) is None
    assert _core.nested_types({"q": {"d": 1}, "r": None}) is None
    assert _core.nested_types([("q", {"d": 1})]) is None


def test_qrels_grades_that_are_not_ints_or_numbers_are_a_type_error_before_any_value():
    # pytrec_eval's measures: integer grades, checked when the evaluator is made
    with pytest.raises(TypeError, match="Expected relevance to be integer"):
        compat.evaluator(["P@1"], {"q": {"d": 1.5}})
    with pytest.raises(TypeError, match="Expected string as key"):
        compat.evaluator(["P@1"], {"q": {1: 1}})
    # another provider's measure (gdeval's ERR@10): a grade that is not a number is a TypeError at the call
    with pytest.raises(TypeError, match="qrels relevance values must be numbers"):
        compat.calc_aggregate(["ERR@10"], {"1": {"d": object()}}, {"1": {"d": 1.0}})
    # numbers of several types are read as they are
    got = compat.calc_aggregate(["P@1", "ERR@10"], {"1": {"d": True, "e": 2}}, {"1": {"d": 1.0}})
    assert got[compat.parse_measure("P@1")] == 1.0
    assert got[compat.parse_measure("ERR@10")] > 0
