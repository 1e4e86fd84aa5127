"""rankmeter.evaluate against the naive pure-Python reference (tests/support/reference.py).

The reference is written from the definitions of docs/metrics.md, never from the implementation;
expected values are either computed by the reference or by hand, never copied
from rankmeter's output.
"""

import copy
import math
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support import reference as ref
from tests.support.reference import ALL_METRIC_BASES, reference_evaluate
from tests.support.same import close, same_bits

try:
    import rankmeter as _rankmeter

    _IMPORT_ERROR = None
except Exception as exc:  # pragma: no cover - only while the package is being written
    _rankmeter = None  # type: ignore[assignment]  # rm() turns the import error into a failure
    _IMPORT_ERROR = exc


def rm():
    """The package; a failure (not a skip) when it cannot be imported."""
    if _rankmeter is None:
        pytest.fail(f"import rankmeter failed: {_IMPORT_ERROR!r}")
    return _rankmeter


SETTINGS: dict[str, Any] = dict(
    deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)

LOG_BASES = (2, math.e, 10)
ALL_BASES = [*ALL_METRIC_BASES, "r_precision", "num_rel"]
CUTOFFS = (None, 1, 2, 3, 5, 20)


def mname(base, k):
    return base if k is None else f"{base}@{k:d}"


def as_list(users):
    if hasattr(users, "tolist"):
        return users.tolist()
    return list(users)


def check(truth, recs, metrics, whole_lists=False, **opts):
    """Compare rankmeter.evaluate with the reference; returns rankmeter's result.

    whole_lists=True: the reference looks for duplicates in whole lists and rankmeter
    runs with preset="trec_eval" (pass `empty` and `ties` so the preset's defaults do
    not apply); the reference then gets the preset's metric options (ideal=all for a
    cut-less `ndcg`, negative=unjudged for `bpref`)."""
    truth_copy = copy.deepcopy(truth)
    recs_copy = copy.deepcopy(recs)
    rm_opts = dict(opts, preset="trec_eval") if whole_lists else opts
    if whole_lists:
        preset_options = rm().evaluation.get_preset("trec_eval").metric_options
        ref_name = {m: str(rm().metrics.parse(m, preset_options)) for m in metrics}
    else:
        ref_name = {m: m for m in metrics}
    try:
        means, per_user, meta = reference_evaluate(
            truth, recs, list(dict.fromkeys(ref_name.values())), whole_lists=whole_lists, **opts
        )
    except ValueError:
        with pytest.raises(ValueError):
            rm().evaluate(truth, recs, metrics, **rm_opts)
        return None
    res = rm().evaluate(truth, recs, metrics, **rm_opts)
    assert truth == truth_copy and recs == recs_copy, "inputs were modified"
    assert as_list(res.users) == meta["users"]
    for m in metrics:
        got = res.per_user[m]
        assert isinstance(got, np.ndarray) and got.dtype == np.float64, m
        assert got.shape == (len(meta["users"]),), m
        for i, (g, e) in enumerate(zip(got.tolist(), per_user[ref_name[m]])):
            assert close(g, e, rel=1e-12), "{} user {!r}: rankmeter {!r}, reference {!r}".format(
                m, meta["users"][i], g, e
            )
        want = means[ref_name[m]]
        assert close(res[m], want, rel=1e-12), f"{m} mean: rankmeter {res[m]!r}, reference {want!r}"
    for key in ("n_skipped", "n_missing_recs", "n_ignored_recs"):
        assert res.meta[key] == meta[key], (key, res.meta[key], meta[key])
    assert res.meta["n_users"] == meta["n_users"], (res.meta["n_users"], meta["n_users"])
    return res


# ---------------------------------------------------------------------------
# 1. the reference alone, by hand (the worked examples of docs/metrics.md §10 and a few more)
# ---------------------------------------------------------------------------


def test_reference_worked_example_dcg_ndcg():
    truth = {"A": 3, "B": 1, "D": 2}
    ranked = ["A", "B", "C", "D", "E"]
    assert round(ref.dcg(ranked, truth, 5, None), 3) == 4.492
    assert round(ref.ideal_dcg(ranked, truth, 5, None), 3) == 4.762
    assert round(ref.ndcg(ranked, truth, 5, None), 3) == 0.943
    # by hand: 3 + 1/log2(3) + 2/log2(5)
    assert math.isclose(ref.dcg(ranked, truth, 5, None), 3 + 1 / math.log2(3) + 2 / math.log2(5))


def test_reference_worked_example_precision_recall():
    truth = dict.fromkeys("ABCD", 1)
    ranked = ["A", "X", "Y", "C", "Z"]
    assert ref.recall(ranked, truth, 5, None) == 0.5
    assert ref.precision(ranked, truth, 5, None) == 0.4


def test_reference_worked_example_mrr():
    truth = {1: {"a": 1}, 2: {"a": 1}, 3: {"a": 1}, 4: {"a": 1}}
    recs = {1: ["x", "y", "a"], 2: ["a"], 3: ["x", "y", "a"], 4: ["x", "y"]}
    means, per_user, _ = reference_evaluate(truth, recs, ["mrr"])
    assert per_user["mrr"] == [1 / 3, 1.0, 1 / 3, 0.0]
    assert round(means["mrr"], 4) == 0.4167


def test_reference_worked_example_ap():
    truth = {"a": 1, "b": 1, "c": 1}
    ranked = ["a", "x", "y", "b", "c", "z"]
    assert math.isclose(ref.ap(ranked, truth, 6, None), 0.7)


def test_reference_worked_example_cg_ndcg():
    truth = {"a": 2, "c": 3, "d": 2}
    ranked = ["a", "b", "c", "d"]
    assert ref.cg(ranked, truth, None, None) == 7
    assert round(ref.ndcg(ranked, truth, None, None), 2) == 0.83
    assert round(ref.ideal_dcg(ranked, truth, None, None), 2) == 5.26


def test_reference_worked_example_systems():
    truth = {2: 1, 6: 1}
    a = [6, 2, 1, 0, 3]
    b = [4, 1, 7, 2, 6]
    for ranked in (a, b):
        assert ref.precision(ranked, truth, 5, None) == 0.4
        assert ref.recall(ranked, truth, 5, None) == 1.0
    assert ref.ap(a, truth, 5, None) == 1.0
    assert math.isclose(ref.ap(b, truth, 5, None), 0.325)


def test_reference_hand_options():
    truth = {"a": 1, "b": 1, "c": 1, "d": 1}
    ranked = ["x", "a", "y", "b"]  # hits at 2 and 4, |R| = 4
    assert ref.precision(ranked, truth, 10, None) == 0.2  # k even when list is shorter
    assert ref.precision(ranked, truth, None, None) == 0.5  # hits / n
    assert ref.precision([], truth, None, None) == 0.0
    assert ref.recall(ranked, truth, 3, None, denominator="min_relevant_k") == 1 / 3
    assert ref.recall(ranked, truth, 2, None, denominator="min_relevant_k") == 1 / 2
    ap_sum = 1 / 2 + 2 / 4
    assert math.isclose(ref.ap(ranked, truth, 4, None), ap_sum / 4)
    assert math.isclose(ref.ap(ranked, truth, 3, None, denominator="min_relevant_k"), (1 / 2) / 3)
    assert math.isclose(ref.ap(ranked, truth, 4, None, denominator="hits"), ap_sum / 2)
    assert math.isclose(ref.ap(ranked, truth, 10, None, denominator="k"), ap_sum / 10)
    assert ref.ap(["x"], truth, 1, None, denominator="hits") == 0.0
    # ar: R@2 = 1/4, R@4 = 2/4
    assert math.isclose(ref.ar(ranked, truth, 4, None), (1 / 4 + 2 / 4) / 4)
    assert math.isclose(ref.ar(ranked, truth, 4, None, denominator="hits"), (1 / 4 + 2 / 4) / 2)
    # fbeta: P = 0.5, R = 0.5 at k=4
    assert math.isclose(ref.fbeta(ranked, truth, 4, None), 0.5)
    # P@2 = 0.5, R@2 = 0.25: F2 = 5 * .125 / (4*.5 + .25)
    assert math.isclose(ref.fbeta(ranked, truth, 2, None, beta=2.0), 5 * 0.125 / 2.25)
    assert ref.fbeta(["x"], truth, 1, None) == 0.0
    assert ref.rr(ranked, truth, 1, None) == 0.0
    assert ref.rr(ranked, truth, None, None) == 0.5
    assert math.isclose(ref.arhr(ranked, truth, None, None), 1 / 2 + 1 / 4)
    assert ref.hit_rate(ranked, truth, 1, None) == 0.0
    assert ref.hit_rate(ranked, truth, 2, None) == 1.0
    assert ref.r_precision(ranked, truth, None, None) == 0.5  # hits@4 / 4
    assert ref.r_precision(["a", "b", "x"], {"a": 1, "b": 1, "c": 0}, None, None) == 1.0


