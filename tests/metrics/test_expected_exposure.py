"""Expected exposure (``rm.expected_exposure``: EE-L, EE-D, EE-R of stochastic rankings) against the plain-Python
reference written from the paper's formulas (tests/support/reference_expected_exposure.py) on hypothesis data:
users without a relevant item, users missing on either side, one sample, samples of different lengths and users
listed by only some samples, items outside truth, graded and binary truth, int, str and huge ids, both browsing
models, raw and normalised values, cutoffs; then invariance to the order of samples, rows and users, and errors."""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.support import reference_expected_exposure as ref

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ID_KINDS = ("int", "str", "huge")


def _id(x: int, kind: str):
    return {"int": x, "str": f"i{x}", "huge": 2**62 + x * 7919}[kind]


@st.composite
def cases(draw):
    kind = draw(st.sampled_from(ID_KINDS))
    n_items = draw(st.integers(1, 8))
    n_users = draw(st.integers(1, 5))
    truth = {}
    for u in range(n_users):
        if draw(st.booleans()) or u == 0:
            items = draw(st.lists(st.integers(0, n_items + 2), max_size=6, unique=True))
            truth[f"u{u}"] = {_id(i, kind): draw(st.sampled_from([-1, 0, 1, 1, 2, 3])) for i in items}
    n_samples = draw(st.integers(1, 4))
    samples = []
    for _ in range(n_samples):
        run = {}
        for u in range(n_users + 1):  # user n_users is in no truth
            if draw(st.integers(0, 4)) > 0:
                items = draw(st.permutations(list(range(n_items + 3))))
                run[f"u{u}"] = [_id(i, kind) for i in items[: draw(st.integers(1, n_items + 3))]]
        if not run:
            run["u0"] = [_id(0, kind)]
        samples.append(run)
    model = draw(st.sampled_from(["gerr", "rbp"]))
    p = draw(st.sampled_from([0.5, 0.2, 0.85]))
    utility = draw(st.sampled_from([0.5, 0.0, 0.3, 1.0])) if model == "gerr" else 0.5
    normalize = draw(st.booleans())
    binary = draw(st.booleans())
    k = draw(st.sampled_from([None, None, 1, 3]))
    return truth, samples, dict(model=model, patience=p, utility=utility, normalize=normalize, binary=binary, k=k)


def _no_common_user(truth: dict, samples: list) -> bool:
    return not (set(truth) & {u for s in samples for u in s})


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-13)


@SETTINGS
@given(cases())
def test_expected_exposure_matches_the_reference(case):
    truth, samples, o = case
    if _no_common_user(truth, samples):  # refused, as evaluate refuses it
        with pytest.raises(ValueError, match="no `runs` user is a `truth` user"):
            rm.expected_exposure(truth, samples, **o)
        return
    got = rm.expected_exposure(truth, samples, **o)
    want = ref.expected_exposure(
        truth, samples, o["model"], o["patience"], o["utility"], o["normalize"], o["binary"], o["k"]
    )
    table = got.per_user
    assert list(table["user"]) == list(want)
    for row in table.itertuples():
        wl, wd, wr = want[row.user]
        assert _close(row.ee_l, wl) and _close(row.ee_d, wd) and _close(row.ee_r, wr), (row, want[row.user])
    if want:
        for j, name in enumerate(("ee_l", "ee_d", "ee_r")):
            assert _close(got[name], sum(v[j] for v in want.values()) / len(want))
    else:
        assert all(math.isnan(v) for v in got.values.values())


@SETTINGS
@given(cases(), st.randoms(use_true_random=False))
def test_values_do_not_depend_on_the_order_of_samples_rows_or_users(case, rnd):
    truth, samples, o = case
    assume(not _no_common_user(truth, samples))
    base = rm.expected_exposure(truth, samples, **o)
    shuffled = [dict(random.Random(rnd.random()).sample(list(s.items()), len(s))) for s in samples]
    rnd.shuffle(shuffled)
    again = rm.expected_exposure(truth, shuffled, **o)
    assert base.values == again.values or all(math.isnan(v) for v in base.values.values())
    a = base.per_user.set_index("user").sort_index()
    b = again.per_user.set_index("user").sort_index()
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_one_sample_is_the_deterministic_ranking():
    truth = {"a": {1: 2, 2: 1, 3: 1}}
    run = {"a": [3, 1, 9, 2]}
    one = rm.expected_exposure(truth, run, model="rbp", normalize=False)
    listed = rm.expected_exposure(truth, [run], model="rbp", normalize=False)
    assert one.values == listed.values
    # by hand: attention 1, 1/2, 1/4, 1/8; target: item 1 -> 1, items 2 and 3 -> (1/2 + 1/4) / 2
    eps = {3: 1.0, 1: 0.5, 9: 0.25, 2: 0.125}
    tgt = {1: 1.0, 2: 0.375, 3: 0.375}
    assert one["ee_d"] == pytest.approx(sum(v * v for v in eps.values()), rel=1e-15)
    assert one["ee_r"] == pytest.approx(sum(tgt[i] * eps[i] for i in tgt), rel=1e-15)
    keys = set(eps) | set(tgt)
    assert one["ee_l"] == pytest.approx(sum((eps.get(i, 0) - tgt.get(i, 0)) ** 2 for i in keys), rel=1e-15)


