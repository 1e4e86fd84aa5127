"""Public API: one hand-computed example through every accepted input form and id kind, user
alignment, the Result object, metric objects and shortcuts, presets, options. Expected numbers are
computed by hand in the comments (the metric grammar: tests/metrics/test_grammar.py; the TREC
readers: tests/inputs/test_trec_read.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rankmeter as rm
from rankmeter import metrics as M

LOG2_3 = math.log2(3)

# --------------------------------------------------------------------------- a small hand-computed example
# users 0, 1, 2 (positional) / "a", "b", "c" (keyed)
#   u0 truth {10:2, 11:1, 12:0}  list [11, 99, 10, 12]   hits at 1, 3; |R| = 2
#   u1 truth {20:3}              list [21, 22]           no hit
#   u2 truth {30:1, 31:1}        list [31]               hit at 1; |R| = 2
TRUTH_ITEMS = [[10, 11, 12], [20], [30, 31]]
TRUTH_GRADES = [[2.0, 1.0, 0.0], [3.0], [1.0, 1.0]]
RECS_ITEMS = [[11, 99, 10, 12], [21, 22], [31]]
EXPECTED = {
    "precision@2": [1 / 2, 0.0, 1 / 2],
    "recall@2": [1 / 2, 0.0, 1 / 2],
    "ap": [(1 + 2 / 3) / 2, 0.0, 1 / 2],
    "map@3": [(1 + 2 / 3) / 2, 0.0, 1 / 2],
    "rr": [1.0, 0.0, 1.0],
    "hits": [2.0, 0.0, 1.0],
    # dcg@3 = g(11) + g(99)/log2 3 + g(10)/log2 4; ideal 2, 1, 0
    "ndcg@3": [(1 + 2 / 2) / (2 + 1 / LOG2_3), 0.0, 1 / (1 + 1 / LOG2_3)],
    "dcg@3": [1 + 2 / 2, 0.0, 1.0],
    "cg": [3.0, 0.0, 1.0],
}
METRICS = list(EXPECTED)


def _grade_dict(items, grades):
    return dict(zip(items, grades))


def check_expected(res):
    for m, vals in EXPECTED.items():
        assert res.per_user[m].tolist() == pytest.approx(vals, abs=1e-15), m
        assert res[m] == pytest.approx(math.fsum(vals) / 3, abs=1e-15), m
    assert res.meta["n_users"] == 3


def _forms():
    ti, tg, ri = TRUTH_ITEMS, TRUTH_GRADES, RECS_ITEMS
    t_indptr = np.array([0, 3, 4, 6])
    t_items = np.array(sum(ti, []))
    t_grades = np.array(sum(tg, []))
    r_indptr = np.array([0, 4, 6, 7])
    r_items = np.array(sum(ri, []))
    padded = np.full((3, 5), -1)
    for u, row in enumerate(ri):
        padded[u, : len(row)] = row
    dict_truth = {u: _grade_dict(ti[u], tg[u]) for u in range(3)}
    yield "dict/dict-of-lists", dict_truth, {u: ri[u] for u in range(3)}
    yield "dict/dict-of-scores", dict_truth, {u: {it: 10.0 - j for j, it in enumerate(ri[u])} for u in range(3)}
    # scores given in another order than the ranking
    yield (
        "dict/dict-of-scores-shuffled",
        dict_truth,
        {u: dict(reversed([(it, 10.0 - j) for j, it in enumerate(ri[u])])) for u in range(3)},
    )
    yield "lists/lists", rm.Truth.from_lists(ti, tg), ri
    yield "lists-tuples/lists", rm.Truth.from_lists([tuple(r) for r in ti], tg), [tuple(r) for r in ri]
    yield "csr/csr", (t_indptr, t_items, t_grades), (r_indptr, r_items)
    yield "csr/padded", (t_indptr, t_items, t_grades), padded
    yield "csr/from_array", rm.Truth.from_csr(t_indptr, t_items, t_grades), rm.Recs.from_array(padded)
    yield (
        "csr/from_array-pad0",
        (t_indptr, t_items, t_grades),
        rm.Recs.from_array(np.where(padded == -1, 0, padded), pad=0),
    )
    yield (
        "csr/from_array-pad-big",
        (t_indptr, t_items, t_grades),
        rm.Recs.from_array(np.where(padded == -1, 10**15, padded), pad=10**15),
    )
    yield "csr/from_csr", rm.Truth.from_csr(t_indptr, t_items, t_grades), rm.Recs.from_csr(r_indptr, r_items)
    yield (
        "csr-users/from_csr-users",
        rm.Truth.from_csr(t_indptr, t_items, t_grades, users=[0, 1, 2]),
        rm.Recs.from_csr(r_indptr, r_items, users=[0, 1, 2]),
    )
    yield (
        "csr/by_score",
        (t_indptr, t_items, t_grades),
        rm.Recs.from_csr(r_indptr, r_items, -np.arange(7.0), by_score=True),
    )
    yield (
        "csr/csr-int32",
        (t_indptr.astype(np.int32), t_items.astype(np.int32), t_grades.astype(np.float32)),
        (r_indptr.astype(np.int32), r_items.astype(np.int32)),
    )
    yield (
        "csr-uint64/csr-uint64",
        (t_indptr, t_items.astype(np.uint64), t_grades),
        (r_indptr.astype(np.uint32), r_items.astype(np.uint64)),
    )
    yield (
        "csr/padded-uint64",
        (t_indptr, t_items, t_grades),
        rm.Recs.from_array(np.where(padded == -1, 2**40, padded).astype(np.uint64), pad=2**40),
    )
    yield (
        "csr/padded-uint16",
        (t_indptr, t_items.astype(np.uint16), t_grades),
        rm.Recs.from_array(np.where(padded == -1, 65535, padded).astype(np.uint16), pad=65535),
    )
    # keyed recs joined to positional truth (users 0..n-1), in another order, with an extra recs user
    yield "lists/keyed-dict", rm.Truth.from_lists(ti, tg), {2: ri[2], 7: [1, 2], 0: ri[0], 1: ri[1]}
    yield "lists/keyed-array", rm.Truth.from_lists(ti, tg), rm.Recs.from_array(padded[::-1], users=[2, 1, 0])
    yield "keyed-dict/positional-lists", dict_truth, ri
    # numpy integer user ids on either side
    yield (
        "np-user-ids",
        {np.int64(u): _grade_dict(ti[u], tg[u]) for u in range(3)},
        {np.int32(u): ri[u] for u in range(3)},
    )


FORM_IDS = [f[0] for f in _forms()]


@pytest.mark.parametrize("form", FORM_IDS)
def test_input_forms(form):
    _, truth, recs = next(f for f in _forms() if f[0] == form)
    res = rm.evaluate(truth, recs, METRICS)
    check_expected(res)
    assert list(np.asarray(res.users).tolist()) == [0, 1, 2]


def _mapped_forms(f_item, f_user):
    """The example with ids mapped by f_item / f_user, as dicts and as CSR."""
    ti, tg, ri = TRUTH_ITEMS, TRUTH_GRADES, RECS_ITEMS
    truth = {f_user(u): {f_item(i): g for i, g in zip(ti[u], tg[u])} for u in range(3)}
    recs = {f_user(u): [f_item(i) for i in ri[u]] for u in range(3)}
    return truth, recs


@pytest.mark.parametrize(
    "name, f_item, f_user",
    [
        ("strings", lambda i: f"item-{i}", lambda u: "abc"[u]),
        ("huge-int64", lambda i: 2**62 + i * 2**40, lambda u: -(2**63) + u),
        ("negative", lambda i: -i * 1_000_003, lambda u: -u - 1),
        ("near-int64-max", lambda i: 2**63 - 1 - i, lambda u: 2**63 - 1 - u),
        ("mixed-int-str", lambda i: str(i) if i % 2 else i, lambda u: [0, "1", 2][u]),
        ("big-python-ints", lambda i: 2**64 + i, lambda u: 2**70 + u),
    ],
)
def test_id_kinds_give_same_numbers(name, f_item, f_user):
    truth, recs = _mapped_forms(f_item, f_user)
    res = rm.evaluate(truth, recs, METRICS)
    check_expected(res)
    assert list(res.users.tolist()) == [f_user(u) for u in range(3)]


def test_huge_int64_csr_same_as_small_ids():
    # the same example from int64 CSR buffers whose ids span the whole int64 range
    small_t = sum(TRUTH_ITEMS, [])
    small_r = sum(RECS_ITEMS, [])
    ids = sorted(set(small_t) | set(small_r))
    huge = [2**62, -(2**62), 2**63 - 1, -(2**63), 123, -5, 2**40 + 7, 2**33, -1, 0, 2**62 + 1, -(2**63) + 1]
    assert len(ids) <= len(huge)
    mapping = dict(zip(ids, huge))
    t = (
        np.array([0, 3, 4, 6]),
        np.array([mapping[i] for i in small_t], dtype=np.int64),
        np.array(sum(TRUTH_GRADES, [])),
    )
    r = (np.array([0, 4, 6, 7]), np.array([mapping[i] for i in small_r], dtype=np.int64))
    check_expected(rm.evaluate(t, r, METRICS))
    # -1 as an item id in a CSR list is an item, not padding
    assert rm.evaluate([[-1]], (np.array([0, 2]), np.array([5, -1])), ["rr"])["rr"] == 0.5


def test_tuple_ids_work_or_raise_cleanly():
    # ids are ints or strings; other hashables (tuples) either work or are a clean error
    truth, recs = _mapped_forms(lambda i: ("it", i), lambda u: ("us", u))
    try:
        res = rm.evaluate(truth, recs, METRICS)
    except (TypeError, ValueError):
        return
    check_expected(res)


def test_int_and_str_ids_are_different_items():
    # truth {1, "1"}; list ["1", 2, 1]: hits at 1 and 3 -> ap = (1 + 2/3) / 2
    res = rm.evaluate({0: [1, "1"]}, {0: ["1", 2, 1]}, ["ap", "hits", "precision@1"])
    assert res["hits"] == 2.0
    assert res["ap"] == pytest.approx((1 + 2 / 3) / 2, abs=1e-15)
    # all-int truth items against all-str recs items can never match: an error (docs/metrics.md §5)
    with pytest.raises(ValueError, match=r"item ids are of different kinds"):
        rm.evaluate({0: [1]}, {0: ["1"]}, ["hits", "rr"])
    res = rm.evaluate({0: ["1"]}, {0: [1, "1"]}, ["rr"])
    assert res["rr"] == 0.5
    # users too: int 1 and str "1" are different users
    res = rm.evaluate({1: ["a"], "1": ["b"]}, {"1": ["a"], 1: ["a"]}, ["rr"])
    assert res.users.tolist() == [1, "1"]
    assert res.per_user["rr"].tolist() == [1.0, 0.0]


def test_numpy_unsigned_ids_beyond_int64():
    # uint64 ids above int64 max take the general path
    big = np.array([2**64 - 1, 2**63, 5], dtype=np.uint64)
    truth = rm.Truth.from_csr(np.array([0, 2]), big[:2])
    recs = rm.Recs.from_csr(np.array([0, 3]), np.array([5, 2**63, 2**64 - 1], dtype=np.uint64))
    res = rm.evaluate(truth, recs, ["ap", "rr", "hits"])
    assert res["rr"] == 0.5
    assert res["hits"] == 2.0
    assert res["ap"] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-15)


def test_string_user_ids_insertion_order_and_per_user_alignment():
    truth = {"zed": {"a": 1}, "alpha": {"b": 1, "c": 1}, "mid": {"x": 0}, "beta": {"q": 1}}
    recs = {"alpha": ["c", "y"], "ghost": ["a"], "zed": ["n", "a"], "mid": ["x"]}
    res = rm.evaluate(truth, recs, ["rr", "recall@2", "precision@2"])
    assert res.users.tolist() == ["zed", "alpha", "mid", "beta"]
    rr = res.per_user["rr"]
    assert rr.dtype == np.float64 and rr.shape == (4,)
    assert rr[0] == 0.5 and rr[1] == 1.0 and math.isnan(rr[2]) and rr[3] == 0.0
    assert res.per_user["recall@2"].tolist()[:2] == [1.0, 0.5]
    assert res.meta == {"n_users": 4, "n_skipped": 1, "n_missing_recs": 1, "n_ignored_recs": 1, "n_tied_users": 0}
    assert res["rr"] == pytest.approx(1.5 / 3, abs=1e-15)
    assert res["precision@2"] == pytest.approx((0.5 + 0.5 + 0.0) / 3, abs=1e-15)


# --------------------------------------------------------------------------- Result API
@pytest.fixture
def result():
    truth = {"u1": {"a": 1, "b": 1}, "u2": {"c": 1}, "u3": {"z": 0}}
    recs = {"u1": ["a", "x", "b"], "u2": ["d", "c"], "u4": ["a"]}
    return rm.evaluate(truth, recs, ["map@3", "NDCG@2", M.RR(), "precision@2", "ap@3"])


def test_result_lookup_by_passed_canonical_and_object(result):
    # u1: ap@3 = (1 + 2/3)/2, u2: ap@3 = (1/2)/1
    expected_ap = math.fsum([(1 + 2 / 3) / 2, 0.5]) / 2
    for key in ("map@3", "ap@3", "MAP@3", " map @ 3", M.AP(k=3), M.parse("map@3")):
        assert result[key] == expected_ap, key
        assert key in result
    # ndcg@2: u1 [a, x] -> 1 / (1 + 1/log2 3); u2 [d, c] -> (1/log2 3) / 1
    expected_ndcg = (1 / (1 + 1 / LOG2_3) + 1 / LOG2_3) / 2
    for key in ("NDCG@2", "ndcg@2", M.NDCG(k=2)):
        assert result[key] == pytest.approx(expected_ndcg, abs=1e-15)
    assert result["rr"] == result["mrr"] == result[M.MRR()] == (1.0 + 0.5) / 2
    for key in ("ndcg@3", "recall@2", M.AP(k=2), "ap(denominator=hits)@3", "nonsense((", 5):
        with pytest.raises(KeyError):
            result[key]
        assert key not in result


def test_result_keys_per_user_meta(result):
    assert result.keys() == ["map@3", "NDCG@2", "rr", "precision@2", "ap@3"]
    assert list(result) == result.keys()
    assert len(result) == 5
    assert list(result.per_user) == result.keys()
    assert result.users.tolist() == ["u1", "u2", "u3"]
    for key in result.keys():  # noqa: SIM118 - Result.keys() is the API under test
        v = result.per_user[key]
        assert v.shape == (3,) and v.dtype == np.float64
        assert math.isnan(v[2])
    assert result.per_user["map@3"] is not None
    assert np.array_equal(result.per_user["map@3"], result.per_user["ap@3"], equal_nan=True)
    assert np.array_equal(result.per_user[M.AP(k=3)], result.per_user["map@3"], equal_nan=True)
    # u3 has no recs (missing), u4 is not in the truth (ignored), u3 has no relevant item (skipped)
    assert result.meta == {"n_users": 3, "n_skipped": 1, "n_missing_recs": 1, "n_ignored_recs": 1, "n_tied_users": 0}
    assert result.means == {k: result[k] for k in result.keys()}  # noqa: SIM118 - as above
    text = repr(result)
    assert "3 users" in text and "1 skipped" in text and "map@3" in text and "NDCG@2" in text


def test_meta_missing_recs_and_empty_policies():
    truth = {1: [5], 2: [6], 3: {7: 0}, 4: []}
    recs = {1: [5], 9: [6], 10: [1]}
    skip = rm.evaluate(truth, recs, ["rr", "precision@1"])
    assert skip.meta == {"n_users": 4, "n_skipped": 2, "n_missing_recs": 3, "n_ignored_recs": 2, "n_tied_users": 0}
    assert skip.per_user["rr"].tolist()[:2] == [1.0, 0.0]
    assert skip["rr"] == 0.5
    zero = rm.evaluate(truth, recs, ["rr", "precision@1"], empty="zero")
    assert zero.meta["n_skipped"] == 0
    assert zero.per_user["rr"].tolist() == [1.0, 0.0, 0.0, 0.0]
    assert zero["rr"] == 0.25
    one = rm.evaluate(truth, recs, ["rr", "precision@1", "hits"], empty="one")
    assert one.per_user["rr"].tolist() == [1.0, 0.0, 1.0, 1.0]
    assert one.per_user["hits"].tolist() == [1.0, 0.0, 0.0, 0.0]  # a count is not replaced


def test_to_pandas(result):
    pd = pytest.importorskip("pandas")
    df = result.to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert df.shape == (3, 5)
    assert list(df.columns) == result.keys()
    assert list(df.index) == ["u1", "u2", "u3"]
    assert np.array_equal(df["map@3"].to_numpy(), result.per_user["map@3"], equal_nan=True)


def test_zero_users():
    for truth, recs in [({}, {}), ([], []), ({}, {"u": ["a"]}), ((np.array([0]), np.array([], dtype=np.int64)), [])]:
        res = rm.evaluate(truth, recs, ["ap", "ndcg@3", "hits"])
        assert math.isnan(res["ap"]) and math.isnan(res["ndcg@3"]) and math.isnan(res["hits"])
        assert res.per_user["ap"].shape == (0,) and res.per_user["ap"].dtype == np.float64
        assert len(res.users) == 0
        assert res.meta["n_users"] == 0
        st = rm.partial(truth, recs, ["ap"])
        assert math.isnan(st.finalize()["ap"])
    assert rm.evaluate({}, {"u": ["a"]}, ["ap"]).meta["n_ignored_recs"] == 1


def test_all_users_skipped_gives_nan():
    res = rm.evaluate({"u": {"a": 0}, "v": []}, {"u": ["a"]}, ["ap", "hits"])
    assert math.isnan(res["ap"]) and math.isnan(res["hits"])
    assert res.meta["n_skipped"] == 2


# --------------------------------------------------------------------------- metric objects in evaluate, shortcuts
def test_metric_objects_in_evaluate():
    truth, recs = {0: [1, 2]}, {0: [3, 1, 2]}
    res = rm.evaluate(truth, recs, [M.AP(k=2), M.NDCG(k=3, gain="binary"), M.FBeta(k=2, beta=0.5), M.parse("f1@2")])
    assert res[M.AP(k=2)] == 0.25  # (1/2) / 2
    # binary dcg@3 = 1/log2 3 + 1/2; ideal 1 + 1/log2 3
    assert res["ndcg(gain=binary)@3"] == pytest.approx((1 / LOG2_3 + 0.5) / (1 + 1 / LOG2_3), abs=1e-15)
    # P@2 = 1/2, R@2 = 1/2: every F-beta is 1/2
    assert res["fbeta(beta=0.5)@2"] == pytest.approx(0.5, abs=1e-15)
    assert res["f1@2"] == pytest.approx(0.5, abs=1e-15)
    assert res.keys() == ["ap@2", "ndcg(gain=binary)@3", "fbeta(beta=0.5)@2", "f1@2"]


def test_a_single_metric_string_or_object():
    res = rm.evaluate({0: [1]}, {0: [1]}, "rr")
    assert res["rr"] == 1.0 and res.keys() == ["rr"]
    res = rm.evaluate({0: [1]}, {0: [2, 1]}, M.RR())
    assert res["rr"] == 0.5


SHORTCUTS = [
    (rm.precision, "precision", {}),
    (rm.recall, "recall", {"denominator": "min_relevant_k"}),
    (rm.fbeta, "fbeta", {"beta": 0.5}),
    (rm.map, "ap", {"denominator": "hits"}),
    (rm.mar, "ar", {}),
    (rm.ndcg, "ndcg", {"gain": "exponential", "ideal": "all"}),
    (rm.dcg, "dcg", {"log_base": 10}),
    (rm.hit_rate, "hit_rate", {}),
    (rm.mrr, "rr", {}),
    (rm.arhr, "arhr", {}),
    (rm.hits, "hits", {}),
    (rm.cg, "cg", {"gain": "binary"}),
]


@pytest.fixture(scope="module")
def small_workload():
    rng = np.random.default_rng(42)
    truth, recs = {}, {}
    for u in range(300):
        items = rng.choice(40, rng.integers(0, 8), replace=False)
        truth[f"u{u}"] = {int(i): float(rng.integers(-1, 4)) for i in items}
        if rng.random() < 0.9:
            recs[f"u{u}"] = rng.choice(40, rng.integers(0, 12), replace=False).tolist()
    return truth, recs


@pytest.mark.parametrize("fn, name, options", SHORTCUTS, ids=[s[1] for s in SHORTCUTS])
@pytest.mark.parametrize("k", [None, 1, 5])
def test_shortcuts_match_evaluate(small_workload, fn, name, options, k):
    truth, recs = small_workload
    metric = M.Metric(name, k, **options)
    full = rm.evaluate(truth, recs, [metric])
    assert not math.isnan(full[metric])
    assert fn(truth, recs, k, **options) == full[metric]
    per_user = fn(truth, recs, k=k, aggregate=None, **options)
    assert isinstance(per_user, np.ndarray) and per_user.dtype == np.float64
    assert np.array_equal(per_user, full.per_user[metric], equal_nan=True)
    assert np.isnan(per_user).any()  # some users are skipped by the default empty="skip"
    # evaluate options pass through
    z = rm.evaluate(truth, recs, [metric], empty="zero", max_items=3, min_relevance=2)
    assert fn(truth, recs, k=k, empty="zero", max_items=3, min_relevance=2, **options) == z[metric]
    assert not np.isnan(fn(truth, recs, k=k, empty="zero", aggregate=None, **options)).any()
    assert fn(truth, recs, k=k, threads=1, **options) == full[metric]


def test_shortcuts_options_change_the_value():
    truth, recs = {0: {1: 3, 2: 1}}, {0: [2, 1]}
    # ndcg@2 linear: (1 + 3/log2 3) / (3 + 1/log2 3)
    assert rm.ndcg(truth, recs, k=2) == pytest.approx((1 + 3 / LOG2_3) / (3 + 1 / LOG2_3), abs=1e-15)
    # exponential: gains 7 and 1
    assert rm.ndcg(truth, recs, k=2, gain="exponential") == pytest.approx(
        (1 + 7 / LOG2_3) / (7 + 1 / LOG2_3), abs=1e-15
    )
    assert rm.r_precision(truth, recs) == 1.0
    assert rm.r_precision({0: [1, 2, 3]}, {0: [1, 9, 2]}) == pytest.approx(2 / 3, abs=1e-15)
    assert rm.mrr(truth, {0: [9, 2]}) == 0.5
    assert rm.hits(truth, recs, 1) == 1.0
    assert rm.cg(truth, recs) == 4.0
    assert rm.dcg(truth, recs, k=2, log_base=10) == pytest.approx((1 + 3 / LOG2_3) * math.log2(10), rel=1e-13)
    assert rm.mar(truth, recs, k=1) == pytest.approx(1 * 2 / (2 * 4), abs=1e-15)  # H(H+1)/(2|R|^2)
    assert rm.arhr({0: [1, 2]}, {0: [1, 9, 2]}) == pytest.approx(1 + 1 / 3, abs=1e-15)
    assert rm.precision(truth, recs, 5) == pytest.approx(2 / 5, abs=1e-15)
    assert rm.recall(truth, {0: [1, 9]}, 2) == 0.5
    assert rm.fbeta(truth, {0: [1, 9]}, 2, beta=2) == pytest.approx(5 * 0.25 / (4 * 0.5 + 0.5), abs=1e-15)
    assert rm.hit_rate(truth, {0: [9, 8, 1]}, 2) == 0.0


# --------------------------------------------------------------------------- presets and ties
def test_preset_trec_eval_ties_by_docno_descending_as_strings():
    truth = {"q": {"9": 1}}
    recs = {"q": {"10": 1.0, "9": 1.0}}
    assert rm.evaluate(truth, recs, ["rr"])["rr"] == 0.5  # input order: "10" first
    assert rm.evaluate(truth, recs, ["rr"], preset="trec_eval")["rr"] == 1.0  # "9" > "10" as strings
    assert rm.evaluate(truth, recs, ["rr"], ties="trec")["rr"] == 1.0
    # explicit ties= wins over the preset
    assert rm.evaluate(truth, recs, ["rr"], preset="trec_eval", ties="input")["rr"] == 0.5
    # integer ids compare as the strings they print as, too
    assert rm.evaluate({"q": {9: 1}}, {"q": {10: 1.0, 9: 1.0}}, ["rr"], preset="trec_eval")["rr"] == 1.0
    # ...while item_desc compares integers numerically: 10 before 9
    assert rm.evaluate({"q": {9: 1}}, {"q": {10: 1.0, 9: 1.0}}, ["rr"], ties="item_desc")["rr"] == 0.5
    # higher scores come first whatever the ids
    assert rm.evaluate(truth, {"q": {"10": 2.0, "9": 1.0}}, ["rr"], preset="trec_eval")["rr"] == 0.5


def test_ties_three_way():
    # items 8, 9, 10 with equal scores, relevant 10: trec ranks 9, 8, 10; item_desc 10, 9, 8; input 8, 9, 10
    truth = {"q": [10]}
    recs = {"q": {8: 0.5, 9: 0.5, 10: 0.5, 1: 0.9}}
    assert rm.evaluate(truth, recs, ["rr"], ties="trec")["rr"] == 1 / 4
    assert rm.evaluate(truth, recs, ["rr"], ties="item_desc")["rr"] == 1 / 2
    assert rm.evaluate(truth, recs, ["rr"], ties="input")["rr"] == 1 / 4
    assert rm.evaluate({"q": [8]}, recs, ["rr"], ties="trec")["rr"] == 1 / 3
    assert rm.evaluate({"q": [8]}, recs, ["rr"])["rr"] == 1 / 2


def test_preset_trec_eval_empty_zero():
    truth = {"a": {"x": 1}, "b": {"y": 0}}
    recs = {"a": ["x"], "b": ["y"]}
    res = rm.evaluate(truth, recs, ["ap", "precision@1"], preset="trec_eval")
    assert res.meta["n_skipped"] == 0
    assert res.per_user["ap"].tolist() == [1.0, 0.0]
    assert res["ap"] == 0.5
    res = rm.evaluate(truth, recs, ["ap"], preset="trec_eval", empty="skip")
    assert res["ap"] == 1.0 and res.meta["n_skipped"] == 1
    assert rm.evaluate(truth, recs, ["ap"], preset="TREC-EVAL")["ap"] == 0.5


NDCG_T = {"q": {"a": 3, "b": 2, "c": 1, "d": 1}}
NDCG_R = {"q": ["c", "a"]}
# dcg = 1 + 3/log2 3; ideal cut at 2: 3 + 2/log2 3; ideal all: 3 + 2/log2 3 + 1/2 + 1/log2 5
NDCG_CUT = (1 + 3 / LOG2_3) / (3 + 2 / LOG2_3)
NDCG_ALL = (1 + 3 / LOG2_3) / (3 + 2 / LOG2_3 + 0.5 + 1 / math.log2(5))


def test_preset_trec_eval_ndcg_without_cutoff_uses_ideal_all():
    # without a cutoff nothing is cut (docs/metrics.md, ndcg): ideal=cut gives the same as ideal=all
    assert rm.evaluate(NDCG_T, NDCG_R, ["ndcg"])["ndcg"] == pytest.approx(NDCG_ALL, abs=1e-15)
    res = rm.evaluate(NDCG_T, NDCG_R, ["ndcg", "ndcg@2"], preset="trec_eval")
    assert res["ndcg"] == pytest.approx(NDCG_ALL, abs=1e-15)
    assert res["ndcg(ideal=all)"] == res["ndcg"]
    assert res["ndcg@2"] == pytest.approx(NDCG_CUT, abs=1e-15)  # ndcg_cut keeps ideal=cut
    res = rm.evaluate(NDCG_T, NDCG_R, ["ndcg(ideal=cut)", "ndcg(ideal=cut)@2"], preset="trec_eval")
    assert res["ndcg(ideal=cut)"] == pytest.approx(NDCG_ALL, abs=1e-15)
    assert res["ndcg(ideal=cut)@2"] == pytest.approx(NDCG_CUT, abs=1e-15)


def test_preset_ndcg_and_ndcg_ideal_cut_in_one_call():
    # regression: the as-passed key "ndcg" (= ideal=all under the preset) once shared a column with ideal=cut
    # (without a cutoff both ideals now give the same value; they stay two columns, and
    # with a cutoff they differ)
    res = rm.evaluate(NDCG_T, NDCG_R, ["ndcg", "ndcg(ideal=cut)"], preset="trec_eval")
    assert res["ndcg"] == pytest.approx(NDCG_ALL, abs=1e-15)
    assert res["ndcg(ideal=cut)"] == pytest.approx(NDCG_ALL, abs=1e-15)
    st = rm.partial(NDCG_T, NDCG_R, ["ndcg", "ndcg(ideal=cut)"], preset="trec_eval")
    assert st.names == ("ndcg(ideal=all)", "ndcg")
    res = rm.evaluate(NDCG_T, NDCG_R, ["ndcg(ideal=all)@2", "ndcg(ideal=cut)@2"], preset="trec_eval")
    assert res["ndcg(ideal=all)@2"] == pytest.approx(NDCG_ALL, abs=1e-15)
    assert res["ndcg(ideal=cut)@2"] == pytest.approx(NDCG_CUT, abs=1e-15)


def test_preset_result_lookup_of_metric_not_asked():
    # regression: the canonical lookup once fell back to the as-passed key "ndcg" (ideal=all)
    res = rm.evaluate(NDCG_T, NDCG_R, ["ndcg"], preset="trec_eval")
    with pytest.raises(KeyError):
        res["ndcg(ideal=cut)"]


def test_preset_state_names_are_canonical():
    st = rm.partial(NDCG_T, NDCG_R, ["ndcg", "map"], preset="trec_eval")
    assert st.names == ("ndcg(ideal=all)", "ap")
    assert st.finalize()["ndcg(ideal=all)"] == pytest.approx(NDCG_ALL, abs=1e-15)


# --------------------------------------------------------------------------- options
def test_max_items_truncation():
    truth = {0: [1, 2, 3]}
    recs = {0: [9, 1, 2, 3]}
    res = rm.evaluate(truth, recs, ["hits", "precision", "ap", "hits@10"], max_items=2)
    assert res["hits"] == 1.0 and res["hits@10"] == 1.0
    assert res["precision"] == 0.5  # hits / n with n = 2
    assert res["ap"] == pytest.approx((1 / 2) / 3, abs=1e-15)
    full = rm.evaluate(truth, recs, ["hits", "precision"])
    assert full["hits"] == 3.0 and full["precision"] == 0.75
    # truncation happens after ranking by score
    res = rm.evaluate(truth, {0: {9: 0.1, 1: 0.2, 2: 0.3, 3: 0.4}}, ["hits"], max_items=2)
    assert res["hits"] == 2.0


def test_max_items_truncates_before_duplicate_removal():
    # docs/metrics.md §6.2: max_items truncates the list as given (trec_eval -M), then the
    # duplicates policy applies to what is left: [1, 1, 2][:2] -> [1, 1] -> [1]
    res = rm.evaluate({0: [1, 2]}, {0: [1, 1, 2]}, ["hits"], max_items=2, duplicates="first")
    assert res["hits"] == 1.0
    res = rm.evaluate({0: [1, 2]}, {0: [1, 1, 2]}, ["hits"], max_items=3, duplicates="first")
    assert res["hits"] == 2.0


def test_min_relevance_threshold():
    truth = {0: {1: 1, 2: 2, 3: 3}}
    recs = {0: [1, 2, 9]}
    res = rm.evaluate(truth, recs, ["hits", "num_rel", "recall@3", "cg", "ndcg(gain=binary)@3", "ap"], min_relevance=2)
    assert res["hits"] == 1.0  # only item 2 is relevant among the list
    assert res["num_rel"] == 2.0
    assert res["recall@3"] == 0.5
    assert res["cg"] == 3.0  # gains use the grade: 1 + 2
    # binary: only relevant items count: dcg = 1/log2 3, ideal = 1 + 1/log2 3
    assert res["ndcg(gain=binary)@3"] == pytest.approx((1 / LOG2_3) / (1 + 1 / LOG2_3), abs=1e-15)
    assert res["ap"] == pytest.approx((1 / 2) / 2, abs=1e-15)
    default = rm.evaluate(truth, recs, ["hits", "num_rel"])
    assert default["hits"] == 2.0 and default["num_rel"] == 3.0
    # a user with only sub-threshold grades is skipped; under empty="zero" its gains still count
    res = rm.evaluate({0: {"y": 1, "z": 1}}, {0: ["y", "z"]}, ["hits", "ndcg"], min_relevance=2, empty="zero")
    assert res["hits"] == 0.0 and res["ndcg"] == 1.0
    res = rm.evaluate({0: {"y": 1, "z": 1}}, {0: ["y", "z"]}, ["hits"], min_relevance=2)
    assert res.meta["n_skipped"] == 1


def test_has_openmp_is_bool():
    assert isinstance(rm.has_openmp, bool)


def test_public_names():
    for name in (
        "evaluate",
        "partial",
        "Result",
        "State",
        "Truth",
        "Recs",
        "metrics",
        "read_trec_qrels",
        "read_trec_run",
        "precision",
        "recall",
        "fbeta",
        "map",
        "mar",
        "ndcg",
        "dcg",
        "hit_rate",
        "mrr",
        "arhr",
        "hits",
        "cg",
        "r_precision",
        "has_openmp",
    ):
        assert hasattr(rm, name), name
    assert isinstance(rm.__version__, str)
