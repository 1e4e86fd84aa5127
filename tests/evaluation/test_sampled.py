"""rm.evaluate_sampled: sampled ranks, metrics and their bias-variance corrections equal the plain-Python
reference; draws depend only on (seed, row); the correction lands closer to the full values than the raw
sampled metric on a W1-like simulation (docs/model.md, "Sampled evaluation")."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from rankmeter import _core
from rankmeter.evaluation._sampled import stream_words
from tests.support import reference_sampled as ref

METRICS = ["recall@2", "ndcg@3", "ap@3", "precision@2", "rr", "auc"]
SPECS = [("recall", 2), ("ndcg", 3), ("ap", 3), ("precision", 2), ("rr", None), ("auc", None)]


def _case(rng, n_users, n_items, dim=2, lo=-2, hi=3, p_truth=0.25, p_train=0.2):
    U = rng.integers(lo, hi, size=(n_users, dim))
    V = rng.integers(lo, hi, size=(n_items, dim))  # small integers: exact float32 scores and many ties
    truth, train = {}, {}
    for u in range(n_users):
        items = {int(i): int(rng.integers(0, 3)) for i in np.flatnonzero(rng.random(n_items) < p_truth)}
        truth[u] = items
        train[u] = {
            int(i) for i in np.flatnonzero(rng.random(n_items) < p_train) if int(i) not in items or rng.random() < 0.3
        }
    return truth, train, U, V


def _csr(train, n_users):
    indptr = [0]
    cols: list[int] = []
    for u in range(n_users):
        cols += sorted(train.get(u, ()))
        indptr.append(len(cols))
    return np.array(indptr, dtype=np.int64), np.array(cols, dtype=np.int64)


def _close(a, b):
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-9 * max(1.0, abs(b))


def test_stream_words_equal_the_core_generator():
    rows = np.array([0, 1, 5, 1000, 2**40])
    w = stream_words(123, 4, rows, 7)
    for i, r in enumerate(rows):
        assert np.array_equal(w[i], _core.splitmix_words(123, 4, int(r), 7))
        assert [ref.word(123, 4, int(r), j) for j in range(7)] == [int(x) for x in w[i]]


def _check(truth, train, U, V, n_neg, sampling, seed, gamma):
    n_users = U.shape[0]
    res = rm.evaluate_sampled(
        {u: it for u, it in truth.items() if it} or {0: {}},
        U.astype(np.float32),
        V.astype(np.float32),
        METRICS,
        n_negatives=n_neg,
        sampling=sampling,
        train=_csr(train, n_users),
        seed=seed,
        gamma=gamma,
        correction="bias_variance" if sampling == "uniform" else "none",
        full=True,
    )
    want, _ = ref.evaluate_sampled(
        {u: it for u, it in truth.items() if it} or {0: {}},
        U.tolist(),
        V.tolist(),
        SPECS,
        n_neg,
        sampling,
        train,
        seed,
        gamma,
        correct=sampling == "uniform",
    )
    assert res.full is not None and res.corrected is not None
    for name, (s, c, f) in zip(METRICS, want):
        assert _close(res.sampled[name], s), (name, res.sampled[name], s)
        assert _close(res.full[name], f), (name, res.full[name], f)
        assert abs(res.corrected[name] - c) <= 1e-7 or _close(res.corrected[name], c), (name, res.corrected[name], c)


@pytest.mark.parametrize("sampling", ["uniform", "popularity"])
@pytest.mark.parametrize("case_seed", range(4))
def test_equal_to_the_reference(sampling, case_seed):
    rng = np.random.default_rng(case_seed)
    truth, train, U, V = _case(rng, 7, 12)
    truth[3] = {}  # a user without truth
    train[4] = set(range(12)) - set(truth[4])  # every other item excluded: no negative to draw
    _check(truth, train, U, V, 5, sampling, case_seed, 0.1)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**64 - 1),
    n_users=st.integers(1, 6),
    n_items=st.integers(1, 9),
    n_neg=st.integers(1, 6),
    gamma=st.sampled_from([0.001, 0.01, 0.5, 1.0]),
    data_seed=st.integers(0, 1000),
)
def test_equal_to_the_reference_on_random_cases(seed, n_users, n_items, n_neg, gamma, data_seed):
    rng = np.random.default_rng(data_seed)
    truth, train, U, V = _case(rng, n_users, n_items, p_truth=0.4, p_train=0.3)
    if not any(truth.values()):
        truth[0] = {0: 1}
    _check(truth, train, U, V, n_neg, "uniform", seed, gamma)


def test_draws_do_not_depend_on_the_other_users_or_their_order(rng):
    U = rng.normal(size=(40, 4)).astype(np.float32)
    V = rng.normal(size=(60, 4)).astype(np.float32)
    truth = {u: [int(i) for i in rng.choice(60, 3, replace=False)] for u in range(40)}
    a = rm.evaluate_sampled(truth, U, V, ["ndcg@5", "auc"], n_negatives=20, seed=9)
    order = list(rng.permutation(40))
    b = rm.evaluate_sampled({u: truth[u] for u in order}, U, V, ["ndcg@5", "auc"], n_negatives=20, seed=9)
    sub = order[:7]
    c = rm.evaluate_sampled({u: truth[u] for u in sub}, U, V, ["ndcg@5", "auc"], n_negatives=20, seed=9)
    for m in ("ndcg@5", "auc"):
        pa = dict(zip(a.users.tolist(), a.per_user[m]["sampled"]))
        for r in (b, c):
            for u, v in zip(r.users.tolist(), r.per_user[m]["sampled"]):
                assert v == pa[u]


def test_the_correction_is_closer_to_the_full_values_than_the_sampled_metric():
    import runpy
    from pathlib import Path

    # the simulation of bench/sampled_correction.py, read from its file (bench/ is scripts, not a package)
    bench = Path(__file__).resolve().parents[2] / "bench" / "sampled_correction.py"
    simulate = runpy.run_path(str(bench), run_name="sampled_correction")["simulate"]
    truth, train, U, V = simulate(2000, 5000)
    res = rm.evaluate_sampled(
        truth, U, V, ["recall@10", "ndcg@10", "ap@10", "rr"], n_negatives=100, train=train, full=True
    )
    for m, s, c, f in res.table():
        assert c is not None and f is not None
        assert abs(c - f) < abs(s - f), (m, s, c, f)


@pytest.mark.parametrize(
    "kw, word",
    [
        (dict(n_negatives=0), "n_negatives"),
        (dict(sampling="zipf"), "sampling"),
        (dict(correction="exact"), "correction"),
        (dict(gamma=2.0), "gamma"),
        (dict(gamma=0.0), "gamma"),
        (dict(seed=-1), "seed"),
        (dict(sampling="popularity", correction="none"), "train"),
        (dict(sampling="popularity", train=(np.array([0, 0]), np.array([], dtype=np.int64))), "correction"),
        (dict(metrics=["ndcg"]), "metrics"),
        (dict(metrics=[]), "metrics"),
        (dict(full=1), "full"),
    ],
)
def test_bad_input_names_the_argument(kw, word):
    U = np.ones((1, 2), dtype=np.float32)
    V = np.ones((3, 2), dtype=np.float32)
    metrics = kw.pop("metrics", ["ndcg@2"])
    with pytest.raises((ValueError, TypeError), match=word):
        rm.evaluate_sampled({0: [1]}, U, V, metrics, **kw)


def test_full_rr_equals_evaluate_model_with_one_held_out_item(rng):
    U = rng.normal(size=(30, 3)).astype(np.float32)
    V = rng.normal(size=(50, 3)).astype(np.float32)
    truth = {u: [int(rng.integers(50))] for u in range(30)}
    res = rm.evaluate_sampled(truth, U, V, ["rr", "auc"], n_negatives=10, full=True)
    want = rm.evaluate_model(truth, U, V, ["mrr", "auc"])
    assert res.full is not None
    assert abs(res.full["rr"] - want["mrr"]) < 1e-12
    assert abs(res.full["auc"] - want["auc"]) < 1e-12


def test_popularity_draws_follow_the_train_counts():
    n_users, n_items = 400, 6
    counts = np.array([0, 1, 2, 3, 4, 10])
    cols = np.repeat(np.arange(n_items), counts)
    # user 0 holds every train entry (popularity counts entries); the others exclude nothing
    indptr = np.zeros(n_users + 1, dtype=np.int64)
    indptr[1:] = cols.size
    ex_cols = cols.copy()
    U = np.ones((n_users, 1), dtype=np.float32)
    V = np.arange(n_items, dtype=np.float32)[:, None]
    truth = {u: [0] for u in range(1, n_users)}
    res = rm.evaluate_sampled(
        truth, U, V, ["auc"], n_negatives=50, sampling="popularity", train=(indptr, ex_cols), correction="none"
    )
    # item 0 has the lowest score: every drawn negative (never item 0, whose count is 0) scores higher
    assert res.sampled["auc"] == 0.0
    from rankmeter.evaluation._sampled import _forbidden, sample_negatives, stream_words

    rows = np.arange(1, n_users)
    f_indptr, f_cols = _forbidden(
        np.concatenate([[0], np.arange(n_users)]), np.zeros(n_users - 1, np.int64), None, None, n_users, n_items
    )
    items, _ = sample_negatives(stream_words(0, 4, rows, 50), rows, counts, f_indptr, f_cols)
    freq = np.bincount(items.ravel(), minlength=n_items) / items.size
    assert np.allclose(freq, counts / counts.sum(), atol=0.01)
