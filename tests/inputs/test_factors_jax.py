"""evaluate_model reads JAX CPU arrays through DLPack without a copy and gives the numpy results (docs/model.md,
"Inputs"). JAX is optional: without it these tests skip; `.ci/run` installs it so that they run there."""

from __future__ import annotations

import os

import numpy as np
import pytest

import rankmeter as rm
from rankmeter.inputs._factors import check_factors

if os.environ.get("CI") == "true":
    import jax  # CI installs it: a missing JAX is a failure there
else:
    jax = pytest.importorskip("jax", reason="JAX is not installed (optional; .ci/run installs it)")


def test_a_float32_cpu_array_is_read_in_place():
    U = jax.numpy.asarray(np.random.default_rng(0).standard_normal((20, 6)), dtype=jax.numpy.float32)
    V = jax.numpy.asarray(np.random.default_rng(1).standard_normal((40, 6)), dtype=jax.numpy.float32)
    u, v = check_factors(U, V)
    assert u.ctypes.data == U.unsafe_buffer_pointer() and v.ctypes.data == V.unsafe_buffer_pointer()


def test_jax_arrays_give_the_numpy_lists_ranks_and_values():
    rng = np.random.default_rng(2)
    Un = rng.standard_normal((50, 8)).astype(np.float32)
    Vn = rng.standard_normal((200, 8)).astype(np.float32)
    truth = {u: {int(i): 1 for i in rng.choice(200, 4, replace=False)} for u in range(50)}
    metrics = ["ndcg@10", "auc", "mrr"]
    got, ranks = rm.evaluate_model(truth, jax.numpy.asarray(Un), jax.numpy.asarray(Vn), metrics, ranks=True)
    want, want_ranks = rm.evaluate_model(truth, Un, Vn, metrics, ranks=True)
    assert np.array_equal(ranks, want_ranks)
    for m in metrics:
        assert np.array_equal(got.per_user[m], want.per_user[m], equal_nan=True), m
