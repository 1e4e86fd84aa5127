"""_core.lists_ap, the one-call apk / _ark of the list drop-ins (rankmeter.compat.ml_metrics.mapk,
rankmeter.compat.recmetrics.mark), against the originals' loops restated in plain Python: the same bits per user on
random lists with every edge (empty actual or predicted, repeats on either side, lists longer than 64 for the
sorted path, k below and above the lengths, str, int and huge int ids, rows of other containers)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankmeter import _core
from rankmeter.compat import ml_metrics, recmetrics

HUGE = 2**62 + 11


def _loop(actual, predicted, k, den_min_k, empty_value):
    """ml_metrics 0.1.4 apk (den_min_k, 1.0 for an empty actual) / recmetrics _ark (len(actual), 0.0)."""
    if len(predicted) > k:
        predicted = predicted[:k]
    score, hits = 0.0, 0.0
    for i, p in enumerate(predicted):
        if p in actual and p not in predicted[:i]:
            hits += 1.0
            score += hits / (i + 1.0)
    if not actual:
        return empty_value
    return score / (min(len(actual), k) if den_min_k else len(actual))


@st.composite
def list_pairs(draw):
    kind = draw(st.sampled_from(["int", "str", "huge", "mixed"]))
    item = {
        "int": lambda i: i,
        "str": lambda i: f"i{i}",
        "huge": lambda i: HUGE - 7 * i,
        "mixed": lambda i: i if i % 2 else str(i // 4),  # ints and strs, "0" never equal to 0
    }[kind]
    long = draw(st.booleans())
    pool = draw(st.integers(1, 200 if long else 12))
    n = draw(st.integers(0, 12))
    size = 150 if long else 14
    actual: list = [[item(i) for i in draw(st.lists(st.integers(0, pool - 1), max_size=size))] for _ in range(n)]
    predicted = [[item(i) for i in draw(st.lists(st.integers(0, pool - 1), max_size=size))] for _ in range(n)]
    if n and draw(st.booleans()):
        actual[0] = tuple(actual[0])  # tuples read as lists
    return actual, predicted


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(list_pairs(), st.integers(1, 160), st.booleans(), st.sampled_from([1, 2]))
def test_lists_ap_equals_the_originals_loop_bit_for_bit(pair, k, den_min_k, threads):
    actual, predicted = pair
    empty_value = 1.0 if den_min_k else 0.0
    got = _core.lists_ap(actual, predicted, k, den_min_k, empty_value, threads)
    assert got is not None
    want = [_loop(a, p, k, den_min_k, empty_value) for a, p in zip(actual, predicted)]
    assert got.tolist() == want


def test_int_and_str_ids_together_compare_as_python_does():
    actual, predicted = [[1, "a", "1"], ["b"]], [["1", 1, "x", "a"], [2, "b"]]
    got = _core.lists_ap(actual, predicted, 3, True, 1.0)
    assert got is not None
    assert got.tolist() == [_loop(a, p, 3, True, 1.0) for a, p in zip(actual, predicted)]


def test_lists_ap_leaves_what_it_cannot_read_to_the_general_path():
    assert _core.lists_ap([[1.5]], [[1.5]], 3, True, 1.0) is None  # float ids (1 == 1.0 in Python)
    assert _core.lists_ap(["ab"], [["a"]], 3, True, 1.0) is None  # a str row (substring membership)
    assert _core.lists_ap([[1]], [{1, 2}], 3, True, 1.0) is None  # a set of predictions (no order)
    assert _core.lists_ap([[1]], [[1], [2]], 3, True, 1.0) is None  # lengths differ (zip: the caller cuts)


@settings(max_examples=100, deadline=None)
@given(list_pairs(), st.integers(1, 20))
def test_mapk_and_mark_take_the_one_call_path_with_the_originals_means(pair, k):
    actual, predicted = pair
    if not actual:
        return  # np.mean of nothing: NaN and a warning, as the originals (tested in test_ml_metrics_recmetrics)
    want_map = np.mean([_loop(a, p, k, True, 1.0) for a, p in zip(actual, predicted)])
    want_mar = np.mean([_loop(a, p, k, False, 0.0) for a, p in zip(actual, predicted)])
    assert ml_metrics.mapk(actual, predicted, k) == want_map
    assert recmetrics.mark(actual, predicted, k) == want_mar


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(list_pairs(), st.sampled_from([1, 2]))
def test_distinct_ids_counts_as_a_python_set_does(pair, threads):
    actual, predicted = pair
    rows = actual + predicted
    assert _core.distinct_ids(rows, threads) == len({x for row in rows for x in row})


def test_distinct_ids_leaves_other_rows_and_ids_to_the_set():
    assert _core.distinct_ids([[1.0, 1]]) == -1  # 1.0 == 1 in a Python set
    assert _core.distinct_ids(["ab"]) == -1  # a str row is its characters
    assert _core.distinct_ids([{1, 2}]) == -1
    assert _core.distinct_ids([[True]]) == -1
    assert _core.distinct_ids(([1],)) == -1  # not a list
    assert _core.distinct_ids([[1, "1", 1], ("a", "é", "é"), [], [2**63 - 1, -(2**63)]]) == 6


def test_prediction_coverage_and_catalog_coverage_keep_the_originals_rounding_and_errors():
    predicted: list[list] = [[1, 2, 3], [3, 4], ["a", "b"], []]
    assert recmetrics.prediction_coverage(predicted, list(range(7))) == round(6 / (7 * 1.0) * 100, 2)
    random.seed(3)
    got = recmetrics.catalog_coverage(predicted, list(range(7)), 3)
    random.seed(3)
    sample = random.choices(predicted, k=3)
    assert got == round(len({x for r in sample for x in r}) / 7.0 * 100, 2)
    with pytest.raises(ZeroDivisionError):
        recmetrics.prediction_coverage(predicted, [])


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_distinct_ids_on_many_rows_and_every_thread_count_counts_as_a_set(threads):
    # 6,000 rows (read in parallel, the threads' counts merged): ints about the 2**16 that are kept as bits,
    # negative and large ints, shared and fresh str objects
    g = np.random.default_rng(8)
    pool = [*range(-5, 6), *range(65530, 65542), 2**40, -(2**40), 2**63 - 1, "a", "é", "😀", "id65536"]
    rows = [[pool[i] for i in g.integers(0, len(pool), int(g.integers(0, 9)))] for _ in range(6000)]
    rows += [[f"id{v}" for v in g.integers(0, 100, 5)] for _ in range(200)]  # fresh equal str objects
    assert _core.distinct_ids(rows, threads) == len({x for row in rows for x in row})
    assert _core.distinct_ids([[65535], [65536], [0], [-1]] * 2000, threads) == 4


def _catalog_coverage_original(predicted, catalog, k):
    """recmetrics 0.1.5 catalog_coverage restated: random.choices, then the distinct ids of the draws."""
    sampling = random.choices(predicted, k=k)
    return round(len({x for row in sampling for x in row}) / (len(catalog) * 1.0) * 100, 2)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(list_pairs(), st.integers(-2, 2000), st.integers(0, 2**32), st.integers(0, 1500))
def test_catalog_coverage_draws_the_originals_lists_and_leaves_random_where_it_does(pair, k, seed, burn):
    # the generator's position anywhere in its 624-word block (burn draws first), k across block ends
    actual, predicted = pair
    rows = actual + predicted
    catalog = list(range(len(rows) + 3))
    random.seed(seed)
    for _ in range(burn):
        random.random()
    state = random.getstate()
    try:
        want = _catalog_coverage_original(rows, catalog, k)
    except IndexError:  # no rows to draw from
        random.setstate(state)
        with pytest.raises(IndexError):
            recmetrics.catalog_coverage(rows, catalog, k)
        return
    want_next = random.random()
    random.setstate(state)
    assert recmetrics.catalog_coverage(rows, catalog, k) == want
    assert random.random() == want_next  # the module's generator advanced as by the original


def test_catalog_coverage_honours_a_replaced_random_choices_and_other_populations(monkeypatch):
    rows: list[list[Any]] = [[1, 2], [3], ["a", 1.0], []]
    catalog = list(range(10))
    populations: list[Any] = [rows, tuple(rows), [tuple(r) for r in rows], [[1.5, True], [1]]]
    for population in populations:
        random.seed(5)
        want = _catalog_coverage_original(population, catalog, 9)
        want_next = random.random()
        random.seed(5)
        assert recmetrics.catalog_coverage(population, catalog, 9) == want
        assert random.random() == want_next
    monkeypatch.setattr(random, "choices", lambda population, k: [population[0]] * k)  # a test's stub is obeyed
    assert recmetrics.catalog_coverage(rows, catalog, 50) == 20.0
    with pytest.raises(TypeError):
        recmetrics.catalog_coverage(rows, catalog, 2.0)  # type: ignore[arg-type]  # repeat(None, 2.0), as the original


def test_catalog_coverage_honours_a_replaced_random_method(monkeypatch):
    # random.choices draws through the generator's random(): one replaced on the class or on the module's
    # instance is obeyed (the draws are then random.choices' own)
    rows: list[list[Any]] = [[1, 2], [3], ["a", "b"], [4, 5, 6]]
    catalog = list(range(10))
    seq = iter([0.0, 0.3, 0.6, 0.9] * 10)
    monkeypatch.setattr(random.Random, "random", lambda self: next(seq))
    assert recmetrics.catalog_coverage(rows, catalog, 4) == 80.0  # every row once: 8 ids of 10
    monkeypatch.undo()
    monkeypatch.setattr(random._inst, "random", lambda: 0.99)
    assert recmetrics.catalog_coverage(rows, catalog, 5) == 30.0  # the last row five times
    monkeypatch.undo()
    random.seed(2)
    want = _catalog_coverage_original(rows, catalog, 5)
    random.seed(2)
    assert recmetrics.catalog_coverage(rows, catalog, 5) == want


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 2**32),
    st.integers(0, 1500),
    st.sampled_from([1, 2, 5, 997, 100_000, 2**31 + 5, 2**45]),
    st.integers(0, 3000),
)
def test_mt_choices_inplace_draws_as_random_choices_and_advances_the_generator(seed, burn, n, k):
    want_gen, gen = random.Random(seed), random.Random()
    for _ in range(burn):
        want_gen.random()
    gen.setstate(want_gen.getstate())
    want = want_gen.choices(range(n), k=k)
    got = _core.mt_choices_inplace(gen, n, k)
    assert got is not None
    assert got.tolist() == want
    assert gen.getstate() == want_gen.getstate()
    assert gen.random() == want_gen.random()


def test_mt_choices_inplace_refuses_what_it_cannot_draw_from_and_leaves_it_untouched():
    gen = random.Random(4)
    state = gen.getstate()
    assert _core.mt_choices_inplace(gen, 0, 3) is None  # nothing to draw from
    assert _core.mt_choices_inplace(gen, 5, -1) is None
    assert gen.getstate() == state
    assert _core.mt_choices_inplace(object(), 5, 3) is None  # not a generator of the random module
    assert _core.mt_choices_inplace(3, 5, 3) is None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(list_pairs(), st.integers(0, 2**32), st.integers(1, 5000), st.sampled_from([1, 2]))
def test_draw_distinct_counts_the_rows_random_choices_draws_and_advances_the_generator(pair, seed, k, threads):
    actual, predicted = pair
    rows = actual + predicted
    want_gen, gen = random.Random(seed), random.Random(seed)
    if not rows:
        assert _core.draw_distinct(gen, rows, k, threads) is None
        return
    want = len({x for row in want_gen.choices(rows, k=k) for x in row})
    assert _core.draw_distinct(gen, rows, k, threads) == want
    assert gen.getstate() == want_gen.getstate()


def test_draw_distinct_declines_and_leaves_the_generator_untouched():
    gen = random.Random(9)
    state = gen.getstate()
    assert _core.draw_distinct(gen, [[1], [2.0]], 50) is None  # a float id (2.0 == 2): the caller's set
    assert _core.draw_distinct(gen, [[1], "ab"], 50) is None  # a str row
    assert _core.draw_distinct(gen, ([1], [2]), 5) is None  # not a list
    assert _core.draw_distinct(gen, [[1]], 0) is None
    assert gen.getstate() == state
    assert _core.draw_distinct(object(), [[1]], 3) is None


def test_distinct_ids_counts_ids_shared_or_not_across_calls_of_any_size():
    # the per-thread sets are kept between calls: a call never sees a former call's ids, whatever the sizes
    # (a large call whose sets are given back after it, then small ones), the id objects shared (a vocabulary,
    # skipped by address) or each of their own (read one by one once most of them are new), in any order
    g = np.random.default_rng(11)
    vocab = [f"w{i}" for i in range(3000)] + list(range(60_000, 63_000)) + ["é" * 3, "😀x", ""]

    def own(x):  # an equal, distinct object
        return (x + "!")[:-1] if isinstance(x, str) else int(str(x))

    shared = [[vocab[i] for i in g.integers(0, len(vocab), 10)] for _ in range(3000)]
    fresh = [[own(x) for x in row] for row in shared[:1500]]
    big = [[f"b{i}" for i in range(j, j + 50)] for j in range(0, 100_000, 50)]  # 100,000 distinct
    cases = [shared, fresh, shared + fresh, fresh + shared, big, shared[:5], [], [[]], fresh[:3], big[:4]]
    for threads in (1, 2, 3):
        for rows in cases:
            assert _core.distinct_ids(rows, threads) == len({x for row in rows for x in row})
            pick = g.integers(0, max(len(rows), 1), 20_000 if len(rows) > 100 else 7)
            if rows:
                want = len({x for i in pick.tolist() for x in rows[i]})
                assert _core.distinct_ids(rows, threads, pick=pick) == want


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.text(max_size=12), min_size=1, max_size=40),
    st.lists(st.lists(st.integers(0, 39), max_size=12), max_size=600),
    st.booleans(),
    st.sampled_from([1, 2]),
)
def test_distinct_ids_of_str_of_every_kind_and_length_counts_as_a_set(words, rows_at, copies, threads):
    # str of 0 to 12 code points of any kind (each length's last bytes read apart), listed as one object each or
    # as equal copies
    def obj(w):
        return (w + "!")[:-1] if copies else w

    rows = [[obj(words[i % len(words)]) for i in r] for r in rows_at]
    assert _core.distinct_ids(rows, threads) == len({x for row in rows for x in row})


def test_mt_choices_is_random_choices_from_any_state_and_refuses_other_states():
    for seed in range(40):
        random.seed(seed)
        for _ in range(seed * 31):
            random.random()
        state = random.getstate()
        n = 1 + seed * 997
        want = random.choices(range(n), k=700)
        drawn = _core.mt_choices(state[1], n, 700)
        assert drawn is not None
        positions, after = drawn
        assert positions.tolist() == want
        assert after == random.getstate()[1]
    internal = random.getstate()[1]
    assert _core.mt_choices(internal[:-1], 5, 3) is None  # not 625 words
    assert _core.mt_choices((*internal[:-1], 625), 5, 3) is None  # a position past the block
    assert _core.mt_choices((2**32, *internal[1:]), 5, 3) is None  # a word over 32 bits
    assert _core.mt_choices(internal, 0, 3) is None  # nothing to draw from


@pytest.mark.parametrize("threads", [1, 2])
def test_distinct_ids_of_picked_rows_counts_each_picked_row_once(threads):
    g = np.random.default_rng(4)
    rows = [[f"s{v}" if v % 3 else int(v) for v in g.integers(0, 3000, int(g.integers(0, 12)))] for _ in range(5000)]
    for size in (0, 1, 700, 20_000):
        pick = g.integers(0, len(rows), size)
        want = len({x for i in pick.tolist() for x in rows[i]})
        assert _core.distinct_ids(rows, threads, pick=pick) == want
    with pytest.raises(IndexError):
        _core.distinct_ids(rows, threads, pick=np.array([5000]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(list_pairs(), st.sampled_from([1, 2, 3, 10, 64, 65, 200, 0, -1, -3, True, 2.5]))
def test_apk_of_one_user_equals_the_originals_loop_bit_for_bit(pair, k):
    # the C function for plain short lists, the original's Python code for the rest (k not a positive int,
    # lists longer than 64, tuples, ids of other types): the same value either way
    actual, predicted = pair
    for a, p in zip(actual, predicted):
        try:
            want = _loop(a, p, k, True, 1.0)
        except (ZeroDivisionError, TypeError) as e:  # k = 0 and a list to divide; a float k slicing
            with pytest.raises(type(e)):
                ml_metrics.apk(a, p, k)
            continue
        assert ml_metrics.apk(a, p, k) == want


def test_apk_c_function_answers_plain_lists_and_declines_the_rest():
    assert _core.apk_one([1, "a"], ["a", 2, 1], 10) == _loop([1, "a"], ["a", 2, 1], 10, True, 1.0)
    assert _core.apk_one((1, 2), (2, 2, 1), 2) == _loop([1, 2], [2, 2, 1], 2, True, 1.0)
    assert _core.apk_one([], [1.5], 3) is None  # a float id: Python's code (1.0 == 1)
    assert _core.apk_one([1], [1], True) is None  # k a bool
    assert _core.apk_one([1], [1], 0) is None  # k below 1: the original slices from the end
    assert _core.apk_one([1], [1], 2**70) is None  # k beyond int64
    assert _core.apk_one("ab", ["a"], 3) is None  # a str actual (substring membership)
    assert _core.apk_one(list(range(65)), [1], 3) is None  # more than 64 actual ids
    with pytest.raises(TypeError):
        _core.apk_one([1], [1])  # type: ignore[call-arg]