def test_a_policy_that_shares_exposure_among_equally_relevant_items_has_lower_loss():
    truth = {"a": {1: 1, 2: 1}}
    fixed = rm.expected_exposure(truth, [{"a": [1, 2]}, {"a": [1, 2]}], model="rbp")
    shared = rm.expected_exposure(truth, [{"a": [1, 2]}, {"a": [2, 1]}], model="rbp")
    assert shared["ee_l"] < fixed["ee_l"] and shared["ee_d"] < fixed["ee_d"]
    assert shared["ee_l"] == pytest.approx(0.0, abs=1e-15)


def test_a_long_table_with_a_sample_column_is_the_list_of_runs():
    df = pd.DataFrame(
        {
            "user_id": ["a"] * 5 + ["b"] * 2,
            "item_id": [1, 2, 3, 2, 1, 5, 1],
            "rank": [1, 2, 3, 1, 2, 1, 1],
            "sample": [0, 0, 0, 1, 1, 0, 1],
        }
    )
    truth = {"a": {1: 1, 2: 2}, "b": {5: 1}}
    got = rm.expected_exposure(truth, df)
    runs = [{"a": [1, 2, 3], "b": [5]}, {"a": [2, 1], "b": [1]}]
    assert got.values == rm.expected_exposure(truth, runs).values


def test_an_item_twice_in_one_sampled_ranking_is_refused_naming_the_sample_and_user():
    with pytest.raises(ValueError, match=r"sample 1 lists an item twice for user 'b'"):
        rm.expected_exposure({"b": {1: 1}}, [{"b": [1, 2]}, {"b": [2, 2]}])


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(patience=1.0), "patience"),
        (dict(patience=0), "patience"),
        (dict(utility=1.5), "utility"),
        (dict(model="ndcg"), "model"),
        (dict(model="rbp", utility=0.2), "utility"),
        (dict(k=0), "k"),
    ],
)
def test_bad_options_are_refused_naming_the_option(kw, match):
    with pytest.raises(ValueError, match=match):
        rm.expected_exposure({"a": {1: 1}}, {"a": [1]}, **kw)


def test_users_without_a_relevant_item_are_left_out_and_users_without_a_list_get_the_worst_values():
    truth = {"a": {1: 0}, "b": {1: 1}, "c": {2: 1, 3: 2}}
    got = rm.expected_exposure(truth, {"a": [1], "c": [2, 3]}, model="rbp")
    assert list(got.per_user["user"]) == ["b", "c"]
    b = got.per_user.iloc[0]
    assert b.ee_d == 1.0 and b.n_samples == 0
    assert b.ee_l == pytest.approx(1.0 / (1.0 + 1.0 / (1.0 - 0.5)))
    assert np.isfinite(got["ee_l"])


# ---- evaluate(truth, recs, ["ee_l", "ee_d", "ee_r"]): the lists as one sample
EE_DETERMINISM = [
    "ee_l",
    "ee_d@10",
    "ee_r(model=rbp,patience=0.8)@5",
    "ee_l(normalize=none,utility=0.3)@10",
]


@st.composite
def one_sample_cases(draw):
    truth, samples, o = draw(cases())
    return truth, samples[0], o