def test_reference_hand_gains_and_ideal():
    truth = {"a": 3, "b": 1, "c": 0.5, "n": -2}
    ranked = ["n", "b", "a", "z"]
    # linear: gains 0, 1, 3, 0
    assert math.isclose(ref.dcg(ranked, truth, None, None), 1 / math.log2(3) + 3 / 2)
    assert math.isclose(ref.dcg(ranked, truth, None, None, log_base=10), 1 / math.log10(3) + 3 / math.log10(4))
    # exponential: 2^g - 1, negative grade -> gain 0
    assert math.isclose(ref.dcg(ranked, truth, 2, None, gain="exponential"), 1 / math.log2(3))
    assert math.isclose(ref.cg(ranked, truth, None, None, gain="exponential"), 1 + 7)
    # binary with min_relevance=2: only "a" is relevant
    assert ref.cg(ranked, truth, None, 2, gain="binary") == 1.0
    # linear gains ignore min_relevance
    assert ref.cg(ranked, truth, None, 2) == 4.0
    # ideal gains: 3, 1, 0.5, 0
    idcg_cut2 = 3 + 1 / math.log2(3)
    idcg_all = idcg_cut2 + 0.5 / 2
    d2 = ref.dcg(ranked, truth, 2, None)
    assert math.isclose(ref.ndcg(ranked, truth, 2, None), d2 / idcg_cut2)
    assert math.isclose(ref.ndcg(ranked, truth, 2, None, ideal="all"), d2 / idcg_all)
    assert math.isclose(ref.ndcg(ranked, truth, 2, None, ideal="k_slots"), d2 / (3 * (1 + 1 / math.log2(3))))
    assert ref.ndcg(ranked, {"n": -1}, 2, None) == 0.0


def test_reference_evaluate_policies():
    truth = {"u1": {"a": 1}, "u2": {"b": 0, "c": -1}, "u3": {}, "u4": {"a": 2}}
    recs = {"u1": ["a"], "u2": ["b"], "u3": ["a"], "zz": ["a"]}
    m = ["precision@1", "hits@1", "ndcg@1"]
    means, pu, meta = reference_evaluate(truth, recs, m)
    assert meta == {
        "users": ["u1", "u2", "u3", "u4"],
        "n_users": 4,
        "n_skipped": 2,
        "n_missing_recs": 1,
        "n_ignored_recs": 1,
    }
    assert pu["precision@1"][0] == 1.0 and math.isnan(pu["precision@1"][1])
    assert means["precision@1"] == 0.5
    means, pu, _ = reference_evaluate(truth, recs, m, empty="one")
    assert pu["precision@1"] == [1.0, 1.0, 1.0, 0.0]
    assert pu["hits@1"] == [1.0, 0.0, 0.0, 0.0]
    means, pu, _ = reference_evaluate(truth, recs, m, empty="zero")
    assert pu["precision@1"] == [1.0, 0.0, 0.0, 0.0]
    with pytest.raises(ValueError):
        reference_evaluate(truth, recs, m, empty="error")
    means, pu, meta = reference_evaluate({}, {}, m)
    assert math.isnan(means["hits@1"]) and pu["hits@1"] == []
    # ties
    scores = {10: 1.0, 9: 1.0, 11: 2.0}
    assert ref.order_scored(scores, "input") == [11, 10, 9]
    assert ref.order_scored(scores, "trec") == [11, 9, 10]
    assert ref.order_scored(scores, "item_desc") == [11, 10, 9]
    # duplicates: looked for only in the part the metrics read (docs/metrics.md §6.1)
    reference_evaluate({1: {"a": 1}}, {1: ["a", "a"]}, m)  # all @1: the repeat is not read
    with pytest.raises(ValueError):
        reference_evaluate({1: {"a": 1}}, {1: ["a", "a"]}, [*m, "ndcg@2"])
    with pytest.raises(ValueError):
        reference_evaluate({1: {"a": 1}}, {1: ["a", "a"]}, [*m, "ndcg"])
    with pytest.raises(ValueError):
        reference_evaluate({1: {"a": 1}}, {1: ["a", "a"]}, m, whole_lists=True)
    assert ref.prepare_list(1, ["a", "b", "a", "c", "d"], "first", None, 3) == ["a", "b", "c"]
    assert ref.prepare_list(1, ["a", "b", "a", "c", "d"], "first", 3, 3) == ["a", "b"]
    assert ref.prepare_list(1, ["a", "b", "c", "a"], "error", None, 3) == ["a", "b", "c"]
    _, pu, _ = reference_evaluate({1: {"b": 1}}, {1: ["a", "a", "b"]}, ["rr@2"], duplicates="first")
    assert pu["rr@2"] == [0.5]


# ---------------------------------------------------------------------------
# 2. random scenarios
# ---------------------------------------------------------------------------

ID_KINDS = ("small", "huge", "negative", "string")


def id_strategy(kind):
    if kind == "small":
        return st.integers(0, 25)
    if kind == "huge":
        return st.one_of(st.integers(2**62 - 12, 2**62), st.integers(0, 2**62))
    if kind == "negative":
        return st.one_of(st.integers(-12, 3), st.integers(-(2**62), -(2**62) + 12))
    return st.text(alphabet="ab9Z10", min_size=1, max_size=3)


INT_GRADES = [-1, 0, 1, 2, 3]
FLOAT_GRADES = [-1.5, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 2.75, 3.0]
# 1.0000000001 is 1.0 in float32 (ties="trec9" ties it with 1.0); 1e39 and -1e39 are +-inf in float32
SCORES = [-3.0, 0.0, 0.5, 1.0, 1.0, 1.0000000001, 2.0, 1e39, -1e39]


@st.composite
def sized_subsets(draw, pool, sizes):
    """A random ordered selection of distinct pool items, of a size drawn from `sizes`."""
    size = min(draw(st.sampled_from(sizes)), len(pool))
    return draw(st.permutations(pool))[:size]


@st.composite
def with_duplicates(draw, base):
    """Insert at least one repeated item into a non-empty list."""
    lst = list(base)
    for _ in range(draw(st.integers(1, 3))):
        src = draw(st.integers(0, len(lst) - 1))
        pos = draw(st.integers(src + 1, len(lst)))
        lst.insert(pos, lst[src])
    return lst


