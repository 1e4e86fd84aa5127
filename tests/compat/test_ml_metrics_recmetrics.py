"""rankmeter.compat.ml_metrics / recmetrics without the originals: pure-Python restatements of their definitions
(ml_metrics 0.1.4 average_precision.apk; recmetrics' GitHub `_apk`/`mapk`, absent from the 0.1.5 release), seeded
random data and edge cases. tests/conformance/test_compat_recsys.py checks the real packages."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.compat import ml_metrics as C_ml
from rankmeter.compat import recmetrics as C_rec


def ref_apk(actual, predicted, k):  # ml_metrics 0.1.4: empty actual -> 1.0, / min(len(actual), k)
    predicted = predicted[:k]
    hits, total = 0, 0.0
    for i, p in enumerate(predicted):
        if p in actual and p not in predicted[:i]:
            hits += 1
            total += hits / (i + 1)
    return 1.0 if not actual else total / min(len(actual), k)


def ref_rec_apk(actual, predicted, k):
    # recmetrics GitHub (_apk): the mean, over the first occurrences of actual items within k, of the precision at
    # that position, which counts every position above it holding an actual item (repeats included)
    if not predicted or not actual:
        return 0
    predicted = predicted[:k]
    precisions = [
        sum(1 for x in predicted[: i + 1] if x in actual) / (i + 1)
        for i, p in enumerate(predicted)
        if p in actual and p not in predicted[:i]
    ]
    return sum(precisions) / len(precisions) if precisions else 0


def _data(seed, dup):
    g = np.random.default_rng(seed)
    actual = [g.choice(20, int(g.integers(0, 6)), replace=dup).tolist() for _ in range(50)]
    pred = [g.choice(20, int(g.integers(0, 12)), replace=dup).tolist() for _ in range(50)]
    return actual, pred


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 4, 10, 30])
def test_compat_lists_match_restated_definitions(seed, k):
    actual, pred = _data(seed, dup=seed % 2 == 1)
    assert C_ml.mapk(actual, pred, k) == pytest.approx(
        np.mean([ref_apk(a, p, k) for a, p in zip(actual, pred)]), rel=1e-15
    )
    assert C_rec.mapk(actual, pred, k) == pytest.approx(
        np.mean([ref_rec_apk(a, p, k) for a, p in zip(actual, pred)]), rel=1e-15
    )
    for a, p in zip(actual[:5], pred[:5]):
        assert C_ml.apk(a, p, k) == pytest.approx(ref_apk(a, p, k), rel=1e-15)


def test_compat_lists_edge_cases():
    assert C_ml.apk([], [1, 2]) == 1.0 and C_ml.apk([1], []) == 0.0
    assert C_rec.mapk([[]], [[1]], 3) == 0.0 and C_rec.mapk([[1]], [[]], 3) == 0.0 and C_rec.mark([[]], [[1]]) == 0.0
    assert C_ml.apk(["a", "b"], ["b", "x", "a"], 3) == pytest.approx((1 + 2 / 3) / 2)
    assert C_ml.apk([2**63 - 1], [5, 2**63 - 1], 2) == 0.5
    assert C_ml.apk([1], [1.0], 1) == 1.0  # Python equality, as `p in actual`
    assert C_ml.apk([1, "1"], ["1", 1.0, "x"], 3) == 1.0 and C_ml.apk(["1"], [1], 1) == 0.0  # mixed kinds
    assert C_ml.apk([2**53 + 1], [float(2**53)], 1) == ref_apk([2**53 + 1], [float(2**53)], 1)
    assert C_ml.apk([True, 3], [1, 3], 2) == 1.0  # True == 1
    assert C_ml.mapk([[1], [2]], [[1]], 3) == 1.0  # zip: the shorter argument wins
    with pytest.raises(ZeroDivisionError):
        C_ml.mapk([[1]], [[1]], 0)
    with pytest.raises(TypeError):
        C_ml.mapk([[1]], [[1, 2, 3]], 2.0)  # predicted[:2.0]
    with pytest.warns(RuntimeWarning):
        assert np.isnan(C_ml.mapk([], [], 3))  # np.mean of nothing
    with pytest.raises(Exception, match="Predicted list is empty, index: 1"):
        import pandas as pd

        C_rec.intra_list_similarity([[0, 1], []], pd.DataFrame([[1, 0], [0, 1]]))
    with pytest.raises(ValueError):
        C_rec.personalization([[1, 2], [1, 3, 4]])
    with pytest.raises(KeyError):
        C_rec.novelty([[0, 7]], {0: 3}, 10, 2)
    assert C_rec.prediction_coverage([[1, 2], [2, "x"]], range(8)) == 37.5


def ref_recommender(predicted, actual, by):  # recmetrics: every occurrence of an actual item, rounded per user
    vals = []
    for p, a in zip(predicted, actual):
        hits = len([v for v in p if v in a])
        vals.append(np.round(float(hits) / float(len(p) if by == "precision" else len(a)), 4))
    return np.mean(vals)


@pytest.mark.parametrize("seed", range(4))
def test_recommender_precision_and_recall_count_every_occurrence(seed):
    actual, pred = _data(seed, dup=True)
    pred = [p if p else [0] for p in pred]  # an empty list divides by 0 (below)
    actual = [a if a else [1] for a in actual]
    assert C_rec.recommender_precision(pred, actual) == ref_recommender(pred, actual, "precision")
    assert C_rec.recommender_recall(pred, actual) == ref_recommender(pred, actual, "recall")
    # a repeated actual item counts twice: recall above 1
    assert C_rec.recommender_recall([["a", "a", "b"]], [["a"]]) == 2.0
    assert C_rec.recommender_precision([["a", "a", "b"]], [["a"]]) == np.round(2 / 3, 4)
    with pytest.raises(ZeroDivisionError):
        C_rec.recommender_precision([[1], []], [[1], [2]])
    with pytest.raises(ZeroDivisionError):
        C_rec.recommender_recall([[1]], [[]])


def test_prediction_coverage_release_and_github_forms():
    predicted, catalog = [["X", "Y", "Z"], ["W", "Y", "Z"]], ["A", "B", "C", "X", "Y", "Z"]
    assert C_rec.prediction_coverage(predicted, catalog) == round(4 / 6 * 100, 2)  # 0.1.5: W counts
    with pytest.raises(AssertionError, match="unseen in catalog"):
        C_rec.prediction_coverage(predicted, catalog, unseen_warning=False)
    with pytest.warns(UserWarning, match="unseen in catalog"):
        assert C_rec.prediction_coverage(predicted, catalog, True) == 50.0
    with pytest.raises(AssertionError, match="Duplicated items in catalog"):
        C_rec.prediction_coverage([["X"]], ["X", "X"], False)
    with pytest.raises(AssertionError, match="Length mismatched"):
        C_rec.mapk([[1]], [[1], [2]], 3)


def test_github_mapk_counts_repeats_in_the_precision_at_a_later_hit():
    # actual {a, b}; a, a, b: hits at the first a (P = 1) and at b, where the precision counts both a's (3/3)
    assert C_rec._apk(["a", "b"], ["a", "a", "b"], 3) == (1 + 3 / 3) / 2
    assert C_rec.mapk([["a", "b"]], [["a", "a", "b"]], 3) == ref_rec_apk(["a", "b"], ["a", "a", "b"], 3)
    # mark (and ml_metrics) keep the repeat's position as a non-hit: (1 + 2/3) / 2
    assert C_rec.mark([["a", "b"]], [["a", "a", "b"]], 3) == (1 + 2 / 3) / 2


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.one_of(st.integers(0, 12), st.sampled_from(["a", "b", "c"])), max_size=6),
            st.lists(st.one_of(st.integers(0, 12), st.sampled_from(["a", "b", "c"])), max_size=14),
        ),
        min_size=1,
        max_size=20,
    ),
    st.integers(1, 15),
)
def test_apk_of_one_list_equals_that_users_value_in_the_batched_pass(pairs, k):
    """apk (one list, computed in Python for per-call speed) and mapk (every list in one C++ pass) agree per user,
    repeats, empty actuals and ids of two kinds included."""
    pairs = [(a, p) for a, p in pairs if all(type(x) is type(y) for x in a + p for y in a + p)]  # one id kind
    if not pairs:
        return
    actual, pred = [a for a, _ in pairs], [p for _, p in pairs]
    batched = C_ml._values(actual, pred, k)
    one = [C_ml.apk(a, p, k) for a, p in pairs]
    np.testing.assert_allclose(one, batched, rtol=1e-15, atol=0)