@SETTINGS
@given(one_sample_cases())
def test_evaluate_gives_the_reference_values_of_the_lists_as_one_sample(case):
    truth, recs, o = case
    assume(set(truth) & set(recs))  # evaluate refuses inputs without a common user
    opts = f"model={o['model']},patience={o['patience']},utility={o['utility']}"
    opts += "" if o["normalize"] else ",normalize=none"
    cut = f"@{o['k']}" if o["k"] else ""
    names = [f"ee_l({opts}){cut}", f"ee_d({opts}){cut}", f"ee_r({opts}){cut}"]
    res = rm.evaluate(truth, recs, names)
    kw = dict(model=o["model"], p=o["patience"], u=o["utility"], normalize=o["normalize"], k=o["k"])
    users = list(res.users)
    for name, fn in zip(names, (ref.ee_l, ref.ee_d, ref.ee_r)):
        want = fn({u: truth[u] for u in users}, recs, **kw)
        got = res.per_user[name]
        for j, u in enumerate(users):
            if want[u] is None:
                assert math.isnan(got[j])
            else:
                assert _close(got[j], want[u]), (name, u, got[j], want[u])
        # the call's one sample is expected_exposure's deterministic ranking
        if _no_common_user({u: truth[u] for u in users}, [recs]):
            continue
        direct = rm.expected_exposure({u: truth[u] for u in users}, recs, **{**o, "binary": False})
        if direct.meta["n_users"]:
            assert _close(res[name], direct[name.split("(")[0]])


def test_evaluate_values_do_not_depend_on_threads_and_merged_states_give_the_one_call_values():
    rng = np.random.default_rng(3)
    truth = {
        u: {int(i): int(rng.integers(0, 4)) for i in rng.choice(60, rng.integers(0, 8), replace=False)}
        for u in range(1500)
    }
    recs = {u: [int(i) for i in rng.permutation(60)[: rng.integers(0, 20)]] for u in range(1500) if u % 7}
    base = rm.evaluate(truth, recs, EE_DETERMINISM, threads=1)
    for threads in (2, 3):
        res = rm.evaluate(truth, recs, EE_DETERMINISM, threads=threads)
        for n in EE_DETERMINISM:
            assert res[n] == base[n]
            assert np.array_equal(res.per_user[n], base.per_user[n], equal_nan=True)
    which = rng.integers(0, 3, len(truth))
    states = [rm.partial({u: truth[u] for u in truth if which[u] == b}, recs, EE_DETERMINISM) for b in range(3)]
    for order in ((0, 1, 2), (2, 0, 1)):
        merged = rm.State.merge_all([states[i] for i in order]).finalize()
        for n in EE_DETERMINISM:
            assert merged[n] == base[n]


def test_evaluate_refuses_utility_with_the_rbp_model():
    with pytest.raises(ValueError, match="utility"):
        rm.evaluate({"a": {1: 1}}, {"a": [1]}, ["ee_l(model=rbp,utility=0.2)"])


def test_evaluate_refuses_a_repeated_item_under_duplicates_count():
    with pytest.raises(ValueError, match="twice"):
        rm.evaluate({"a": {1: 1}}, {"a": [1, 2, 1]}, ["ee_d"], duplicates="count")


def test_int_ids_give_the_same_bits_in_any_order_of_samples_rows_and_users():
    # int ids in range are their own codes (the sums then follow the ids, not sorted values): still order-free
    rng = np.random.default_rng(7)
    truth = {int(u): {int(i): int(rng.integers(0, 4)) for i in rng.choice(40, 6, replace=False)} for u in range(300)}
    samples = [{u: [int(i) for i in rng.permutation(40)[: rng.integers(1, 15)]] for u in range(300)} for _ in range(4)]
    base = rm.expected_exposure(truth, samples)
    for seed in range(3):
        r = np.random.default_rng(seed)
        shuffled = [dict(sorted(s.items(), key=lambda kv: r.random())) for s in samples]
        shuffled = [shuffled[j] for j in r.permutation(len(shuffled))]
        t2 = dict(sorted(truth.items(), key=lambda kv: r.random()))
        again = rm.expected_exposure(t2, shuffled)
        assert again.values == base.values
        a = base.per_user.set_index("user").sort_index()
        b = again.per_user.set_index("user").sort_index()
        pd.testing.assert_frame_equal(a, b, check_exact=True)


@pytest.mark.parametrize(
    "truth, runs, match",
    [
        ({"a": {1: 1}}, [], "empty list"),
        ({"a": {1: 1}}, {"a": ["1"]}, "str item ids"),
        ({0: {1: 1}}, {"0": [1]}, "str user ids"),
        ({"a": {1: 1}}, [{"b": [1]}], "no `runs` user is a `truth` user"),
    ],
)
def test_inputs_that_cannot_match_are_refused_before_work(truth, runs, match):
    with pytest.raises(ValueError, match=match):
        rm.expected_exposure(truth, runs)
