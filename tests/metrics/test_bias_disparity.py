"""Bias disparity (``rm.bias_disparity``: BS, BR, BD per user group x item category) against the plain-Python
reference (tests/support/reference_bias_disparity.py) on hypothesis data (items in several categories or in none,
items given with no category, groups without pairs, int and str ids, cutoffs, one group), and against the
restatement of Elliot's BiasDisparityBS/BR/BD (tests/differential/elliot_bias_disparity.py) where Elliot's input
holds (one category per item, integer labels 0 .. n-1); then row-order invariance and errors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from tests.differential.elliot_bias_disparity import elliot_bias_disparity
from tests.support import reference_bias_disparity as ref

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def cases(draw, elliot: bool = False):
    as_str = draw(st.booleans()) and not elliot
    n_items = draw(st.integers(1, 8))

    def item(i):
        return f"i{i}" if as_str else i

    n_cats = draw(st.integers(1, 3))
    item_groups: dict = {}
    for i in range(n_items):
        if elliot:
            if draw(st.integers(0, 4)) > 0:
                item_groups[item(i)] = draw(st.integers(0, n_cats - 1))
        else:
            choice = draw(st.integers(0, 5))
            if choice == 0:
                continue  # no category
            if choice == 1:
                item_groups[item(i)] = []
            elif choice == 2:
                item_groups[item(i)] = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, unique=True))
            else:
                item_groups[item(i)] = draw(st.sampled_from(["a", "b", "c"]))
    if elliot:  # Elliot's labels are the cluster indices 0 .. n-1, each used
        used = sorted(set(item_groups.values()))
        item_groups = {i: used.index(c) for i, c in item_groups.items()}
    if not any(v != [] for v in item_groups.values()):
        item_groups[item(0)] = 0 if elliot else "a"
    n_users = draw(st.integers(1, 5))
    users = [f"u{u}" for u in range(n_users)]
    train = {u: draw(st.lists(st.integers(0, n_items + 1), max_size=6, unique=True)) for u in users}
    train = {u: [item(i) for i in v] for u, v in train.items() if v}
    recs = {}
    for u in users:
        if draw(st.integers(0, 3)) > 0:
            perm = draw(st.permutations(list(range(n_items + 2))))
            recs[u] = [item(i) for i in perm[: draw(st.integers(1, n_items + 2))]]
    if not train:
        train = {users[0]: [item(0)]}
    if not recs:
        recs = {users[0]: [item(0)]}
    if draw(st.booleans()):
        n_groups = draw(st.integers(1, 3))
        user_groups = {u: draw(st.integers(0, n_groups - 1)) for u in users}
        if elliot:
            used = sorted(set(user_groups.values()))
            user_groups = {u: used.index(g) for u, g in user_groups.items()}
    else:
        user_groups = None
    k = draw(st.sampled_from([None, 1, 3, 10]))
    return train, recs, item_groups, user_groups, k


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-14)


@SETTINGS
@given(cases())
def test_bias_disparity_matches_the_reference(case):
    train, recs, item_groups, user_groups, k = case
    got = rm.bias_disparity(train, recs, item_groups=item_groups, user_groups=user_groups, k=k)
    want = ref.bias_disparity(train, recs, item_groups, user_groups, k)
    assert [(r.user_group, r.item_group) for r in got.itertuples()] == list(want)
    for r in got.itertuples():
        for a, b in zip((r.bs, r.br, r.bd), want[r.user_group, r.item_group]):
            assert _same(a, b), (r, want[r.user_group, r.item_group])


@SETTINGS
@given(cases(elliot=True))
def test_bias_disparity_equals_elliot(case):
    train, recs, item_groups, user_groups, k = case
    got = rm.bias_disparity(train, recs, item_groups=item_groups, user_groups=user_groups, k=k)
    cutoff = k if k is not None else max(len(v) for v in recs.values())
    bs, br, bd = elliot_bias_disparity(
        {u: dict.fromkeys(v, 1) for u, v in train.items()}, recs, cutoff, user_groups or {}, item_groups
    )
    n_c = bs.shape[1]
    for j, r in enumerate(got.itertuples()):
        g, c = divmod(j, n_c)
        assert (r.item_group, r.user_group) == (c, "all" if user_groups is None else g)
        for a, b in ((r.bs, bs[g, c]), (r.br, br[g, c]), (r.bd, bd[g, c])):
            assert _same(a, float(b)), (r, bs, br, bd)


@SETTINGS
@given(cases(), st.randoms(use_true_random=False))
def test_the_table_does_not_depend_on_the_order_of_users_or_items(case, rnd):
    train, recs, item_groups, user_groups, k = case
    base = rm.bias_disparity(train, recs, item_groups=item_groups, user_groups=user_groups, k=k)
    shuffled_train = dict(rnd.sample(list(train.items()), len(train)))
    shuffled_train = {u: rnd.sample(v, len(v)) for u, v in shuffled_train.items()}
    shuffled_recs = dict(rnd.sample(list(recs.items()), len(recs)))
    groups = dict(rnd.sample(list(item_groups.items()), len(item_groups)))
    again = rm.bias_disparity(shuffled_train, shuffled_recs, item_groups=groups, user_groups=user_groups, k=k)
    pd.testing.assert_frame_equal(base, again, check_exact=True)


def test_a_group_recommended_more_of_a_category_than_it_consumes_has_positive_disparity():
    train = {"a": [1, 2, 3, 4], "b": [1, 3]}
    recs = {"a": [3, 4], "b": [3, 4]}
    got = rm.bias_disparity(train, recs, item_groups={1: "pop", 2: "pop", 3: "niche", 4: "niche"}, k=2)
    niche = got[got.item_group == "niche"].iloc[0]
    # train: 6 pairs, 3 niche -> PR 1/2, P(niche) = 1/2 -> BS 1; recs: all niche -> BR 2, BD 1
    assert (niche.bs, niche.br, niche.bd) == (1.0, 2.0, 1.0)


def test_a_user_without_a_group_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"user_groups.*'b'"):
        rm.bias_disparity({"a": [1]}, {"b": [1]}, item_groups={1: "x"}, user_groups={"a": "g"})


def test_item_groups_is_required_and_checked():
    with pytest.raises(TypeError):
        rm.bias_disparity({"a": [1]}, {"a": [1]}, item_groups=3.5)
    assert np.isnan(rm.bias_disparity({"a": [1]}, {"a": [2]}, item_groups={1: "x", 2: []}).br[0])


def test_item_ids_of_another_kind_than_item_groups_are_refused_naming_the_side():
    with pytest.raises(ValueError, match="`recs` has str item ids"):
        rm.bias_disparity({"a": [1]}, {"a": ["1"]}, item_groups={1: "x"})
