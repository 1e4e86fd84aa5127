"""ties="torch" / "torch_topk" / "torch_average": torch's order of equal scores against the pure-Python reference
(tests/support/reference_torch.py); the reference itself is checked against the real torch in
tests/conformance/test_torch_ties.py."""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from rankmeter import _core
from tests.support import reference_torch as rt
from tests.support.reference import reference_evaluate, tie_averaged_ndcg
from tests.support.same import close

SETTINGS: dict[str, Any] = dict(
    deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)

# few distinct values: long runs of equal keys (the partitions move them), NaN and infinities included
KEYS = st.sampled_from([0.0, 0.5, 1.0, 1.0, 1.5, 2.0, -1.0, math.inf, -math.inf, math.nan])


@settings(max_examples=300, **SETTINGS)
@given(
    st.lists(st.lists(KEYS, max_size=300), min_size=1, max_size=4),
    st.sampled_from([-1, 0, 1, 2, 3, 5, 16, 17, 40, 1000]),
)
def test_order_torch_is_libstdcxx_sort_nth_element_and_partial_sort(lists, k):
    """_core.order_torch ranks each list as the reference's std::sort (k < 0) or topk(k) (nth_element then sort,
    or partial_sort when 64 k <= n) does: the same positions in the same order, equal keys included."""
    indptr = np.zeros(len(lists) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(v) for v in lists])
    keys = np.array([x for v in lists for x in v], dtype=np.float64)
    got = _core.order_torch(indptr, keys, k, 2)
    for u, values in enumerate(lists):
        b = int(indptr[u])
        local = (got[b : b + len(values)] - b).tolist()
        if k < 0:
            assert local == rt.torch_argsort_desc(values)
        elif values:
            kk = len(values) if k == 0 or k > len(values) else k
            assert local[:kk] == rt.torch_topk(values, kk)
            assert sorted(local) == list(range(len(values)))


@settings(max_examples=200, **SETTINGS)
@given(st.lists(st.integers(-3, 3) | st.sampled_from([-(2**63), 2**63 - 1]), max_size=400))
def test_stl_sort_int64_is_libstdcxx_introsort(keys):
    """The rows of a tensor sorted by query index (below 32768 rows): std::sort's order, equal keys included."""
    a = [(x, j) for j, x in enumerate(keys)]
    rt.stl_sort(a, rt.ascending)
    assert _core.stl_sort_int64(np.array(keys, dtype=np.int64)).tolist() == [j for _, j in a]


# ----------------------------------------------------------------------------- through evaluate
SCORES = st.sampled_from([0.25, 0.5, 0.5, 0.75, 0.75, 1.0, 0.0, -0.5, 0.5 + 1e-12, 1e300, 2.0**-150])
METRICS = ["precision", "recall", "ap", "rr", "hit_rate", "ndcg", "hits", "dcg", "arhr"]


@st.composite
def scenarios(draw):
    n_users = draw(st.integers(1, 6))
    ints = draw(st.booleans())
    users = draw(
        st.lists(st.integers(-5, 2**62), min_size=n_users, max_size=n_users, unique=True)
        if ints
        else st.lists(st.text("abc", min_size=1, max_size=3), min_size=n_users, max_size=n_users, unique=True)
    )
    recs, truth = {}, {}
    for u in users:
        n = draw(st.sampled_from([0, 1, 2, 3, 5, 8, 16, 17, 30, 70]))
        recs[u] = {i: draw(SCORES) for i in range(n)}
        truth[u] = {i: draw(st.sampled_from([0, 1, 1, 2])) for i in draw(st.sets(st.integers(0, 80), max_size=10))}
    return truth, recs


