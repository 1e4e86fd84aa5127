"""compat.pytrec_eval's one-call path (dicts of str documents read, ranked, evaluated and answered in one C++
call) against its general path (the Python readers and rm.evaluate): the same dict, keys in the same order, on
random runs with float32 ties, docnos that differ only past ASCII, huge and infinite scores, empty queries and
queries on one side only."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.compat import pytrec_eval as pe

MEASURES = [
    {"map", "ndcg", "P_5", "recall_10", "recip_rank", "ndcg_cut_3", "bpref", "Rprec"},
    {"num_q", "num_ret", "num_rel", "num_rel_ret", "success_1", "map_cut_2"},
    {"P.1,3", "ndcg"},
    {"all_trec"},  # with the measures computed from metrics (gm_map, utility, 11pt_avg, iprec NaN, ...)
    {"iprec_at_recall.0.25,0.5", "Rprec_mult.0.5", "11pt_avg.0.3,0.7", "set_F.0.5", "relstring", "P_2"},
]
docs = st.sampled_from(["d1", "d2", "d10", "D1", "é", "e", "d\u0101", "d\U0001f600", "x", "y", "z"])
scores = st.one_of(
    st.sampled_from([0.5, 0.5 + 1e-12, 1.0, -0.0, 0.0, 3e38, 3.5e38, -1e300, math.inf, -math.inf]),
    st.floats(-2, 2, allow_nan=False),
)
queries = st.one_of(st.sampled_from(["q1", "q2", "q3", "q4"]), st.integers(0, 3))


def _both(qrels, run, measures, level):
    ev = pe.RelevanceEvaluator(qrels, measures, relevance_level=level)
    pe._ONE_CALL = True
    try:
        fast = ev.evaluate(run)
    finally:
        pe._ONE_CALL = False
    try:
        slow = ev.evaluate(run)
    finally:
        pe._ONE_CALL = True
    return fast, slow


@settings(max_examples=600, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["q1", "q2", "q3", "q5"]), st.dictionaries(docs, st.integers(-1, 3), max_size=6), max_size=4
    ),
    st.dictionaries(st.sampled_from(["q1", "q2", "q3", "q4"]), st.dictionaries(docs, scores, max_size=8), max_size=4),
    st.sampled_from(range(len(MEASURES))),
    st.integers(1, 2),
)
def test_one_call_path_answers_as_the_general_path(qrels, run, which, level):
    fast, slow = _both(qrels, run, MEASURES[which], level)
    assert list(fast) == list(slow)
    for q in slow:
        assert list(fast[q]) == list(slow[q])
        for m, v in slow[q].items():
            assert fast[q][m] == v or (math.isnan(v) and math.isnan(fast[q][m])), (q, m)


def test_int_query_ids_and_int_documents_take_the_same_answers():
    qrels = {1: {"a": 1, "b": 0}, 2: {"c": 2}}
    run = {1: {"a": 0.3, "b": 0.3}, 2: {"c": 1.0, "d": 2.0}, 3: {"a": 1.0}}
    fast, slow = _both(qrels, run, {"map", "P_1"}, 1)
    assert fast == slow and list(fast) == [1, 2]
    qrels_int = {"q": {1: 1, 2: 0}}
    fast, slow = _both(qrels_int, {"q": {1: 0.5, 3: 0.5}}, {"map"}, 1)  # int docnos: the general path answers
    assert fast == slow


def test_equal_float32_scores_rank_by_docno_descending():
    # 0.5 and 0.5 + 1e-12 are one float32: "d2" (the larger docno) ranks first, so P_1 is its relevance
    qrels = {"q": {"d2": 1, "d10": 0}}
    ev = pe.RelevanceEvaluator(qrels, {"P_1"})
    assert ev.evaluate({"q": {"d10": 0.5 + 1e-12, "d2": 0.5}})["q"]["P_1"] == 1.0
    assert ev.evaluate({"q": {"d10": 0.75, "d2": 0.5}})["q"]["P_1"] == 0.0


def test_a_nan_score_is_the_general_paths_error():
    ev = pe.RelevanceEvaluator({"q": {"d": 1}}, {"map"})
    with pytest.raises(ValueError, match="NaN"):
        ev.evaluate({"q": {"d": math.nan}})


def _big_case(seed, n_queries=3000):
    """Many queries (each read on its own by the one-call path, on several threads): ties of float32 scores,
    queries on one side only, empty qrels entries, grade-0 and negative rows, docnos of 1-, 2- and 4-byte str."""
    import random

    g = random.Random(seed)
    names = ["d1", "d2", "d10", "D1", "é", "e", "d\u0101", "d\U0001f600", *(f"doc{i}" for i in range(40))]
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        if g.random() < 0.9:
            qrels[qid] = {d: g.randint(-1, 3) for d in g.sample(names, g.randint(0, 6))}
        if g.random() < 0.95:
            # fresh str objects for the run's docnos (equal to the qrels' ones, not the same objects)
            run[qid] = {"".join(list(d)): g.choice([0.5, 0.5 + 1e-12, g.random()]) for d in g.sample(names, 12)}
    return qrels, run


@pytest.mark.parametrize("seed", [0, 1])
def test_many_queries_on_every_thread_count_answer_as_the_general_path(seed, monkeypatch):
    qrels, run = _big_case(seed)
    measures = {"map", "ndcg_cut_5", "P_3", "recall_10", "recip_rank", "bpref", "num_rel_ret"}
    fast, slow = _both(qrels, run, measures, 1)
    assert list(fast) == list(slow) and len(fast) > 2000
    for q in slow:
        assert fast[q] == slow[q], q
    for t in ("1", "2", "3"):
        monkeypatch.setenv("RANKMETER_NUM_THREADS", t)
        assert pe.RelevanceEvaluator(qrels, measures).evaluate(run) == fast


def test_documents_and_values_outside_the_per_query_reading_answer_the_same():
    # numpy str docnos and numpy int grades are read by the walker of the objects instead: the same answers
    np = pytest.importorskip("numpy")
    qrels, run = _big_case(2, 2500)
    measures = {"map", "ndcg", "P_5"}
    ref = pe.RelevanceEvaluator(qrels, measures).evaluate(run)
    q0 = next(q for q in run if qrels.get(q))
    run_np = dict(run)
    run_np[q0] = {np.str_(d): s for d, s in run[q0].items()}
    qrels_np = dict(qrels)
    qrels_np[q0] = {d: np.int64(g) for d, g in qrels[q0].items()}
    for qr, rn in ((qrels, run_np), (qrels_np, run)):
        fast, slow = _both(qr, rn, measures, 1)
        assert fast == slow == ref


@pytest.mark.parametrize("qrels", [{2.0: {"d": 1}}, {"q": {2.5: 1}}, {True: {"d": 1}}, {"q": {None: 1}}])
def test_an_id_of_another_type_than_str_or_int_is_pytrec_evals_type_error(qrels):
    # pytrec_eval refuses these when the evaluator is made ("Expected string as key."), whatever run comes later
    with pytest.raises(TypeError, match="Expected string as key"):
        pe.RelevanceEvaluator(qrels, {"map"})


def test_a_numpy_int_query_id_of_a_query_the_run_lacks_is_not_read():
    # found by the trec_nested fuzz target: the general path read every qrels query when the run had as many,
    # and a numpy int query id beside the run's str ids made its reader fail with an internal error
    np = pytest.importorskip("numpy")
    qrels = {np.int64(5): {np.int64(7): 1, "a": -1, "d3": -1}}
    fast, slow = _both(qrels, {"q1": {"d3": -0.0625}}, {"map"}, 1)
    assert fast == slow == {}
