"""user_groups= (docs/fairness.md): every group's means equal an evaluation of that group's users alone,
bit for bit, for any options, thread count and partition into merged partial states; clear errors on
bad groups; the gap summaries and the permutation test of the gap."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from rankmeter.evaluation._groups import permutation_pvalues
from tests.support.same import same_bits

METRICS = ["ndcg@5", "precision@3", "recall@10", "ap", "mrr", "hit_rate@2", "dcg(gain=exponential)@4"]


@st.composite
def grouped_case(draw):
    n_items = draw(st.integers(1, 12))
    users = draw(st.lists(st.integers(0, 30), min_size=0, max_size=14, unique=True))
    truth, recs = {}, {}
    for u in users:
        side = draw(st.sampled_from(["both", "both", "truth", "recs"]))  # users missing on either side
        if side in ("both", "truth"):
            items = draw(st.lists(st.integers(0, n_items), max_size=5, unique=True))
            truth[u] = {i: draw(st.integers(0, 3)) for i in items}  # grade 0 only: a user without relevant item
        if side in ("both", "recs"):
            recs[u] = draw(st.lists(st.integers(0, n_items), max_size=7, unique=True))  # empty and short lists
    opts = {
        "missing": draw(st.sampled_from(["zero", "skip", "skip_empty"])),
        "recs_only": draw(st.sampled_from(["skip", "empty"])),
        "empty": draw(st.sampled_from(["skip", "zero"])),
        "threads": draw(st.sampled_from([1, 2, 3])),
    }
    n_groups = draw(st.integers(1, 4))
    labels = draw(st.lists(st.integers(0, n_groups - 1), min_size=31, max_size=31))
    seed = draw(st.integers(0, 2**32 - 1))
    if draw(st.booleans()):  # string user and item ids (labels stay indexed by the int user)
        labels = {f"u{u}": labels[u] for u in range(31)}
        truth = {f"u{u}": {f"i{i}": g for i, g in t.items()} for u, t in truth.items()}
        recs = {f"u{u}": [f"i{i}" for i in r] for u, r in recs.items()}
    else:
        labels = dict(enumerate(labels))
    return truth, recs, opts, labels, seed


def _restricted(d, users):
    return {u: v for u, v in d.items() if u in users}


def _alone(truth, recs, members, opts):
    """evaluate() over the members only. A member on one side only is evaluated (missing="zero", or
    recs_only="empty") as with an empty list or an empty truth: both sides get it, so that the call has a
    user on both sides (a call whose sides share no user is an error)."""
    t = {u: truth.get(u, {}) for u in members}
    r = {u: recs.get(u, []) for u in members}
    return rm.evaluate(t, r, METRICS, **opts)


def _evaluate_or_reject(truth, recs, metrics, **kw):
    try:
        return rm.evaluate(truth, recs, metrics, **kw)
    except ValueError as e:
        assume("no `recs` user matches" not in str(e))
        raise


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grouped_case())
def test_each_group_mean_equals_evaluate_restricted_to_the_group_bit_for_bit(case):
    truth, recs, opts, labels, _ = case
    plain = _evaluate_or_reject(truth, recs, METRICS, **opts)
    users = plain.users.tolist()
    # every evaluated user gets a group; "ghost" holds a user that is not evaluated: an empty group
    groups = {u: f"g{labels[u]}" for u in users}
    groups["nobody" if isinstance(next(iter(labels)), str) else 1000] = "ghost"  # not evaluated: an empty group
    res = rm.evaluate(truth, recs, METRICS, user_groups=groups, **opts)
    table = res.by_group()
    assert list(table.index) == sorted(set(groups.values()))
    assert int(table["n_users"].sum()) == len(users)
    for m in METRICS:  # the means over all users are unchanged
        assert same_bits(res[m], plain[m])
    for label, row in table.iterrows():
        members = {u for u in users if groups[u] == label}
        assert row["n_users"] == len(members)
        if not members:
            assert all(math.isnan(row[m]) for m in METRICS)
            continue
        alone = _alone(truth, recs, members, opts)
        assert sorted(alone.users.tolist()) == sorted(members)
        for m in METRICS:
            assert same_bits(row[m], alone[m]), (label, m)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grouped_case(), st.integers(1, 4))
def test_merged_partial_group_states_equal_one_call_in_any_split_and_order(case, parts):
    truth, recs, opts, labels, seed = case
    users = _evaluate_or_reject(truth, recs, ["ndcg@5"], **opts).users.tolist()
    groups = {u: f"g{labels[u]}" for u in users}
    whole = rm.evaluate(truth, recs, METRICS, user_groups=groups, **opts).by_group()
    rng = np.random.default_rng(seed)
    which = {u: int(rng.integers(0, parts)) for u in users}
    states = []
    for p in range(parts):
        mine = [u for u in users if which[u] == p]
        if mine:  # each part: its evaluated users on both sides (see _alone)
            t, r = {u: truth.get(u, {}) for u in mine}, {u: recs.get(u, []) for u in mine}
            states.append(rm.partial(t, r, METRICS, user_groups=groups, **opts))
    if not states:
        return
    order = rng.permutation(len(states))
    merged = rm.GroupedState.merge_all([states[i] for i in order])
    merged = rm.GroupedState.from_bytes(merged.to_bytes())  # the byte form carries every group
    got = merged.by_group()
    assert list(got.index) == list(whole.index)
    for col in whole.columns:
        assert same_bits(got[col].to_numpy(), whole[col].to_numpy()), col


# --------------------------------------------------------------------------- forms
TRUTH = {"a": {1: 1, 2: 1}, "b": {3: 1}, "c": {4: 1}, "d": {5: 2}}
RECS = {"a": [1, 9, 2], "b": [7, 3], "c": [9], "d": [5]}


def test_series_categorical_and_truth_column_give_the_same_groups_as_a_mapping():
    mapping = {"a": "x", "b": "x", "c": "y", "d": "y"}
    want = rm.evaluate(TRUTH, RECS, ["ndcg@3", "ap"], user_groups=mapping).by_group()
    series = rm.evaluate(TRUTH, RECS, ["ndcg@3", "ap"], user_groups=pd.Series(mapping)).by_group()
    pd.testing.assert_frame_equal(series, want)
    cat = pd.Series(mapping).astype(pd.CategoricalDtype(["x", "y", "unused"]))
    with_cat = rm.evaluate(TRUTH, RECS, ["ndcg@3", "ap"], user_groups=cat).by_group()
    assert list(with_cat.index) == ["x", "y", "unused"]  # a category without users: an empty group
    assert with_cat.loc["unused", "n_users"] == 0 and math.isnan(with_cat.loc["unused", "ap"])
    pd.testing.assert_frame_equal(with_cat.loc[["x", "y"]], want)
    rows = [(u, i, g, mapping[u]) for u, items in TRUTH.items() for i, g in items.items()]
    table = pd.DataFrame(rows, columns=["user_id", "item_id", "relevance", "country"])
    by_col = rm.evaluate(table, RECS, ["ndcg@3", "ap"], user_groups="country").by_group()
    pd.testing.assert_frame_equal(by_col, want)


def test_activity_groups_bucket_users_by_train_interactions():
    train = {"a": [1, 2, 3, 4], "b": [1], "c": [2, 3]}  # d: absent from train, 0 interactions
    groups = rm.activity_groups(train, bins=[1, 3])
    assert groups.labels == ("cold", "regular", "heavy")
    assert groups.counts(np.array(["a", "b", "c", "d"], dtype=object)).tolist() == [4, 1, 2, 0]
    table = rm.evaluate(TRUTH, RECS, ["precision@1"], user_groups=groups).by_group()
    assert table["n_users"].to_dict() == {"cold": 1, "regular": 2, "heavy": 1}
    # precision@1: a hits (heavy), b misses, c misses (regular), d hits (cold)
    assert table["precision@1"].to_dict() == {"cold": 1.0, "regular": 0.0, "heavy": 1.0}
    assert rm.activity_groups(train, bins=[2, 5, 10]).labels == ("<2", "2-4", "5-9", ">=10")
    assert rm.activity_groups(train, bins=[1, 2], labels=["none", "one", "many"]).labels == ("none", "one", "many")


def test_gap_summaries_of_known_group_means():
    # precision@1 per group: x 0.0, y 0.5, z 1.0
    truth = {1: {1: 1}, 2: {1: 1}, 3: {1: 1}, 4: {1: 1}}
    recs = {1: [2], 2: [1], 3: [2], 4: [1]}
    res = rm.evaluate(truth, recs, ["precision@1"], user_groups={1: "x", 2: "y", 3: "y", 4: "z"})
    gaps = res.group_gaps(n_permutations=0)
    row = gaps.loc["precision@1"]
    assert row["max_minus_min"] == 1.0
    assert row["min_max_ratio"] == 0.0
    assert row["mad"] == pytest.approx((0.5 + 1.0 + 0.5) / 3)  # Elliot: mean |difference| over pairs of groups
    assert "p_value" not in gaps.columns
    one = rm.evaluate(truth, recs, ["precision@1"], user_groups=dict.fromkeys([1, 2, 3, 4], "all"))
    assert one.group_gaps(n_permutations=9).isna().all().all()  # one group: no gap


# --------------------------------------------------------------------------- permutation test
def test_permutation_pvalues_are_deterministic_for_a_seed():
    rng = np.random.default_rng(1)
    x = rng.random((50, 2))
    codes = rng.integers(0, 3, size=50)
    a = permutation_pvalues(x, codes, 3, 199, seed=7)
    assert np.array_equal(a, permutation_pvalues(x, codes, 3, 199, seed=7))
    assert not np.array_equal(a, permutation_pvalues(x, codes, 3, 199, seed=8))
    assert np.all((a >= 1 / 200) & (a <= 1))


def _reference_ranges(values, codes, n_groups, n_permutations, seed):
    """Each permutation's range of the group means, in plain Python: users ordered by the words of the
    permutation's stream (ties by index), user i taking the group of the user at position i, sums in row order."""
    from rankmeter import _core
    from rankmeter.evaluation._groups import _PERMUTATION_DOMAIN

    n, n_cols = values.shape
    out = []
    for r in range(n_permutations):
        words = _core.splitmix_words(seed, _PERMUTATION_DOMAIN, r, n).tolist()
        perm = sorted(range(n), key=lambda u: (words[u], u))
        row = []
        for c in range(n_cols):
            s = [0.0] * n_groups
            k = [0.0] * n_groups
            for i in range(n):
                g = int(codes[perm[i]])
                v = float(values[i, c])
                if not math.isnan(v):
                    s[g] += v
                    k[g] += 1.0
                else:
                    s[g] += 0.0
            means = [s[g] / k[g] for g in range(n_groups) if k[g] > 0]
            row.append(max(means) - min(means) if len(means) >= 2 else math.nan)
        out.append(row)
    return np.array(out, dtype=np.float64).reshape(n_permutations, n_cols)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(0, 40),
    n_cols=st.integers(1, 3),
    n_groups=st.integers(1, 5),
    nan_share=st.sampled_from([0.0, 0.3, 1.0]),
    seed=st.integers(0, 2**64 - 1),
    data=st.data(),
)
def test_permutation_ranges_in_cpp_equal_the_plain_reference_bit_for_bit(n, n_cols, n_groups, nan_share, seed, data):
    from rankmeter import _core

    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = rng.choice([0.0, 0.5, 1.0, rng.random()], size=(n, n_cols))
    x[rng.random((n, n_cols)) < nan_share] = np.nan
    codes = rng.integers(0, n_groups, size=n).astype(np.int64)
    want = _reference_ranges(x, codes, n_groups, 7, seed)
    valid = (~np.isnan(x)).astype(np.float64)
    w = np.where(np.isnan(x), 0.0, x)
    for threads in (1, 2, 3):
        got = _core.group_permutation_ranges(w, valid, codes, n_groups, 7, seed, threads)
        assert same_bits(got, want), threads
    # the p-values count the permutations whose range reaches the observed one
    p = permutation_pvalues(x, codes, n_groups, 7, seed)
    if n:
        assert p.shape == (n_cols,)