@st.composite
def scenarios(draw, max_users=6, allow_dups=True):
    item_kind = draw(st.sampled_from(ID_KINDS))
    user_kind = draw(st.sampled_from(ID_KINDS))
    n_pool = draw(st.sampled_from([1, 3, 5, 8, 12, 16]))
    pool = draw(st.lists(id_strategy(item_kind), min_size=n_pool, max_size=n_pool, unique=True))
    # zero users: about 1 scenario in 12 (and explicit tests)
    n_truth = draw(st.sampled_from([1, 2, 3, 4, 5, 6, 2, 3, 4, 5, 6, 0]))
    n_truth = min(n_truth, max_users)
    n_extra = draw(st.integers(0, 3))
    all_users = draw(
        st.lists(id_strategy(user_kind), min_size=n_truth + n_extra, max_size=n_truth + n_extra, unique=True)
    )
    truth_users, extra_users = all_users[:n_truth], all_users[n_truth:]

    truth_form = draw(st.sampled_from(["int", "float", "binary"]))
    truth: dict = {}
    for u in truth_users:
        items = draw(sized_subsets(pool, [0, 1, 2, 3, 4, 5, 6, 8]))
        if truth_form == "binary":
            truth[u] = set(items) if draw(st.booleans()) else list(items)
        else:
            grades = st.sampled_from(INT_GRADES if truth_form == "int" else FLOAT_GRADES)
            truth[u] = {i: draw(grades) for i in items}

    recs_form = draw(st.sampled_from(["lists", "scores"]))
    dups = allow_dups and recs_form == "lists" and draw(st.booleans())
    recs = {}
    for u in truth_users + extra_users:
        # truth user without recs; the first one always has recs: no truth user matched at all is
        # an error (docs/metrics.md §5, tests/inputs/test_input_mistakes.py)
        if u in truth and u != truth_users[0] and draw(st.integers(0, 4)) == 0:
            continue
        if recs_form == "scores":
            keys = draw(sized_subsets(pool, [0, 1, 2, 4, 6, 10]))
            recs[u] = {i: draw(st.sampled_from(SCORES)) for i in keys}
        else:
            lst = draw(sized_subsets(pool, [0, 1, 2, 3, 5, 8, 12]))
            # recs users absent from truth never get duplicates (whether they must be
            # validated is not specified)
            if dups and u in truth and lst and draw(st.booleans()):
                lst = draw(with_duplicates(lst))
            recs[u] = lst
    # dict order of recs need not follow truth order
    if draw(st.booleans()):
        recs = dict(reversed(list(recs.items())))

    opts = dict(
        empty=draw(st.sampled_from(["skip", "zero", "one", "error"])),
        ties=draw(
            st.sampled_from(["input", "file", "trec", "trec9", "item_desc", "ranx", "ranx_comparable", "ranx_dict"])
        ),
        min_relevance=draw(st.sampled_from([None, None, 1, 2, 3, 0.5, 1.5])),
        max_items=draw(st.sampled_from([None, None, 1, 2, 4, 9])),
    )
    if dups:
        # mostly a policy that reads repeats; sometimes the default or "error", which must raise
        policy = draw(st.sampled_from(["first", "first", "miss", "miss", "count", "count", "error", None]))
        if policy is not None:
            opts["duplicates"] = policy
    elif draw(st.booleans()):
        opts["duplicates"] = draw(st.sampled_from(["error", "first", "miss", "count"]))
    return truth, recs, opts


metric_lists = st.lists(
    st.tuples(st.sampled_from(ALL_BASES), st.sampled_from(CUTOFFS)).filter(
        lambda t: t[0] not in ("r_precision", "num_rel") or t[1] is None
    ),
    min_size=1,
    max_size=14,
    unique=True,
).map(lambda ts: [mname(b, k) for b, k in ts])


def test_num_rel_alone_reads_no_list_item():
    # found by the hypothesis test below: the reference took the largest cutoff of no cutoff at all
    check({0: {}}, {0: []}, ["num_rel"], empty="skip", ties="input", min_relevance=None, max_items=None)
    check({0: {"a": 1}}, {0: ["a", "a"]}, ["num_rel"])  # a repeat in a list nothing reads is no error


@settings(max_examples=500, **SETTINGS)
@given(scenarios(), metric_lists)
def test_random_against_reference(scenario, metrics):
    truth, recs, opts = scenario
    check(truth, recs, metrics, **opts)


@settings(max_examples=300, **SETTINGS)
@given(
    scenarios(),
    metric_lists,
    st.sampled_from(["zero", "skip", "skip_empty"]),
    st.sampled_from(["skip", "empty"]),
    st.sampled_from([None, "ndcg(missing_recs=zero)@3", "ndcg(gain=binary,missing_recs=zero)"]),
    st.booleans(),
)
def test_users_evaluated_under_missing_recs_only_and_min_relevance_minus_inf(
    scenario, metrics, missing, recs_only, per_metric, every_row
):
    """missing="skip_empty" (users with an empty list left out too), recs_only="empty" (recs users absent from
    the truth evaluated with an empty truth), a metric of its own with missing_recs="zero" (the users the call
    leaves out stay users of the result, scored by that metric only) and min_relevance=-inf (every truth row
    relevant) against the reference."""
    truth, recs, opts = scenario
    opts = dict(opts, missing=missing, recs_only=recs_only)
    if every_row:
        opts["min_relevance"] = -math.inf
    if per_metric is not None:
        metrics = list(dict.fromkeys([*metrics, per_metric]))
    check(truth, recs, metrics, **opts)


def test_missing_recs_zero_keeps_the_users_the_call_leaves_out_for_that_metric_only():
    """By hand: u2 has no recs and u3 an empty list; missing="skip_empty" leaves both out of precision while
    ndcg(missing_recs=zero) scores them 0; u4 (recs only) gets an empty truth and is skipped (empty="skip")."""
    truth = {"u1": {"a": 1}, "u2": {"b": 1}, "u3": {"c": 1}}
    recs = {"u1": ["a", "x"], "u3": [], "u4": ["a"]}
    res = rm().evaluate(
        truth, recs, ["precision@2", "ndcg(missing_recs=zero)@2"], missing="skip_empty", recs_only="empty"
    )
    assert as_list(res.users) == ["u1", "u2", "u3", "u4"]
    assert all(close(a, b) for a, b in zip(res.per_user["precision@2"].tolist(), [0.5, math.nan, math.nan, math.nan]))
    assert res["precision@2"] == 0.5
    assert res.per_user["ndcg(missing_recs=zero)@2"].tolist()[:3] == [1.0, 0.0, 0.0]
    assert math.isnan(res.per_user["ndcg(missing_recs=zero)@2"][3])
    assert res["ndcg(missing_recs=zero)@2"] == 1 / 3
    # without the per-metric option the users are left out before anything is read
    plain = rm().evaluate(truth, recs, ["precision@2"], missing="skip_empty")
    assert as_list(plain.users) == ["u1"]
    assert plain.meta["n_ignored_recs"] == 1 and plain.meta["n_missing_recs"] == 1


def test_min_relevance_minus_inf_makes_every_row_relevant_whatever_its_grade():
    truth = {"u": {"a": -2.0, "b": 0.0, "c": 3.0}}
    res = rm().evaluate(
        truth, {"u": ["a", "b", "x"]}, ["precision@3", "recall@3", "ndcg(gain=binary)@3"], min_relevance=-math.inf
    )
    assert res["precision@3"] == 2 / 3 and res["recall@3"] == 2 / 3
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert close(res["ndcg(gain=binary)@3"], (1 + 1 / math.log2(3)) / ideal)
    for bad in (math.inf, math.nan):
        with pytest.raises(ValueError, match="min_relevance"):
            rm().evaluate(truth, {"u": ["a"]}, ["precision@3"], min_relevance=bad)


ALL_WITH_CUTOFFS = [mname(b, k) for b in ALL_METRIC_BASES for k in (None, 1, 3, 10)] + ["r_precision", "num_rel"]


# The core reads integer grades 0..15 as levels (tables of relevance and gain per level)
# and every other grade as a number: grades on both sides of that line, -0.0, and
# min_relevance at and around 0 and 15 give the reference's values.
EDGE_GRADES = [-0.0, 0.0, 1.0, 2.0, 14.0, 15.0, 16.0, 17.0, 31.0, 255.0, 2.5, -1.0, 1e-300]


