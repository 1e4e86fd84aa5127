"""Input ownership (issue 6): inputs are never modified and results never alias them.

Every array-taking entry point gets read-only arrays (a write would raise) and
is checked afterwards against a copy; every array a Result, a Truth/Recs built
by evaluate, or a State exposes is checked with ``np.shares_memory`` against
every input buffer.
"""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter as rm

METRICS = ["precision@3", "ndcg@5", "ap", "rr", "hits", "r_precision"]


def _ro(*arrays):
    out = []
    for a in arrays:
        a = np.array(a, copy=True)
        a.setflags(write=False)
        out.append(a)
    return out


@pytest.fixture
def buffers():
    rng = np.random.default_rng(6)
    n = 50
    t_len = rng.integers(0, 6, n)
    t_indptr = np.concatenate([[0], np.cumsum(t_len)])
    t_items = np.concatenate([rng.choice(40, m, replace=False) for m in t_len]).astype(np.int64)
    t_grades = rng.integers(0, 4, t_items.size).astype(np.float64)
    r_len = rng.integers(0, 9, n)
    r_indptr = np.concatenate([[0], np.cumsum(r_len)])
    r_items = np.concatenate([rng.choice(40, m, replace=False) for m in r_len]).astype(np.int64)
    r_scores = rng.random(r_items.size)
    padded = np.full((n, 8), -1, dtype=np.int64)
    for u in range(n):
        padded[u, : r_len[u]] = r_items[r_indptr[u] : r_indptr[u + 1]]
    users = np.arange(100, 100 + n, dtype=np.int64)
    scores = rng.random((n, 40))
    return dict(
        zip(
            ["t_indptr", "t_items", "t_grades", "r_indptr", "r_items", "r_scores", "padded", "users", "scores"],
            _ro(t_indptr, t_items, t_grades, r_indptr, r_items, r_scores, padded, users, scores),
        )
    )


def _exposed(res: rm.Result):
    yield res.users
    for m in res.keys():  # noqa: SIM118 - a Result, not a dict
        yield res.per_user[m]


def _no_alias(outputs, inputs):
    for o in outputs:
        if isinstance(o, np.ndarray):
            for i in inputs:
                assert not np.shares_memory(o, i), "a result aliases an input buffer"


def test_read_only_inputs_every_form_and_no_alias(buffers):
    b = buffers
    before = {k: v.copy() for k, v in b.items()}
    inputs = list(b.values())
    truth_forms = [
        (b["t_indptr"], b["t_items"], b["t_grades"]),
        rm.Truth.from_csr(b["t_indptr"], b["t_items"], b["t_grades"], users=b["users"]),
    ]
    recs_forms = [
        (b["r_indptr"], b["r_items"]),
        (b["r_indptr"], b["r_items"], b["r_scores"]),
        b["padded"],
        rm.Recs.from_csr(b["r_indptr"], b["r_items"], b["r_scores"], users=b["users"]),
        rm.Recs.from_csr(b["r_indptr"], b["r_items"], b["r_scores"], users=b["users"], by_score=True),
        rm.Recs.from_array(b["padded"], users=b["users"]),
        rm.Recs.from_scores(b["scores"], 5, users=b["users"]),
    ]
    results = []
    for t in truth_forms:
        for r in recs_forms:
            keyed_t = isinstance(t, rm.Truth)
            keyed_r = isinstance(r, rm.Recs) and r.users is not None
            if keyed_t != keyed_r:
                continue
            for ties in ("input", "trec"):
                res = rm.evaluate(t, r, METRICS, ties=ties, duplicates="first")
                results.append(res)
                _no_alias(_exposed(res), inputs)
                state = rm.partial(t, r, METRICS, ties=ties)
                assert state.finalize() == res.state.finalize()
    assert len(results) >= 10
    for k, v in b.items():
        assert np.array_equal(v, before[k]) and not v.flags.writeable, k
    # shortcuts with aggregate=None return fresh arrays too
    arr = rm.ndcg(truth_forms[0], recs_forms[0], k=5, aggregate=None)
    _no_alias([arr], inputs)


