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
    "num_ret",
    "num_q",
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
    # a plain name and parameters of the same measure: the parameters win, the defaults are not added
    for measures in ({"P", "success", "P_7"}, {"P", "success"}, {"success.2", "P.3"}):
        want = pytrec_eval.RelevanceEvaluator({"q": {"a": 1}}, set(measures)).evaluate({"q": {"a": 1.0}})
        got = compat.RelevanceEvaluator({"q": {"a": 1}}, set(measures)).evaluate({"q": {"a": 1.0}})
        assert got == want and list(got["q"]) == list(want["q"])
    assert {
        "P",
        "ndcg_cut",
        "map_cut",
        "recall",
        "success",
        "bpref",
        "Rprec",
        "recip_rank",
        "num_ret",
        "num_q",
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


def negative_case(seed: int) -> tuple[dict, dict]:
    """Qrels with negative grades (trec_eval: in the pool, unjudged) beside judged and unjudged documents, every
    query with at least one grade >= 0 (pytrec_eval crashes on a query whose grades are all negative)."""
    rnd = random.Random(seed)
    qrels, run = {}, {}
    for q in range(40):
        docs = rnd.sample(range(30), rnd.randint(2, 12))
        qrels[f"q{q}"] = {f"d{d}": rnd.choice([-2, -1, -1, 0, 0, 1, 2]) for d in docs}
        qrels[f"q{q}"][f"d{docs[0]}"] = rnd.choice([0, 1, 2])
        run[f"q{q}"] = {f"d{d}": float(rnd.randint(0, 8)) / 4 for d in rnd.sample(range(30), rnd.randint(0, 25))}
    return qrels, run


@pytest.mark.parametrize("seed", range(4))
def test_bpref_with_negative_grades_beside_unjudged_documents(seed: int) -> None:
    # pytrec_eval (trec_eval) reads a negative grade as "in the pool, not judged": neither relevant nor judged
    # non-relevant for bpref; the preset and the compat module set bpref(negative=unjudged)
    qrels, run = negative_case(seed)
    compare(qrels, run)
    compare(qrels, run, relevance_level=2)
    import rankmeter as rm

    want = pytrec_eval.RelevanceEvaluator(qrels, {"bpref"}).evaluate(run)
    res = rm.evaluate(qrels, run, ["bpref"], preset="trec_eval")
    ours = dict(zip(res.users.tolist(), res.per_user["bpref"].tolist()))
    assert set(ours) == set(want)
    assert all(close(ours[q], want[q]["bpref"]) for q in want)


def test_measure_parameters_expand_as_pytrec_eval() -> None:
    qrels = {"q1": {"d1": 0, "d2": 1, "d3": 0}, "q2": {"d2": 1, "d3": 1}}
    run = {"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {}}
    for measures in (
        ["ndcg_cut", "ndcg_cut.1,4", "ndcg_cut_20,4", "ndcg_cut_15", "recall.1000", "P"],
        ["P_5,10"],
        ["P.5,10", "P_20"],
        ["map.5", "map_cut_3", "recip_rank.2", "num_q", "num_ret.1"],  # trec_eval ignores a plain measure's params
        ["success_2.5"],  # a fractional cutoff: its integer part
    ):
        want = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
        got = compat.RelevanceEvaluator(qrels, measures).evaluate(run)
        assert got == want, measures
        assert [list(v) for v in got.values()] == [list(v) for v in want.values()]  # trec_eval's order too


def test_empty_measures_runs_and_qrels_give_pytrec_eval_answers() -> None:
    qrels = {"q1": {"d1": 0, "d2": 1}, "q2": {"d2": 1}, "q3": {}}
    run = {"q1": {"d1": 1.0, "d2": 0.0}, "q2": {}, "q3": {"d1": 1.0}, "q4": {"d1": 1.0}}
    for q, r, m in (
        (qrels, run, set()),
        (qrels, {}, set()),
        (qrels, {}, {"map"}),
        ({}, run, {"map"}),
        ({}, {}, set()),
        (qrels, run, {"map", "num_ret"}),
        (qrels, {"q3": {"d1": 1.0}, "q4": {"d1": 1.0}}, {"map"}),  # no run query with qrels
    ):
        assert compat.RelevanceEvaluator(q, m).evaluate(r) == pytrec_eval.RelevanceEvaluator(q, m).evaluate(r)
    assert compat.RelevanceEvaluator(qrels, set()).evaluate(run) == {"q1": {}, "q2": {}}


def test_supported_measures_and_nicknames() -> None:
    qrels = {"q1": {"d1": 0, "d2": 1, "d3": 2}, "q2": {"d2": 1, "d3": 1}}
    run = {"q1": {"d1": 1.0, "d2": 0.5, "d3": 1.5}, "q2": {"d4": 1.0, "d2": 0.25}}
    assert compat.supported_measures == pytrec_eval.supported_measures

    def without_runid(res: dict) -> dict:  # pytrec_eval's runid is an unset double: any value
        return {q: {m: v for m, v in values.items() if m != "runid"} for q, values in res.items()}

    got = compat.RelevanceEvaluator(qrels, compat.supported_measures).evaluate(run)
    want = pytrec_eval.RelevanceEvaluator(qrels, set(compat.supported_measures)).evaluate(run)
    assert without_runid(got) == without_runid(want) and all(v["runid"] == 0.0 for v in got.values())
    for nick in ("official", "set", "all_trec"):
        assert compat.supported_nicknames[nick] == pytrec_eval.supported_nicknames[nick]
        got = compat.RelevanceEvaluator(qrels, {nick}).evaluate(run)
        want = pytrec_eval.RelevanceEvaluator(qrels, {nick}).evaluate(run)
        assert without_runid(got) == without_runid(want)
        assert [list(v) for v in got.values()] == [list(v) for v in want.values()]  # pytrec_eval's key order
    got = compat.RelevanceEvaluator(qrels, {"gm_map", "map"}).evaluate(run)
    assert got == pytrec_eval.RelevanceEvaluator(qrels, {"gm_map", "map"}).evaluate(run)
    with pytest.raises(ValueError, match="unsupported measure"):
        compat.RelevanceEvaluator(qrels, {"P5"})
    for bad in ({"P.0"}, {"P.5,05"}, {"ndcg.1"}):  # pytrec_eval aborts the process on these
        with pytest.raises(ValueError):
            compat.RelevanceEvaluator(qrels, bad)


def test_relevance_level_and_judged_docs_only() -> None:
    qrels = {"q1": {"d1": 0, "d2": 1, "d3": 2, "d4": -1}, "q2": {"d2": 2, "d3": 1, "d5": 0}}
    run = {
        "q1": {"d1": 1.0, "d2": 0.5, "d3": 1.5, "d4": 3.0, "d9": 2.0},
        "q2": {"d4": 1.0, "d2": 0.25, "d5": 0.25, "d3": 0.5},
    }
    measures = set(compat.supported_measures)
    for level in (1, 2, 3):
        for judged in (False, True):
            want = pytrec_eval.RelevanceEvaluator(qrels, measures, level, judged).evaluate(run)
            got = compat.RelevanceEvaluator(qrels, measures, relevance_level=level, judged_docs_only_flag=judged)
            assert got.evaluate(run) == want, (level, judged)
    for mod in (pytrec_eval, compat):
        with pytest.raises(TypeError):
            mod.RelevanceEvaluator(qrels, {"map"}, relevance_level=0)
        with pytest.raises(TypeError):
            mod.RelevanceEvaluator(qrels, {"map"}, relevance_level=1.5)


def test_scores_are_ranked_as_float32_like_trec_eval_9() -> None:
    # 1 + 1e-9 and 1.0 are one float32: a tie, broken by docno descending; 1e39 and 2e39 overflow to inf
    qrels = {"q": {"a": 1, "b": 0}}
    for run in (
        {"q": {"a": 1.0 + 1e-9, "b": 1.0}},
        {"q": {"a": 2e39, "b": 1e39}},
        {"q": {"a": float("inf"), "b": 1e39}},
        {"q": {"a": -float("inf"), "b": 0.0, "c": -1e300}},
        {"q": {"a": 16777217, "b": 16777216}},  # ints beyond float32's 24-bit mantissa
    ):
        want = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "bpref", "P.1"}).evaluate(run)
        assert compat.RelevanceEvaluator(qrels, {"recip_rank", "bpref", "P.1"}).evaluate(run) == want, run
    with pytest.raises(ValueError, match="NaN"):
        compat.RelevanceEvaluator(qrels, {"map"}).evaluate({"q": {"a": float("nan")}})