@settings(max_examples=200, **SETTINGS)
@given(st.data())
def test_grades_at_the_edges_of_the_level_tables(data):
    n_users = data.draw(st.integers(1, 6))
    truth, recs = {}, {}
    for u in range(n_users):
        items = data.draw(st.lists(st.integers(0, 40), min_size=1, max_size=12, unique=True))
        truth[u] = {i: data.draw(st.sampled_from(EDGE_GRADES)) for i in items}
        recs[u] = data.draw(st.lists(st.integers(0, 40), max_size=14, unique=True))
    metrics = data.draw(
        st.lists(
            st.sampled_from(
                [
                    "ndcg@3",
                    "ndcg@10",
                    "ndcg(gain=exponential)@5",
                    "ndcg(gain=binary,ideal=k_slots)@4",
                    "dcg@10",
                    "cg@5",
                    "ndcg(ideal=all)@3",
                    "map@10",
                    "mrr",
                    "precision@5",
                    "recall@10",
                    "r_precision",
                ]
            ),
            min_size=1,
            max_size=6,
            unique=True,
        )
    )
    min_rel = data.draw(st.sampled_from([None, 0, -1, 0.5, 15, 16]))
    check(truth, recs, metrics, min_relevance=min_rel, empty="zero")


@settings(max_examples=150, **SETTINGS)
@given(scenarios())
def test_random_every_metric_every_cutoff(scenario):
    truth, recs, opts = scenario
    if opts["empty"] == "error":
        opts["empty"] = "zero"
    check(truth, recs, ALL_WITH_CUTOFFS, **opts)


@st.composite
def duplicate_scenarios(draw):
    """Lists with repeated items placed within the top k or beyond it (docs/metrics.md §6.1:
    duplicates are looked for only in the part of each list the metrics read)."""
    item_kind = draw(st.sampled_from(ID_KINDS))
    pool = draw(st.lists(id_strategy(item_kind), min_size=20, max_size=20, unique=True))
    k = draw(st.integers(1, 8))
    n_users = draw(st.integers(1, 4))
    truth, recs = {}, {}
    for u in range(n_users):
        items = draw(sized_subsets(pool, [0, 1, 3, 6, 10]))
        truth[u] = {i: draw(st.sampled_from(INT_GRADES)) for i in items}
        lst = draw(sized_subsets(pool, [1, 3, 6, 9, 14, 20]))
        for _ in range(draw(st.integers(0, 2))):
            where = draw(st.sampled_from(["within", "beyond"]))
            lo, hi = (1, min(k, len(lst))) if where == "within" else (k, len(lst))
            if lo > hi:
                continue
            pos = draw(st.integers(lo, hi))  # index of the repeat; the original comes before it
            lst.insert(pos, lst[draw(st.integers(0, pos - 1))])
        recs[u] = lst
    bases = draw(st.lists(st.sampled_from(ALL_METRIC_BASES), min_size=1, max_size=6, unique=True))
    metrics = [mname(b, k) for b in bases]
    metrics += [mname(b, draw(st.integers(1, k))) for b in bases[:2]]  # smaller cutoffs too
    if draw(st.integers(0, 3)) == 0:
        metrics.append(draw(st.sampled_from(["ndcg", "precision", "r_precision", "num_rel", "ap"])))  # whole lists
    opts = dict(
        duplicates=draw(st.sampled_from(["error", "first", "miss", "count"])),
        empty="zero",
        ties="input",
        max_items=draw(st.sampled_from([None, None, 2, k, k + 3])),
    )
    return truth, recs, sorted(set(metrics)), opts, item_kind


@settings(max_examples=300, **SETTINGS)
@given(duplicate_scenarios(), st.booleans())
def test_random_duplicates_within_and_beyond_the_cutoff(scenario, whole_lists):
    truth, recs, metrics, opts, item_kind = scenario
    res = check(truth, recs, metrics, whole_lists=whole_lists, **opts)
    if res is not None and item_kind == "small":
        # the same lists as a padded 2-D array (the padded scan of the kernel)
        width = max(len(v) for v in recs.values()) + 1
        arr = np.full((len(recs), width), -1, dtype=np.int64)
        for u, lst in recs.items():
            arr[u, : len(lst)] = lst
        kw = dict(opts, preset="trec_eval") if whole_lists else opts
        res2 = rm().evaluate(truth, rm().Recs.from_array(arr, pad=-1, users=list(recs)), metrics, **kw)
        for m in metrics:
            assert same_bits(res.per_user[m], res2.per_user[m]), m


@settings(max_examples=100, **SETTINGS)
@given(scenarios(allow_dups=False), st.sampled_from([1, 2, 3, 5]), st.randoms(use_true_random=False))
def test_items_past_k_do_not_matter(scenario, k, rnd):
    truth, recs, opts = scenario
    opts.pop("max_items")
    # ordered lists only (dicts of scores would be re-ranked)
    lists = {u: (ref.order_scored(v, opts["ties"]) if isinstance(v, dict) else list(v)) for u, v in recs.items()}
    shuffled = {}
    for u, lst in lists.items():
        tail = lst[k:]
        rnd.shuffle(tail)
        shuffled[u] = lst[:k] + tail
    metrics = [mname(b, k) for b in ALL_METRIC_BASES]
    if opts["empty"] == "error":
        opts["empty"] = "skip"
    a = check(truth, lists, metrics, **opts)
    b = rm().evaluate(truth, shuffled, metrics, **opts)
    for m in metrics:
        assert same_bits(a.per_user[m], b.per_user[m]), m
        assert same_bits(a[m], b[m]), m


# ---------------------------------------------------------------------------
# 3. input forms give identical results
# ---------------------------------------------------------------------------

FORM_METRICS = [mname(b, k) for b in ALL_METRIC_BASES for k in (None, 2, 5)] + ["r_precision", "num_rel"]


def csr(rows):
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(r) for r in rows]) if rows else []
    flat = [x for r in rows for x in r]
    return indptr, flat


@st.composite
def positional_scenarios(draw):
    n = draw(st.sampled_from([1, 2, 3, 5, 0]))
    n_pool = draw(st.sampled_from([1, 4, 10]))
    pool = draw(
        st.lists(st.one_of(st.integers(0, 30), st.integers(0, 2**62)), min_size=n_pool, max_size=n_pool, unique=True)
    )
    binary = draw(st.booleans())
    t_items, t_grades = [], []
    for _ in range(n):
        items = draw(sized_subsets(pool, [0, 1, 2, 4, 6]))
        t_items.append(items)
        t_grades.append([1.0 if binary else draw(st.sampled_from(FLOAT_GRADES + INT_GRADES)) for _ in items])
    r_items = [draw(sized_subsets(pool, [0, 1, 3, 5, 8])) for _ in range(n)]
    extra_pad = draw(st.integers(0, 2))
    empty = draw(st.sampled_from(["skip", "zero", "one"]))
    return binary, t_items, t_grades, r_items, extra_pad, empty


def truth_forms(binary, t_items, t_grades):
    R = rm()
    n = len(t_items)
    graded = {u: dict(zip(t_items[u], t_grades[u])) for u in range(n)}
    indptr, flat = csr(t_items)
    items_arr = np.array(flat, dtype=np.int64)
    grades_arr = np.array([g for gs in t_grades for g in gs], dtype=np.float64)
    forms = {
        "dict": graded,
        "Truth.from_dict": R.Truth.from_dict(graded),
        "Truth.from_lists": R.Truth.from_lists(t_items, t_grades),
        "Truth.from_csr": R.Truth.from_csr(indptr, items_arr, grades_arr),
        "Truth.from_csr(users)": R.Truth.from_csr(indptr, items_arr, grades_arr, users=np.arange(n, dtype=np.int64)),
    }
    if binary:
        forms["dict of sets"] = {u: set(t_items[u]) for u in range(n)}
        forms["list of lists"] = [list(x) for x in t_items]
        forms["Truth.from_lists(no grades)"] = R.Truth.from_lists(t_items)
        forms["Truth.from_csr(no grades)"] = R.Truth.from_csr(indptr, items_arr)
    return graded, forms


