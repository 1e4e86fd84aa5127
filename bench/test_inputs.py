"""pytest-benchmark suite of input conversion: long tables and score matrices to evaluate().

Answers are checked against the same data given as CSR buffers.
"""

import numpy as np
import pytest

import rankmeter as rm


def _long(w):
    n = w.n_users
    t_user = np.repeat(np.arange(n), np.diff(w.truth_indptr))
    r_user = np.repeat(np.arange(n), np.diff(w.recs_indptr))
    rank = np.tile(np.arange(1, 101), n)
    return t_user, r_user, rank


@pytest.fixture(scope="module")
def csr_answer():
    cache = {}

    def get(w):
        if w.n_users not in cache:
            cache[w.n_users] = rm.evaluate(w.truth, w.recs, ["ndcg@10", "precision@10"])
        return cache[w.n_users]

    return get


def _tables(lib, t, r):
    if lib == "pandas":
        pd = pytest.importorskip("pandas")
        return pd.DataFrame(t), pd.DataFrame(r)
    pa = pytest.importorskip("pyarrow")
    return pa.table(t), pa.table(r)


@pytest.mark.benchmark(group="inputs")
@pytest.mark.parametrize("lib", ["pandas", "pyarrow"])
def test_long_tables(benchmark, w1, csr_answer, lib):
    t_user, r_user, rank = _long(w1)
    truth, recs = _tables(
        lib,
        {"user_id": t_user, "item_id": w1.truth_items, "relevance": w1.truth_grades},
        {"user_id": r_user, "item_id": w1.recs_items, "rank": rank},
    )
    res = benchmark(rm.evaluate, truth, recs, ["ndcg@10", "precision@10"])
    assert res.means == csr_answer(w1).means


@pytest.mark.benchmark(group="inputs")
def test_string_ids(benchmark, w1, csr_answer):
    """Item ids as strings: factorized once, shared by truth and recs."""
    names = np.array([f"item{i}" for i in range(w1.n_items)], dtype=object)
    truth = rm.Truth.from_csr(w1.truth_indptr, names[w1.truth_items], w1.truth_grades)
    recs = rm.Recs.from_csr(w1.recs_indptr, names[w1.recs_items])
    res = benchmark(rm.evaluate, truth, recs, ["ndcg@10", "precision@10"])
    assert res.means == csr_answer(w1).means


@pytest.mark.benchmark(group="inputs")
def test_dicts_of_string_ids(benchmark, w1, csr_answer):
    """Python dicts of string ids (``{user: {item: grade}}``, ``{user: [items]}``): read by the C++ walker."""
    names = np.array([f"item{i}" for i in range(w1.n_items)], dtype=object)
    users = [f"user{u}" for u in range(w1.n_users)]
    t_items, r_items = names[w1.truth_items].tolist(), names[w1.recs_items].tolist()
    grades, ti, ri = w1.truth_grades.tolist(), w1.truth_indptr.tolist(), w1.recs_indptr.tolist()
    truth = {u: dict(zip(t_items[ti[j] : ti[j + 1]], grades[ti[j] : ti[j + 1]])) for j, u in enumerate(users)}
    recs = {u: r_items[ri[j] : ri[j + 1]] for j, u in enumerate(users)}
    res = benchmark(rm.evaluate, truth, recs, ["ndcg@10", "precision@10"])
    assert res.means == csr_answer(w1).means


@pytest.mark.benchmark(group="topk")
def test_topk_from_scores(benchmark, w1):
    n_users, n_items = min(w1.n_users // 10, 5_000), 10_000  # bench/topk_scores.py runs the 20,000 x 100,000 case
    scores = np.random.default_rng(0).random((n_users, n_items), dtype=np.float32)
    recs = benchmark(rm.Recs.from_scores, scores, 100)
    part = np.argpartition(-scores, 99, axis=1)[:, :100]
    order = np.argsort(-np.take_along_axis(scores, part, axis=1), axis=1, kind="stable")
    expect = np.take_along_axis(part, order, axis=1)
    got = recs.items.reshape(n_users, 100)
    np.testing.assert_array_equal(np.take_along_axis(scores, got, axis=1), np.take_along_axis(scores, expect, axis=1))
