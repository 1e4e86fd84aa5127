"""Every public entry validates its input and raises ValueError or
TypeError with a message naming the argument (and the user / item), and never
modifies or aliases the caller's arrays."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest

import rankmeter as rm

T = {"u1": {"a": 1, "b": 2}, "u2": ["c"]}
R = {"u1": ["a", "x", "b"], "u2": ["c", "d"]}


def _evaluate(truth, recs, metrics=("precision@3",), **kw):
    return rm.evaluate(truth, recs, list(metrics), **kw)


def _partial(truth, recs, metrics=("precision@3",), **kw):
    return rm.partial(truth, recs, list(metrics), **kw)


def _shortcut(truth, recs, metrics=None, **kw):
    # shortcuts take one metric; the input checks are the same
    return rm.precision(truth, recs, k=3, **kw)


ENTRIES = [_evaluate, _partial, _shortcut]
ENTRY_IDS = ["evaluate", "partial", "shortcut"]
entries = pytest.mark.parametrize("entry", ENTRIES, ids=ENTRY_IDS)
metric_entries = pytest.mark.parametrize("entry", [_evaluate, _partial], ids=["evaluate", "partial"])


# --------------------------------------------------------------------------- metric names and options
@metric_entries
@pytest.mark.parametrize(
    "metric, exc, fragment",
    [
        ("foo@3", ValueError, r"unknown metric 'foo'"),
        ("ndcgg@10", ValueError, r"unknown metric 'ndcgg'.*known metrics:.*ndcg"),
        ("fcp_nope", ValueError, r"unknown metric"),
        ("ndcg(foo=1)@3", ValueError, r"unknown option 'foo'.*allowed options: gain, ideal"),
        ("precision(gain=linear)@3", ValueError, r"unknown option 'gain' for metric 'precision'"),
        ("ndcg(log_base=10)@3", ValueError, r"unknown option 'log_base'.*never NDCG"),
        ("ndcg(gain=quad)@3", ValueError, r"'gain'.*linear, exponential, binary.*'quad'"),
        ("ndcg(gain=Linear)@3", ValueError, r"'gain'.*'Linear'"),
        ("ndcg(ideal=best)@3", ValueError, r"'ideal'.*cut, all, k_slots"),
        ("ap(denominator=bogus)@3", ValueError, r"'denominator'.*relevant, min_relevant_k, hits, k"),
        ("recall(denominator=hits)@3", ValueError, r"'denominator'.*relevant, min_relevant_k"),
        ("ar(denominator=k)@3", ValueError, r"'denominator'.*relevant, hits"),
        ("fbeta(beta=-1)@3", ValueError, r"'beta'.*positive"),
        ("fbeta(beta=0)@3", ValueError, r"'beta'.*positive"),
        ("fbeta(beta=abc)@3", ValueError, r"'beta'.*'abc'"),
        ("fbeta(beta=inf)@3", ValueError, r"'beta'.*finite"),
        ("fbeta(beta=nan)@3", ValueError, r"'beta'"),
        ("f1(beta=2)@3", ValueError, r"'beta'.*fixed"),
        ("dcg(log_base=1)@3", ValueError, r"'log_base'.*1"),
        ("dcg(log_base=0)@3", ValueError, r"'log_base'.*positive"),
        ("dcg(log_base=-2)@3", ValueError, r"'log_base'.*positive"),
        ("dcg(log_base=x)@3", ValueError, r"'log_base'"),
        ("ndcg(gain)@3", ValueError, r"option 'gain'.*option=value"),
        ("ndcg(gain=binary,gain=linear)@3", ValueError, r"'gain' given twice"),
        ("ndcg((@3", ValueError, r"cannot parse metric"),
        ("ndcg@0", ValueError, r"cutoff.*positive integer"),
        ("ndcg@-3", ValueError, r"cutoff.*positive integer.*-3"),
        ("ndcg@1.5", ValueError, r"cutoff.*positive integer.*1\.5"),
        ("ndcg@abc", ValueError, r"cutoff.*positive integer.*abc"),
        ("ndcg@", ValueError, r"cutoff.*positive integer"),
        ("ndcg@+3", ValueError, r"cutoff.*positive integer"),
        ("precision@0", ValueError, r"cutoff"),
        ("r_precision@5", ValueError, r"'r_precision' takes no cutoff"),
        ("rprec@5", ValueError, r"'r_precision' takes no cutoff"),
        ("num_rel@5", ValueError, r"'num_rel' takes no cutoff"),
    ],
)
def test_bad_metric_strings(entry, metric, exc, fragment):
    with pytest.raises(exc, match=fragment):
        entry(T, R, [metric])


@metric_entries
def test_bad_metric_string_message_quotes_the_metric(entry):
    with pytest.raises(ValueError, match=re.escape("(in metric 'ndcg(gain=quad)@3')")):
        entry(T, R, ["ndcg@3", "ndcg(gain=quad)@3"])


def test_huge_cutoff_is_value_error():
    with pytest.raises(ValueError, match="cutoff"):
        rm.evaluate(T, R, ["ndcg@99999999999999999999999"])
    with pytest.raises(ValueError, match="cutoff"):
        rm.metrics.NDCG(k=2**64)
    with pytest.raises(ValueError, match="cutoff"):
        rm.ndcg(T, R, k=10**30)


@pytest.mark.parametrize(
    "k, exc",
    [(0, ValueError), (-3, ValueError), (1.5, TypeError), ("abc", TypeError), (True, TypeError), ("3", TypeError)],
)
def test_bad_k_in_metric_objects(k, exc):
    for cls in (rm.metrics.NDCG, rm.metrics.Precision, rm.metrics.AP, rm.metrics.HitRate):
        with pytest.raises(exc, match=r"cutoff.*positive integer"):
            cls(k=k)
    with pytest.raises(exc, match=r"cutoff.*positive integer"):
        rm.metrics.Metric("recall", k)


@pytest.mark.parametrize("k, exc", [(0, ValueError), (-3, ValueError), (1.5, TypeError), ("abc", TypeError)])
def test_bad_k_in_shortcuts(k, exc):
    with pytest.raises(exc, match=r"cutoff.*positive integer"):
        rm.ndcg(T, R, k=k)
    with pytest.raises(exc, match=r"cutoff.*positive integer"):
        rm.map(T, R, k=k)


def test_metric_objects_validate_options():
    with pytest.raises(ValueError, match=r"unknown option 'foo' for metric 'ndcg'"):
        rm.metrics.NDCG(k=3, foo=1)
    with pytest.raises(ValueError, match=r"'denominator'.*'bogus'"):
        rm.metrics.AP(k=3, denominator="bogus")
    with pytest.raises(ValueError, match=r"'beta'"):
        rm.metrics.FBeta(k=3, beta=float("inf"))
    with pytest.raises(TypeError, match=r"'beta'"):
        rm.metrics.FBeta(k=3, beta=[1])
    with pytest.raises(ValueError, match=r"'r_precision' takes no cutoff"):
        rm.metrics.RPrecision(k=5)
    with pytest.raises(ValueError, match=r"unknown metric 'nope'"):
        rm.metrics.Metric("nope", 3)
    with pytest.raises(ValueError, match=r"unknown option 'gain'"):
        rm.precision(T, R, k=3, gain="linear")
    with pytest.raises(ValueError, match=r"'gain'.*'x'"):
        rm.ndcg(T, R, k=3, gain="x")


def test_metrics_argument_types():
    with pytest.raises(ValueError, match=r"`metrics` is empty"):
        rm.evaluate(T, R, [])
    with pytest.raises(ValueError, match=r"`metrics` is empty"):
        rm.partial(T, R, ())
    with pytest.raises(TypeError, match=r"`metrics`"):
        rm.evaluate(T, R, 5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"metric must be a string"):
        rm.evaluate(T, R, [5])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"metric must be a string"):
        rm.metrics.parse(None)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- duplicates
@entries
def test_duplicate_items_in_truth_name_the_user(entry):
    with pytest.raises(ValueError, match=r"`truth`.*item 'a' more than once.*user 'u9'"):
        entry({"u9": ["a", "b", "a"]}, {"u9": ["a"]})
    with pytest.raises(ValueError, match=r"`truth`.*item 5 more than once.*user 1\b"):
        entry((np.array([0, 1, 3]), np.array([7, 5, 5])), [[1], [2]])
    with pytest.raises(ValueError, match=r"`truth`.*item 4 more than once.*user 'q'"):
        entry(rm.Truth.from_csr(np.array([0, 0, 3]), np.array([4, 5, 4]), users=["p", "q"]), {"q": [1]})


@entries
def test_duplicate_items_in_truth_are_an_error_even_with_duplicates_first(entry):
    with pytest.raises(ValueError, match=r"`truth`.*more than once.*user 42"):
        entry({42: [1, 2, 1]}, {42: [1]}, duplicates="first")


@entries
def test_duplicate_items_in_recs_name_user_and_item(entry):
    with pytest.raises(ValueError, match=r"`recs`.*item 'a' more than once.*user 'u1'.*duplicates='first'"):
        entry(T, {"u1": ["a", "x", "a"]})
    with pytest.raises(ValueError, match=r"`recs`.*item 3 more than once.*user 7\b"):
        entry({7: [1]}, {7: [3, 4, 3]})
    with pytest.raises(ValueError, match=r"`recs`.*item 2 more than once.*user 'b'"):
        entry({"a": [1], "b": [2]}, rm.Recs.from_array(np.array([[1, 2, -1], [2, 3, 2]]), users=["a", "b"]))
    with pytest.raises(ValueError, match=r"`recs`.*item 2 more than once.*user 1\b"):
        entry([[1], [2]], np.array([[1, 2, -1], [2, 3, 2]]))


def test_duplicates_first_keeps_first_occurrence_and_closes_up():
    # truth {1, 3}; list [2, 2, 3, 1] -> [2, 3, 1]: hits at 2 and 3
    res = rm.evaluate(
        [[1, 3]], (np.array([0, 4]), np.array([2, 2, 3, 1])), ["ap", "precision@2", "hits@2", "rr"], duplicates="first"
    )
    assert res["ap"] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-15)
    assert res["precision@2"] == 0.5
    assert res["hits@2"] == 1.0
    assert res["rr"] == 0.5
    res = rm.evaluate(T, {"u1": ["a", "x", "a", "b"], "u2": ["d", "c", "d"]}, ["precision@3", "rr"], duplicates="first")
    assert res.per_user["precision@3"].tolist() == [2 / 3, 1 / 3]
    assert res.per_user["rr"].tolist() == [1.0, 0.5]


# --------------------------------------------------------------------------- alignment
@entries
def test_mismatched_positional_lengths(entry):
    for truth, recs in [
        ([[1], [2]], [[1]]),
        ([[1], [2], [3]], np.array([[1], [2]])),
        ([[1], [2], [3]], (np.array([0, 1, 2]), np.array([1, 2]))),
        ((np.array([0, 1]), np.array([1])), [[1], [2]]),
    ]:
        with pytest.raises(ValueError, match=r"`recs` has \d+ users but `truth` has \d+"):
            entry(truth, recs)


@entries
def test_duplicated_user_ids(entry):
    with pytest.raises(ValueError, match=r"`recs` lists user 1 more than once"):
        entry({1: [1], 2: [2]}, rm.Recs.from_csr(np.array([0, 1, 2]), np.array([1, 2]), users=[1, 1]))
    with pytest.raises(ValueError, match=r"`recs` lists user 'x' more than once"):
        entry({"x": [1]}, rm.Recs.from_array(np.array([[1], [2]]), users=["x", "x"]))
    with pytest.raises(ValueError, match=r"`truth` lists user 'a' more than once"):
        entry(rm.Truth.from_csr(np.array([0, 1, 2]), np.array([1, 2]), users=["a", "a"]), {"a": [1]})
    with pytest.raises(ValueError, match=r"`truth` lists user 5 more than once"):
        entry(rm.Truth.from_csr(np.array([0, 1, 2]), np.array([1, 2]), users=[5, 5]), {5: [1]})


def test_users_length_mismatch():
    with pytest.raises(ValueError, match=r"`truth` has 1 users but `users` has 2 ids"):
        rm.Truth.from_csr(np.array([0, 1]), np.array([1]), users=[1, 2])
    with pytest.raises(ValueError, match=r"`recs` has 1 users but `users` has 2 ids"):
        rm.Recs.from_array(np.array([[1, 2]]), users=[1, 2])
    with pytest.raises(ValueError, match=r"`recs` has 2 users but `users` has 1 ids"):
        rm.Recs.from_csr(np.array([0, 1, 2]), np.array([1, 2]), users=[1])


# --------------------------------------------------------------------------- grades and scores
@entries
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_grades_name_the_user(entry, bad):
    with pytest.raises(ValueError, match=r"`truth` grades must be finite.*user 'u2'.*item 'c'"):
        entry({"u1": {"a": 1.0}, "u2": {"c": bad}}, R)
    with pytest.raises(ValueError, match=r"`truth` grades must be finite.*user 1\b"):
        entry((np.array([0, 1, 2]), np.array([1, 2]), np.array([1.0, bad])), [[1], [2]])
    with pytest.raises(ValueError, match=r"`truth` grades must be finite.*user 'v'"):
        entry(
            rm.Truth.from_csr(np.array([0, 1, 2]), np.array([1, 2]), np.array([1.0, bad]), users=["w", "v"]), {"v": [2]}
        )
    with pytest.raises(ValueError, match=r"`truth` grades must be finite.*user 0\b"):
        entry(rm.Truth.from_lists([[1, 2]], [[bad, 1.0]]), [[1]])


def test_non_finite_grade_message_shows_plain_item_id():
    # regression: the message once showed the item as np.int64(2)
    with pytest.raises(ValueError, match=r"user 1 has grade nan for item 2\b"):
        rm.evaluate((np.array([0, 1, 2]), np.array([1, 2]), np.array([1.0, np.nan])), [[1], [2]], ["ap"])


@entries
@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_non_finite_scores_raise(entry, bad):
    with pytest.raises(ValueError, match=r"`recs` scores must be finite"):
        entry(T, {"u1": {"a": 0.5, "b": bad}, "u2": {"c": 1.0}})
    with pytest.raises(ValueError, match=r"`recs` scores must be finite"):
        entry([[1]], (np.array([0, 2]), np.array([1, 2]), np.array([1.0, bad])))
    with pytest.raises(ValueError, match=r"`recs` scores must be finite"):
        entry(
            {"u": [1]},
            rm.Recs.from_csr(np.array([0, 2]), np.array([1, 2]), np.array([bad, 1.0]), users=["u"], by_score=True),
        )


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_non_finite_scores_from_lists(bad):
    with pytest.raises(ValueError, match=r"`recs` scores must be finite"):
        rm.evaluate([[1]], rm.Recs.from_lists([[1, 2]], [[1.0, bad]]), ["rr"])


def test_non_finite_scores_name_the_user_id():
    with pytest.raises(ValueError, match=r"finite.*user 'u2'"):
        rm.evaluate(T, {"u1": {"a": 0.5, "b": 0.1}, "u2": {"c": math.nan}}, ["precision@3"])


def test_non_numeric_grades_and_scores():
    with pytest.raises(TypeError, match=r"`truth` grades must be numbers"):
        rm.evaluate({1: {1: "a"}}, {1: [1]}, ["ap"])
    with pytest.raises(TypeError, match=r"`recs` scores must be numbers"):
        rm.evaluate({1: [1]}, {1: {1: "x"}}, ["ap"])
    with pytest.raises(TypeError, match=r"`truth grades` must be numeric"):
        rm.Truth.from_csr(np.array([0, 2]), np.array([1, 2]), np.array(["a", "b"]))


def test_grades_length_mismatch():
    with pytest.raises(ValueError, match=r"`truth grades` has 1 values but there are 2 items"):
        rm.evaluate((np.array([0, 1, 2]), np.array([5, 6]), np.array([1.0])), [[5], [6]], ["ap"])
    with pytest.raises(ValueError, match=r"`truth grades` has 3 values but there are 2 items"):
        rm.Truth.from_csr(np.array([0, 2]), np.array([5, 6]), np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match=r"`grades` must have the same shape"):
        rm.Truth.from_lists([[1, 2]], [[1.0]])
    with pytest.raises(ValueError, match=r"`grades` must have the same shape"):
        rm.Truth.from_lists([[1, 2]], [[1.0, 2.0], [3.0]])
    with pytest.raises(ValueError, match=r"`scores` must have the same shape"):
        rm.Recs.from_lists([[1, 2]], [[1.0]])
    with pytest.raises(ValueError, match=r"`recs scores` has 1 values but there are 2 items"):
        rm.Recs.from_csr(np.array([0, 2]), np.array([1, 2]), np.array([1.0]))
    with pytest.raises(ValueError, match=r"`truth grades` must be one-dimensional"):
        rm.Truth.from_csr(np.array([0, 2]), np.array([1, 2]), np.array([[1.0, 2.0]]))


# --------------------------------------------------------------------------- evaluate options
@entries
@pytest.mark.parametrize(
    "kw, exc, fragment",
    [
        (dict(empty="bogus"), ValueError, r"`empty` must be one of 'skip', 'zero', 'one', 'error'"),
        (dict(empty=0), ValueError, r"`empty`"),
        (dict(duplicates="last"), ValueError, r"`duplicates` must be one of 'error', 'first'"),
        (dict(duplicates=True), ValueError, r"`duplicates`"),
        (dict(ties="random"), ValueError, r"`ties` must be one of"),
        (dict(threads=0), ValueError, r"`threads` must be a positive integer"),
        (dict(threads=-1), ValueError, r"`threads` must be a positive integer"),
        (dict(threads=1.5), TypeError, r"`threads` must be a positive integer"),
        (dict(threads="2"), TypeError, r"`threads`"),
        (dict(threads=True), TypeError, r"`threads`"),
        (dict(min_relevance="x"), TypeError, r"`min_relevance` must be a number"),
        (dict(min_relevance=[1]), TypeError, r"`min_relevance`"),
        (dict(min_relevance=math.nan), ValueError, r"`min_relevance` must be finite"),
        (dict(min_relevance=math.inf), ValueError, r"`min_relevance` must be finite"),
        (dict(max_items=0), ValueError, r"`max_items` must be a positive integer"),
        (dict(max_items=-1), ValueError, r"`max_items` must be a positive integer"),
        (dict(max_items=2.5), TypeError, r"`max_items` must be a positive integer"),
        (dict(max_items="10"), TypeError, r"`max_items`"),
        (dict(preset="foo"), ValueError, r"unknown preset 'foo'.*trec_eval"),
        (dict(preset="trec-evil"), ValueError, r"unknown preset"),
        (dict(preset=3), TypeError, r"`preset` must be a string"),
    ],
)
def test_bad_option_values(entry, kw, exc, fragment):
    with pytest.raises(exc, match=fragment):
        entry(T, R, **kw)


def test_ties_average_other_metrics_is_a_clear_error():
    # docs/metrics.md §6.3: ties="average" is defined for dcg and ndcg only
    with pytest.raises(ValueError, match=r"ties='average'.*dcg and ndcg only.*precision@3"):
        rm.evaluate(T, {"u1": {"a": 1.0, "b": 1.0}, "u2": {"c": 0.5}}, ["ndcg@3", "precision@3"], ties="average")


def test_ties_item_desc_mixed_id_kinds_is_type_error():
    with pytest.raises(TypeError, match=r"item_desc"):
        rm.evaluate({"u": [1]}, {"u": {1: 1.0, "1": 1.0}}, ["rr"], ties="item_desc")


@entries
def test_empty_error_names_the_user(entry):
    with pytest.raises(ValueError, match=r"user 'u2' has no relevant item.*empty='error'"):
        entry({"u1": {"a": 1}, "u2": {"c": 0, "d": -1}}, R, empty="error")
    with pytest.raises(ValueError, match=r"user 'u2' has no relevant item"):
        entry({"u1": {"a": 1}, "u2": []}, R, empty="error")
    # with min_relevance, a grade below the threshold is not relevant
    with pytest.raises(ValueError, match=r"user 'u1' has no relevant item"):
        entry({"u1": {"a": 1}, "u2": {"c": 3}}, R, empty="error", min_relevance=2)
    # every user has a relevant item: no error
    entry({"u1": {"a": 1}, "u2": {"c": 3}}, R, empty="error")


@pytest.mark.parametrize("value", ["abc", "0", "-2", "1.5"])
def test_bad_env_threads(value, monkeypatch):
    monkeypatch.setenv("RANKMETER_NUM_THREADS", value)
    with pytest.raises(ValueError, match=r"RANKMETER_NUM_THREADS must be a positive integer"):
        rm.evaluate(T, R, ["ap"])
    # an explicit threads= does not read the variable
    assert rm.evaluate(T, R, ["ap"], threads=1)["ap"] == math.fsum([(1 + 2 / 3) / 2, 1.0]) / 2


def test_shortcut_bad_aggregate():
    with pytest.raises(ValueError, match=r"`aggregate` must be 'mean' or None"):
        rm.precision(T, R, k=3, aggregate="sum")


# --------------------------------------------------------------------------- ids and types
@entries
def test_float_ids_are_type_errors(entry):
    with pytest.raises(TypeError, match=r"`truth items`.*integer or string ids.*float"):
        entry([[1.5]], [[1]])
    with pytest.raises(TypeError, match=r"`recs items`.*integer or string ids.*float"):
        entry([[1]], [[1.0]])
    with pytest.raises(TypeError, match=r"`truth items`.*float"):
        entry((np.array([0, 1]), np.array([1.0])), [[1]])
    with pytest.raises(TypeError, match=r"`recs items`.*float"):
        entry([[1]], (np.array([0, 1]), np.array([1.0])))
    with pytest.raises(TypeError, match=r"`truth users`.*float"):
        entry({1.5: [1]}, {1.5: [1]})
    with pytest.raises(TypeError, match=r"`recs users`.*float"):
        entry({1: [1]}, {1.0: [1]})
    with pytest.raises(TypeError, match=r"`truth items`.*integer or string ids"):
        entry({"u": [1, 2.5]}, {"u": [1]})
    with pytest.raises(TypeError, match=r"`truth items`.*integer or string ids"):
        entry([[None]], [[1]])
    with pytest.raises(TypeError, match=r"`truth items`.*integer or string ids"):
        entry([[True]], [[1]])


@entries
def test_float_2d_recs_points_to_from_scores(entry):
    with pytest.raises(TypeError, match=r"Recs\.from_scores"):
        entry([[1]], np.array([[0.5, 0.2]]))
    with pytest.raises(TypeError, match=r"Recs\.from_scores"):
        entry([[1], [2]], np.array([[0.5, 0.2], [0.1, 0.9]], dtype=np.float32))


def test_from_scores_exists():
    recs = rm.Recs.from_scores(np.array([[0.1, 0.9, 0.5]]), 2)
    assert rm.evaluate([[1]], recs, ["rr"])["rr"] == 1.0


@entries
def test_item_after_padding(entry):
    with pytest.raises(ValueError, match=r"`recs` row of user 0 has an item after the padding"):
        entry([[1], [2]], np.array([[1, -1, 3], [2, 3, 4]]))
    with pytest.raises(ValueError, match=r"`recs` row of user 1 has an item after the padding"):
        entry([[1], [2]], np.array([[1, 2, 3], [-1, 3, 4]]))
    with pytest.raises(ValueError, match=r"`recs` row of user 'b' has an item after the padding"):
        entry({"a": [1], "b": [2]}, rm.Recs.from_array(np.array([[1, 2, 3], [2, 0, 4]]), pad=0, users=["a", "b"]))
    # non-int truth ids take another code path (mixed, since all-str truth against int lists is a kind error)
    with pytest.raises(ValueError, match=r"`recs` row of user 1 has an item after the padding"):
        entry([["a", 7], ["b"]], np.array([[1, 2, 3], [-1, 3, 4]]))


@entries
def test_bad_indptr(entry):
    with pytest.raises(ValueError, match=r"`truth` indptr must start at 0"):
        entry((np.array([1, 2]), np.array([5, 6])), [[5]])
    with pytest.raises(ValueError, match=r"`truth` indptr must be non-decreasing"):
        entry((np.array([0, 2, 1, 3]), np.array([5, 6, 7])), [[5], [6], [7]])
    with pytest.raises(ValueError, match=r"`truth` indptr must end at len\(items\) = 3"):
        entry((np.array([0, 1, 2]), np.array([5, 6, 7])), [[5], [6]])
    with pytest.raises(ValueError, match=r"`recs` indptr must end at len\(items\)"):
        entry([[5], [6]], (np.array([0, 1, 5]), np.array([5, 6, 7])))
    with pytest.raises(ValueError, match=r"`recs` indptr must start at 0"):
        entry([[5], [6]], (np.array([-1, 1, 3]), np.array([5, 6, 7])))
    with pytest.raises(ValueError, match=r"`recs` indptr must be non-decreasing"):
        entry([[5], [6], [7]], (np.array([0, 3, 2, 3]), np.array([5, 6, 7])))
    with pytest.raises(TypeError, match=r"`truth indptr` must be an integer array"):
        entry((np.array([0.0, 1.0]), np.array([1])), [[1]])
    with pytest.raises(ValueError, match=r"`truth indptr` must be one-dimensional"):
        entry((np.array([[0, 1]]), np.array([1])), [[1]])
    with pytest.raises(ValueError, match=r"`truth` indptr must have n_users \+ 1"):
        entry((np.array([], dtype=np.int64), np.array([], dtype=np.int64)), [])


@entries
def test_swapped_truth_and_recs(entry):
    with pytest.raises(TypeError, match=r"`truth` is a Recs object"):
        entry(rm.Recs.from_lists([[1]]), rm.Truth.from_lists([[1]]))
    with pytest.raises(TypeError, match=r"`recs` is a Truth object"):
        entry(rm.Truth.from_lists([[1]]), rm.Truth.from_lists([[1]]))


@entries
@pytest.mark.parametrize(
    "bad", [{1, 2}, 5, "abc", None, 1.5, b"xy"], ids=["set", "int", "str", "None", "float", "bytes"]
)
def test_unsupported_truth_types(entry, bad):
    with pytest.raises(TypeError, match=r"`truth` must be"):
        entry(bad, [[1]])


@entries
@pytest.mark.parametrize(
    "bad", [{1, 2}, 5, "abc", None, frozenset([1])], ids=["set", "int", "str", "None", "frozenset"]
)
def test_unsupported_recs_types(entry, bad):
    with pytest.raises(TypeError, match=r"`recs` must be"):
        entry([[1]], bad)


@entries
def test_unsupported_per_user_values(entry):
    with pytest.raises(TypeError, match=r"`truth` for user 'u'.*got str"):
        entry({"u": "abc"}, {"u": ["a"]})
    with pytest.raises(TypeError, match=r"`truth` for user 'u'.*got int"):
        entry({"u": 5}, {"u": ["a"]})
    with pytest.raises(TypeError, match=r"`recs` for user 'u'.*ordered list.*got str"):
        entry({"u": ["a"]}, {"u": "abc"})
    with pytest.raises(TypeError, match=r"`recs` for user 1.*got set"):
        entry({1: [1]}, {1: {1, 2}})
    with pytest.raises(TypeError, match=r"`recs` dict mixes"):
        entry({"u": ["a"], "v": ["b"]}, {"u": ["a"], "v": {"b": 1.0}})


@entries
def test_recs_arrays_of_wrong_shape(entry):
    with pytest.raises(ValueError, match=r"`recs`.*2-D"):
        entry([[1]], np.array([1, 2]))
    with pytest.raises(ValueError, match=r"`recs`.*2-D"):
        entry([[1]], np.zeros((1, 2, 2), dtype=np.int64))
    with pytest.raises(TypeError, match=r"`recs` 2-D array must hold integer item ids"):
        entry([[1]], np.array([["a", "b"]]))


def test_from_array_pad_type():
    with pytest.raises(TypeError, match=r"`pad` must be an integer"):
        rm.Recs.from_array(np.array([[1]]), pad=1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"`pad`"):
        rm.Recs.from_array(np.array([[1]]), pad=None)  # type: ignore[arg-type]


def test_constructor_type_errors():
    with pytest.raises(TypeError, match=r"`truth` lists must be a list of lists"):
        rm.Truth.from_lists(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"`recs` lists must be a list of lists"):
        rm.Recs.from_lists("abc")
    with pytest.raises(TypeError, match=r"`truth` must be a dict"):
        rm.Truth.from_dict([[1]])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"`recs` must be a dict"):
        rm.Recs.from_dict([[1]])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"`by_score=True` needs `scores`"):
        rm.Recs.from_csr(np.array([0, 2]), np.array([1, 2]), by_score=True)


# --------------------------------------------------------------------------- TREC readers
def test_trec_reader_errors(tmp_path):
    q = tmp_path / "q.txt"
    q.write_text("1 0 d1 1\n\n1 0 d2\n")
    with pytest.raises(ValueError, match=r"line 3: a qrels line has 4 fields"):
        rm.read_trec_qrels(q)
    q.write_text("1 0 d1 1\n1 0 d2 x\n")
    with pytest.raises(ValueError, match=r"line 2: grade 'x' is not a number"):
        rm.read_trec_qrels(str(q))
    r = tmp_path / "r.txt"
    r.write_text("1 Q0 d1 1 2.0 run\n1 Q0 d2 2\n")
    with pytest.raises(ValueError, match=r"line 2: a run line has at least 5 fields"):
        rm.read_trec_run(r)
    r.write_text("1 Q0 d1 1 2.0 run\n1 Q0 d2 2 abc run\n")
    with pytest.raises(ValueError, match=r"line 2: score 'abc' is not a number"):
        rm.read_trec_run(r)
    with pytest.raises(TypeError, match=r"`path` must be a path"):
        rm.read_trec_run(5)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        rm.read_trec_qrels(tmp_path / "missing")
    q.write_text("1 0 d1 1\n1 0 d1 2\n")
    with pytest.raises(ValueError, match=r"`truth`.*item 'd1' more than once.*user '1'"):
        rm.evaluate(rm.read_trec_qrels(q), {"1": ["d1"]}, ["ap"])


# --------------------------------------------------------------------------- caller's arrays
def _ro(a, dtype=None):
    a = np.array(a, dtype=dtype)
    a.flags.writeable = False
    return a


def _inputs_read_only():
    rng = np.random.default_rng(4)
    n = 50
    t_len = rng.integers(0, 6, n)
    t_indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(t_len, out=t_indptr[1:])
    t_items = np.concatenate([rng.choice(30, m, replace=False) for m in t_len]).astype(np.int64)
    grades = rng.integers(-1, 4, t_items.size).astype(np.float64)
    r_len = rng.integers(0, 9, n)
    r_indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(r_len, out=r_indptr[1:])
    r_items = np.concatenate([rng.choice(30, m, replace=False) for m in r_len]).astype(np.int64)
    scores = rng.random(r_items.size)
    padded = np.full((n, 8), -1, dtype=np.int64)
    for u in range(n):
        row = r_items[r_indptr[u] : r_indptr[u + 1]]
        padded[u, : row.size] = row
    users = rng.choice(10**6, n, replace=False).astype(np.int64)
    return {
        "t_indptr": _ro(t_indptr),
        "t_items": _ro(t_items),
        "grades": _ro(grades),
        "r_indptr": _ro(r_indptr),
        "r_items": _ro(r_items),
        "scores": _ro(scores),
        "padded": _ro(padded),
        "users": _ro(users),
        "r_users": _ro(users[::-1]),
    }


METRICS_ALL = ["precision@3", "recall@5", "ap", "ndcg@5", "dcg(gain=exponential)@4", "rr", "hits", "r_precision"]


def _forms(a):
    t_csr = (a["t_indptr"], a["t_items"], a["grades"])
    t_keyed = rm.Truth.from_csr(a["t_indptr"], a["t_items"], a["grades"], users=a["users"])
    yield "csr/csr", t_csr, (a["r_indptr"], a["r_items"])
    yield "csr/csr+scores", t_csr, (a["r_indptr"], a["r_items"], a["scores"])
    yield "csr/by_score", t_csr, rm.Recs.from_csr(a["r_indptr"], a["r_items"], a["scores"], by_score=True)
    yield "csr/padded", t_csr, a["padded"]
    yield "csr/from_array", t_csr, rm.Recs.from_array(a["padded"], pad=-1)
    yield "keyed/padded", t_keyed, rm.Recs.from_array(a["padded"][::-1], users=a["r_users"])
    yield "keyed/csr", t_keyed, rm.Recs.from_csr(a["r_indptr"], a["r_items"], users=a["users"])


@pytest.mark.parametrize(
    "form", ["csr/csr", "csr/csr+scores", "csr/by_score", "csr/padded", "csr/from_array", "keyed/padded", "keyed/csr"]
)
def test_read_only_inputs_work_and_stay_unchanged(form):
    a = _inputs_read_only()
    copies = {k: v.copy() for k, v in a.items()}
    _, truth, recs = next(f for f in _forms(a) if f[0] == form)
    for kw in ({}, {"duplicates": "first", "max_items": 4, "min_relevance": 2, "empty": "zero"}, {"ties": "trec"}):
        res = rm.evaluate(truth, recs, METRICS_ALL, threads=2, **kw)
        st = rm.partial(truth, recs, METRICS_ALL, **kw)
        assert st.meta == res.meta
        for m in METRICS_ALL:
            assert np.isfinite(res[m]) or np.isnan(res[m])
            for name, arr in a.items():
                assert not np.shares_memory(res.per_user[m], arr), (m, name)
    for name, arr in a.items():
        assert np.array_equal(arr, copies[name]), name
        assert arr.dtype == copies[name].dtype
        assert not arr.flags.writeable


def test_read_only_inputs_same_numbers_as_writable():
    a = _inputs_read_only()
    w = {k: v.copy() for k, v in a.items()}
    for (name, t1, r1), (_, t2, r2) in zip(_forms(a), _forms(w)):
        x = rm.evaluate(t1, r1, METRICS_ALL)
        y = rm.evaluate(t2, r2, METRICS_ALL)
        for m in METRICS_ALL:
            assert np.array_equal(x.per_user[m], y.per_user[m], equal_nan=True), (name, m)


def test_other_dtypes_not_modified():
    # int32 / uint16 / float32 inputs are converted, never written back
    t_indptr = _ro([0, 2, 3], np.int32)
    t_items = _ro([3, 4, 5], np.uint16)
    grades = _ro([1.0, 2.0, 0.0], np.float32)
    recs = _ro([[4, 3, -1], [5, 6, 7]], np.int16)
    copies = [x.copy() for x in (t_indptr, t_items, grades, recs)]
    res = rm.evaluate((t_indptr, t_items, grades), recs, ["ndcg@3", "ap"])
    # user 0: truth {3:1, 4:2}, list [4, 3]: ideal order -> ndcg 1, ap 1
    assert res.per_user["ndcg@3"][0] == 1.0
    assert res.per_user["ap"][0] == 1.0
    assert np.isnan(res.per_user["ap"][1])  # user 1 has only a grade-0 item
    for x, c in zip((t_indptr, t_items, grades, recs), copies):
        assert np.array_equal(x, c) and x.dtype == c.dtype


def test_result_users_do_not_alias_input_positional():
    a = _inputs_read_only()
    res = rm.evaluate((a["t_indptr"], a["t_items"], a["grades"]), (a["r_indptr"], a["r_items"]), ["ap"])
    for arr in a.values():
        assert not np.shares_memory(res.users, arr)


def test_result_users_do_not_alias_input_keyed():
    users = np.array([10, 20, 30], dtype=np.int64)
    truth = rm.Truth.from_csr(np.array([0, 1, 2, 3]), np.array([1, 2, 3]), users=users)
    res = rm.evaluate(truth, {10: [1], 20: [2]}, ["ap"])
    assert not np.shares_memory(res.users, users)


def test_dict_inputs_not_modified():
    truth = {"u1": {"a": 1, "b": 2}, "u2": ["c", "c2"], "u3": {"z": 0}}
    recs = {"u1": {"a": 0.5, "x": 0.5, "b": 0.9}, "u2": {"c": 1.0}, "u9": {"q": 1.0}}
    import copy

    t0, r0 = copy.deepcopy(truth), copy.deepcopy(recs)
    rm.evaluate(truth, recs, METRICS_ALL, ties="trec")
    rm.partial(truth, recs, METRICS_ALL)
    assert truth == t0 and recs == r0
    assert list(truth["u1"]) == ["a", "b"] and list(recs["u1"]) == ["a", "x", "b"]


def test_grades_inf_and_minus_inf_are_one_clear_error_without_a_numpy_warning():
    # inf + -inf sums to nan: the finite check must still name the first bad grade, and warn nothing
    import warnings

    import rankmeter as rm

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="grades must be finite; user 0 has grade inf for item 0"):
            rm.evaluate({0: {0: float("inf")}, 1: {}, 2: {0: float("-inf")}}, {}, ["fcp"])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [0, 1, 7, 65_537, 200_001])
def test_all_finite_finds_any_non_finite_value_wherever_it_is(dtype, n):
    # the parallel C++ check behind the grades check of evaluate(): every position of a
    # non-finite value is found, whatever the thread count; huge and subnormal values are finite
    from rankmeter.inputs import all_finite

    info = np.finfo(dtype)
    rng = np.random.default_rng(n)
    a = rng.uniform(-3, 3, n).astype(dtype)
    if n:
        a[rng.integers(0, n, min(n, 5))] = [info.max, -info.max, info.tiny / 2, -0.0, 0.0][: min(n, 5)]
    for threads in (0, 1, 2, 3):
        assert all_finite(a, threads) is True
    positions = sorted({0, n // 2, n - 1}) if n else []
    for pos in positions:
        for bad in (np.nan, np.inf, -np.inf):
            b = a.copy()
            b[pos] = bad
            for threads in (0, 1, 3):
                assert all_finite(b, threads) is False, (pos, bad, threads)
    # strided or other dtypes go through numpy
    assert all_finite(np.arange(10.0)[::2]) is True
    assert all_finite(np.array([1.0, np.nan])[::1].astype(np.float16)) is False


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_non_finite_grades_found_by_the_accuracy_pass(dtype, threads):
    # A call with an accuracy metric over all of the truth leaves the grades check to the pass
    # (it reads every grade): the same error, naming the first bad grade's user and item, as
    # the separate check of a call that does not run the pass (beyond-accuracy only, or
    # missing="skip", which leaves users out), wherever the bad grade is and whatever the
    # other grades are (integer levels, or not).
    rng = np.random.default_rng(int(threads))
    n = 300
    lens = rng.integers(1, 6, n)
    indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    items = np.concatenate([rng.choice(50, k, replace=False) for k in lens]).astype(np.int64) * 3 + 1
    recs = [rng.choice(150, 8, replace=False).tolist() for _ in range(n)]
    for grades_kind in ("levels", "fractions"):
        base = rng.integers(0, 4, indptr[-1]).astype(dtype)
        if grades_kind == "fractions":
            base = base + dtype(0.5)
        for pos in (0, int(indptr[n // 2]) + 1, int(indptr[-1]) - 1):
            for bad in (np.nan, np.inf, -np.inf):
                g = base.copy()
                g[pos] = bad
                if pos + 7 < g.size:
                    g[pos + 7] = np.nan  # a later bad grade is not the one reported
                user = int(np.searchsorted(indptr, pos, side="right") - 1)
                msg = f"`truth` grades must be finite; user {user} has grade {g[pos]} for item {int(items[pos])}"
                truth = rm.Truth.from_csr(indptr, items, g)
                cases: list[tuple[list[str], dict[str, Any]]] = [
                    (["ndcg@5", "precision@3"], {}),
                    (["ndcg@5", "coverage@5"], {}),
                    (["coverage@5"], {}),
                    (["ndcg@5"], {"missing": "skip"}),
                ]
                for metrics, kw in cases:
                    with pytest.raises(ValueError) as e:
                        rm.evaluate(truth, recs, metrics, threads=threads, **kw)
                    assert str(e.value) == msg, (metrics, kw)


def test_non_finite_grade_of_a_user_without_recs_is_found():
    # users without a list (missing="zero") still have their grades read by the pass; with
    # missing="skip" they are left out, and the separate check still rejects their grades
    truth = rm.Truth.from_csr([0, 1, 2], [5, 6], np.array([1.0, np.nan]), users=["a", "b"])
    recs = {"a": [5, 6]}
    options: list[dict[str, Any]] = [{}, {"missing": "skip"}]
    for kw in options:
        with pytest.raises(ValueError, match=r"user 'b' has grade nan for item 6"):
            rm.evaluate(truth, recs, ["ndcg@5"], **kw)