def recs_forms(r_items, extra_pad, rnd_scores):
    R = rm()
    n = len(r_items)
    as_dict = {u: list(r_items[u]) for u in range(n)}
    indptr, flat = csr(r_items)
    items_arr = np.array(flat, dtype=np.int64)
    width = max([len(r) for r in r_items] + [0]) + extra_pad
    arr = np.full((n, width), -1, dtype=np.int64)
    for u, r in enumerate(r_items):
        arr[u, : len(r)] = r
    forms = {
        "dict": as_dict,
        "list of lists": [list(r) for r in r_items],
        "Recs.from_dict": R.Recs.from_dict(as_dict),
        "Recs.from_lists": R.Recs.from_lists([list(r) for r in r_items]),
        "Recs.from_csr": R.Recs.from_csr(indptr, items_arr),
        "Recs.from_csr(users)": R.Recs.from_csr(indptr, items_arr, users=np.arange(n, dtype=np.int64)),
        # ordered forms keep their order: scores (here deliberately unordered) only ride along
        "Recs.from_csr(scores)": R.Recs.from_csr(
            indptr, items_arr, scores=np.array(rnd_scores[: len(flat)], dtype=np.float64)
        ),
        "Recs.from_array": R.Recs.from_array(arr, pad=-1),
        "Recs.from_array(users)": R.Recs.from_array(arr, pad=-1, users=np.arange(n, dtype=np.int64)),
    }
    return as_dict, forms


@settings(max_examples=60, **SETTINGS)
@given(positional_scenarios(), st.lists(st.floats(-5, 5), min_size=60, max_size=60))
def test_input_forms_identical(scenario, rnd_scores):
    binary, t_items, t_grades, r_items, extra_pad, empty = scenario
    graded, tforms = truth_forms(binary, t_items, t_grades)
    as_dict, rforms = recs_forms(r_items, extra_pad, rnd_scores)
    base = check(graded, as_dict, FORM_METRICS, empty=empty)
    tnames, rnames = list(tforms), list(rforms)
    pairs = (
        [(t, "dict") for t in tnames]
        + [("dict", r) for r in rnames]
        + [(tnames[i % len(tnames)], rnames[i]) for i in range(len(rnames))]
    )
    for tname, rname in pairs:
        t, r = tforms[tname], rforms[rname]
        res = rm().evaluate(t, r, FORM_METRICS, empty=empty)
        assert as_list(res.users) == list(range(len(t_items))), (tname, rname)
        for key in ("n_users", "n_skipped", "n_missing_recs", "n_ignored_recs"):
            assert res.meta[key] == base.meta[key], (tname, rname, key)
        for m in FORM_METRICS:
            assert same_bits(res.per_user[m], base.per_user[m]), (tname, rname, m)
            assert same_bits(res[m], base[m]), (tname, rname, m)


# ---------------------------------------------------------------------------
# 4. threads, user order, partial states
# ---------------------------------------------------------------------------


def big_random(n_users, seed):
    rng = np.random.default_rng(seed)
    t_len = rng.integers(0, 12, n_users)
    r_len = rng.integers(0, 40, n_users)
    t_items, t_grades, r_items = [], [], []
    for u in range(n_users):
        t_items.append(rng.choice(300, t_len[u], replace=False).tolist())
        t_grades.append(rng.choice([-1.0, 0.0, 1.0, 2.0, 3.0, 0.5], t_len[u]).tolist())
        # about half of the list drawn from the user's truth
        own = [i for i in t_items[u] if rng.random() < 0.5]
        rest = [i for i in rng.choice(300, r_len[u], replace=False).tolist() if i not in own]
        lst = own + rest
        rng.shuffle(lst)
        r_items.append(lst)
    return t_items, t_grades, r_items


THREAD_METRICS = [mname(b, k) for b in ALL_METRIC_BASES for k in (None, 1, 5, 10, 30)] + ["r_precision", "num_rel"]


def test_threads_bit_identical():
    t_items, t_grades, r_items = big_random(6000, 1)
    R = rm()
    ti, tf = csr(t_items)
    truth = R.Truth.from_csr(
        ti, np.array(tf, dtype=np.int64), np.array([g for gs in t_grades for g in gs], dtype=np.float64)
    )
    ri, rf = csr(r_items)
    recs = R.Recs.from_csr(ri, np.array(rf, dtype=np.int64))
    for empty in ("skip", "zero", "one"):
        r1 = R.evaluate(truth, recs, THREAD_METRICS, threads=1, empty=empty)
        r2 = R.evaluate(truth, recs, THREAD_METRICS, threads=2, empty=empty)
        r4 = R.evaluate(truth, recs, THREAD_METRICS, threads=4, empty=empty)
        for m in THREAD_METRICS:
            assert same_bits(r1.per_user[m], r2.per_user[m]), m
            assert same_bits(r1.per_user[m], r4.per_user[m]), m
            assert same_bits(r1[m], r2[m]) and same_bits(r1[m], r4[m]), m
    # a sample of users against the reference
    sample = list(range(0, 6000, 97))
    t_small = {u: dict(zip(t_items[u], t_grades[u])) for u in sample}
    r_small = {u: r_items[u] for u in sample}
    check(t_small, r_small, THREAD_METRICS, empty="zero")


def test_user_order_does_not_change_means():
    t_items, t_grades, r_items = big_random(400, 2)
    truth = {u: dict(zip(t_items[u], t_grades[u])) for u in range(len(t_items))}
    recs = {u: r_items[u] for u in range(len(r_items))}
    order = np.random.default_rng(3).permutation(len(t_items)).tolist()
    truth_perm = {u: truth[u] for u in order}
    a = check(truth, recs, THREAD_METRICS)
    b = rm().evaluate(truth_perm, recs, THREAD_METRICS)
    assert as_list(b.users) == order
    pos = {u: i for i, u in enumerate(as_list(a.users))}
    idx = np.array([pos[u] for u in order])
    for m in THREAD_METRICS:
        assert same_bits(a[m], b[m]), m
        assert same_bits(a.per_user[m][idx], b.per_user[m]), m


@settings(max_examples=60, **SETTINGS)
@given(scenarios(), metric_lists, st.integers(0, 6))
def test_partial_merge_matches_reference(scenario, metrics, split):
    truth, recs, opts = scenario
    if opts["empty"] == "error":
        opts["empty"] = "skip"
    try:
        means, _, _ = reference_evaluate(truth, recs, metrics, **opts)
    except ValueError:
        return
    users = list(truth)
    part1 = {u: truth[u] for u in users[:split]}
    part2 = {u: truth[u] for u in users[split:]}
    R = rm()
    for part in (part1, part2):
        # a truth shard none of whose users has recs is an error (docs/metrics.md §5), when both sides hold items
        if not any(u in recs for u in part) and any(map(len, part.values())) and any(map(len, recs.values())):
            with pytest.raises(ValueError, match=r"no `recs` user matches a `truth` user"):
                R.partial(part, recs, metrics, **opts)
            return
    s1 = R.partial(part1, recs, metrics, **opts)
    s2 = R.partial(part2, recs, metrics, **opts)
    s2 = R.State.from_bytes(s2.to_bytes())
    final = s1.merge(s2).finalize()
    full = R.evaluate(truth, recs, metrics, **opts)
    for m in metrics:
        # finalize() is keyed by the canonical metric name (str(rm.metrics.parse(m)));
        # accept the string as passed too
        key = m if m in final else str(R.metrics.parse(m))
        assert close(final[key], means[m], rel=1e-12), (m, final[key], means[m])
        assert same_bits(final[key], full[m]), m


# ---------------------------------------------------------------------------
# 5. explicit edge cases (expected values by hand or from the reference)
# ---------------------------------------------------------------------------