def test_aggregation_and_parsers_match_pytrec_eval(tmp_path) -> None:
    for measure, values in (("map", [0.5, 0.25, 0.125]), ("num_ret", [3.0, 4.0]), ("gm_map", [-1.0, -2.0])):
        assert compat.compute_aggregated_measure(measure, values) == pytrec_eval.compute_aggregated_measure(
            measure, values
        )
    qrel_lines = ["q1 0 d1 1\n", "q1 0 d2 0\n", "q2 0 d1 -1\n", "q2 0 d10 3\n"]
    run_lines = ["q1 Q0 d1 1 2.5 run\n", "q1 Q0 d2 2 1.25 run\n", "q2 Q0 d10 1 -0.5 run\n"]
    assert compat.parse_qrel(qrel_lines) == pytrec_eval.parse_qrel(qrel_lines)
    assert compat.parse_run(run_lines) == pytrec_eval.parse_run(run_lines)
    assert compat.parse_qrel(qrel_lines)["q9"] == {}  # a defaultdict, as pytrec_eval's
    with pytest.raises(ValueError, match="judged twice"):
        compat.parse_qrel(["q 0 d 1", "q 0 d 0"])
    with pytest.raises(ValueError, match="expected 6 fields"):
        compat.parse_run(["q Q0 d 1 2.5"])