def test_permutation_ranges_reject_bad_codes():
    from rankmeter import _core

    w = np.zeros((3, 1))
    with pytest.raises(ValueError, match="group code outside"):
        _core.group_permutation_ranges(w, w, np.array([0, 1, 5], dtype=np.int64), 2, 3, 0, 1)


def test_permutation_pvalues_are_near_uniform_without_a_gap():
    rng = np.random.default_rng(2)
    found = []
    for s in range(300):
        x = rng.random((30, 1))
        codes = rng.integers(0, 3, size=30)
        found.append(permutation_pvalues(x, codes, 3, 99, seed=s)[0])
    ps = np.array(found)
    assert 0.01 <= np.mean(ps <= 0.05) <= 0.10
    assert 0.40 <= np.mean(ps <= 0.5) <= 0.60


def test_planted_gap_gives_the_smallest_pvalue():
    n = 60
    truth = {u: {u: 1} for u in range(n)}
    recs = {u: [u] if u % 2 == 0 else [u + 1000] for u in range(n)}  # even users always hit, odd never
    groups = {u: "even" if u % 2 == 0 else "odd" for u in range(n)}
    gaps = rm.evaluate(truth, recs, ["hit_rate@1"], user_groups=groups).group_gaps(n_permutations=199, seed=3)
    assert gaps.loc["hit_rate@1", "p_value"] == 1 / 200
    assert gaps.loc["hit_rate@1", "max_minus_min"] == 1.0


