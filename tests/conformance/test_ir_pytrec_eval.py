"""rankmeter.compat.pytrec_eval against the real pytrec_eval (the test extra installs it).

Random qrels (graded, with judged non-relevant rows) and runs (with tied scores,
documents outside the qrels, short and empty runs, queries only on one side)
over several seeds and shapes, plus hand-made edge cases; every per-query value
is compared at relative 1e-9, and so is the mean over queries.
"""

from __future__ import annotations

import math
import random

import pytest

from rankmeter.compat import pytrec_eval as compat
from tests.support.engines import need

pytrec_eval = need("pytrec_eval", "pip install -e .[test]")

MEASURES = {
    "P.1,5,10,1000",
    "recall.5,100",
    "map",
    "map_cut.10",
    "ndcg",
    "ndcg_cut.3,10",
    "recip_rank",
    "success.1,5",
    "Rprec",
    "num_rel_ret",
    "num_rel",
    "bpref",
}


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def compare(qrels: dict, run: dict, measures=MEASURES, relevance_level: int = 1) -> None:
    want = pytrec_eval.RelevanceEvaluator(qrels, set(measures), relevance_level=relevance_level).evaluate(run)
    got = compat.RelevanceEvaluator(qrels, set(measures), relevance_level=relevance_level).evaluate(run)
    assert set(got) == set(want)
    for q in want:
        assert set(got[q]) == set(want[q]), q
        for m, v in want[q].items():
            assert close(got[q][m], v), (q, m, got[q][m], v)
    for m in next(iter(want.values()), {}):
        a = math.fsum(want[q][m] for q in want) / len(want)
        b = math.fsum(got[q][m] for q in got) / len(got)
        assert close(a, b), m


def random_case(seed: int, n_queries: int, n_docs: int, max_grade: int, depth: int):
    rnd = random.Random(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        if rnd.random() < 0.9:
            docs = rnd.sample(range(n_docs), rnd.randint(1, min(n_docs, 15)))
            qrels[qid] = {f"d{d}": rnd.randint(0, max_grade) for d in docs}
        if rnd.random() < 0.9:
            n = rnd.choice([0, 1, 3, depth, depth])
            docs = rnd.sample(range(n_docs), min(n, n_docs))
            # few distinct scores: ties are common
            run[qid] = {f"d{d}": float(rnd.randint(0, 6)) / 2 for d in docs}
    return qrels, run


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("shape", [(20, 30, 1, 10), (60, 200, 3, 40), (15, 12, 4, 12)])
def test_random_against_pytrec_eval(seed: int, shape) -> None:
    qrels, run = random_case(seed * 101 + shape[0], *shape)
    compare(qrels, run)
    compare(qrels, run, relevance_level=2)


def test_edge_cases() -> None:
    # all-zero grades, empty run, run with documents outside the qrels only, one query
    qrels = {"a": {"x": 0, "y": 0}, "b": {"x": 1}, "c": {"x": 2, "y": 0, "z": 1}, "d": {"x": 1}}
    run = {"a": {"x": 1.0, "y": 2.0}, "b": {}, "c": {"w": 1.0, "v": 1.0}, "e": {"x": 1.0}, "d": {"x": 1.0}}
    compare(qrels, run)
    compare({"only": {"1": 1}}, {"only": {"1": 0.5, "2": 0.5, "3": 0.5}})
    # k beyond the list, ties across relevant and non-relevant documents (docid descending)
    compare({"q": {"a": 1, "b": 0, "c": 1}}, {"q": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0}})
    # huge numeric-looking ids as strings
    compare({"q": {str(2**62 + 1): 1, str(2**62): 0}}, {"q": {str(2**62 + 1): 0.1, str(2**62): 0.9}})
    assert compat.RelevanceEvaluator({"q": {"a": 1}}, {"map"}).evaluate({}) == {}


def test_measure_names_and_errors() -> None:
    ev = compat.RelevanceEvaluator({"q": {"a": 1}}, {"P", "success", "P_7"})
    out = ev.evaluate({"q": {"a": 1.0}})
    assert set(out["q"]) == {f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000, 7)} | {
        "success_1",
        "success_5",
        "success_10",
    }
    assert {
        "P",
        "ndcg_cut",
        "map_cut",
        "recall",
        "success",
        "bpref",
        "Rprec",
        "recip_rank",
    } <= compat.supported_measures
    with pytest.raises(ValueError):
        pytrec_eval.RelevanceEvaluator({"q": {"a": 1}}, {"no_such_measure"})
    with pytest.raises(ValueError):
        compat.RelevanceEvaluator({"q": {"a": 1}}, {"no_such_measure"})
    for mod in (pytrec_eval, compat):
        with pytest.raises(TypeError):
            mod.RelevanceEvaluator({"q": {"a": 1.5}}, {"map"})
        with pytest.raises(TypeError):
            mod.RelevanceEvaluator({"q": {"a": 1}}, {"map"}).evaluate({"q": {"a": "x"}})
