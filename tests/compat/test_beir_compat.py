"""rankmeter.compat.beir without BEIR: pure-Python restatements of BEIR 2.2's definitions (its evaluate averages
pytrec_eval's per-query values, here rankmeter.compat.pytrec_eval's, which tests/differential/pytrec_eval.py
checks; its custom metrics rank with sorted()), seeded random data and edge cases.
tests/differential/beir.py checks the live BEIR."""

from __future__ import annotations

import copy
import math
import warnings
from typing import Any

import numpy as np
import pytest

from rankmeter.compat import pytrec_eval as C_pte
from rankmeter.compat.beir import EvaluateRetrieval, hole, mrr, recall_cap, top_k_accuracy


def ref_evaluate(qrels, results, k_values, ignore_identical_ids=True):
    results = copy.deepcopy(results)
    if ignore_identical_ids:
        for q, docs in results.items():
            docs.pop(q, None)
    ks = ",".join(map(str, k_values))
    per_q = C_pte.RelevanceEvaluator(qrels, {f"ndcg_cut.{ks}", f"map_cut.{ks}", f"recall.{ks}", f"P.{ks}"}).evaluate(
        results
    )
    out = []
    for label, measure in (("NDCG", "ndcg_cut"), ("MAP", "map_cut"), ("Recall", "recall"), ("P", "P")):
        d = {}
        for k in k_values:
            d[f"{label}@{k}"] = 0.0
        for q in per_q:
            for k in k_values:
                d[f"{label}@{k}"] += per_q[q][f"{measure}_{k}"]
        for k in k_values:
            d[f"{label}@{k}"] = round(d[f"{label}@{k}"] / len(per_q), 5)
        out.append(d)
    return tuple(out)


def _ranked(scores, k):
    return [d for d, _ in sorted(scores.items(), key=lambda x: x[1], reverse=True)][:k]


def ref_custom(qrels, results, k_values, name):
    total = dict.fromkeys(k_values, 0.0)
    judged = {d for docs in qrels.values() for d in docs}
    for q, scores in results.items():
        for k in k_values:
            top = _ranked(scores, k)
            if name == "hole":
                total[k] += sum(d not in judged for d in top) / k
                continue
            rel = {d for d, g in qrels[q].items() if g > 0}
            if name == "mrr":
                total[k] += next((1.0 / (i + 1) for i, d in enumerate(top) if d in rel), 0.0)
            elif name == "acc":
                total[k] += float(any(d in rel for d in top))
            else:
                total[k] += sum(d in rel for d in top) / min(len(rel), k)
    for k in k_values:
        total[k] = round(total[k] / len(qrels), 5)
    label = {"mrr": "MRR", "acc": "Accuracy", "hole": "Hole", "r_cap": "R_cap"}[name]
    return {f"{label}@{k}": v for k, v in total.items()}


def _data(seed, n_queries=30):
    g = np.random.default_rng(seed)
    qrels, results = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        docs = g.choice(40, int(g.integers(1, 6)), replace=False)
        qrels[qid] = {f"d{d}": int(g.choice([0, 1, 1, 2])) for d in docs}
        if not any(v > 0 for v in qrels[qid].values()):
            qrels[qid][f"d{docs[0]}"] = 1
        ranked = g.choice(45, int(g.integers(0, 15)), replace=False)
        scores = np.round(g.random(ranked.size) * 4) / 4  # many equal scores
        results[qid] = {f"d{d}": float(s) for d, s in zip(ranked, scores)}
        if g.random() < 0.3:
            results[qid][qid] = 0.9  # the query's own id as a document
    return qrels, results


@pytest.mark.parametrize("seed", range(6))
def test_evaluate_averages_pytrec_eval_values_as_beir_does(seed):
    qrels, results = _data(seed)
    for ignore in (True, False):
        assert EvaluateRetrieval.evaluate(qrels, results, [1, 3, 10], ignore) == ref_evaluate(
            qrels, results, [1, 3, 10], ignore
        )


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("name", ["mrr", "acc", "hole", "r_cap"])
def test_custom_metrics_equal_beir_definitions_with_ties_in_dict_order(seed, name):
    qrels, results = _data(seed)
    got = EvaluateRetrieval.evaluate_custom(qrels, results, [1, 2, 5, 10], name, ignore_identical_ids=False)
    assert got == ref_custom(qrels, results, [1, 2, 5, 10], name)