# --------------------------------------------------------------------------- errors
def test_users_without_a_group_are_an_error_naming_them():
    with pytest.raises(ValueError, match=r"no group to 2 evaluated user\(s\): 'c', 'd'.*exactly one group"):
        rm.evaluate(TRUTH, RECS, ["ndcg@3"], user_groups={"a": 1, "b": 1})
    with pytest.raises(ValueError, match=r"no group to 1 evaluated user\(s\): 'd'"):
        rm.evaluate(TRUTH, RECS, ["ndcg@3"], user_groups={"a": 1, "b": 1, "c": 2, "d": None})


def test_groups_of_another_id_kind_are_an_error():
    with pytest.raises(ValueError, match=r"int user ids.*str ids.*no user can match"):
        rm.evaluate(TRUTH, RECS, ["ndcg@3"], user_groups={1: "x", 2: "y"})


def test_wrong_user_groups_type_is_a_type_error_naming_the_argument():
    with pytest.raises(TypeError, match="`user_groups` must be a mapping"):
        rm.evaluate(TRUTH, RECS, ["ndcg@3"], user_groups=["x", "y"])
    with pytest.raises(TypeError, match="names a column of the truth table, but `truth` is a dict"):
        rm.evaluate(TRUTH, RECS, ["ndcg@3"], user_groups="country")


