"""rm.agreement: the C++ agreement kernel against the pure-Python reference (tests/support/reference_agreement.py)
on random pairs of runs (empty lists, users of one run only, lists shorter than k, string / int / huge ids, every
input form, threads 1 and 2), Kendall's tau and Spearman's rho against scipy.stats, and the errors of bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.support import reference_agreement as ref

METRICS: list[tuple[str, dict]] = [
    ("overlap", {}),
    ("intersection", {}),
    ("jaccard", {}),
    ("rbo", {}),
    ("rbo", {"p": 0.5}),
    ("rbo", {"variant": "min"}),
    ("rbo", {"p": 0.98, "variant": "min"}),
    ("kendall_tau", {}),
    ("spearman", {}),
    ("unexpectedness", {}),
]
EXACT = {"overlap", "intersection", "jaccard", "kendall_tau", "spearman", "unexpectedness"}  # ratios of counts
HUGE = 2**62 + 7


def _name(name: str, k, opt: dict) -> str:
    body = ", ".join(f"{key}={val}" for key, val in opt.items())
    return f"{name}({body})" + ("" if k is None else f"@{k}") if body else name + ("" if k is None else f"@{k}")


def _same(x: float, y: float, exact: bool) -> bool:
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return x == y if exact else abs(x - y) <= 1e-12 * max(1.0, abs(y))


@st.composite
def run_pairs(draw):
    """Two runs {user: ranked list of distinct items} over a small item pool (so lists overlap), some users in
    one run only, some lists empty or shorter than k; item and user ids int, str or huge ints."""
    kind = draw(st.sampled_from(["int", "str", "huge"]))
    item = {"int": lambda i: i, "str": lambda i: f"i{i}", "huge": lambda i: HUGE - 3 * i}[kind]
    user_kind = draw(st.sampled_from(["int", "str", "huge"]))
    user = {"int": lambda u: u, "str": lambda u: f"u{u}", "huge": lambda u: -HUGE + u}[user_kind]
    pool = draw(st.integers(1, 14))
    n_users = draw(st.integers(0, 7))
    runs = []
    for _ in range(2):
        run = {}
        for u in range(n_users):
            if draw(st.integers(0, 5)) == 0:
                continue  # this run lacks the user
            items = draw(st.lists(st.integers(0, pool - 1), unique=True, max_size=pool))
            run[user(u)] = [item(i) for i in items]
        runs.append(run)
    return runs[0], runs[1]


def _check(a: dict, b: dict, k, missing: str, threads: int, form: str = "lists") -> None:
    names = [_name(n, k, o) for n, o in METRICS if not (n == "unexpectedness" and k is None)]
    specs = [(n, k, o) for n, o in METRICS if not (n == "unexpectedness" and k is None)]
    ra, rb = a, b
    if form == "scores":  # {user: {item: score}}: ranked by score descending, best first as listed
        ra = {u: {x: float(len(lst) - i) for i, x in enumerate(lst)} for u, lst in a.items()}
        rb = {u: {x: float(len(lst) - i) for i, x in enumerate(lst)} for u, lst in b.items()}
    elif form == "frame":
        import pandas as pd

        def frame(run: dict):
            rows = [(u, x, i + 1) for u, lst in run.items() for i, x in enumerate(lst)]
            return pd.DataFrame(rows, columns=["user_id", "item_id", "rank"]) if rows else None

        ra, rb = frame(a), frame(b)
        if ra is None or rb is None:
            return  # a table has no empty run
        a = {u: lst for u, lst in a.items() if lst}  # a table has no row for an empty list
        b = {u: lst for u, lst in b.items() if lst}
    res = rm.agreement(ra, rb, names, missing=missing, threads=threads)
    want_users = ref.users(list(a), list(b), missing)
    assert list(res.users) == want_users
    for name, (n, kk, o) in zip(names, specs):
        want = ref.agreement(a, b, (n, kk, o), missing)
        got = res.per_user[name]
        for u, v in zip(want_users, got.tolist()):
            assert _same(v, want[u], n in EXACT), (name, u, v, want[u], a.get(u), b.get(u))
        m = ref.mean(list(want.values()))
        assert _same(res[name], m, n in EXACT), (name, res[name], m)
        assert res.counts[name] == sum(1 for v in want.values() if v == v)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    run_pairs(),
    st.one_of(st.none(), st.integers(1, 8)),
    st.sampled_from(["empty", "skip", "run_a"]),
    st.sampled_from([1, 2]),
)
def test_agreement_equals_the_reference_per_user_and_mean(pair, k, missing, threads):
    a, b = pair
    _check(a, b, k, missing, threads)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.one_of(st.none(), st.integers(20, 70)), st.sampled_from([1, 2]))
def test_long_lists_read_by_sorting_equal_the_reference(seed, k, threads):
    # prefixes longer than the kernel's direct-scan length are matched by sorting: the same values
    rng = np.random.default_rng(seed)
    a = {u: rng.choice(90, size=int(rng.integers(0, 70)), replace=False).tolist() for u in range(6)}
    b = {u: rng.choice(90, size=int(rng.integers(0, 70)), replace=False).tolist() for u in range(1, 7)}
    _check(a, b, k, "empty", threads)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run_pairs(), st.integers(1, 6), st.sampled_from(["scores", "frame"]))
def test_agreement_reads_score_dicts_and_tables_like_ranked_lists(pair, k, form):
    a, b = pair
    _check(a, b, k, "empty", 2, form)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 60), st.integers(0, 10_000), st.integers(1, 12))
def test_padded_arrays_and_thread_counts_give_identical_values(n_users, seed, k):
    rng = np.random.default_rng(seed)
    width = int(rng.integers(1, 15))
    pad = -1

    def padded():
        out = np.full((n_users, width), pad, dtype=np.int64)
        for u in range(n_users):
            n = int(rng.integers(0, width + 1))
            out[u, :n] = rng.choice(20, size=n, replace=False)
        return out

    A, B = padded(), padded()
    names = [_name(n, k, o) for n, o in METRICS]
    one = rm.agreement(A, B, names, threads=1)
    two = rm.agreement(A, B, names, threads=2)
    lists_a = {u: [int(x) for x in A[u] if x != pad] for u in range(n_users)}
    lists_b = {u: [int(x) for x in B[u] if x != pad] for u in range(n_users)}
    csr = rm.agreement(lists_a, lists_b, names, threads=2)
    for name in names:
        assert np.array_equal(one.per_user[name], two.per_user[name], equal_nan=True)
        assert np.array_equal(one.per_user[name], csr.per_user[name], equal_nan=True)
        assert _same(one[name], two[name], True)


def test_many_users_give_the_same_values_for_one_and_two_threads():
    rng = np.random.default_rng(7)
    A = np.argsort(rng.random((20_000, 50)), axis=1)[:, :10]
    B = np.argsort(rng.random((20_000, 50)), axis=1)[:, :10]
    names = [_name(n, 10, o) for n, o in METRICS]
    one, two = rm.agreement(A, B, names, threads=1), rm.agreement(A, B, names, threads=2)
    for name in names:
        assert np.array_equal(one.per_user[name], two.per_user[name], equal_nan=True)
        assert one[name] == two[name]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, 30), unique=True, max_size=25),
    st.lists(st.integers(0, 30), unique=True, max_size=25),
    st.one_of(st.none(), st.integers(2, 25)),
)
def test_kendall_and_spearman_equal_scipy_on_the_shared_items(a, b, k):
    stats = pytest.importorskip("scipy.stats")
    res = rm.agreement({0: a}, {0: b}, [_name("kendall_tau", k, {}), _name("spearman", k, {})])
    A, B = (a, b) if k is None else (a[:k], b[:k])
    shared = [x for x in A if x in set(B)]
    tau, rho = res.per_user[_name("kendall_tau", k, {})][0], res.per_user[_name("spearman", k, {})][0]
    if len(shared) < 2:
        assert math.isnan(tau) and math.isnan(rho)
        return
    pa = [A.index(x) for x in shared]
    pb = [B.index(x) for x in shared]
    assert abs(tau - stats.kendalltau(pa, pb).statistic) <= 1e-12
    assert abs(rho - stats.spearmanr(pa, pb).statistic) <= 1e-12


def test_rbo_of_identical_lists_and_its_bounds():
    a = list(range(10))
    res = rm.agreement({0: a, 1: a}, {0: a, 1: a[::-1]}, ["rbo@10", "rbo(variant=min)@10"])
    ext, low = res.per_user["rbo@10"], res.per_user["rbo(variant=min)@10"]
    assert ext[0] == pytest.approx(1.0, abs=1e-15)  # identical lists: RBO_ext is 1
    # the lower bound of identical top 10s: 1 - p^10 ... as Webber et al. give (sum of the seen part)
    assert low[0] == pytest.approx(ref.rbo(a, a, 0.9, "min"), rel=1e-12)
    assert 0 < low[1] <= ext[1] < 1


def test_a_user_in_one_run_only_is_compared_with_an_empty_list_unless_missing_says_otherwise():
    a, b = {"u": [1, 2], "v": [3]}, {"u": [2, 1], "w": [4]}
    res = rm.agreement(a, b, ["jaccard@2", "unexpectedness@2", "intersection@2"])
    assert list(res.users) == ["u", "v", "w"]
    assert res.per_user["jaccard@2"].tolist() == [1.0, 0.0, 0.0]
    assert res.per_user["unexpectedness@2"].tolist() == [0.0, 0.0, 0.0]  # RePlay: 0 against an empty list
    assert res.per_user["intersection@2"].tolist()[:2] == [1.0, 0.0] and math.isnan(res.per_user["intersection@2"][2])
    assert res.meta == {"n_users": 3, "n_only_a": 1, "n_only_b": 1, "n_left_out": 0}
    skip = rm.agreement(a, b, ["jaccard@2"], missing="skip")
    assert list(skip.users) == ["u"] and skip.meta["n_left_out"] == 2
    only_a = rm.agreement(a, b, ["jaccard@2"], missing="run_a")
    assert list(only_a.users) == ["u", "v"] and only_a.meta["n_left_out"] == 1


def test_a_repeated_item_is_an_error_naming_the_run_user_and_item():
    with pytest.raises(ValueError, match=r"`run_b` lists item 'x' more than once for user 'u' within its top 3"):
        rm.agreement({"u": ["x", "y"]}, {"u": ["x", "z", "x"]}, ["overlap@3"])
    # past the positions read, a repeat is not read
    assert rm.agreement({"u": ["x", "y"]}, {"u": ["x", "z", "x"]}, ["overlap@2"])["overlap@2"] == 1.0


@pytest.mark.parametrize(
    "metrics, match",
    [
        (["ndcg@10"], "scores one run against the truth: use rankmeter.evaluate"),
        (["jacard@10"], "did you mean 'jaccard'"),
        (["rbo(q=0.9)@10"], "rbo has no option 'q'"),
        (["rbo(p=1)@10"], r"p must be in \(0, 1\)"),
        (["rbo(variant=max)@10"], "variant must be 'ext'"),
        (["unexpectedness"], "divides by its cutoff"),
        (["overlap@0"], "positive integer"),
        ([], "is empty"),
    ],
)
def test_bad_metric_names_and_options_are_value_errors(metrics, match):
    with pytest.raises(ValueError, match=match):
        rm.agreement({"u": [1]}, {"u": [1]}, metrics)


def test_bad_keywords_are_errors_before_any_work():
    with pytest.raises(ValueError, match="`ties` must be one of"):
        rm.agreement({"u": [1]}, {"u": [1]}, ["overlap"], ties="torch")
    with pytest.raises(ValueError, match="`missing` must be one of"):
        rm.agreement({"u": [1]}, {"u": [1]}, ["overlap"], missing="zero")
    with pytest.raises(ValueError, match="item ids are of different kinds"):
        rm.agreement({"u": ["a"]}, {"u": [1]}, ["overlap"])


def test_names_as_passed_and_canonical_names_reach_the_same_column():
    res = rm.agreement({0: [1, 2, 3]}, {0: [3, 2, 1]}, ["rbo(p=0.9)@3", "kendall@3"])
    assert res["rbo@3"] == res["rbo(p=0.9)@3"] and res["kendall_tau@3"] == res["kendall@3"] == -1.0
    assert res.keys() == ["rbo(p=0.9)@3", "kendall@3"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run_pairs(), st.integers(1, 8), st.data())
def test_a_list_repeating_an_item_within_the_positions_read_is_always_refused(pair, k, data):
    a, b = pair
    users = [u for u, lst in b.items() if lst]
    if not users:
        return
    u = data.draw(st.sampled_from(users))
    lst = b[u][:k]
    at = data.draw(st.integers(1, len(lst)))  # the first item again, within the top k + 1
    b = {**b, u: [*lst[:at], lst[0], *lst[at:]]}
    with pytest.raises(ValueError, match=r"`run_b` lists item .* more than once for user"):
        rm.agreement(a, b, [f"overlap@{k + 1}"])


def test_equal_scores_are_ordered_by_the_tie_rule():
    run = {"u": {"b": 1.0, "a": 1.0, "c": 1.0}}
    ranked = {"u": ["a", "b", "c"]}
    assert rm.agreement(run, ranked, ["kendall_tau@3"])["kendall_tau@3"] == 1.0  # ties="item": ascending ids
    assert rm.agreement(run, ranked, ["kendall_tau@3"], ties="item_desc")["kendall_tau@3"] == -1.0
    assert rm.agreement(run, {"u": ["b", "a", "c"]}, ["kendall_tau@3"], ties="input")["kendall_tau@3"] == 1.0


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(0, 40), unique=True, min_size=1, max_size=30),
    st.integers(0, 30),
    st.sampled_from([0.5, 0.9, 0.98]),
)
def test_rbo_ext_is_one_when_the_shorter_list_begins_the_longer_and_never_below_the_lower_bound(long, cut, p):
    # Webber et al.: a prefix extrapolates to the same ranking (eq. 32 gives 1); RBO_min <= RBO_ext <= 1
    short = long[: max(1, min(cut, len(long)))]
    res = rm.agreement({0: short, 1: long}, {0: long, 1: long[::-1]}, [f"rbo(p={p})", f"rbo(p={p}, variant=min)"])
    ext, low = res.per_user[f"rbo(p={p})"], res.per_user[f"rbo(p={p}, variant=min)"]
    assert ext[0] == pytest.approx(1.0, abs=1e-12)
    assert (low <= ext + 1e-12).all() and (ext <= 1 + 1e-12).all()


# --------------------------------------------------------------------------- exact merges of user batches
def _merge_names() -> list[str]:
    """Every agreement metric of AGREEMENT_METRICS, with each option value of METRICS, at a cutoff and (where the
    metric allows) without one."""
    names = [_name(n, 3, o) for n, o in METRICS] + [_name(n, None, o) for n, o in METRICS if n != "unexpectedness"]
    return [*names, "intersection(ref_k=5)@3"]


def test_every_agreement_metric_is_in_the_merge_test():
    from rankmeter.evaluation._agreement import AGREEMENT_METRICS, parse_agreement

    covered = {parse_agreement(n).name for n in _merge_names()}
    assert set(AGREEMENT_METRICS) <= covered, (
        f"agreement metrics missing from the merge test: {set(AGREEMENT_METRICS) - covered}"
    )


def _bits(x: float) -> str:
    return "nan" if math.isnan(x) else x.hex()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run_pairs(), st.sampled_from(["empty", "skip", "run_a"]), st.integers(1, 4), st.randoms(use_true_random=False))
def test_merged_states_of_user_batches_equal_one_call_bit_for_bit(pair, missing, n_batches, rnd):
    a, b = pair
    names = _merge_names()
    one = rm.agreement(a, b, names, missing=missing, threads=2)
    users = list(dict.fromkeys([*a, *b]))
    rnd.shuffle(users)
    batches = [users[i::n_batches] for i in range(n_batches)]
    states = []
    for batch in batches:
        ba = {u: a[u] for u in batch if u in a}
        bb = {u: b[u] for u in batch if u in b}
        if not ba and not bb:
            continue
        states.append(rm.agreement(ba, bb, names, missing=missing, threads=rnd.choice([1, 2])).state)
    if not states:
        return
    rnd.shuffle(states)  # any order
    merged = rm.AgreementState.merge_all(states)
    folded = states[0]
    for s in states[1:]:
        folded = folded.merge(s)
    for got in (merged, folded):
        assert {k: _bits(v) for k, v in got.finalize().items()} == {k: _bits(one[k]) for k in names}
        assert [got.counts[got.keys[n]] for n in names] == [one.counts[n] for n in names]
        assert got.meta == one.meta
        assert sorted(map(str, got.users.tolist())) == sorted(map(str, one.users.tolist()))
    assert {k: _bits(v) for k, v in one.state.finalize().items()} == {k: _bits(one[k]) for k in names}


def test_agreement_states_refuse_a_user_in_two_states_and_different_metrics():
    s1 = rm.agreement({"u": ["a", "b"]}, {"u": ["b"]}, ["overlap@2"]).state
    s2 = rm.agreement({"u": ["a"]}, {"u": ["a"]}, ["overlap@2"]).state
    with pytest.raises(ValueError, match="'u'"):
        s1.merge(s2)
    s3 = rm.agreement({"v": ["a"]}, {"v": ["a"]}, ["jaccard@2"]).state
    with pytest.raises(ValueError, match="different metrics"):
        s1.merge(s3)
    with pytest.raises(TypeError, match="AgreementState"):
        s1.merge(object())  # type: ignore[arg-type]


def test_an_agreement_state_survives_pickling_and_gives_means_by_either_name():
    import pickle

    res = rm.agreement({"u": ["a", "b", "c"], "v": ["x"]}, {"u": ["c", "a"], "v": []}, ["rbo(p=0.5)@3", "overlap@3"])
    st_ = pickle.loads(pickle.dumps(res.state))
    assert st_.finalize() == res.means
    assert st_["rbo(p=0.5)@3"] == res["rbo(p=0.5)@3"] and st_["overlap@3"] == res["overlap@3"]
    assert st_.merge(rm.agreement({"w": ["a"]}, {"w": ["a"]}, ["rbo(p=0.5)@3", "overlap@3"]).state)["overlap@3"] == (
        (res["overlap@3"] * 2 + 1) / 3
    )