def test_worked_examples_in_rankmeter():
    R = rm()
    res = R.evaluate({"u": {"A": 3, "B": 1, "D": 2}}, {"u": ["A", "B", "C", "D", "E"]}, ["dcg@5", "ndcg@5"])
    assert math.isclose(res["dcg@5"], 3 + 1 / math.log2(3) + 2 / math.log2(5), rel_tol=1e-12)
    assert round(res["ndcg@5"], 3) == 0.943
    res = R.evaluate({"u": set("ABCD")}, {"u": list("AXYCZ")}, ["recall@5", "precision@5"])
    assert res["recall@5"] == 0.5 and res["precision@5"] == 0.4
    res = R.evaluate(
        {1: ["a"], 2: ["a"], 3: ["a"], 4: ["a"]},
        {1: ["x", "y", "a"], 2: ["a"], 3: ["x", "y", "a"], 4: ["x", "y"]},
        ["mrr"],
    )
    assert math.isclose(res["mrr"], (1 / 3 + 1 + 1 / 3) / 4, rel_tol=1e-12)
    res = R.evaluate({0: ["a", "b", "c"]}, {0: ["a", "x", "y", "b", "c", "z"]}, ["ap@6", "map@6"])
    assert math.isclose(res["ap@6"], 0.7, rel_tol=1e-12) and res["map@6"] == res["ap@6"]
    res = R.evaluate({0: {"a": 2, "c": 3, "d": 2}}, {0: ["a", "b", "c", "d"]}, ["cg", "ndcg"])
    assert res["cg"] == 7.0 and round(res["ndcg"], 2) == 0.83
    res = R.evaluate(
        {"A": [2, 6], "B": [2, 6]}, {"A": [6, 2, 1, 0, 3], "B": [4, 1, 7, 2, 6]}, ["precision@5", "recall@5", "ap@5"]
    )
    assert res.per_user["precision@5"].tolist() == [0.4, 0.4]
    assert res.per_user["recall@5"].tolist() == [1.0, 1.0]
    assert res.per_user["ap@5"][0] == 1.0 and math.isclose(res.per_user["ap@5"][1], 0.325, rel_tol=1e-12)


def test_zero_users():
    metrics = [mname(b, k) for b in ALL_METRIC_BASES for k in (None, 3)]
    res = check({}, {}, metrics)
    for m in metrics:
        assert math.isnan(res[m]) and len(res.per_user[m]) == 0
    assert res.meta["n_users"] == 0
    res = check({}, {"someone": ["a"]}, ["ndcg@3"])
    assert math.isnan(res["ndcg@3"]) and res.meta["n_ignored_recs"] == 1


def test_one_user_and_k_larger_than_list():
    res = check(
        {"u": {"a": 1, "b": 1, "c": 1}},
        {"u": ["a", "x", "b"]},
        [mname(b, k) for b in ALL_BASES for k in (None, 10, 1000) if b not in ("r_precision", "num_rel")],
    )
    assert res["precision@10"] == 0.2
    assert math.isclose(res["precision"], 2 / 3, rel_tol=1e-12)
    assert res["hits@1000"] == 2.0


@pytest.mark.parametrize("empty", ["skip", "zero", "one"])
def test_empty_policies(empty):
    truth = {"empty": {}, "neg": {"a": 0, "b": -1}, "ok": {"a": 1}, "sub": {"a": 1, "b": 3}}
    recs = {"empty": ["a", "b"], "neg": ["b", "a"], "ok": ["a"], "sub": ["a", "b"]}
    metrics = [mname(b, k) for b in ALL_BASES for k in (None, 1, 2) if b not in ("r_precision", "num_rel") or k is None]
    res = check(truth, recs, metrics, empty=empty, min_relevance=None)
    res2 = check(truth, recs, metrics, empty=empty, min_relevance=2)
    if empty == "skip":
        assert res.meta["n_skipped"] == 2 and math.isnan(res.per_user["ndcg@2"][0])
        assert res2.meta["n_skipped"] == 3 and res2["precision@1"] == 0.0
    if empty == "one":
        assert res.per_user["precision@2"].tolist() == [1.0, 1.0, 0.5, 1.0]
        assert res.per_user["hits@2"].tolist() == [0.0, 0.0, 1.0, 2.0]
        # min_relevance=2: "ok" has no relevant item, "sub" has one; dcg is computed normally
        assert res2.per_user["dcg@1"].tolist() == [0.0, 0.0, 1.0, 1.0]
    if empty == "zero":
        # sub-threshold gains still count in DCG (trec_eval)
        assert res2.per_user["dcg@1"].tolist() == [0.0, 0.0, 1.0, 1.0]
        assert res2.per_user["recall@2"].tolist() == [0.0, 0.0, 0.0, 1.0]


def test_empty_error():
    with pytest.raises(ValueError):
        rm().evaluate({"a": {"x": 1}, "b": {"x": 0}}, {"a": ["x"], "b": ["x"]}, ["ndcg@2"], empty="error")
    with pytest.raises(ValueError):
        rm().evaluate({"a": {"x": 1}, "b": {}}, {"a": ["x"]}, ["hits@2"], empty="error")
    check({"a": {"x": 1}}, {"a": ["x"]}, ["ndcg@2"], empty="error")


def test_duplicates():
    truth = {"alice": {"b": 1, "c": 2}}
    recs = {"alice": ["a", "a", "b", "a", "c"]}
    with pytest.raises(ValueError, match="alice"):
        rm().evaluate(truth, recs, ["ndcg@3"])
    with pytest.raises(ValueError, match="alice"):
        rm().evaluate(truth, recs, ["ndcg@3"], duplicates="error")
    res = check(truth, recs, [mname(b, k) for b in ALL_METRIC_BASES for k in (None, 1, 2, 3)], duplicates="first")
    # list closes up to [a, b, c]
    assert res["rr@2"] == 0.5 and res["hits@3"] == 2.0 and res["hits"] == 2.0
    assert math.isclose(res["precision"], 2 / 3, rel_tol=1e-12)


def test_ties():
    truth = {0: {9: 1, 10: 2, 100: 3}}
    recs = {0: {10: 1.0, 9: 1.0, 100: 1.0, 5: 2.0}}
    metrics = ["rr@2", "dcg@4", "ndcg@2", "ap@3", "hits@2"]
    for ties in ("input", "trec", "item_desc"):
        check(truth, recs, metrics, ties=ties)
    # input: [5, 10, 9, 100]; trec (strings desc "9" > "100" > "10"): [5, 9, 100, 10];
    # item_desc (ints desc): [5, 100, 10, 9]
    d = lambda gains: sum(g / math.log2(j + 2) for j, g in enumerate(gains))  # noqa: E731
    for ties, gains in (("input", [0, 2, 1, 3]), ("trec", [0, 1, 3, 2]), ("item_desc", [0, 3, 2, 1])):
        res = rm().evaluate(truth, recs, ["dcg@4"], ties=ties)
        assert math.isclose(res["dcg@4"], d(gains), rel_tol=1e-12), ties
    srecs = {"q": {"d10": 0.5, "d9": 0.5, "d100": 0.5}}
    struth = {"q": {"d9": 1}}
    res = check(struth, srecs, ["rr"], ties="trec")
    assert res["rr"] == 1.0  # "d9" > "d100" > "d10"
    res = check(struth, srecs, ["rr"], ties="input")
    assert res["rr"] == 0.5


def test_ranx_ties_long_lists():
    """ties='ranx*' (numba's quicksort order, ported in C++) against the pure-Python restatement in
    reference.py, on seeded lists of 0..80 items with few distinct scores: long enough for numba's partitioning
    (16+ entries), which moves equal keys."""
    rng = random.Random(7)
    truth, recs = {}, {}
    for u in range(150):
        n = rng.randrange(0, 81)
        items = rng.sample(range(400), n)
        levels = rng.choice([1, 2, 3, 6])
        recs[u] = {i: rng.randrange(levels) / 2 for i in items}
        truth[u] = {i: rng.randrange(0, 3) for i in rng.sample(range(400), 12)}
    metrics = ["dcg@40", "rr", "ap@30", "hits@17", "ndcg@5"]
    for ties in ("ranx", "ranx_comparable", "ranx_dict"):
        check(truth, recs, metrics, ties=ties, empty="zero")
    # the orders differ from input order and from one another on these lists
    orders = {
        t: [ref.order_scored(recs[u], t) for u in recs] for t in ("input", "ranx", "ranx_comparable", "ranx_dict")
    }
    assert len({str(v) for v in orders.values()}) == 4


def test_id_kinds():
    big = 2**62
    metrics = ["ndcg@3", "ap", "rr@2", "hits@2", "precision@5"]
    check({big: {big - 1: 1, big: 2}, -5: {-(2**62): 3}}, {big: [big, 7, big - 1], -5: [-1, -(2**62)]}, metrics)
    check({"x": {"10": 1, "9": 2}}, {"x": ["9", "1", "10"]}, metrics)
    check({-1: {-1: 1}}, {-1: [-2, -1]}, metrics)