def test_a_user_with_two_groups_is_an_error():
    s = pd.Series(["x", "y", "x", "x", "x"], index=["a", "a", "b", "c", "d"])
    with pytest.raises(ValueError, match="user 'a' has two groups in the Series"):
        rm.evaluate(TRUTH, RECS, ["ndcg@3"], user_groups=s)


def test_a_truth_column_that_is_missing_is_an_error():
    table = pd.DataFrame({"user_id": ["a"], "item_id": [1], "relevance": [1]})
    with pytest.raises(ValueError, match="`user_groups='country'` names a column the truth table does not have"):
        rm.evaluate(table, {"a": [1]}, ["ndcg@3"], user_groups="country")


def test_catalog_metrics_are_an_error_with_groups():
    with pytest.raises(ValueError, match=r"coverage@3 is a catalog-level metric.*without user_groups"):
        rm.evaluate(TRUTH, RECS, ["ndcg@3", "coverage@3"], user_groups=dict.fromkeys("abcd", 1), catalog=range(10))


def test_bad_activity_bins_and_labels_are_errors():
    with pytest.raises(ValueError, match="strictly increasing"):
        rm.activity_groups({"a": [1]}, bins=[10, 1])
    with pytest.raises(TypeError, match="`bins`"):
        rm.activity_groups({"a": [1]}, bins=[1.5])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="`labels` must name 3 buckets"):
        rm.activity_groups({"a": [1]}, bins=[1, 2], labels=["a", "b"])


def test_grouped_and_plain_states_do_not_merge():
    g = rm.partial(TRUTH, RECS, ["ndcg@3"], user_groups=dict.fromkeys("abcd", 1))
    with pytest.raises(TypeError, match="GroupedState"):
        g.merge(rm.partial(TRUTH, RECS, ["ndcg@3"]))


