"""miscalibration (Steck 2018) against the plain-Python reference (tests/support/reference_calibration.py) on
hypothesis-generated data: empty histories, users missing on either side, empty and short lists, items
without a category (absent or an empty list), multi-category items, duplicates in lists and histories, int
and str ids, every rank weight and thread count; plus the forms and errors of ``item_categories=``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.support import reference_calibration as rc
from tests.support.same import close

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# every rank weight, at a cutoff, at 1 and over whole lists
CALIBRATION_DETERMINISM = [
    "miscalibration@10",
    "miscalibration@1",
    "miscalibration",
    "miscalibration(rank_weight=reciprocal)@5",
    "miscalibration(rank_weight=log2,alpha=0.2)@5",
]


@st.composite
def calibration_case(draw):
    as_str = draw(st.booleans())
    uid = (lambda u: f"u{u}") if as_str else (lambda u: u)
    iid = (lambda i: f"i{i}") if as_str else (lambda i: i)
    n_items = draw(st.integers(1, 10))
    genres = draw(st.sampled_from([["a", "b", "c", "d"], [0, 1, 2], [7]]))
    cats: dict = {}
    for i in range(n_items + 2):  # two more items than the lists and histories read: unknown items are fine
        kind = draw(st.sampled_from(["none", "empty", "one", "many"]))
        if kind == "empty":
            cats[iid(i)] = []
        elif kind == "one":
            cats[iid(i)] = draw(st.sampled_from(genres))
        elif kind == "many":
            cats[iid(i)] = draw(st.lists(st.sampled_from(genres), min_size=1, max_size=3, unique=True))
    train = {
        uid(u): [iid(draw(st.integers(0, n_items - 1))) for _ in range(draw(st.integers(0, 6)))]  # repeats too
        for u in draw(st.lists(st.integers(0, 6), max_size=6, unique=True))
    }
    # user 0 on both sides (a call without a shared user is an error); the others on either side or both
    truth = {uid(u): {iid(0): 1.0} for u in {0, *draw(st.lists(st.integers(0, 6), max_size=6))}}
    dup = draw(st.sampled_from(["error", "first", "count"]))
    recs = {}
    for u in {0, *draw(st.lists(st.integers(0, 6), max_size=6))}:
        lst = draw(st.lists(st.integers(0, n_items - 1), max_size=8, unique=dup == "error"))
        recs[uid(u)] = [iid(i) for i in lst]
    k = draw(st.sampled_from([None, 1, 3, 20]))
    alpha = draw(st.sampled_from([0.01, 0.5, 1.0]))
    weight = draw(st.sampled_from(["none", "reciprocal", "log2"]))
    threads = draw(st.sampled_from([1, 2, 3]))
    return truth, recs, train, cats, k, alpha, weight, dup, threads


def _first(lst):
    return list(dict.fromkeys(lst))


@SETTINGS
@given(calibration_case())
def test_miscalibration_matches_the_reference(case):
    truth, recs, train, cats, k, alpha, weight, dup, threads = case
    name = f"miscalibration(alpha={alpha},rank_weight={weight})" + (f"@{k}" if k else "")
    res = rm.evaluate(
        truth, recs, [name], train=train, item_categories=cats, duplicates=dup, threads=threads, missing="zero"
    )
    got = res.per_user[name]
    want = []
    for u in res.users.tolist():
        lst = recs.get(u, [])
        if dup == "first":
            lst = _first(lst)
        want.append(rc.miscalibration(lst, k, train.get(u, []), cats, alpha, weight))
    for u, g, w in zip(res.users.tolist(), got, want):
        if w is None:
            assert math.isnan(g), (u, g)
        else:
            assert close(g, w, rel=1e-12, abs_tol=1e-12), (u, g, w)
    defined = [w for w in want if w is not None]
    if defined:
        assert close(res[name], math.fsum(defined) / len(defined), rel=1e-12, abs_tol=1e-12)
    else:
        assert math.isnan(res[name])


def test_worked_example_by_hand():
    """u1's history a (x), b (x and y), c (y): p = (x 1/2, y 1/2); its top 3 a (x), d (z), e (no category):
    q = (x 1/2, z 1/2); C = 1/2 log(1/2 / (0.99/2 + 0.01/2)) + 1/2 log(1/2 / (0.01/2)) = log(100) / 2."""
    train = {"u1": ["a", "b", "c", "b"], "u2": ["a"], "u3": []}
    cats = {"a": "x", "b": ["x", "y"], "c": "y", "d": "z", "e": []}
    truth = {"u1": {"a": 1}, "u2": {"b": 1}, "u3": {"a": 1}, "u4": {"a": 1}}
    recs = {"u1": ["a", "d", "e"], "u2": ["c"], "u3": ["a"], "u4": []}
    res = rm.evaluate(truth, recs, ["miscalibration@3"], train=train, item_categories=cats)
    v = dict(zip(res.users.tolist(), res.per_user["miscalibration@3"].tolist()))
    assert close(v["u1"], math.log(100) / 2)
    assert close(v["u2"], math.log(100))  # p = x only; q = y only: q~(x) = alpha
    assert math.isnan(v["u3"]) and math.isnan(v["u4"])  # no history; an empty list
    assert close(res["miscalibration@3"], 1.5 * math.log(100) / 2)


def test_rank_weights_are_one_over_rank_and_over_log2():
    # history: half x, half y; list [x-item, y-item]: q(x) = w1 / (w1 + w2)
    train = {1: [1, 2]}
    cats = {1: "x", 2: "y"}
    for weight, w in (("none", (1, 1)), ("reciprocal", (1, 1 / 2)), ("log2", (1, 1 / math.log2(3)))):
        name = f"miscalibration(rank_weight={weight},alpha=0.1)"
        got = rm.evaluate({1: {1: 1}}, {1: [1, 2]}, [name], train=train, item_categories=cats)[name]
        qx, qy = w[0] / sum(w), w[1] / sum(w)
        want = sum(0.5 * math.log(0.5 / (0.9 * q + 0.05)) for q in (qx, qy))
        assert close(got, want), weight


def test_calibrated_list_scores_zero_and_alias_reads_the_same():
    train = {1: [1, 2, 3, 4]}
    cats = {1: "x", 2: "x", 3: "y", 4: ["x", "y"]}  # p = (x 5/8, y 3/8)
    res = rm.evaluate(
        {1: {1: 1}}, {1: [4, 1, 2, 3]}, ["miscalibration", "calibration"], train=train, item_categories=cats
    )
    assert 0.0 <= res["miscalibration"] < 1e-15  # 0 up to the rounding of p and q
    assert res["calibration"] == res["miscalibration"]


def test_values_do_not_depend_on_row_order_or_threads():
    rng = np.random.default_rng(7)
    n_users, n_items = 3000, 300
    genres = [f"g{j}" for j in range(20)]
    cats = {i: list(rng.choice(genres, rng.integers(1, 4), replace=False)) for i in range(n_items) if i % 7}
    train_rows = [(u, int(i)) for u in range(n_users) for i in rng.integers(0, n_items, rng.integers(0, 30))]
    recs = {u: [int(i) for i in rng.permutation(n_items)[: rng.integers(0, 15)]] for u in range(n_users)}
    truth = {u: {0: 1.0} for u in range(n_users)}
    tr = pd.DataFrame(train_rows, columns=["user_id", "item_id"])
    cat_rows = pd.DataFrame([(i, g) for i, gs in cats.items() for g in gs], columns=["item_id", "genre"])
    base = rm.evaluate(truth, recs, CALIBRATION_DETERMINISM, train=tr, item_categories=cat_rows, threads=1)
    perm = np.random.default_rng(8).permutation(len(tr))
    shuffled = rm.evaluate(
        truth,
        recs,
        CALIBRATION_DETERMINISM,
        train=tr.iloc[perm],
        item_categories=cat_rows.iloc[::-1],
        threads=1,
    )
    for threads in (2, 3, 4):
        res = rm.evaluate(truth, recs, CALIBRATION_DETERMINISM, train=tr, item_categories=cats, threads=threads)
        for n in CALIBRATION_DETERMINISM:
            assert np.array_equal(res.per_user[n], base.per_user[n], equal_nan=True), (n, threads)
            assert res[n] == base[n]
    for n in CALIBRATION_DETERMINISM:
        assert np.array_equal(shuffled.per_user[n], base.per_user[n], equal_nan=True), n
    # two batches of users, merged in either order: the one-call means, bit for bit
    halves = [{u: truth[u] for u in range(n_users) if u % 2 == b} for b in (0, 1)]
    a, b = (rm.partial(h, recs, CALIBRATION_DETERMINISM, train=tr, item_categories=cats) for h in halves)
    for merged in (a.merge(b).finalize(), b.merge(a).finalize()):
        for n in CALIBRATION_DETERMINISM:
            assert merged[n] == base[n], n


# ----------------------------------------------------------------------------- forms and errors
TRAIN = {"u1": ["a", "b", "c"]}
TRUTH = {"u1": {"a": 1}}
RECS = {"u1": ["a", "c", "z"]}
CATS = {"a": "x", "b": ["x", "y"], "c": "y"}


def _value(item_categories, **kw):
    return rm.evaluate(TRUTH, RECS, ["miscalibration@3"], train=TRAIN, item_categories=item_categories, **kw)[
        "miscalibration@3"
    ]


@pytest.mark.parametrize(
    "form",
    [
        pd.DataFrame({"item_id": ["a", "b", "b", "c"], "category": ["x", "x", "y", "y"]}),
        pd.DataFrame({"item": ["a", "b", "c"], "genres": [["x"], ["x", "y"], ["y"]]}),
        {"item_id": ["a", "b", "b", "c"], "genre": ["x", "x", "y", "y"]},
        (["a", "b", "b", "c"], ["x", "x", "y", "y"]),
        pd.Series({"a": "x", "b": ["x", "y"], "c": "y"}),
        {"a": ["x"], "b": ("y", "x"), "c": {"y"}, "q": []},
    ],
    ids=["long-table", "list-column", "dict-of-columns", "pair", "series", "dict-of-lists"],
)
def test_every_form_of_item_categories_reads_the_same(form):
    assert _value(form) == _value(CATS)


def test_item_col_names_the_item_column_of_item_categories():
    t = pd.DataFrame({"iid": ["a", "b", "b", "c"], "category": ["x", "x", "y", "y"]})
    truth = pd.DataFrame({"iid": ["a"], "user_id": ["u1"]})
    recs = pd.DataFrame({"user_id": ["u1"] * 3, "iid": ["a", "c", "z"], "rank": [1, 2, 3]})
    train = pd.DataFrame({"user_id": ["u1"] * 3, "iid": ["a", "b", "c"]})
    got = rm.evaluate(truth, recs, ["miscalibration@3"], train=train, item_categories=t, item_col="iid")
    assert got["miscalibration@3"] == _value(CATS)


def test_metric_without_item_categories_or_train_names_the_argument():
    with pytest.raises(ValueError, match="needs `item_categories`"):
        rm.evaluate(TRUTH, RECS, ["miscalibration@3"], train=TRAIN)
    with pytest.raises(ValueError, match="needs `train`"):
        rm.evaluate(TRUTH, RECS, ["miscalibration@3"], item_categories=CATS)


@pytest.mark.parametrize(
    "bad, err, match",
    [
        ({"a": None}, TypeError, "item 'a' has category None"),
        ({"a": float("nan")}, TypeError, "item 'a' has category nan"),
        ({"a": ["x", None]}, TypeError, "item 'a' has category None"),
        ({"a": 1.5}, TypeError, "categories must be strings or ints"),
        ({"a": ["x", 1]}, TypeError, "category ids mix ints and strings"),
        ({"a": ["x", "x"]}, ValueError, "gives item 'a' category 'x' more than once"),
        (pd.DataFrame({"item_id": ["a"], "colour": ["x"]}), ValueError, "has no category column"),
        (pd.DataFrame({"item_id": ["a", "b"], "category": ["x", None]}), TypeError, "item 'b' has category (None|nan)"),
        ({"a", "b"}, TypeError, "must be a dict item -> category"),
        ((["a", "b"], ["x"]), ValueError, "has 2 items but 1 categories"),
        ({1: "x"}, ValueError, "`item_categories` and `recs` item ids are of different kinds"),
    ],
)
def test_bad_item_categories_raise_before_work(bad, err, match):
    with pytest.raises(err, match=match):
        _value(bad)


@pytest.mark.parametrize("alpha", [0, -0.1, 1.5, "x"])
def test_alpha_outside_0_1_is_refused(alpha):
    with pytest.raises((ValueError, TypeError), match="alpha"):
        rm.evaluate(TRUTH, RECS, [f"miscalibration(alpha={alpha})"], train=TRAIN, item_categories=CATS)


def test_many_categories_per_item_take_the_sorted_path_and_match_the_reference():
    # items of 23, 29, ..., 53 categories: the lcm of the counts passes 2^40, so p is summed per (category, count)
    # pair instead of in integers; the values still match the reference and do not depend on the row order
    primes = [23, 29, 31, 37, 41, 43, 47, 53]
    cats: dict = {i: [f"g{(i * 7 + j) % 60}" for j in range(m)] for i, m in enumerate(primes)}
    cats[8] = "g1"
    train = {1: list(range(9)), 2: [8, 3], 3: [5]}
    recs = {1: [0, 8, 4], 2: [1, 2, 3, 8], 3: [8]}
    truth = {u: {0: 1.0} for u in recs}
    for order in (1, -1):
        tr = {u: h[::order] for u, h in train.items()}
        res = rm.evaluate(truth, recs, ["miscalibration(rank_weight=reciprocal)"], train=tr, item_categories=cats)
        got = res.per_user["miscalibration(rank_weight=reciprocal)"]
        for u, g in zip(res.users.tolist(), got):
            assert close(g, rc.miscalibration(recs[u], None, train[u], cats, 0.01, "reciprocal"), rel=1e-12), u


@pytest.mark.parametrize("n_genres", [5, 64, 80])  # <= 64: one category mask per item; 80: the general path
@pytest.mark.parametrize("seed", range(4))
def test_long_histories_with_repeats_and_many_genres_match_the_reference(n_genres, seed):
    rng = np.random.default_rng(seed)
    n_items = 150
    cats: dict = {}
    for i in range(n_items):
        m = int(rng.integers(0, 4))  # 0: an item given with no category
        cats[i] = [int(g) for g in rng.choice(n_genres, size=m, replace=False)]
    # histories of 0-130 items with repeats (up to 64 the repeats are found by a 64-bit filter and a scan of the
    # items kept, past 64 by a sort), items beyond the table
    train = {u: rng.integers(0, n_items + 5, int(rng.integers(0, 131))).tolist() for u in range(40)}
    recs = {u: rng.choice(n_items + 5, size=int(rng.integers(0, 16)), replace=False).tolist() for u in range(40)}
    truth = {u: {0: 1.0} for u in range(40)}
    for weight in ["none", "log2"]:
        name = f"miscalibration(rank_weight={weight})@10"
        for threads in (1, 2):
            res = rm.evaluate(truth, recs, [name], train=train, item_categories=cats, threads=threads)
            for u, g in zip(res.users.tolist(), res.per_user[name]):
                w = rc.miscalibration(recs[u], 10, train[u], cats, 0.01, weight)
                assert (w is None and math.isnan(g)) or close(g, w, rel=1e-12, abs_tol=1e-12), (u, g, w)
