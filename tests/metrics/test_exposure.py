"""Item-side exposure fairness (exposure_gini, exposure_disparity, awrf, awrf_ndcg) against the plain-Python
reference (tests/support/reference_exposure.py) on hypothesis-generated data: empty lists, users without a relevant
item, items without a group (absent or an empty list), items in several groups, one group, int, str and huge ids,
every attention model, target and thread count; then thread counts and merges of partial states bit for bit, and
the forms and errors of ``item_groups=``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.support import reference_exposure as rx
from tests.support.same import close

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# every attention model, target and ungrouped policy, at a cutoff and over whole lists
EXPOSURE_DETERMINISM = [
    "exposure_gini@10",
    "exposure_gini(attention=cascade,stop=0.3)@5",
    "exposure_gini(over=recommended,attention=rbp,patience=0.8)",
    "exposure_disparity@10",
    "exposure_disparity(target=catalog,attention=geometric)@5",
    "exposure_disparity(target=relevance,ungrouped=own,attention=cascade)@10",
    "awrf@10",
    "awrf(target=relevance,attention=cascade)@5",
    "awrf(target=catalog,ungrouped=own,attention=rbp,patience=0.9)",
    "awrf_ndcg@10",
    "awrf_ndcg(target=relevance)@5",
    "awrf_ndcg(attention=log_trec,discount=trec,multi=each,log_base=e)@5",
    "exposure_disparity(multi=each,target=relevance)@5",
    "pop_reo@10",
    "pop_rsp(head_share=0.5)@5",
    "reo@10",
    "rsp",
    "item_mad@10",
    "item_mad(threshold=2)@5",
]

ATTENTION = st.sampled_from(
    [
        {"attention": "log"},
        {"attention": "log_trec"},
        {"attention": "rbp", "patience": 0.8},
        {"attention": "geometric", "patience": 0.5},
        {"attention": "cascade", "patience": 0.9, "stop": 0.5},
        {"attention": "cascade", "patience": 0.5, "stop": 1.0},
    ]
)


@st.composite
def exposure_case(draw):
    kind = draw(st.sampled_from(["int", "str", "huge"]))
    uid = {"int": lambda u: u, "str": lambda u: f"u{u}", "huge": lambda u: 2**62 + u}[kind]
    iid = {"int": lambda i: i, "str": lambda i: f"i{i}", "huge": lambda i: 2**62 + 7 * i}[kind]
    n_items = draw(st.integers(1, 12))
    labels = draw(st.sampled_from([["a", "b", "c", "d"], [0, 1, 2], ["only"]]))
    groups: dict = {}
    for i in range(n_items + 2):  # two items no list reads: catalog shares count them
        how = draw(st.sampled_from(["none", "empty", "one", "many"]))
        if how == "empty":
            groups[iid(i)] = []
        elif how == "one":
            groups[iid(i)] = [draw(st.sampled_from(labels))]
        elif how == "many":
            groups[iid(i)] = draw(st.lists(st.sampled_from(labels), min_size=1, max_size=3, unique=True))
    if not any(groups.values()):
        groups[iid(0)] = [labels[0]]  # some item has a group (else item_groups says nothing)
    users = draw(st.lists(st.integers(0, 8), min_size=1, max_size=7, unique=True))
    truth = {}
    recs = {}
    for u in users:
        rel = draw(st.lists(st.integers(0, n_items - 1), max_size=4, unique=True))
        truth[uid(u)] = {iid(i): draw(st.sampled_from([0, 1, 2, 3])) for i in rel}
        recs[uid(u)] = [iid(i) for i in draw(st.lists(st.integers(0, n_items - 1), max_size=9, unique=True))]
    k = draw(st.sampled_from([None, 1, 3, 5, 20]))
    att = draw(ATTENTION)
    target = draw(st.sampled_from(["uniform", "catalog", "relevance"]))
    ungrouped = draw(st.sampled_from(["skip", "own"]))
    multi = draw(st.sampled_from(["split", "each"]))
    discount = draw(st.sampled_from(["log", "trec"]))
    threads = draw(st.sampled_from([1, 2, 3]))
    catalog = [iid(i) for i in range(n_items + 2)]
    return truth, recs, groups, catalog, k, att, target, ungrouped, multi, discount, threads


def _name(metric, k, options):
    opts = ",".join(f"{a}={b}" for a, b in options.items())
    return f"{metric}({opts})" + (f"@{k}" if k else "")


def _same(got, want):
    if math.isnan(want):
        return math.isnan(got)
    return close(got, want, rel=1e-12, abs_tol=1e-12)


@SETTINGS
@given(exposure_case())
def test_exposure_metrics_match_the_reference(case):
    truth, recs, groups, catalog, k, att, target, ungrouped, multi, discount, threads = case
    gini = _name("exposure_gini", k, att)
    gini_rec = _name("exposure_gini", k, {**att, "over": "recommended"})
    opts = {**att, "target": target, "ungrouped": ungrouped, "multi": multi}
    base = {"log": 2, "trec": "e"}[discount]  # (two options drawn together: fewer examples)
    disp = _name("exposure_disparity", k, opts)
    aw = _name("awrf", k, {**opts, "log_base": base})
    awn = _name("awrf_ndcg", k, {**opts, "discount": discount, "log_base": base})
    res = rm.evaluate(
        truth, recs, [gini, gini_rec, disp, aw, awn], item_groups=groups, catalog=catalog, threads=threads
    )
    assert _same(res[gini], rx.exposure_gini(truth, recs, k, catalog=catalog, **att))
    assert _same(res[gini_rec], rx.exposure_gini(truth, recs, k, **att))
    ref_opts = {**att, "target": target, "ungrouped": ungrouped, "multi": multi}
    assert _same(res[disp], rx.exposure_disparity(truth, recs, k, groups, **ref_opts))
    log_base = 2 if base == 2 else math.e
    want_aw = rx.awrf_per_user(truth, recs, k, groups, log_base=log_base, **ref_opts)
    want_awn = rx.awrf_ndcg_per_user(truth, recs, k, groups, discount=discount, log_base=log_base, **ref_opts)
    for u, g1, g2 in zip(res.users.tolist(), res.per_user[aw], res.per_user[awn]):
        assert _same(g1, want_aw[u]), (u, g1, want_aw[u])
        assert _same(g2, want_awn[u]), (u, g2, want_awn[u])
    assert _same(res[aw], rx.awrf(truth, recs, k, groups, log_base=log_base, **ref_opts))
    assert _same(res[awn], rx.awrf_ndcg(truth, recs, k, groups, discount=discount, log_base=log_base, **ref_opts))


@st.composite
def equal_opportunity_case(draw):
    truth, recs, groups, catalog, k, _, _, _, _, _, threads = draw(exposure_case())
    items = catalog
    # train: every truth user (a user without train rows has an empty history), repeats too
    train = {u: [draw(st.sampled_from(items)) for _ in range(draw(st.integers(0, 6)))] for u in truth}
    share = draw(st.sampled_from([0.0, 0.5, 0.8, 1.0]))
    return truth, recs, groups, train, k, share, threads


@SETTINGS
@given(equal_opportunity_case())
def test_equal_opportunity_metrics_match_the_reference(case):
    truth, recs, groups, train, k, share, threads = case
    at = f"@{k}" if k else ""
    names = [f"pop_reo(head_share={share}){at}", f"pop_rsp(head_share={share}){at}", f"reo{at}", f"rsp{at}"]
    res = rm.evaluate(truth, recs, names, train=train, item_groups=groups, threads=threads)
    assert _same(res[names[0]], rx.pop_reo(truth, recs, k, train, share))
    assert _same(res[names[1]], rx.pop_rsp(truth, recs, k, train, share))
    assert _same(res[names[2]], rx.reo(truth, recs, k, train, groups))
    assert _same(res[names[3]], rx.rsp(truth, recs, k, train, groups))


@SETTINGS
@given(exposure_case(), st.sampled_from([1.0, 0.5, 2.0]))
def test_item_mad_matches_the_reference(case, threshold):
    truth, recs, groups, _, k, _, _, _, _, _, threads = case
    name = f"item_mad(threshold={threshold})" + (f"@{k}" if k else "")
    res = rm.evaluate(truth, recs, [name], item_groups=groups, threads=threads)
    assert _same(res[name], rx.item_mad(truth, recs, k, groups, threshold))


def test_pop_reo_and_pop_rsp_by_hand():
    """Train popularity a 3, b 3, c 1 (7 pairs): the head at 0.8 is a, b (3 + 3 >= 5.6; a before b on the tie),
    the tail c. u1 (no train) likes a and c and is shown a; u2 (train b) likes b and c and is shown c, b.
    REO: head num a (u1) + b (u2) = 2, den a (u1) + nothing (u2's b is in its train) = 1; tail num c (u2) = 1, den
    c (u1) + c (u2) = 2. RSP: head num 2, den |{a, b}| + |{a, b} - {b}| = 3; tail num 1, den 1 + 1 = 2."""
    train = {"u3": ["a", "b", "c"], "u4": ["a", "b"], "u5": ["a"], "u2": ["b"]}
    truth = {"u1": {"a": 1, "c": 1}, "u2": {"b": 1, "c": 1}}
    recs = {"u1": ["a"], "u2": ["c", "b"]}
    res = rm.evaluate(truth, recs, ["pop_reo@2", "pop_rsp@2"], train=train)

    def std_over_mean(a, b):
        return abs(a - b) / 2 / ((a + b) / 2)

    assert close(res["pop_reo@2"], std_over_mean(2 / 1, 1 / 2))
    assert close(res["pop_rsp@2"], std_over_mean(2 / 3, 1 / 2))


def test_worked_example_by_hand():
    """Two users, log attention at k=2: u1 lists a (group x), b (y); u2 lists a, c (no group).
    Exposures: a 2, b 1/log2(3), c 1/log2(3). Under ungrouped=skip u2's distribution is x only: JSD(x only,
    uniform over x, y) = 1/2 (log2(4/3)) + 1/4 log2(2/3) + 1/4 log2(2) ... computed below from the definition."""
    truth = {"u1": {"a": 1}, "u2": {"c": 1}}
    recs = {"u1": ["a", "b"], "u2": ["a", "c"]}
    groups = {"a": "x", "b": "y", "c": []}
    res = rm.evaluate(
        truth, recs, ["awrf@2", "exposure_disparity@2", "exposure_gini(over=recommended)@2"], item_groups=groups
    )
    w2 = 1 / math.log2(3)
    d1 = {"x": 1 / (1 + w2), "y": w2 / (1 + w2)}

    def jsd(p, q):
        out = 0.0
        for g in set(p) | set(q):
            a, b = p.get(g, 0.0), q.get(g, 0.0)
            m = (a + b) / 2
            out += 0.5 * (a * math.log2(a / m) if a else 0) + 0.5 * (b * math.log2(b / m) if b else 0)
        return out

    u = {"x": 0.5, "y": 0.5}
    v = dict(zip(res.users.tolist(), res.per_user["awrf@2"].tolist()))
    assert close(v["u1"], 1 - jsd(d1, u))
    assert close(v["u2"], 1 - jsd({"x": 1.0}, u))
    # group exposure: x 2, y w2 (c has no group, left out); shares against 1/2 each
    sx = 2 / (2 + w2)
    assert close(res["exposure_disparity@2"], abs(sx - 0.5))
    # Gini of (w2, w2, 2) over n - 1 = 2
    x = sorted([w2, w2, 2.0])
    assert close(
        res["exposure_gini(over=recommended)@2"], sum((2 * j - 4) * v for j, v in enumerate(x, 1)) / (2 * sum(x))
    )


def test_a_perfectly_fair_list_scores_one_and_rbp_and_geometric_shares_agree():
    # one list alone gives its first group more attention than its second; with the reversed list of the other
    # user both groups (and both items) get the same exposure under every attention model
    truth = {1: {1: 1}, 2: {2: 1}}
    recs = {1: [1, 2], 2: [2, 1]}
    groups = {1: "x", 2: "y"}
    res = rm.evaluate(
        truth,
        recs,
        [
            "exposure_disparity(attention=geometric)@2",
            "exposure_disparity(attention=rbp)@2",
            "exposure_gini(over=recommended)@2",
        ],
        item_groups=groups,
    )
    assert res["exposure_disparity(attention=geometric)@2"] == 0.0
    assert res["exposure_disparity(attention=rbp)@2"] == 0.0
    assert res["exposure_gini(over=recommended)@2"] == 0.0
    one = rm.evaluate({1: {1: 1}}, {1: [1, 2]}, ["awrf(attention=geometric,patience=0.999999)@2"], item_groups=groups)
    assert one["awrf(attention=geometric,patience=0.999999)@2"] > 1 - 1e-12


def test_awrf_ndcg_is_awrf_times_ndcg():
    rng = np.random.default_rng(3)
    truth = {u: {int(i): int(rng.integers(1, 4)) for i in rng.choice(50, 5, replace=False)} for u in range(200)}
    recs = {u: [int(i) for i in rng.permutation(50)[:10]] for u in range(200)}
    groups = {i: [f"g{i % 4}", f"h{i % 3}"][: 1 + i % 2] for i in range(50)}
    res = rm.evaluate(truth, recs, ["awrf@10", "awrf_ndcg@10", "ndcg@10"], item_groups=groups)
    prod = res.per_user["awrf@10"] * res.per_user["ndcg@10"]
    assert np.allclose(res.per_user["awrf_ndcg@10"], prod, rtol=1e-14, atol=0)


def _big_case(seed=11, n_users=3000, n_items=400):
    rng = np.random.default_rng(seed)
    truth = {
        u: {int(i): int(rng.integers(0, 4)) for i in rng.choice(n_items, rng.integers(0, 6), replace=False)}
        for u in range(n_users)
    }
    recs = {u: [int(i) for i in rng.permutation(n_items)[: rng.integers(0, 15)]] for u in range(n_users)}
    groups = {i: [f"g{j}" for j in rng.choice(12, rng.integers(0, 3), replace=False)] for i in range(n_items) if i % 5}
    return truth, recs, groups


def test_values_do_not_depend_on_threads_and_merged_states_give_the_one_call_values():
    truth, recs, groups = _big_case()
    rng = np.random.default_rng(2)
    train = {u: [int(i) for i in rng.integers(0, 400, rng.integers(0, 20))] for u in range(0, 3000, 2)}
    base = rm.evaluate(truth, recs, EXPOSURE_DETERMINISM, item_groups=groups, train=train, threads=1)
    for threads in (2, 3):
        res = rm.evaluate(truth, recs, EXPOSURE_DETERMINISM, item_groups=groups, train=train, threads=threads)
        for n in EXPOSURE_DETERMINISM:
            assert res[n] == base[n] or (math.isnan(res[n]) and math.isnan(base[n])), (n, threads)
            if n.startswith("awrf"):
                assert np.array_equal(res.per_user[n], base.per_user[n], equal_nan=True), (n, threads)
    # three batches of users of uneven sizes, merged in several orders and through bytes: the one-call values
    rng = np.random.default_rng(5)
    which = rng.integers(0, 3, len(truth))
    batches = [{u: truth[u] for u in truth if which[u] == b} for b in range(3)]
    states = [rm.partial(b, recs, EXPOSURE_DETERMINISM, item_groups=groups, train=train) for b in batches]
    for order in ((0, 1, 2), (2, 0, 1), (1, 2, 0)):
        merged = rm.State.merge_all([states[i] for i in order])
        again = rm.State.from_bytes(merged.to_bytes())
        pairwise = states[order[0]].merge(states[order[1]]).merge(states[order[2]])
        for got in (merged.finalize(), again.finalize(), pairwise.finalize()):
            for n in EXPOSURE_DETERMINISM:
                assert got[n] == base[n] or (math.isnan(got[n]) and math.isnan(base[n])), (n, order)


def test_states_of_different_item_groups_do_not_merge():
    truth, recs, groups = _big_case(n_users=50)
    a = rm.partial({u: truth[u] for u in range(25)}, recs, ["exposure_disparity@5"], item_groups=groups)
    other = dict.fromkeys(groups, "one")
    b = rm.partial({u: truth[u] for u in range(25, 50)}, recs, ["exposure_disparity@5"], item_groups=other)
    with pytest.raises(ValueError, match="different context \\(item_groups\\)"):
        a.merge(b)


def test_awrf_by_user_group_and_exposure_refused_with_user_groups():
    truth, recs, groups = _big_case(n_users=100)
    ug = {u: "odd" if u % 2 else "even" for u in truth}
    res = rm.evaluate(truth, recs, ["awrf@5"], item_groups=groups, user_groups=ug)
    alone = rm.evaluate({u: truth[u] for u in truth if u % 2}, recs, ["awrf@5"], item_groups=groups)
    assert res.by_group().loc["odd", "awrf@5"] == alone["awrf@5"]
    with pytest.raises(ValueError, match="exposure_gini"):
        rm.evaluate(truth, recs, ["exposure_gini@5"], user_groups=ug)


def test_item_exposure_is_the_same_for_string_and_int_ids():
    truth, recs, groups = _big_case(n_users=300)
    rng = np.random.default_rng(4)
    train = {u: [int(i) for i in rng.integers(0, 400, rng.integers(0, 20))] for u in range(300)}
    s = lambda i: f"item-{i}"  # noqa: E731
    truth_s = {u: {s(i): g for i, g in t.items()} for u, t in truth.items()}
    recs_s = {u: [s(i) for i in lst] for u, lst in recs.items()}
    groups_s = {s(i): g for i, g in groups.items()}
    train_s = {u: [s(i) for i in h] for u, h in train.items()}
    # (the head/tail split of pop_* breaks popularity ties by id, which orders int and str ids differently)
    names = [n for n in EXPOSURE_DETERMINISM if not n.startswith("pop_")]
    a = rm.evaluate(truth, recs, names, item_groups=groups, train=train)
    b = rm.evaluate(truth_s, recs_s, names, item_groups=groups_s, train=train_s)
    for n in names:
        assert a[n] == b[n] or (math.isnan(a[n]) and math.isnan(b[n])), n


def test_tied_scores_rank_by_item_id_as_every_other_metric():
    # recs given as scores with ties: the default ties="item" ranks equal scores by item id ascending, so the
    # exposure metrics read the same lists as when given explicitly, and the reference agrees
    truth = {1: {3: 1, 5: 2}, 2: {4: 1}}
    scores = {1: {5: 0.9, 3: 0.9, 7: 0.5, 2: 0.5, 6: 0.1}, 2: {4: 0.7, 1: 0.7, 8: 0.7}}
    lists = {1: [3, 5, 2, 7, 6], 2: [1, 4, 8]}
    groups = {1: "a", 2: "b", 3: ["a", "b"], 4: "c", 5: "c", 6: "a", 8: "b"}
    names = [
        "awrf(attention=cascade)@3",
        "awrf_ndcg@4",
        "exposure_disparity(target=relevance)@3",
        "exposure_gini(over=recommended)@4",
        "item_mad@3",
    ]
    a = rm.evaluate(truth, scores, names, item_groups=groups)
    b = rm.evaluate(truth, lists, names, item_groups=groups)
    for n in names:
        assert a[n] == b[n] or (math.isnan(a[n]) and math.isnan(b[n])), n
    want = rx.awrf(
        truth, lists, 3, {i: [g] if isinstance(g, str) else g for i, g in groups.items()}, attention="cascade"
    )
    assert _same(a["awrf(attention=cascade)@3"], want)


# ----------------------------------------------------------------------------- forms and errors
TRUTH = {"u1": {"a": 1}, "u2": {"c": 1}}
RECS = {"u1": ["a", "b", "c"], "u2": ["c", "a"]}
GROUPS = {"a": "x", "b": ["x", "y"], "c": "y"}


def _value(item_groups, metric="awrf@3", **kw):
    return rm.evaluate(TRUTH, RECS, [metric], item_groups=item_groups, **kw)[metric]


@pytest.mark.parametrize(
    "form",
    [
        pd.DataFrame({"item_id": ["a", "b", "b", "c"], "group": ["x", "x", "y", "y"]}),
        pd.DataFrame({"item": ["a", "b", "c"], "provider": [["x"], ["x", "y"], ["y"]]}),
        {"item_id": ["a", "b", "b", "c"], "group": ["x", "x", "y", "y"]},
        (["a", "b", "b", "c"], ["x", "x", "y", "y"]),
        pd.Series({"a": "x", "b": ["x", "y"], "c": "y"}),
        {"a": ["x"], "b": ("y", "x"), "c": {"y"}, "q": []},
    ],
    ids=["long-table", "list-column", "dict-of-columns", "pair", "series", "dict-of-lists"],
)
def test_every_form_of_item_groups_reads_the_same(form):
    for metric in ("awrf@3", "exposure_disparity(target=catalog)@3"):
        assert _value(form, metric) == _value(GROUPS, metric)


def test_group_metric_without_item_groups_names_the_argument():
    with pytest.raises(ValueError, match="needs `item_groups`"):
        rm.evaluate(TRUTH, RECS, ["awrf@3"])


def test_item_groups_not_read_by_any_metric_is_refused():
    with pytest.raises(
        ValueError, match="`item_groups` is read by exposure_disparity, awrf, awrf_ndcg, reo, rsp and item_mad only"
    ):
        rm.evaluate(TRUTH, RECS, ["ndcg@3", "exposure_gini@3"], item_groups=GROUPS)


@pytest.mark.parametrize(
    "bad, err, match",
    [
        ({"a": None}, TypeError, "`item_groups`: item 'a' has group None"),
        ({"a": ["x", None]}, TypeError, "`item_groups`: item 'a' has group None"),
        ({"a": 1.5}, TypeError, "groups must be strings or ints"),
        ({"a": ["x", 1]}, TypeError, "group ids mix ints and strings"),
        ({"a": ["x", "x"]}, ValueError, "gives item 'a' group 'x' more than once"),
        (pd.DataFrame({"item_id": ["a"], "colour": ["x"]}), ValueError, "`item_groups` has no group column"),
        ({"a", "b"}, TypeError, "`item_groups` must be a dict item -> group"),
        ({1: "x"}, ValueError, "`item_groups` and `recs` item ids are of different kinds"),
    ],
)
def test_bad_item_groups_raise_before_work(bad, err, match):
    with pytest.raises(err, match=match):
        _value(bad)


@pytest.mark.parametrize(
    "metric, match",
    [
        ("awrf(patience=1.5)@3", "patience"),
        ("awrf(patience=0)@3", "patience"),
        ("awrf(stop=2)@3", "stop"),
        ("awrf(attention=linear)@3", "attention"),
        ("exposure_disparity(target=popularity)@3", "target"),
    ],
)
def test_bad_options_are_refused(metric, match):
    with pytest.raises(ValueError, match=match):
        _value(GROUPS, metric)


@SETTINGS
@given(exposure_case())
def test_exposure_tables_match_the_reference_and_give_the_metric(case):
    truth, recs, groups, catalog, k, att, target, ungrouped, multi, _, threads = case
    gini = _name("exposure_gini", k, att)
    gini_rec = _name("exposure_gini", k, {**att, "over": "recommended"})
    opts = {**att, "target": target, "ungrouped": ungrouped, "multi": multi}
    disp = _name("exposure_disparity", k, opts)
    res = rm.evaluate(truth, recs, [gini, gini_rec, disp], item_groups=groups, catalog=catalog, threads=threads)
    want = rx.item_exposure(truth, recs, k, **att)
    items = res.exposure(gini)
    assert sorted(items.index.tolist(), key=repr) == sorted(set(catalog), key=repr)  # every catalog item, once
    for item, e in items["exposure"].items():
        assert close(e, want.get(item, 0.0), rel=1e-12, abs_tol=1e-12), item
    assert items["exposure"].is_monotonic_decreasing
    exposed = res.exposure(gini_rec)
    assert set(exposed.index.tolist()) == {i for i, e in want.items() if e > 0}
    table = res.exposure(disp)
    share, tgt = rx.group_shares(truth, recs, k, groups, **opts)
    names = [("no group" if g == "(no group)" else g) for g in table.index.tolist()]
    want_names = list(rx._all_groups(groups)) + (["no group"] if ungrouped == "own" else [])
    assert names == want_names
    for g, row in zip(names, table.itertuples()):
        key = rx.NO_GROUP if g == "no group" else g
        if share is None:
            assert math.isnan(row.share)
        else:
            assert close(row.share, share.get(key, 0.0), rel=1e-12, abs_tol=1e-12), g
        if tgt is None:
            assert math.isnan(row.target)
        else:
            assert close(row.target, tgt.get(key, 0.0), rel=1e-12, abs_tol=1e-12), g
    if not math.isnan(res[disp]):
        assert res[disp] == 0.5 * math.fsum(table["gap"].abs().tolist())


def test_exposure_tables_of_merged_states_equal_the_one_call_tables():
    truth, recs, groups = _big_case(n_users=600)
    metrics = ["exposure_gini@5", "exposure_disparity(target=catalog,ungrouped=own)@5"]
    catalog = list(range(400))
    one = rm.evaluate(truth, recs, metrics, item_groups=groups, catalog=catalog)
    which = np.random.default_rng(3).integers(0, 3, len(truth))
    states = [
        rm.partial({u: truth[u] for u in truth if which[u] == b}, recs, metrics, item_groups=groups, catalog=catalog)
        for b in range(3)
    ]
    merged = rm.State.from_bytes(rm.State.merge_all(states[::-1]).to_bytes())
    for m in metrics:
        pd.testing.assert_frame_equal(merged.exposure(m), one.exposure(m), check_exact=True)


def test_exposure_table_of_another_metric_or_an_absent_one_is_refused():
    res = rm.evaluate({1: {1: 1}}, {1: [1, 2]}, ["ndcg@2", "exposure_gini@2"], catalog=[1, 2])
    with pytest.raises(ValueError, match="exposure_gini or exposure_disparity"):
        res.exposure("ndcg@2")
    with pytest.raises(KeyError, match="was not evaluated"):
        res.exposure("exposure_gini@3")


@SETTINGS
@given(
    st.dictionaries(
        st.integers(0, 12),
        st.lists(st.integers(0, 9), max_size=6),  # repeats within a user: counted once
        min_size=1,
        max_size=10,
    ),
    st.sampled_from([0.2, 0.5, 0.8, 1.0]),
    st.sampled_from(["int", "str"]),
)
def test_popularity_groups_are_the_short_head_and_long_tail_of_pop_reo(train, share, kind):
    assume(any(train.values()))
    if kind == "str":
        train = {u: [f"i{i:02d}" for i in items] for u, items in train.items()}
    groups = rm.popularity_groups(train, head_share=share)
    head, tail = rx.short_head_long_tail({u: v for u, v in train.items() if v}, share)
    assert {i for i, g in groups.items() if g == "head"} == head
    assert {i for i, g in groups.items() if g == "tail"} == tail
    if not tail:
        return  # one group only: reo / rsp over item_groups see one group, pop_reo / pop_rsp an empty tail (NaN)
    # reo / rsp over these groups are pop_reo / pop_rsp: the same split, the same definition
    truth = {u: dict.fromkeys(items[:2], 1) for u, items in train.items() if items}
    recs = {u: sorted({i for v in train.values() for i in v}, key=repr)[:4] for u in truth}
    got = rm.evaluate(truth, recs, ["reo@3", "rsp@3"], train=train, item_groups=groups)
    want = rm.evaluate(truth, recs, [f"pop_reo(head_share={share})@3", f"pop_rsp(head_share={share})@3"], train=train)
    assert _same(got["reo@3"], want[f"pop_reo(head_share={share})@3"])
    assert _same(got["rsp@3"], want[f"pop_rsp(head_share={share})@3"])


@pytest.mark.parametrize(
    ("kw", "err", "match"),
    [
        ({"head_share": 0}, ValueError, "head_share"),
        ({"head_share": "0.8"}, TypeError, "head_share"),
        ({"labels": ("a", "a")}, ValueError, "labels"),
    ],
)
def test_bad_popularity_group_arguments_are_named(kw, err, match):
    with pytest.raises(err, match=match):
        rm.popularity_groups({"u": [1, 2]}, **kw)