def test_result_without_groups_and_means_only_results_say_what_is_missing():
    with pytest.raises(ValueError, match="user_groups"):
        rm.evaluate(TRUTH, RECS, ["ndcg@3"]).by_group()
    res = rm.evaluate(TRUTH, RECS, ["ndcg@3"], user_groups=dict.fromkeys("abcd", 1), per_user=False)
    assert res.by_group()["n_users"].tolist() == [4]
    with pytest.raises(ValueError, match="per_user=False"):
        res.group_gaps(n_permutations=9)
    with pytest.raises(ValueError, match="n_permutations"):
        res.group_gaps(n_permutations=-1)


# --------------------------------------------------------------------------- evaluate_stream
@pytest.mark.parametrize("batch_rows", [1, 3, 1000])
def test_stream_group_means_equal_the_in_memory_ones_bit_for_bit(tmp_path, batch_rows):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rng = np.random.default_rng(5)
    users = np.arange(40, dtype=np.int64)
    truth = {int(u): {int(i): int(rng.integers(0, 3)) for i in rng.choice(30, 4, replace=False)} for u in users}
    rows = [(int(u), int(i), r) for u in users[:35] for r, i in enumerate(rng.choice(30, 6, replace=False), 1)]
    table = pa.table({k: [row[j] for row in rows] for j, k in enumerate(["user_id", "item_id", "rank"])})
    pq.write_table(table, tmp_path / "recs.parquet")
    groups = {int(u): ("a", "b", "c")[int(u) % 3] for u in users}
    recs: dict[int, list[int]] = {}
    for u, i, _ in rows:
        recs.setdefault(u, []).append(i)
    want = rm.evaluate(truth, recs, METRICS, user_groups=groups).by_group()
    got = rm.evaluate_stream(
        truth, str(tmp_path / "recs.parquet"), METRICS, batch_rows=batch_rows, progress=False, user_groups=groups
    )
    table_got = got.by_group()
    assert list(table_got.index) == list(want.index)
    for col in want.columns:
        assert same_bits(table_got[col].to_numpy(), want[col].to_numpy()), col
    with pytest.raises(TypeError, match="names a truth column"):
        rm.evaluate_stream(truth, str(tmp_path / "recs.parquet"), METRICS, progress=False, user_groups="country")


# --------------------------------------------------------------------------- compare
def test_compare_reports_each_runs_group_means_as_evaluate_does():
    runs = {"one": RECS, "two": {"a": [2, 1], "b": [3], "c": [4, 9], "d": [9]}}
    groups = {"a": "x", "b": "x", "c": "y", "d": "y"}
    cmp = rm.compare(TRUTH, runs, ["ndcg@3", "ap"], user_groups=groups, n_resamples=99)
    table = cmp.by_group()
    assert list(table.index) == [("one", "x"), ("one", "y"), ("two", "x"), ("two", "y")]
    for run, recs in runs.items():
        want = rm.evaluate(TRUTH, recs, ["ndcg@3", "ap"], user_groups=groups).by_group()
        for col in want.columns:
            assert same_bits(table.loc[run][col].to_numpy(), want[col].to_numpy())


@pytest.mark.parametrize("n_groups", [1, 7, 64])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_one_pass_group_sums_equal_the_group_slices_summed_bit_for_bit(monkeypatch, n_groups, threads):
    """Up to 64 groups each column is summed in one pass with per-group accumulators; beyond, the column is
    reordered by group and each slice summed: both give the same exact sums (and so the same group means)."""
    from rankmeter.evaluation import _groups

    rng = np.random.default_rng(n_groups)
    truth = {u: {int(i): int(rng.integers(0, 3)) for i in rng.choice(60, rng.integers(0, 6), replace=False)}
             for u in range(3000)}  # fmt: skip
    recs = {u: [int(i) for i in rng.permutation(60)[: rng.integers(0, 12)]] for u in range(0, 3200, 1)}
    groups = {u: f"g{int(rng.integers(0, n_groups))}" for u in range(3200)}
    one_pass = rm.evaluate(truth, recs, METRICS, user_groups=groups, threads=threads, missing="zero")
    monkeypatch.setattr(_groups, "_GROUPED_KERNEL", 0)
    sliced = rm.evaluate(truth, recs, METRICS, user_groups=groups, threads=threads, missing="zero")
    pd.testing.assert_frame_equal(one_pass.by_group(), sliced.by_group(), check_exact=True)
    for label, state in one_pass.group_state.groups.items():
        assert state.sums == sliced.group_state.groups[label].sums, label