def test_result_arrays_are_independent_of_each_other(buffers):
    b = buffers
    res = rm.evaluate((b["t_indptr"], b["t_items"], b["t_grades"]), (b["r_indptr"], b["r_items"]), METRICS)
    arrays = list(_exposed(res))[1:]
    keep = res.per_user["ndcg@5"].copy()
    res.per_user["ap"][:] = -1.0  # a caller scribbling on one column leaves the others alone
    assert np.array_equal(res.per_user["ndcg@5"], keep, equal_nan=True)
    for i, a in enumerate(arrays):
        for c in arrays[i + 1 :]:
            assert not np.shares_memory(a, c) or a is c


def test_from_scores_does_not_touch_the_matrix(buffers):
    S = buffers["scores"]
    before = S.copy()
    ex = (np.arange(S.shape[0] + 1, dtype=np.int64), np.zeros(S.shape[0], dtype=np.int64))
    recs = rm.Recs.from_scores(S, 7, exclude=ex)
    assert np.array_equal(S, before)
    _no_alias([recs.items, recs.scores, recs.indptr], [S])


def _scipy_snapshot(m):
    return {name: np.array(getattr(m, name), copy=True) for name in ("data", "indices", "indptr")}


def _unsorted_csr_with_duplicates(scipy_sparse, n: int):
    """A CSR matrix whose rows hold their column indices out of order and one (row, column) twice."""
    rows = np.repeat(np.arange(n), 3)
    cols = np.tile([5, 1, 3], n)
    cols[1] = 5  # row 0: column 5 twice
    data = np.arange(1, 3 * n + 1, dtype=np.float64)
    indptr = np.arange(0, 3 * n + 1, 3)
    m = scipy_sparse.csr_matrix((data, cols, indptr), shape=(n, 8))
    assert not m.has_sorted_indices and rows.size == data.size
    return m


def test_scipy_truth_and_item_similarity_are_not_reordered_in_place():
    """A scipy.sparse truth or item_similarity keeps its own index and data arrays: tocsr() of a CSR matrix
    returns the caller's object, so duplicates are combined and indices sorted on a copy (issue 24)."""
    sp = pytest.importorskip("scipy.sparse")
    truth = _unsorted_csr_with_duplicates(sp, 6)
    before = _scipy_snapshot(truth)
    recs = np.array([[5, 1, 3]] * 6, dtype=np.int64)
    rm.evaluate(truth, recs, ["precision@3", "ndcg@3"])
    after = _scipy_snapshot(truth)
    assert all(np.array_equal(before[k], after[k]) for k in before), "evaluate reordered the truth matrix"
    assert not truth.has_sorted_indices

    sim = sp.csr_matrix(
        (np.array([0.5, 0.2, 0.9, 0.1]), np.array([3, 1, 2, 0]), np.array([0, 2, 2, 3, 4])), shape=(4, 4)
    )
    assert not sim.has_sorted_indices
    before = _scipy_snapshot(sim)
    lists = np.array([[0, 1, 3], [2, 3, 1]], dtype=np.int64)
    metric = "diversity(similarity=matrix)@3"
    res = rm.evaluate({0: {1: 1}, 1: {3: 1}}, lists, [metric], item_similarity=sim)
    after = _scipy_snapshot(sim)
    assert all(np.array_equal(before[k], after[k]) for k in before), "evaluate reordered item_similarity"
    # the same values as from a canonical copy and from the dense matrix
    canon = rm.evaluate({0: {1: 1}, 1: {3: 1}}, lists, [metric], item_similarity=sim.sorted_indices())
    dense = rm.evaluate({0: {1: 1}, 1: {3: 1}}, lists, [metric], item_similarity=sim.toarray())
    assert np.array_equal(res.per_user[metric], canon.per_user[metric])
    assert np.array_equal(res.per_user[metric], dense.per_user[metric])
