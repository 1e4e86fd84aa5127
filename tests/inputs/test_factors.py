"""Scores from factors (rankmeter.factor_scores) and top-k lists from them (Recs.from_factors), docs/model.md.

The score of (u, i) is the float32 FMA chain over the dimensions in order; every kernel path and every tile shape
gives its bits, and Recs.from_factors gives the lists of Recs.from_scores on the materialised matrix, for any
block size and thread count.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter as rm
from rankmeter import _core


def _round32(q: Fraction) -> np.float32:
    """q rounded to the nearest float32, ties to even (exactly: the candidates compared as fractions)."""
    c = np.float32(float(q))
    cands = [c, np.nextafter(c, np.float32(np.inf)), np.nextafter(c, np.float32(-np.inf))]
    best = min(cands, key=lambda v: (abs(Fraction(float(v)) - q), int(np.array(v).view(np.uint32)) & 1))
    return np.float32(best)


def _fma_chain(u: np.ndarray, v: np.ndarray) -> np.float32:
    s = np.float32(0)
    for a, b in zip(u, v):
        s = _round32(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(s)))
    return s


def _same_recs(a: rm.Recs, b: rm.Recs) -> None:
    assert np.array_equal(a.indptr, b.indptr)
    assert np.array_equal(a.items, b.items)
    assert np.array_equal(np.asarray(a.scores).view(np.uint64), np.asarray(b.scores).view(np.uint64))


@pytest.mark.parametrize("path", ["0", "avx2", "avx512", "default"])
def test_each_score_is_the_float32_fma_chain_on_every_kernel_path(rng, monkeypatch, path):
    if path != "default":
        monkeypatch.setenv("RANKMETER_SIMD", path)
    U = (rng.standard_normal((7, 9)) * 3).astype(np.float32)
    V = (rng.standard_normal((37, 9)) * 3).astype(np.float32)
    S = rm.factor_scores(U, V)
    want = np.array([[_fma_chain(U[u], V[i]) for i in range(37)] for u in range(7)], dtype=np.float32)
    assert S.dtype == np.float32
    assert np.array_equal(S.view(np.uint32), want.view(np.uint32))


def test_kernel_paths_give_the_same_bits(rng, monkeypatch):
    U = rng.standard_normal((53, 64)).astype(np.float32)
    V = rng.standard_normal((301, 64)).astype(np.float32)
    got = {}
    for path in ("0", "avx2", "avx512", None):
        if path is None:
            monkeypatch.delenv("RANKMETER_SIMD", raising=False)
        else:
            monkeypatch.setenv("RANKMETER_SIMD", path)
        got[path] = rm.factor_scores(U, V).view(np.uint32)
    assert all(np.array_equal(got["0"], g) for g in got.values())


def test_scores_do_not_depend_on_the_tile(rng):
    U = rng.standard_normal((41, 13)).astype(np.float32)
    V = rng.standard_normal((90, 13)).astype(np.float32)
    S = rm.factor_scores(U, V)
    for a, b in [(0, 1), (3, 4), (5, 17), (17, 41)]:
        assert np.array_equal(rm.factor_scores(U[a:b], V), S[a:b])
        assert np.array_equal(rm.factor_scores(U, V[a:b]), S[:, a:b])
    assert np.array_equal(rm.factor_scores(U, V, threads=3), S)


def test_float64_factors_are_rounded_to_float32_once(rng):
    U = rng.standard_normal((5, 4))
    V = rng.standard_normal((9, 4))
    S = rm.factor_scores(U, V)
    assert np.array_equal(S, rm.factor_scores(U.astype(np.float32), V.astype(np.float32)))
    _same_recs(rm.Recs.from_factors(U, V, 3), rm.Recs.from_scores(S, 3))


def test_cosine_scales_rows_to_unit_length_and_a_zero_row_scores_zero():
    U = np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float32)
    V = np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]], dtype=np.float32)
    S = rm.factor_scores(U, V, score="cosine")
    assert np.array_equal(S, np.array([[0.6, 0.8, 0.0], [0.0, 0.0, 0.0]], dtype=np.float32))
    recs = rm.Recs.from_factors(U, V, 2, score="cosine")
    assert recs.items.tolist() == [1, 0, 0, 1]  # the zero user: every score ties at 0, column order


@st.composite
def _problem(draw):
    n = draw(st.integers(1, 9))
    m = draw(st.integers(1, 40))
    d = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    r = np.random.default_rng(seed)
    if draw(st.booleans()):  # small integers: many tied scores
        U = r.integers(-2, 3, (n, d)).astype(np.float32)
        V = r.integers(-2, 3, (m, d)).astype(np.float32)
    else:
        U = r.standard_normal((n, d)).astype(np.float32)
        V = r.standard_normal((m, d)).astype(np.float32)
    mask = r.random((n, m)) < draw(st.sampled_from([0.0, 0.2, 0.6]))
    if n > 1 and draw(st.booleans()):
        mask[0] = True  # a user with every item excluded
    ex = sp.csr_matrix(mask.astype(np.float32))
    k = draw(st.integers(1, m + 2))
    block = draw(st.one_of(st.integers(1, n + 1), st.tuples(st.integers(1, n + 1), st.integers(1, m + 17))))
    threads = draw(st.sampled_from([1, 2, 3]))
    score = draw(st.sampled_from(["dot", "cosine"]))
    return U, V, ex, k, block, threads, score


@given(_problem())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_from_factors_gives_the_lists_of_from_scores_on_the_materialised_matrix(problem):
    U, V, ex, k, block, threads, score = problem
    want = rm.Recs.from_scores(rm.factor_scores(U, V, score=score), k, exclude=ex)
    got = rm.Recs.from_factors(U, V, k, exclude=ex, score=score, block=block, threads=threads)
    _same_recs(got, want)


def test_from_factors_names_users_and_items_and_takes_a_csr_pair(rng):
    U = rng.standard_normal((3, 4)).astype(np.float32)
    V = rng.standard_normal((6, 4)).astype(np.float32)
    ex = (np.array([0, 2, 2, 3]), np.array([5, 0, 1]))
    items = np.array([10, 11, 12, 13, 14, 15])
    got = rm.Recs.from_factors(U, V, 4, exclude=ex, user_ids=["a", "b", "c"], item_ids=items)
    want = rm.Recs.from_scores(rm.factor_scores(U, V), 4, items=items, exclude=ex, users=["a", "b", "c"])
    _same_recs(got, want)
    assert list(got.users) == ["a", "b", "c"]


def test_the_tile_kernel_path_is_reported():
    assert _core.factor_tile_path() in (0, 1, 2, 3)


@pytest.mark.parametrize(
    "U, V, err, words",
    [
        (np.array([[1.0, np.nan]], np.float32), np.ones((2, 2), np.float32), ValueError, ["`user_vectors`", "row 0"]),
        (np.ones((1, 2), np.float32), np.array([[1.0, 1.0], [np.inf, 0]]), ValueError, ["`item_vectors`", "row 1"]),
        (np.ones((1, 2)), np.array([[1e39, 0.0]]), ValueError, ["`item_vectors`", "overflows float32"]),
        (np.ones(3, np.float32), np.ones((2, 3), np.float32), ValueError, ["`user_vectors`", "2-D"]),
        (np.ones((2, 3), np.float32), np.ones((2, 4), np.float32), ValueError, ["3 dimensions", "4"]),
        (np.ones((2, 0), np.float32), np.ones((2, 0), np.float32), ValueError, ["no dimension"]),
        (np.ones((2, 3), complex), np.ones((2, 3), np.float32), TypeError, ["`user_vectors`", "real numbers"]),
        (np.ones((2, 3), np.float32), np.array([["a"]]), TypeError, ["`item_vectors`"]),
    ],
)
def test_bad_factors_name_the_argument_and_the_fix(U, V, err, words):
    with pytest.raises(err) as e:
        rm.factor_scores(U, V)
    for w in words:
        assert w in str(e.value)
    with pytest.raises(err):
        rm.Recs.from_factors(U, V, 2)


def test_a_product_that_overflows_names_the_user_and_the_item():
    U = np.array([[1.0], [1e30]], dtype=np.float32)
    V = np.array([[1.0], [1e30]], dtype=np.float32)
    with pytest.raises(ValueError, match="user 1 and item column 1 is not finite"):
        rm.Recs.from_factors(U, V, 1)


def test_bad_options_are_named(rng):
    U = rng.standard_normal((2, 3)).astype(np.float32)
    with pytest.raises(ValueError, match="`score`"):
        rm.factor_scores(U, U, score="euclid")
    with pytest.raises(ValueError, match="`block`"):
        rm.Recs.from_factors(U, U, 1, block=0)
    with pytest.raises(ValueError, match="`exclude` has shape"):
        rm.Recs.from_factors(U, U, 1, exclude=sp.csr_matrix((3, 2)))
    with pytest.raises(ValueError, match="`item_ids` has 1 ids"):
        rm.Recs.from_factors(U, U, 1, item_ids=[5])
    with pytest.raises(TypeError, match="`k`"):
        rm.Recs.from_factors(U, U, None)  # type: ignore[arg-type]


class _DLPackOnly:
    """An array of another library, seen only through the DLPack protocol."""

    def __init__(self, a: np.ndarray):
        self._a = a

    def __dlpack__(self, **kw):
        return self._a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_factors_are_read_through_dlpack(rng):
    U = rng.standard_normal((4, 3)).astype(np.float32)
    V = rng.standard_normal((9, 3)).astype(np.float32)
    assert np.array_equal(rm.factor_scores(_DLPackOnly(U), _DLPackOnly(V)), rm.factor_scores(U, V))


class _OnDevice:
    """A tensor on a GPU as DLPack shows it: device type 2 (CUDA), not readable in place, copied by ``.cpu()``."""

    def __init__(self, a: np.ndarray):
        self._a = a
        self.copies = 0

    def __dlpack__(self, **kw):
        raise BufferError("the tensor is on a CUDA device")

    def __dlpack_device__(self):
        return (2, 0)

    def cpu(self):
        self.copies += 1
        return _DLPackOnly(self._a)


def test_a_gpu_tensor_is_copied_to_the_host_once_and_gives_the_numpy_results(rng):
    U = rng.standard_normal((30, 8)).astype(np.float32)
    V = rng.standard_normal((50, 8)).astype(np.float32)
    truth = {u: {int(i): 1 for i in rng.choice(50, 3, replace=False)} for u in range(30)}
    gu, gv = _OnDevice(U), _OnDevice(V)
    got = rm.evaluate_model(truth, gu, gv, ["ndcg@5", "auc"])
    want = rm.evaluate_model(truth, U, V, ["ndcg@5", "auc"])
    assert (gu.copies, gv.copies) == (1, 1)
    for m in ("ndcg@5", "auc"):
        assert np.array_equal(got.per_user[m], want.per_user[m], equal_nan=True)


class _Stuck:
    """A device tensor with no way to the host."""

    def __dlpack__(self, **kw):
        raise BufferError("on the device")

    def __dlpack_device__(self):
        return (2, 0)


def test_a_device_tensor_without_a_host_copy_is_a_type_error_naming_the_argument():
    with pytest.raises(TypeError, match=r"`item_vectors`.*copy it to the host"):
        rm.factor_scores(np.ones((2, 2), np.float32), _Stuck())