def test_recs_users_not_in_truth_and_missing_recs():
    truth = {"a": {"i": 1}, "b": {"i": 1}, "c": {"j": 2}}
    recs = {"z": ["i"], "b": ["i"], "y": ["j", "i"]}
    res = check(truth, recs, ["hits@1", "ndcg", "precision"], empty="zero")
    assert res.meta["n_missing_recs"] == 2 and res.meta["n_ignored_recs"] == 2
    assert res.per_user["hits@1"].tolist() == [0.0, 1.0, 0.0]
    assert res.per_user["precision"].tolist() == [0.0, 1.0, 0.0]


def test_min_relevance_and_gains():
    truth = {0: {"a": 1, "b": 2, "c": 3, "d": -1, "e": 0.5}}
    recs = {0: ["a", "d", "e", "b", "x", "c"]}
    metrics = [mname(b, k) for b in ALL_BASES for k in (None, 2, 4) if b not in ("r_precision", "num_rel") or k is None]
    for mr in (None, -1, 0, 0.5, 1, 2, 3, 4):
        check(truth, recs, metrics, min_relevance=mr, empty="zero")
    res = rm().evaluate(truth, recs, ["hits", "cg", "cg(gain=binary)", "cg(gain=exponential)@3"], min_relevance=2)
    assert res["hits"] == 2.0
    assert res["cg"] == 1 + 0 + 0.5 + 2 + 0 + 3
    assert res["cg(gain=binary)"] == 2.0
    assert math.isclose(res["cg(gain=exponential)@3"], 1 + 0 + (2**0.5 - 1), rel_tol=1e-12)


def test_max_items():
    truth = {0: {"a": 1, "b": 1, "c": 1}}
    recs = {0: ["x", "a", "b", "c"]}
    metrics = [mname(b, k) for b in ALL_BASES for k in (None, 2, 5) if b not in ("r_precision", "num_rel") or k is None]
    for mi in (1, 2, 3, 10):
        check(truth, recs, metrics, max_items=mi)
    res = rm().evaluate(truth, recs, ["hits", "precision", "precision@3", "r_precision"], max_items=2)
    assert res["hits"] == 1.0 and res["precision"] == 0.5
    assert math.isclose(res["precision@3"], 1 / 3, rel_tol=1e-12)
    assert math.isclose(res["r_precision"], 1 / 3, rel_tol=1e-12)
    # max_items applies after ranking by score
    res = rm().evaluate(truth, {0: {"x": 0.0, "a": 3.0, "b": 2.0}}, ["hits"], max_items=1)
    assert res["hits"] == 1.0


def test_aliases_and_option_values():
    truth = {0: {"a": 3, "b": 1}, 1: {"c": 2, "d": 0.5, "a": 1}}
    recs = {0: ["b", "z", "a"], 1: ["a", "c", "y", "d"]}
    pairs = [
        ("map@3", "ap@3"),
        ("mar@3", "ar@3"),
        ("mrr@3", "rr@3"),
        ("f1@3", "fbeta@3"),
        ("f1@3", "fbeta(beta=1)@3"),
        ("success@2", "hit_rate@2"),
        ("ap(denominator=relevant)@2", "ap@2"),
        ("recall(denominator=relevant)", "recall"),
        ("dcg(log_base=2)@3", "dcg@3"),
        ("dcg(gain=linear)", "dcg"),
        ("ndcg(ideal=cut)@2", "ndcg@2"),
        ("ndcg(gain=linear,ideal=cut)@2", "ndcg@2"),
        ("map(denominator=hits)@3", "ap(denominator=hits)@3"),
    ]
    metrics = sorted({m for p in pairs for m in p})
    res = check(truth, recs, metrics)
    for a, b in pairs:
        assert same_bits(res.per_user[a], res.per_user[b]), (a, b)
    # every option value of every metric, several cutoffs in one call
    check(truth, recs, ALL_WITH_CUTOFFS)
    for base in LOG_BASES:
        m = f"dcg(log_base={base!r})@3"
        res = rm().evaluate({0: {"a": 3, "b": 1}}, {0: ["b", "z", "a"]}, [m])
        assert math.isclose(res[m], math.log(base) / math.log(2) + 3 * math.log(base) / math.log(4), rel_tol=1e-12), m


def test_ndcg_ideal_hand():
    truth = {0: {"a": 3, "b": 2, "c": 1, "d": 1}}
    recs = {0: ["c", "x"]}
    res = rm().evaluate(
        truth,
        recs,
        [
            "ndcg@2",
            "ndcg(ideal=all)@2",
            "ndcg(ideal=k_slots)@2",
            "ndcg(gain=binary,ideal=k_slots)@2",
            "ndcg(ideal=k_slots)",
        ],
    )
    dcg = 1.0
    assert math.isclose(res["ndcg@2"], dcg / (3 + 2 / math.log2(3)), rel_tol=1e-12)
    assert math.isclose(
        res["ndcg(ideal=all)@2"], dcg / (3 + 2 / math.log2(3) + 1 / 2 + 1 / math.log2(5)), rel_tol=1e-12
    )
    assert math.isclose(res["ndcg(ideal=k_slots)@2"], dcg / (3 * (1 + 1 / math.log2(3))), rel_tol=1e-12)
    assert math.isclose(res["ndcg(gain=binary,ideal=k_slots)@2"], 1 / (1 + 1 / math.log2(3)), rel_tol=1e-12)
    # no cutoff: k = n = 2
    assert math.isclose(res["ndcg(ideal=k_slots)"], res["ndcg(ideal=k_slots)@2"], rel_tol=1e-12)


def test_empty_lists_and_no_cutoff():
    truth = {0: {"a": 1}, 1: {"b": 2}}
    recs = {0: [], 1: ["b"]}
    metrics = [
        mname(b, k) for b in ALL_BASES for k in (None, 1, 4) if b != "num_rel" and (b != "r_precision" or k is None)
    ]
    res = check(truth, recs, metrics)
    for m in metrics:
        assert res.per_user[m][0] == 0.0, m


def test_duplicates_with_max_items():
    # docs/metrics.md §6.2: max_items truncates the list as given first (trec_eval's -M cuts
    # the run before its duplicate check), then duplicates are looked for in what is read:
    # ["a", "a", "b"][:2] -> ["a", "a"] -> ["a"]
    truth = {"u": {"a": 1, "b": 1}}
    recs = {"u": ["a", "a", "b"]}
    res = check(truth, recs, ["hits", "recall", "precision"], duplicates="first", max_items=2)
    assert res["hits"] == 1.0 and res["precision"] == 1.0
    # a duplicate past max_items is never read: no error, even for whole lists
    res = check(truth, {"u": ["a", "b", "a"]}, ["hits"], max_items=2)
    assert res["hits"] == 2.0
    res = rm().evaluate(truth, {"u": ["a", "b", "a"]}, ["hits"], max_items=2, preset="trec_eval")
    assert res["hits"] == 2.0
    with pytest.raises(ValueError, match="more than once"):
        rm().evaluate(truth, {"u": ["a", "b", "a"]}, ["hits"], max_items=3)


# ---------------------------------------------------------------------------
# 6. NDCG without a cutoff; duplicates only where the metrics read (docs/metrics.md §6.1)
# ---------------------------------------------------------------------------