@settings(max_examples=150, **SETTINGS)
@given(scenarios(), st.sampled_from(["torch", "torch_topk"]), st.sampled_from([None, 1, 2, 5, 20]))
def test_torch_rules_rank_each_list_as_the_reference(scenario, ties, k):
    """evaluate(ties='torch' / 'torch_topk') equals the reference metrics on the reference's torch order (every
    list a query of one tensor, scores compared as float32), per user and as means; inputs are not written."""
    truth, recs = scenario
    truth_copy, recs_copy = copy.deepcopy(truth), copy.deepcopy(recs)
    names = [m if k is None else f"{m}@{k}" for m in METRICS] + ["r_precision"]
    ordered = rt.torch_orders(recs, ties, k)
    means, per_user, meta = reference_evaluate(truth, ordered, names, empty="zero")
    res = rm.evaluate(truth, recs, names, ties=ties, empty="zero")
    assert truth == truth_copy and recs == recs_copy
    assert res.users.tolist() == meta["users"]
    for m in names:
        if ties == "torch_topk" and m == "r_precision":
            continue  # its own group: the whole list (k None); checked with k=None
        for g, e in zip(res.per_user[m].tolist(), per_user[m]):
            assert close(g, e, rel=1e-12), (m, g, e)
        assert close(res[m], means[m], rel=1e-12), m


@settings(max_examples=100, **SETTINGS)
@given(scenarios(), st.sampled_from([None, 1, 3, 20]))
def test_torch_average_is_tie_averaged_ndcg_of_float32_scores(scenario, k):
    truth, recs = scenario
    name = "ndcg" if k is None else f"ndcg@{k}"
    res = rm.evaluate(truth, recs, [name], ties="torch_average", empty="zero")
    for u, got in zip(res.users.tolist(), res.per_user[name].tolist()):
        scores32 = {i: rt.float32(s) for i, s in recs[u].items()}
        want = tie_averaged_ndcg(scores32, truth[u], k, None)
        assert close(got, want, rel=1e-12), (u, got, want)


def test_float32_equal_scores_are_ties_and_float32_zero_is_not_positive():
    """Scores equal as float32 are tied under the torch rules (not under ties='input'), and a score that rounds to
    0 as float32 is no hit of precision(hit_scores=positive)."""
    truth = {1: {"a": 1, "b": 1}}
    recs = {1: {"a": 1.0, "b": 1.0 + 1e-12, "c": 1.0 + 2e-12}}  # one float32 value
    # input order (stable): c, b, a; torch's argsort of three equal float32 values keeps a, b, c
    assert rm.evaluate(truth, recs, ["rr"], ties="input")["rr"] == 0.5
    assert rm.evaluate(truth, recs, ["rr"], ties="torch")["rr"] == 1.0
    tiny = {1: {"a": 1e-50, "b": 1e-30}}
    res = rm.evaluate(truth, tiny, ["precision(hit_scores=positive)@2"], ties="torch")
    assert res["precision(hit_scores=positive)@2"] == 0.5  # b is 1e-30 > 0 as float32; a is 0
    res = rm.evaluate(truth, tiny, ["precision(hit_scores=positive)@2"], ties="input")
    assert res["precision(hit_scores=positive)@2"] == 1.0


def test_torch_layout_follows_the_users_order_and_integer_ids():
    """The query index is the user id for integer ids (torch.sort reorders the rows by it), else the position:
    the same lists under other ids or in another order can rank equal scores differently."""
    lists = {u: {i: float(i % 2) for i in range(12)} for u in range(3)}
    want_ids = rt.torch_orders(lists, "torch")
    renamed = {u: lists[k] for u, k in zip((7, 2, 5), range(3))}
    want_renamed = rt.torch_orders(renamed, "torch")
    assert [want_ids[k] for k in range(3)] != [want_renamed[u] for u in (7, 2, 5)]  # the ids matter
    for recs, want in ((lists, want_ids), (renamed, want_renamed)):
        truth = {u: dict.fromkeys(range(0, 12, 3), 1) for u in recs}
        _, per_user, _ = reference_evaluate(truth, want, ["ap@6"], empty="zero")
        res = rm.evaluate(truth, recs, ["ap@6"], ties="torch", empty="zero")
        assert res.per_user["ap@6"].tolist() == pytest.approx(per_user["ap@6"], rel=1e-12)
