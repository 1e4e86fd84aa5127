"""evaluate_model / Recs.from_factors read torch CPU tensors through DLPack without a copy, and give the numpy
results (docs/model.md, "Inputs"). torch is optional: without it these tests skip; `.ci/run` installs torch
2.13.0 (CPU) so that they run there."""

from __future__ import annotations

import os

import numpy as np
import pytest

import rankmeter as rm
from rankmeter.inputs._factors import check_factors

if os.environ.get("CI") == "true":
    import torch  # CI installs it: a missing torch is a failure there
else:
    torch = pytest.importorskip("torch", reason="torch is not installed (optional; .ci/run installs it)")


def test_a_float32_cpu_tensor_is_read_in_place():
    U = torch.randn(20, 6, dtype=torch.float32)
    V = torch.randn(40, 6, dtype=torch.float32)
    u, v = check_factors(U, V)
    assert np.shares_memory(u, U.numpy()) and np.shares_memory(v, V.numpy())


def test_torch_tensors_give_the_numpy_lists_ranks_and_values():
    g = torch.Generator().manual_seed(0)
    U = torch.randn(60, 16, generator=g)
    V = torch.randn(300, 16, generator=g)
    rng = np.random.default_rng(1)
    truth = {u: {int(i): int(rng.integers(1, 3)) for i in rng.choice(300, 5, replace=False)} for u in range(60)}
    metrics = ["ndcg@10", "recall@10", "auc", "gauc", "mrr"]
    got, ranks = rm.evaluate_model(truth, U, V, metrics, ranks=True)
    want, want_ranks = rm.evaluate_model(truth, U.numpy(), V.numpy(), metrics, ranks=True)
    assert np.array_equal(ranks, want_ranks)
    for m in metrics:
        assert np.array_equal(got.per_user[m], want.per_user[m], equal_nan=True), m
    lists = rm.Recs.from_factors(U, V, 10)
    want_lists = rm.Recs.from_factors(U.numpy(), V.numpy(), 10)
    assert np.array_equal(lists.items, want_lists.items) and np.array_equal(lists.indptr, want_lists.indptr)


def test_a_float64_tensor_is_rounded_to_float32_once_and_a_tensor_that_requires_a_gradient_is_read():
    U = torch.randn(10, 4, dtype=torch.float64, requires_grad=True)
    V = torch.randn(25, 4, dtype=torch.float64)
    want = rm.factor_scores(U.detach().numpy().astype(np.float32), V.numpy().astype(np.float32))
    assert np.array_equal(rm.factor_scores(U, V), want)
    W = torch.randn(25, 4, requires_grad=True)  # float32: read in place once detached
    assert np.shares_memory(check_factors(W, W)[0], W.detach().numpy())
