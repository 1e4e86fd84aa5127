"""The C/W/L framework metrics (docs/metrics.md 3.21): the C++ pass under preset="cwl" against the pure-Python
reference (tests/support/reference_cwl.py) on random inputs: fractional gains, gains above 1 (refused, as by
cwl-eval), all-zero and empty truth, users on one side only, empty, short and repeated lists, string and int ids, every quantity and
residual, depths from 1 to 1000, thread counts; plus hand-checked values."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.metrics.test_accuracy import SETTINGS
from tests.support import reference as ref
from tests.support import reference_cwl

GAINS = [0.0, 0.0, 0.25, 0.5, 1.0, 1.0, 0.75, 1.5]
BASES = [
    "cwl_p@1",
    "cwl_p@3",
    "cwl_rbp",
    "cwl_rbp(p=0.5)",
    "sdcg@2",
    "sdcg@5",
    "cwl_rr",
    "cwl_ap",
    "inst",
    "inst(t=2.5)",
    "insq(t=3)",
    "bpm@4",
    "bpm(t=2)",
    "bpm_dynamic(t=1.5,hb=0.5,gain_med=0.25)@6",
    "bpm_dynamic(hb=-1)",
    "nerr8@3",
    "nerr9@4",
    "nerr10(p=0.7)",
    "nerr11(t=2)",
    "umeasure(l=4)",
    "umeasure",
    "tbg(halflife=2)",
    "tbg",
]


def with_options(base: str, extra: str) -> str:
    name, _, k = base.partition("@")
    if "(" in name:
        name = name[:-1] + "," + extra + ")"
    else:
        name = f"{name}({extra})"
    return name + (f"@{k}" if k else "")


@st.composite
def cases(draw):
    ids = draw(st.sampled_from(["int", "str"]))
    item = (lambda i: i) if ids == "int" else (lambda i: f"d{i}")
    user = (lambda u: u) if ids == "int" else (lambda u: f"q{u}")
    truth: dict = {}
    recs: dict = {}
    for u in range(draw(st.integers(1, 5))):
        if draw(st.integers(0, 4)):
            items = draw(st.lists(st.integers(0, 11), max_size=7, unique=True))
            zero = draw(st.integers(0, 5)) == 0
            truth[user(u)] = {item(i): 0.0 if zero else draw(st.sampled_from(GAINS)) for i in items}
        if draw(st.integers(0, 4)):
            lst = [item(i) for i in draw(st.lists(st.integers(0, 14), max_size=12))]  # repeats allowed
            recs[user(u)] = lst
    if not any(recs.values()):
        recs[user(0)] = [item(0)]
    if not truth:
        truth[user(99)] = {item(0): 1.0}
    depth = draw(st.sampled_from([1, 2, 3, 5, 12, 1000]))
    metrics = []
    for base in draw(st.lists(st.sampled_from(BASES), min_size=1, max_size=6, unique=True)):
        q = draw(st.sampled_from(reference_cwl.QUANTITIES))
        d = max(depth, 2) if base.startswith("umeasure") else depth  # U-measure needs 2 positions
        extra = f"quantity={q},depth={d}"
        if q.startswith("res_") and draw(st.booleans()):
            extra += ",max_gain=0.5"
        metrics.append(with_options(base, extra))
    threads = draw(st.sampled_from([1, 2, 3]))
    preset = draw(st.sampled_from([{"preset": "cwl"}, CONVENTIONS]))
    return truth, recs, metrics, threads, preset


# preset="cwl"'s conventions without the preset: the same values, grades outside [0, 1] clipped instead of refused
CONVENTIONS: dict[str, Any] = dict(empty="zero", missing="skip_empty", recs_only="empty", duplicates="count")


def expected(truth, recs, metric):
    """{user: value} of the reference for the users cwl-eval scores: every user with a non-empty list."""
    return {u: ref.metric_value(metric, lst, truth.get(u, {}), None) for u, lst in recs.items() if lst}


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@settings(max_examples=300, **SETTINGS)
@given(cases())
def test_cwl_metrics_match_the_reference(case):
    truth, recs, metrics, threads, conv = case
    if any(truth.values()) and not set(truth) & set(
        recs
    ):  # no user in common: refused (a guard against mismatched ids)
        with pytest.raises(ValueError, match="no `recs` user matches"):
            rm.evaluate(truth, recs, metrics, threads=threads, **conv)
        return
    top = min(0.5 if "max_gain=0.5" in m else 1.0 for m in metrics)
    scored = [truth.get(u, {}) for u, lst in recs.items() if lst]  # the grades of the users evaluated
    if "preset" in conv and any(g > top for t in scored for g in t.values()):  # cwl-eval refuses them too
        with pytest.raises(ValueError, match="takes gains in"):
            rm.evaluate(truth, recs, metrics, threads=threads, **conv)
        return
    res = rm.evaluate(truth, recs, [*metrics, "ndcg@3"], threads=threads, **conv)
    users = res.users.tolist()
    for m in metrics:
        want = expected(truth, recs, m)
        assert sorted(map(str, users)) == sorted(map(str, want)), m
        got = dict(zip(users, res.per_user[m].tolist()))
        for u, v in want.items():
            assert close(got[u], v), f"{m} user {u!r}: rankmeter {got[u]!r}, reference {v!r}"
        assert close(res[m], math.fsum(want.values()) / len(want)), m


@settings(max_examples=30, **SETTINGS)
@given(cases())
def test_cwl_metrics_do_not_depend_on_the_thread_count(case):
    truth, recs, metrics, _, _ = case
    if any(truth.values()) and not set(truth) & set(recs):
        return
    one = rm.evaluate(truth, recs, metrics, threads=1, **CONVENTIONS)
    for t in (2, 3):
        other = rm.evaluate(truth, recs, metrics, threads=t, **CONVENTIONS)
        for m in metrics:
            assert one.per_user[m].tobytes() == other.per_user[m].tobytes(), m


def test_hand_checked_values():
    # gains 1, (unjudged), 0.5 over a depth of 3 positions
    truth = {"q": {"a": 1.0, "b": 0.5}}
    recs = {"q": ["a", "x", "b"]}
    ms = ["cwl_p@2", "cwl_p(quantity=res_eu)@2", "cwl_rr(quantity=ed)", "cwl_rbp(p=0.5,depth=3)"]
    ms += ["cwl_rbp(p=0.5,depth=3,quantity=etu)", "inst(depth=3,quantity=ed)"]
    res = rm.evaluate(truth, recs, ms, preset="cwl")
    assert res["cwl_p@2"] == 0.5  # (1 + 0) / 2
    assert res["cwl_p(quantity=res_eu)@2"] == 0.5  # x could gain 1
    assert res["cwl_rr(quantity=ed)"] == 1.0  # the first item has a gain
    # W = (1, 1/2, 1/4) / (7/4); EU = (1 + 0.5 / 4) / (7/4)
    assert math.isclose(res["cwl_rbp(p=0.5,depth=3)"], (1 + 0.125) / 1.75)
    # L_i = P_i (1 - C_i) with C_3 = p too (cwl-eval does not stop the user at the last position):
    # L = (1/2, 1/4, 1/8), ETU = 1/2 * 1 + 1/4 * 1 + 1/8 * 1.5
    assert math.isclose(res["cwl_rbp(p=0.5,depth=3,quantity=etu)"], 0.5 + 0.25 + 0.1875)
    # INST, T = 1: C_1 = ((1 + 1 + 0 - 1) / (1 + 1 + 0))^2 = 1/4, C_2 = ((2 + 1 + 0 - 1) / (2 + 1 + 0))^2 = 4/9
    assert math.isclose(res["inst(depth=3,quantity=ed)"], 1 + 1 / 4 + 1 / 4 * 4 / 9)


def test_preset_cwl_scores_queries_of_the_run_only():
    truth = {"q1": {"a": 1.0}, "q2": {"b": 1.0}}
    recs = {"q1": ["a"], "q3": ["c"], "q4": []}
    res = rm.evaluate(truth, recs, ["inst"], preset="cwl")
    assert sorted(res.users.tolist()) == ["q1", "q3"]  # q2: no list; q4: an empty list
    assert res.per_user["inst"].tolist()[res.users.tolist().index("q3")] == 0.0


def test_gains_outside_zero_one_are_refused_by_the_preset_as_cwl_eval_refuses_them():
    for grade in (1.5, -0.5):
        with pytest.raises(ValueError, match="user 'q', item 'b' has grade"):
            rm.evaluate({"q": {"a": 1.0, "b": grade}}, {"q": ["a"]}, ["ndcg", "inst"], preset="cwl")
    rm.evaluate({"q": {"a": 1.0, "b": 1.5}}, {"q": ["a"]}, ["ndcg"], preset="cwl")  # other metrics take them


def test_gains_outside_zero_one_are_clipped_without_the_preset():
    clipped = rm.evaluate({"q": {"a": 1.0, "b": 0.0}}, {"q": ["b", "a"]}, ["inst", "cwl_ap"])
    given = rm.evaluate({"q": {"a": 3.0, "b": -2.0}}, {"q": ["b", "a"]}, ["inst", "cwl_ap"])
    assert clipped.means == given.means


def test_depth_must_be_a_whole_number_and_at_least_two_for_umeasure():
    for bad in ("inst(depth=2.5)", "umeasure(depth=1)"):
        with pytest.raises(ValueError, match="depth must be"):
            rm.evaluate({"q": {"a": 1.0}}, {"q": ["a"]}, [bad], preset="cwl")


@pytest.mark.parametrize(
    "bad",
    [
        "inst(t=0)",
        "inst(quantity=eus)",
        "cwl_rbp(p=1)",
        "umeasure(l=-1)",
        "bpm_dynamic(gain_med=2)",
        "inst(max_gain=2)",
    ],
)
def test_out_of_range_options_are_refused(bad):
    with pytest.raises(ValueError):
        rm.metrics.parse(bad)


# ----------------------------------------------------------------------------- costs (costs=, max_cost, min_cost)
COSTS = [0.0, 0.0, 0.1, 0.5, 1.0, 2.5, 3.0, 1000.0, 1e6]


@st.composite
def cost_cases(draw):
    truth, recs, metrics, threads, _ = draw(cases())
    costs: dict = {}
    for u, lst in recs.items():
        items = sorted(set(lst), key=str)
        if items and draw(st.integers(0, 4)):
            costs[u] = {i: draw(st.sampled_from(COSTS)) for i in items if draw(st.integers(0, 3))}
    for i, m in enumerate(metrics):
        extra = []
        if draw(st.integers(0, 2)) == 0:
            extra.append(f"max_cost={draw(st.sampled_from([0.0, 0.5, 2.0]))!r}")
        if draw(st.integers(0, 2)) == 0:
            extra.append(f"min_cost={draw(st.sampled_from([0.0, 0.25, 3.0]))!r}")
        if extra:
            metrics[i] = with_options(m, ",".join(extra))
    return truth, recs, metrics, threads, costs


def cost_table(costs: dict) -> tuple:
    rows = [(u, i, c) for u, d in costs.items() for i, c in d.items()]
    return tuple(list(x) for x in zip(*rows)) if rows else ([], [], [])


def reference_with_costs(truth, recs, metric, costs):
    m = rm.metrics.parse(metric)
    opts = {**{k: v[0] for k, v in reference_cwl.METRICS[m.name][1].items()}, **m.options}
    return {
        u: reference_cwl.cwl_value(m.name, lst, truth.get(u, {}), m.k, costs.get(u, {}), **opts)
        for u, lst in recs.items()
        if lst
    }


@settings(max_examples=300, **SETTINGS)
@given(cost_cases())
def test_cwl_metrics_with_costs_match_the_reference(case):
    """Costs 0, fractional and large, items without a cost (max_cost, min_cost in the residuals' best case),
    repeated items (one cost per (user, item)), every quantity and residual."""
    truth, recs, metrics, threads, costs = case
    if any(truth.values()) and not set(truth) & set(recs):
        return  # refused (no user in common), as without costs
    users, items, values = cost_table(costs)
    if users and isinstance(users[0], str) != isinstance(next(u for u in recs), str):  # pragma: no cover
        return
    res = rm.evaluate(truth, recs, metrics, threads=threads, costs=(users, items, values), **CONVENTIONS)
    got_users = res.users.tolist()
    for m in metrics:
        want = reference_with_costs(truth, recs, m, costs)
        got = dict(zip(got_users, res.per_user[m].tolist()))
        for u, v in want.items():
            # a residual is a difference of sums that may reach 1e6 per item: compare at that scale
            scale = max([1.0, *costs.get(u, {}).values()]) * (len(recs[u]) + 1)
            assert math.isclose(got[u], v, rel_tol=1e-9, abs_tol=1e-12 * scale), (
                f"{m} user {u!r}: rankmeter {got[u]!r}, reference {v!r}"
            )


def test_costs_hand_checked_values():
    # costs 0, 2.5 and none (1) at positions 1..3; gains 1, 0.5, unjudged
    truth = {"q": {"a": 1.0, "b": 0.5}}
    recs = {"q": ["a", "b", "c"]}
    costs = {"user_id": ["q", "q"], "item_id": ["a", "b"], "cost": [0.0, 2.5]}
    ms = ["cwl_p(quantity=ec)@3", "cwl_p(quantity=etc)@3", "bpm(t=5,quantity=ed)@2", "umeasure(l=5,depth=3)"]
    ms += ["cwl_p(quantity=res_ec,min_cost=0.25)@3", "cwl_p(quantity=ec,max_cost=4)@3"]
    res = rm.evaluate(truth, recs, ms, preset="cwl", costs=costs)
    assert math.isclose(res["cwl_p(quantity=ec)@3"], 3.5 / 3)  # (0 + 2.5 + 1) / 3
    assert res["cwl_p(quantity=etc)@3"] == 3.5  # the user stops after 3 items, having spent 3.5
    # K = 2 limits the cost so far: 0 after item 1, 2.5 after item 2: the user reads 2 items
    assert res["bpm(t=5,quantity=ed)@2"] == 2.0
    # U-measure, L = 5: weights 1 - 0/5, 1 - 0/5, 0 (the cost read before items 1, 2): EU = (1 + 0.5) / 2
    assert res["umeasure(l=5,depth=3)"] == 0.75
    assert math.isclose(res["cwl_p(quantity=res_ec,min_cost=0.25)@3"], (0.25 - 1) / 3)  # c costs 0.25 at best
    assert math.isclose(res["cwl_p(quantity=ec,max_cost=4)@3"], 6.5 / 3)


def test_costs_are_refused_where_no_metric_reads_them_or_the_lists_close_up():
    truth, recs = {"q": {"a": 1.0}}, {"q": ["a", "a", "b"]}
    costs = (["q"], ["a"], [2.0])
    with pytest.raises(ValueError, match="C/W/L metrics only"):
        rm.evaluate(truth, recs, ["ndcg@3"], costs=costs, duplicates="count")
    with pytest.raises(ValueError, match="duplicates='first'"):
        rm.evaluate(truth, recs, ["inst"], costs=costs, duplicates="first")
    with pytest.raises(ValueError, match="more than one cost"):
        rm.evaluate(truth, recs, ["inst"], costs=(["q", "q"], ["a", "a"], [1.0, 2.0]), duplicates="count")
    with pytest.raises(ValueError, match="must be finite"):
        rm.evaluate(truth, recs, ["inst"], costs=(["q"], ["a"], [float("nan")]), duplicates="count")
    with pytest.raises(TypeError, match="not a file"):
        rm.evaluate(truth, recs, ["inst"], costs="costs.txt", duplicates="count")