def test_evaluate_leaves_out_identical_ids_without_changing_results():
    qrels = {"q1": {"q1": 1, "d1": 1}}
    results = {"q1": {"q1": 5.0, "d1": 1.0}}
    before = copy.deepcopy(results)
    _, _, recall, precision = EvaluateRetrieval.evaluate(qrels, results, [1])
    assert results == before
    assert (precision["P@1"], recall["Recall@1"]) == (1.0, 0.5)  # d1 first once q1 is left out
    _, _, _, precision = EvaluateRetrieval.evaluate(qrels, results, [1], ignore_identical_ids=False)
    assert precision["P@1"] == 1.0 and results == before  # q1 itself is relevant here


def test_evaluate_custom_warns_on_identical_ids_unless_told():
    qrels = {"q1": {"d1": 1}}
    results = {"q1": {"q1": 5.0, "d1": 1.0}}
    with pytest.warns(UserWarning, match="ignore_identical_ids"):
        assert EvaluateRetrieval.evaluate_custom(qrels, results, [1], "mrr") == {"MRR@1": 0.0}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert EvaluateRetrieval.evaluate_custom(qrels, results, [1], "mrr", ignore_identical_ids=True) == {
            "MRR@1": 1.0
        }
        assert EvaluateRetrieval.evaluate_custom(qrels, results, [1], "mrr", ignore_identical_ids=False) == {
            "MRR@1": 0.0
        }


def test_evaluate_ties_follow_pytrec_eval_and_custom_ties_follow_dict_order():
    qrels = {"q": {"a": 1}}
    results = {"q": {"a": 1.0, "b": 1.0}}  # pytrec_eval: docno descending, so b first; sorted(): a first
    assert EvaluateRetrieval.evaluate(qrels, results, [1])[3] == {"P@1": 0.0}
    assert mrr(qrels, results, [1]) == {"MRR@1": 1.0}
    # scores equal only in float32 tie in evaluate
    results = {"q": {"a": 1.0, "b": 1.0 + 1e-12}}
    assert EvaluateRetrieval.evaluate(qrels, results, [1])[3] == {"P@1": 0.0}
    assert top_k_accuracy(qrels, results, [1]) == {"Accuracy@1": 0.0}


def test_repeated_cutoff_is_added_and_divided_once_per_occurrence():
    qrels = {"a": {"x": 1}, "b": {"y": 1}, "c": {"z": 1}}
    results = {"a": {"x": 1.0}, "b": {"x": 1.0}, "c": {"x": 1.0}}  # P@1: 1, 0, 0
    _, _, _, precision = EvaluateRetrieval.evaluate(qrels, results, [1, 1])
    assert precision == {"P@1": round(round(2.0 / 3, 5) / 3, 5)}
    assert mrr(qrels, results, [1, 1]) == {"MRR@1": round(round(2.0 / 3, 5) / 3, 5)}


def test_custom_denominator_is_every_qrels_query_and_hole_counts_every_results_query():
    qrels = {"a": {"x": 1}, "b": {"y": 0}, "c": {}, "d": {"w": 2}}
    results = {"a": {"x": 2.0, "n": 1.0}, "d": {"n": 3.0, "w": 1.0}}
    assert mrr(qrels, results, [2]) == {"MRR@2": round((1.0 + 0.5) / 4, 5)}
    assert top_k_accuracy(qrels, results, [1]) == {"Accuracy@1": 0.25}
    assert recall_cap(qrels, results, [1]) == {"R_cap@1": 0.25}
    assert hole(qrels, {**results, "zz": {"n": 1.0}}, [2]) == {"Hole@2": round((0.5 + 0.5 + 0.5) / 4, 5)}


def test_beir_errors_keep_their_types():
    qrels = {"a": {"x": 1}, "b": {"y": 0}}
    with pytest.raises(KeyError):
        mrr(qrels, {"zz": {"x": 1.0}}, [1])  # a results query without qrels
    with pytest.raises(ZeroDivisionError, match="'b'"):
        recall_cap(qrels, {"b": {"y": 1.0}}, [1])  # no relevant document: min(0, k) = 0
    with pytest.raises(ZeroDivisionError):
        hole({}, {}, [1])
    with pytest.raises(ZeroDivisionError, match="no query of `results`"):
        EvaluateRetrieval.evaluate(qrels, {"zz": {"x": 1.0}}, [1])
    with pytest.raises(TypeError, match="grades must be ints"):
        fractional: Any = {"a": {"x": 1.5}}  # grades must be ints: a float one is the error under test
        EvaluateRetrieval.evaluate(fractional, {"a": {"x": 1.0}}, [1])


