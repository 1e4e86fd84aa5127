"""pytest-benchmark suite of the beyond-accuracy kernels on W1 (k = 10, train = W1's truth).

Every benchmark checks its answer against a direct numpy computation.
"""

import numpy as np
import pytest

import rankmeter as rm


def _top(w, k=10):
    return w.recs_items.reshape(w.n_users, -1)[:, :k]


def _train(w):
    return (w.truth_indptr, w.truth_items)


@pytest.mark.benchmark(group="beyond")
def test_coverage(benchmark, w1):
    res = benchmark(rm.evaluate, w1.truth, w1.recs, ["coverage@10"], train=_train(w1))
    catalog = np.unique(w1.truth_items)
    expect = np.isin(catalog, _top(w1)).mean()
    assert res["coverage@10"] == pytest.approx(expect, rel=1e-12)


@pytest.mark.benchmark(group="beyond")
def test_personalization(benchmark, w1):
    res = benchmark(rm.evaluate, w1.truth, w1.recs, ["personalization@10"])
    c = np.bincount(_top(w1).ravel()).astype(np.float64)
    n = w1.n_users
    expect = 1.0 - (c * (c - 1) / 2).sum() / (n * (n - 1) / 2 * 10)
    assert res["personalization@10"] == pytest.approx(expect, rel=1e-9)


@pytest.mark.benchmark(group="beyond")
def test_arp(benchmark, w1):
    res = benchmark(rm.evaluate, w1.truth, w1.recs, ["arp@10"], train=_train(w1))
    users = np.repeat(np.arange(w1.n_users), np.diff(w1.truth_indptr))
    pop = np.bincount(np.unique(users * w1.n_items + w1.truth_items) % w1.n_items, minlength=w1.n_items)
    assert res["arp@10"] == pytest.approx(pop[_top(w1)].mean(), rel=1e-9)


@pytest.mark.benchmark(group="beyond")
def test_novelty(benchmark, w1):
    res = benchmark(rm.evaluate, w1.truth, w1.recs, ["novelty@10"], train=_train(w1))
    pop = np.bincount(w1.truth_items, minlength=w1.n_items).astype(np.float64)  # W1 truth has no repeats
    n = np.count_nonzero(np.diff(w1.truth_indptr))
    info = np.where(pop > 0, -np.log2(np.maximum(pop, 1) / n), -np.log2(1.0 / n))
    assert res["novelty@10"] == pytest.approx(info[_top(w1)].mean(), rel=1e-9)


@pytest.mark.benchmark(group="beyond")
def test_gini(benchmark, w1):
    res = benchmark(rm.evaluate, w1.truth, w1.recs, ["gini@10"], train=_train(w1))
    catalog = np.unique(w1.truth_items)
    c = np.sort(np.bincount(_top(w1).ravel(), minlength=w1.n_items)[catalog]).astype(np.float64)
    j = np.arange(1, c.size + 1)
    expect = ((2 * j - c.size - 1) * c).sum() / ((c.size - 1) * c.sum())
    assert res["gini@10"] == pytest.approx(expect, rel=1e-9)


@pytest.mark.benchmark(group="beyond")
def test_diversity_features(benchmark, w1):
    rng = np.random.default_rng(1)
    feats = rng.normal(size=(w1.n_items, 32))
    res = benchmark(rm.evaluate, w1.truth, w1.recs, ["diversity@10"], item_features=feats)
    unit = feats / np.linalg.norm(feats, axis=1, keepdims=True)
    x = unit[_top(w1)[:2000]]  # a sample of users, checked pair by pair
    sims = np.einsum("uid,ujd->uij", x, x)
    iu = np.triu_indices(10, 1)
    per_user = 1.0 - sims[:, iu[0], iu[1]].mean(axis=1)
    np.testing.assert_allclose(res.per_user["diversity@10"][:2000], per_user, rtol=1e-9)


@pytest.mark.benchmark(group="beyond")
def test_fcp(benchmark, w1):
    scores = np.tile(np.linspace(1.0, 0.0, 100), w1.n_users)
    recs = rm.Recs.from_csr(w1.recs_indptr, w1.recs_items, scores)
    res = benchmark(rm.evaluate, w1.truth, recs, ["fcp@10"])
    assert 0.0 <= res["fcp@10"] <= 1.0 and res.meta["n_users"] == w1.n_users
