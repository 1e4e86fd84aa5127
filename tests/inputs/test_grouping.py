"""Long-table grouping (issue 3): hash factorization + counting sort against a plain Python reference."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter as rm
from rankmeter import _core

pd = pytest.importorskip("pandas")

users_st = st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(-3, 6))


def reference_groups(users, rank=None):
    """Users by first appearance; rows of a user in table order, or by rank."""
    order_users: list = []
    rows: dict = {}
    for r, u in enumerate(users):
        if u not in rows:
            rows[u] = []
            order_users.append(u)
        rows[u].append(r)
    if rank is not None:
        for u in order_users:
            rows[u].sort(key=lambda r: rank[r])
    return order_users, [r for u in order_users for r in rows[u]]


@settings(max_examples=200, deadline=None)
@given(st.lists(users_st, max_size=60))
def test_factorize_and_group_int64(users):
    ids = np.array(users, dtype=np.int64)
    codes, first = _core.factorize_int64(ids)
    ref_users, ref_order = reference_groups(users)
    assert ids[first].tolist() == ref_users
    assert [ref_users[c] for c in codes.tolist()] == users
    indptr, order, bad = _core.group_rows(codes, len(ref_users), None)
    assert bad == -1 and order.tolist() == ref_order
    assert indptr.tolist() == [0, *np.cumsum([users.count(u) for u in ref_users]).tolist()]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), max_size=40), st.randoms(use_true_random=False), st.booleans())
def test_group_by_rank_and_errors(users, rnd, corrupt):
    n = len(users)
    rank = [0] * n
    for u in set(users):
        rows = [r for r in range(n) if users[r] == u]
        perm = list(range(1, len(rows) + 1))
        rnd.shuffle(perm)
        for r, k in zip(rows, perm):
            rank[r] = k
    if corrupt and n:
        rank[rnd.randrange(n)] = rnd.choice([0, -1, 2, 3, 99])
    ids = np.array(users, dtype=np.int64)
    codes, first = _core.factorize_int64(ids)
    _indptr, order, bad = _core.group_rows(codes, first.size, np.array(rank, dtype=np.int64))
    # the reference: first row whose rank is out of 1..count or repeats an earlier rank of its user
    expect_bad, seen = -1, set()
    for r in range(n):
        cnt = users.count(users[r])
        if not 1 <= rank[r] <= cnt or (users[r], rank[r]) in seen:
            expect_bad = r
            break
        seen.add((users[r], rank[r]))
    assert bad == expect_bad
    if bad == -1:
        assert order.tolist() == reference_groups(users, rank)[1]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "é", "c d", ""]), st.integers(0, 9)), min_size=1, max_size=30, unique=True
    )
)
def test_frames_with_string_users_match_dicts(pairs):
    users = [u for u, _ in pairs]
    items = [i for _, i in pairs]
    df = pd.DataFrame({"user_id": users, "item_id": items})
    truth = rm.Truth.from_frame(df)
    recs_df = df.assign(rank=df.groupby("user_id", sort=False).cumcount() + 1)
    d_truth: dict = {}
    d_recs: dict = {}
    for u, i in pairs:
        d_truth.setdefault(u, []).append(i)
        d_recs.setdefault(u, []).append(i)
    a = rm.evaluate(truth, rm.Recs.from_frame(recs_df), ["precision@3", "ndcg"])
    b = rm.evaluate(d_truth, d_recs, ["precision@3", "ndcg"])
    assert a.means == b.means
    assert list(a.users) == list(d_truth)