def test_ndcg_without_cutoff_does_not_reward_short_lists():
    # truth {0: 1, 1: 1}, list [0]: the ideal uses both relevant items (trec_eval's
    # ndcg gives 0.6131), not the ideal cut at the list's own length (1.0)
    expected = 1 / (1 + 1 / math.log2(3))
    assert round(expected, 4) == 0.6131
    gains = ("linear", "exponential", "binary")
    metrics = ["ndcg"] + [f"ndcg(gain={g})" for g in gains] + [f"ndcg(gain={g},ideal=all)" for g in gains]
    res = check({0: {0: 1, 1: 1}}, {0: [0]}, metrics)
    for m in metrics:
        assert res[m] == pytest.approx(expected, abs=1e-15), m
    assert rm().evaluate({0: {0: 1, 1: 1}}, {0: [0]}, ["ndcg"])["ndcg"] == pytest.approx(0.6131, abs=5e-5)
    assert rm().ndcg({0: {0: 1, 1: 1}}, {0: [0]}) == pytest.approx(expected, abs=1e-15)
    # graded: ideal 3, 2 (exponential 7, 3) against the list [b] holding the grade-2 item
    res = check({0: {"a": 3, "b": 2}}, {0: ["b"]}, ["ndcg", "ndcg(gain=exponential)", "ndcg(gain=binary)"])
    assert res["ndcg"] == pytest.approx(2 / (3 + 2 / math.log2(3)), abs=1e-15)
    assert res["ndcg(gain=exponential)"] == pytest.approx(3 / (7 + 3 / math.log2(3)), abs=1e-15)
    assert res["ndcg(gain=binary)"] == pytest.approx(expected, abs=1e-15)
    # a longer list never scores lower than its own prefix for being longer (same items first)
    res = check({0: {0: 1, 1: 1}, 1: {0: 1, 1: 1}}, {0: [0], 1: [0, 1]}, ["ndcg"])
    assert res.per_user["ndcg"].tolist() == [pytest.approx(expected, abs=1e-15), 1.0]
    # with a cutoff the ideal is still cut at k (ndcg_cut): [0] against @1 is perfect
    assert check({0: {0: 1, 1: 1}}, {0: [0]}, ["ndcg@1"])["ndcg@1"] == 1.0
    # cg and dcg without a cutoff are unaffected
    res = check({0: {0: 1, 1: 1}}, {0: [0, 5]}, ["cg", "dcg", "dcg(gain=exponential)"])
    assert res["cg"] == 1.0 and res["dcg"] == 1.0 and res["dcg(gain=exponential)"] == 1.0


def test_ndcg_k_slots_without_cutoff_uses_the_list_length():
    # docs/metrics.md: ideal=k_slots without a cutoff takes k = n (k absent = the
    # whole list); its ideal is n slots of the largest gain, whatever |R|
    truth = {0: {"a": 2, "b": 1, "c": 1}}
    res = check(truth, {0: ["b", "x"]}, ["ndcg(ideal=k_slots)", "ndcg(ideal=k_slots)@2"])
    assert res["ndcg(ideal=k_slots)"] == res["ndcg(ideal=k_slots)@2"]
    assert res["ndcg(ideal=k_slots)"] == pytest.approx(1 / (2 * (1 + 1 / math.log2(3))), abs=1e-15)


def _lists_with_duplicate_at_50(ids):
    """Two users; user "dup" repeats an item at position 51 (index 50) of 100."""
    lst = list(ids[:100])
    lst[50] = lst[7]
    return {"ok": {ids[0]: 1, ids[60]: 2}, "dup": {ids[3]: 1, ids[80]: 1}}, {"ok": list(ids[:100]), "dup": lst}


@pytest.mark.parametrize("kind", ["small", "huge", "string"])
def test_duplicate_beyond_the_cutoff_is_not_read(kind):
    ids = {
        "small": list(range(200)),
        "huge": [2**62 - 3 * i for i in range(200)],
        "string": [f"i{i:d}" for i in range(200)],
    }[kind]
    truth, recs = _lists_with_duplicate_at_50(ids)
    at10 = ["ndcg@10", "precision@10", "recall@10", "map@10", "mrr@10", "hit_rate@10", "ndcg@50"]
    res = check(truth, recs, at10)  # no error: positions 1..50 hold no repeat
    assert res.per_user["hit_rate@10"].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match=r"`recs` lists item .* more than once for user 'dup'"):
        rm().evaluate(truth, recs, [*at10, "ndcg"])  # no cutoff: the whole list is read
    with pytest.raises(ValueError, match=r"more than once for user 'dup'"):
        rm().evaluate(truth, recs, ["ndcg@51"])  # the cutoff reaches the repeat
    with pytest.raises(ValueError, match=r"more than once for user 'dup'"):
        rm().evaluate(truth, recs, at10, preset="trec_eval")  # trec_eval checks whole lists
    # max_items truncates first: the repeat is gone
    check(truth, recs, ["ndcg", "ap"], max_items=50)
    rm().evaluate(truth, recs, ["ndcg"], max_items=50, preset="trec_eval")
    with pytest.raises(ValueError, match=r"more than once for user 'dup'"):
        rm().evaluate(truth, recs, ["ndcg"], max_items=51, preset="trec_eval")
    if kind == "small":
        # the same as numpy CSR and as a padded 2-D array (the kernel's fast scans)
        indptr = np.array([0, 100, 200], dtype=np.int64)
        flat = np.array(recs["ok"] + recs["dup"], dtype=np.int64)
        tr = {0: truth["ok"], 1: truth["dup"]}
        for r in (
            rm().Recs.from_csr(indptr, flat, users=[0, 1]),
            rm().Recs.from_array(flat.reshape(2, 100), users=[0, 1]),
        ):
            got = rm().evaluate(tr, r, at10)
            for m in at10:
                assert same_bits(got.per_user[m], res.per_user[m]), m
            with pytest.raises(ValueError, match=r"more than once for user 1\b"):
                rm().evaluate(tr, r, ["ndcg"])
            with pytest.raises(ValueError, match=r"more than once for user 1\b"):
                rm().evaluate(tr, r, at10, preset="trec_eval")


def test_duplicates_first_closes_up_within_the_top_k():
    truth = {"u": {"b": 1, "c": 2, "e": 1}}
    # the repeat of "a" sits inside the top 3: [a, b, a, c, d, e] -> [a, b, c, d, e]
    recs = {"u": ["a", "b", "a", "c", "d", "e"]}
    metrics = [mname(b, k) for b in ALL_METRIC_BASES for k in (1, 2, 3, 5)]
    res = check(truth, recs, metrics, duplicates="first")
    assert res["hits@3"] == 2.0  # b and c: reading went on past the dropped repeat
    assert res["rr@3"] == 0.5
    assert res["dcg@3"] == pytest.approx(1 / math.log2(3) + 2 / 2, abs=1e-15)
    assert res["hits@5"] == 3.0  # a, b, c, d, e
    with pytest.raises(ValueError, match="more than once for user 'u'"):
        rm().evaluate(truth, recs, ["hits@3"])
    rm().evaluate(truth, recs, ["hits@2"])  # the repeat is at position 3
    # several repeats before the k-th distinct item; with max_items the list ends first
    recs = {"u": ["a", "a", "b", "a", "b", "c", "d"]}
    res = check(truth, recs, ["hits@3", "precision@3", "ndcg@3"], duplicates="first")
    assert res["hits@3"] == 2.0 and res["precision@3"] == pytest.approx(2 / 3, abs=1e-15)
    res = check(truth, recs, ["hits@3", "hits"], duplicates="first", max_items=5)
    assert res["hits@3"] == 1.0 and res["hits"] == 1.0  # [a, a, b, a, b] -> [a, b]


def test_beyond_metrics_read_only_their_cutoff():
    # prepare_lists (beyond.hpp) follows the same rule as the accuracy pass
    truth, recs = _lists_with_duplicate_at_50(list(range(200)))
    train = {"t": list(range(150))}
    rm().evaluate(truth, recs, ["coverage@10", "novelty@10"], train=train)
    with pytest.raises(ValueError, match=r"more than once for user 'dup'"):
        rm().evaluate(truth, recs, ["coverage"], train=train)
    res = rm().evaluate(truth, recs, ["coverage@60"], train=train, duplicates="first", max_items=51)
    # max_items=51 keeps positions 1..51 of each list: "ok" lists items 0..50, "dup" the same
    # minus its dropped repeat (item 50); de-duplicating before truncating would add item 51
    assert res["coverage@60"] == pytest.approx(51 / 150, abs=1e-15)