@pytest.mark.parametrize(
    ("k_values", "error", "match"),
    [
        ([], ValueError, "at least one"),
        ([0], ValueError, "positive"),
        ([-1], ValueError, "positive"),
        ([2.0], TypeError, "ints"),
        (5, TypeError, "list"),
    ],
)
def test_bad_k_values_are_errors_naming_the_argument(k_values, error, match):
    qrels, results = {"a": {"x": 1}}, {"a": {"x": 1.0}}
    with pytest.raises(error, match=match):
        EvaluateRetrieval.evaluate(qrels, results, k_values)
    with pytest.raises(error, match=match):
        EvaluateRetrieval.evaluate_custom(qrels, results, k_values, "mrr")


def test_unknown_metric_and_nan_scores_are_errors():
    with pytest.raises(ValueError, match="unknown `metric`"):
        EvaluateRetrieval.evaluate_custom({"a": {"x": 1}}, {"a": {"x": 1.0}}, [1], "ndcg")
    with pytest.raises(ValueError, match="NaN"):
        hole({"a": {"x": 1}}, {"a": {"x": math.nan}}, [1])
    assert EvaluateRetrieval.evaluate_custom({"a": {"x": 1}}, {"a": {"x": 1.0}}, [1], "MRR@K") == {"MRR@1": 1.0}


def test_infinite_scores_rank_first_and_last():
    qrels = {"a": {"x": 1}}
    results = {"a": {"y": -math.inf, "x": math.inf, "z": 0.0}}
    assert mrr(qrels, results, [1]) == {"MRR@1": 1.0}
    assert EvaluateRetrieval.evaluate(qrels, results, [1])[3] == {"P@1": 1.0}


def test_int_ids_give_the_numbers_of_their_strings():
    g = np.random.default_rng(7)  # documents 0..59 include the query ids 0..19 (identical ids)
    qrels = {q: {int(d): int(g.integers(0, 3)) for d in g.choice(60, 4, replace=False)} for q in range(20)}
    run = {q: {int(d): float(np.round(g.random() * 4) / 4) for d in g.choice(60, 10, replace=False)} for q in range(20)}

    def as_str(x):
        return {str(q): {str(d): v for d, v in docs.items()} for q, docs in x.items()}

    assert EvaluateRetrieval.evaluate(qrels, run, [1, 5]) == EvaluateRetrieval.evaluate(
        as_str(qrels), as_str(run), [1, 5]
    )


def test_instance_form_keeps_beir_attributes_and_calls_the_retriever():
    ev = EvaluateRetrieval()
    assert (ev.k_values, ev.top_k, ev.retriever, ev.score_function) == ([1, 3, 5, 10, 100, 1000], 1000, None, "cos_sim")
    with pytest.raises(ValueError, match="Model/Technique"):
        ev.retrieve({}, {})

    class Retriever:
        def search(self, corpus, queries, top_k, score_function, **kwargs):
            return {"q": {"d": float(top_k)}, "args": (score_function, kwargs)}

    ev = EvaluateRetrieval(Retriever(), k_values=[1, 5], score_function="dot")
    assert ev.retrieve({}, {}, batch=2) == {"q": {"d": 5.0}, "args": ("dot", {"batch": 2})}
    assert ev.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ev.k_values)[0] == {"NDCG@1": 1.0, "NDCG@5": 1.0}


def test_the_c_loop_finds_the_identical_ids_the_python_loop_finds():
    from rankmeter import _core

    g = np.random.default_rng(3)
    ids = ["q1", "q2", "d1", 1, 2, "1", "é", "\U0001f600"]
    for _ in range(300):
        results = {}
        for _ in range(int(g.integers(0, 6))):
            q = ids[int(g.integers(len(ids)))]
            # fresh equal str objects, not the same ones
            docs = {("".join(d) if isinstance(d, str) else d): 1.0 for d in g.choice(np.array(ids, dtype=object), 3)}
            results[q] = docs
        assert _core.keys_in_values(results) == [q for q, docs in results.items() if q in docs]
    assert _core.keys_in_values({"q": ["q"]}) is None
    assert _core.keys_in_values([("q", {"q": 1})]) is None
