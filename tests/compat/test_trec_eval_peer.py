"""rankmeter's trec_eval preset against trec_eval itself (through pytrec_eval).

Random qrels and runs (graded and negative judgments, queries without relevant
documents, equal scores that trec_eval breaks by docno in reverse string order,
docnos whose string order differs from their numeric order, runs with queries
missing from the qrels and the other way round, relevance levels) are evaluated
by both, and every per-query value must agree to 1e-9.

pytrec_eval evaluates only the run's queries that have qrels (trec_eval without
-c), as the preset does (missing="skip"): the evaluated queries and the means
must be the same too.
"""

import math
import random

import pytest

import rankmeter as rm

pytrec_eval = pytest.importorskip(
    "pytrec_eval", reason="pytrec_eval (pip install pytrec-eval-terrier) is not installed"
)

# trec_eval's default cutoffs: measures are requested without parameters,
# because pytrec_eval slows down without bound when parameterised measures
# ("P.1,2,3") are parsed again for every evaluator in one process.
CUTS = (5, 10, 15, 20, 30, 100)
SUCCESS_CUTS = (1, 5, 10)
# trec_eval measure -> rankmeter metric
MEASURES = {
    "map": "ap",
    "ndcg": "ndcg",
    "recip_rank": "rr",
    "Rprec": "r_precision",
    "num_rel_ret": "hits",
    "num_rel": "num_rel",
    "num_ret": "num_ret",
    "num_q": "num_q",
    "bpref": "bpref",  # negative grades are unjudged for trec_eval: the preset's bpref(negative=unjudged)
    # trec_eval's other measures of the fused pass (docs/metrics.md 8.2), the same in trec_eval 9.0.8 and 10.0
    "infAP": "infap",
    "binG": "bin_g",
    "G": "trec_g",
    "ndcg_rel": "ndcg_rel",
    "Rndcg": "rndcg",
    "set_P": "precision",
    "set_recall": "recall",
    "set_relative_P": "recall(denominator=min_relevant_k)",
    "set_F": "fbeta",
    "num_nonrel_judged_ret": "num_nonrel_judged",
}
for _x in (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0):
    MEASURES[f"Rprec_mult_{_x:.2f}"] = f"rprec_mult(mult={_x!r})"
for _k in CUTS:
    MEASURES.update(
        {
            f"P_{_k}": f"precision@{_k}",
            f"recall_{_k}": f"recall@{_k}",
            f"map_cut_{_k}": f"ap@{_k}",
            f"ndcg_cut_{_k}": f"ndcg@{_k}",
            f"relative_P_{_k}": f"recall(denominator=min_relevant_k)@{_k}",
        }
    )
for _k in SUCCESS_CUTS:
    MEASURES[f"success_{_k}"] = f"hit_rate@{_k}"
REQUEST = {"map", "ndcg", "recip_rank", "Rprec", "num_rel_ret", "P", "recall", "map_cut", "ndcg_cut", "success"}
REQUEST |= {"num_rel", "num_ret", "num_q", "bpref"}
REQUEST |= {"infAP", "binG", "G", "ndcg_rel", "Rndcg", "set_P", "set_recall", "set_relative_P", "set_F"}
REQUEST |= {"num_nonrel_judged_ret", "Rprec_mult", "relative_P"}


def _compare(qrels, run, level):
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, REQUEST, relevance_level=level)
    expected = evaluator.evaluate(run)
    assert expected, "pytrec_eval evaluated no query: the collection is degenerate"
    res = rm.evaluate(
        qrels, run, list(MEASURES.values()), preset="trec_eval", min_relevance=level if level > 1 else None
    )
    index = {u: i for i, u in enumerate(res.users)}
    assert sorted(index) == sorted(expected)  # the same queries: only those in both qrels and run
    for measure, metric in MEASURES.items():
        mean = math.fsum(v[measure] for v in expected.values()) / len(expected)
        assert math.isclose(res[metric], mean, rel_tol=1e-12, abs_tol=1e-12), (measure, res[metric], mean)
    for qid, values in expected.items():
        i = index[qid]
        for measure, metric in MEASURES.items():
            ours = float(res.per_user[metric][i])
            theirs = values[measure]
            assert math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-12), (
                f"{measure} ({metric}) for {qid}: rankmeter {ours!r}, trec_eval {theirs!r}\nqrels={qrels[qid]!r}\n"
                f"run={run.get(qid)!r}, relevance_level={level}"
            )


def collection(seed: int, n_queries: int = 1500):
    """Random qrels and run: graded, negative and zero judgments, queries without
    relevant documents, few distinct scores (ties), docnos whose string order is
    not their numeric order, queries only in the run or only in the qrels."""
    rng = random.Random(seed)
    qrels: dict = {}
    run: dict = {}
    for q in range(n_queries):
        qid = f"q{q}"
        if q == 0 or rng.random() < 0.85:
            judged = rng.sample(range(41), rng.randint(1, 15))
            qrels[qid] = {f"d{d}": rng.choice([-1, 0, 0, 1, 1, 2, 3]) for d in judged}
        if rng.random() < 0.85:
            ranked = rng.sample(range(41), rng.randint(1, 30))
            run[qid] = {f"d{d}": rng.choice([0.1, 0.5, 0.5, 1.0, 2.0, 3.25]) for d in ranked}
    return qrels, run


# One evaluator per collection: pytrec_eval was seen to hang after many
# evaluators in one process, so the randomness is in large collections.
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_trec_eval(seed):
    qrels, run = collection(seed)
    _compare(qrels, run, 1)


@pytest.mark.parametrize("level", [2, 3])
def test_matches_trec_eval_relevance_level(level):
    qrels, run = collection(10 + level)
    _compare(qrels, run, level)


def test_ties_broken_by_docno_descending_as_strings():
    qrels = {"q": {"d10": 1, "d9": 0, "d2": 1}}
    run = {"q": {"d2": 1.0, "d9": 1.0, "d10": 1.0}}  # trec_eval order: d9, d2, d10
    _compare(qrels, run, 1)
    res = rm.evaluate(qrels, run, ["rr"], preset="trec_eval")
    assert res["rr"] == 0.5


def test_trec_eval_default_skips_queries_without_results():
    """A qrels query with no results: trec_eval (no -c) leaves it out of the means, and
    so does preset="trec_eval"; missing="zero" is -c (the query counts as 0)."""
    qrels = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}, "q3": {"d4": 1}}
    run = {"q1": {"d1": 2.0, "d9": 1.0}, "q2": {"d3": 1.0}}  # q3 has no results
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"P", "map"}).evaluate(run)
    assert sorted(expected) == ["q1", "q2"]
    res = rm.evaluate(qrels, run, ["precision@10", "ap"], preset="trec_eval")
    assert res.meta["n_users"] == 2 and res.meta["n_missing_recs"] == 1
    assert res["ap"] == pytest.approx((expected["q1"]["map"] + expected["q2"]["map"]) / 2, abs=1e-15)
    assert res["precision@10"] == pytest.approx((expected["q1"]["P_10"] + expected["q2"]["P_10"]) / 2, abs=1e-15)
    complete = rm.evaluate(qrels, run, ["ap"], preset="trec_eval", missing="zero")
    assert complete.meta["n_users"] == 3
    assert complete["ap"] == pytest.approx((expected["q1"]["map"] + expected["q2"]["map"] + 0.0) / 3, abs=1e-15)
    # no preset: "none" and None are the same, and the default scores q3 as an empty list
    assert rm.evaluate(qrels, run, ["ap"], preset="none")["ap"] == rm.evaluate(qrels, run, ["ap"])["ap"]
