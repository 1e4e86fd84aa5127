"""User and item factors (embeddings) as checked float32 buffers, and the blocked pass over them (docs/model.md).

The score of user u and item i is one float32 fused multiply-add chain over the dimensions in order,
``s = 0; s = fma(U[u, d], V[i, d], s) for d = 0 .. D-1`` (``cpp/include/rankmeter/model.hpp``): every kernel path
and every tile shape gives the same bits, so the lists and ranks of the blocked pass are those of
``Recs.from_scores`` on :func:`factor_scores`' matrix. Nothing here knows a metric.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import _core
from .._options import resolve_threads
from .._status import is_ok
from ._arrays import as_int64_1d, check_indptr

__all__ = ["check_factors", "exclusion_csr", "factor_scores", "factor_pass", "check_block", "SCORES"]

SCORES = ("dot", "cosine")
DEFAULT_BLOCK = (192, 1024)  # users x items per tile: 768 KiB of float32 scores (docs/model.md)


_HOST_DEVICES = (1, 3, 11)  # DLPack device types numpy reads in place: CPU, CUDA host, ROCm host memory


def _to_host(x: Any, what: str) -> Any:
    """A tensor of another library on a device (a GPU) copied to host memory once: torch's ``.cpu()``, cupy's
    ``.get()``, else numpy's ``__array__`` (JAX); a CPU tensor is returned as it is (read in place), a torch tensor
    that requires a gradient detached first (the same storage)."""
    if getattr(x, "requires_grad", False) and callable(getattr(x, "detach", None)):
        x = x.detach()  # torch exports no tensor that requires a gradient; detach() shares its storage
    try:
        device = int(x.__dlpack_device__()[0])
    except (AttributeError, TypeError, ValueError, IndexError):
        return x
    if device in _HOST_DEVICES:
        return x
    for name in ("cpu", "get"):
        f = getattr(x, name, None)
        if callable(f):
            return f()
    if hasattr(x, "__array__"):
        return np.asarray(x)
    raise TypeError(
        f"`{what}` lives on DLPack device type {device}, which has no host copy method (.cpu(), .get(), "
        "__array__): copy it to the host, e.g. as a numpy array"
    )


def _factor_array(x: Any, what: str) -> np.ndarray:
    """One factor matrix as float32, C order, 2-D, finite; the error names the argument and the fix."""
    if hasattr(x, "__dlpack__") and not isinstance(x, np.ndarray):
        x = _to_host(x, what)
        try:
            x = np.from_dlpack(x)
        except (TypeError, RuntimeError, BufferError) as e:
            raise TypeError(f"`{what}` could not be read through DLPack ({e}): pass a numpy array") from None
    a = np.asarray(x)
    if a.dtype.kind not in "fiu" or a.dtype.kind == "b" or a.dtype == object:
        raise TypeError(f"`{what}` must hold real numbers (float32 preferred), got dtype {a.dtype}")
    if a.ndim != 2:
        raise ValueError(f"`{what}` must be 2-D (rows x dimensions), got shape {a.shape}; reshape it to (n, dim)")
    if a.shape[1] == 0:
        raise ValueError(f"`{what}` has no dimension (shape {a.shape}): factors need at least one column")
    with np.errstate(over="ignore", invalid="ignore"):  # a value beyond float32 is named below
        f = np.ascontiguousarray(a, dtype=np.float32)
    if f.dtype.byteorder not in ("=", "|"):
        f = f.astype(f.dtype.newbyteorder("="))
    if f.size and not np.isfinite(f).all():
        row, col = (int(v[0]) for v in np.nonzero(~np.isfinite(f)))
        src = a[row, col]
        how = "is not finite" if not np.isfinite(src) else "overflows float32"
        raise ValueError(
            f"`{what}` row {row}, dimension {col} {how} ({src!r}): factors must be finite float32 values; "
            "drop or repair that row"
        )
    return f


def _unit_rows(f: np.ndarray) -> np.ndarray:
    """Cosine: each row divided by its Euclidean norm, computed in float64 from the float32 values and rounded
    once to float32; a zero row stays zero (its cosine with every item is 0)."""
    x = f.astype(np.float64)
    norm = np.sqrt(np.einsum("ij,ij->i", x, x))
    np.divide(x, norm[:, None], out=x, where=norm[:, None] > 0)
    return np.ascontiguousarray(x, dtype=np.float32)


def check_factors(user_vectors: Any, item_vectors: Any, score: str = "dot") -> tuple[np.ndarray, np.ndarray]:
    """``(U, V)`` as the kernels read them: float32 (float64 and integers are rounded to float32 once), C order,
    finite, the same number of dimensions; unit rows for ``score="cosine"``."""
    if score not in SCORES:
        raise ValueError(f"`score` must be one of {SCORES}, got {score!r}")
    U = _factor_array(user_vectors, "user_vectors")
    V = _factor_array(item_vectors, "item_vectors")
    if U.shape[1] != V.shape[1]:
        raise ValueError(
            f"`user_vectors` has {U.shape[1]} dimensions but `item_vectors` has {V.shape[1]}: "
            "both must come from the same model"
        )
    if score == "cosine":
        U, V = _unit_rows(U), _unit_rows(V)
    return U, V


def check_block(block: Any) -> tuple[int, int]:
    """``block=``: users per tile, or (users, items) per tile; None for the default."""
    if block is None:
        return DEFAULT_BLOCK
    pair = block if isinstance(block, tuple) else (block, DEFAULT_BLOCK[1])
    if len(pair) != 2 or any(isinstance(b, bool) or not isinstance(b, (int, np.integer)) or b < 1 for b in pair):
        raise ValueError(f"`block` must be a positive int (users per tile) or a pair (users, items), got {block!r}")
    return int(pair[0]), int(pair[1])


def exclusion_csr(exclude: Any, shape: tuple[int, int], what: str) -> tuple[Optional[np.ndarray], Optional[np.ndarray]]:
    """``exclude=`` (a scipy.sparse matrix of ``shape``, or a CSR pair ``(indptr, item_columns)``) as int64
    ``(indptr, columns)``; ``(None, None)`` for None. ``what`` names the matrix it masks."""
    n_users, n_items = shape
    if exclude is None:
        return None, None
    if hasattr(exclude, "tocsr"):
        ex = exclude.tocsr()
        if ex.shape != tuple(shape):
            raise ValueError(f"`exclude` has shape {ex.shape} but `{what}` has shape {tuple(shape)}")
        return np.ascontiguousarray(ex.indptr, dtype=np.int64), np.ascontiguousarray(ex.indices, dtype=np.int64)
    if isinstance(exclude, tuple) and len(exclude) == 2:
        ex_indptr = as_int64_1d(exclude[0], "exclude indptr")
        ex_cols = as_int64_1d(exclude[1], "exclude item columns")
        check_indptr(ex_indptr, ex_cols.size, "exclude")
        if ex_indptr.size != n_users + 1:
            raise ValueError(f"`exclude` has {ex_indptr.size - 1} users but `{what}` has {n_users}")
        if ex_cols.size and (ex_cols.min() < 0 or ex_cols.max() >= n_items):
            raise ValueError(f"`exclude` item columns must be in [0, {n_items})")
        return ex_indptr, ex_cols
    raise TypeError("`exclude` must be a scipy.sparse matrix or a pair (indptr, item_columns)")


def factor_scores(
    user_vectors: Any, item_vectors: Any, *, score: str = "dot", threads: Optional[int] = None
) -> np.ndarray:
    """The ``n_users x n_items`` float32 score matrix of user and item factors, materialised.

    Score of (u, i): ``s = 0; s = fma(U[u, d], V[i, d], s)`` for d = 0 .. D-1 in float32 (one rounding per
    step), with ``score="cosine"`` on rows scaled to unit length (in float64, rounded once to float32; a zero
    row stays zero). This is the matrix :func:`rankmeter.evaluate_model` and ``Recs.from_factors`` rank tile by
    tile without storing it: ``Recs.from_scores(factor_scores(U, V), k)`` gives the same lists bit for bit.
    It may differ in the last bits from ``U @ V.T`` (BLAS sums in an order of its own). docs/model.md.
    """
    U, V = check_factors(user_vectors, item_vectors, score)
    return _core.factor_scores(U, V, resolve_threads(threads))


def factor_pass(
    U: np.ndarray,
    V: np.ndarray,
    k: int,
    ex: tuple[Optional[np.ndarray], Optional[np.ndarray]],
    t_indptr: np.ndarray,
    t_cols: np.ndarray,
    t_rel: np.ndarray,
    block: tuple[int, int],
    threads: int,
    row_ids: Optional[np.ndarray],
    ties: Any = None,
) -> tuple:
    """The kernel call: ``(cols, scores, lens, ranks, (rel, pos, neg, num2, auc))``, a tied (positive, negative)
    pair counted as ``ties`` (a ``_core.AucTies``; default half) says; a score that overflows to infinity is a
    ValueError naming the user (its id when ``row_ids`` is given) and the item column."""
    rule = _core.AucTies.half if ties is None else ties
    cols, sc, lens, ranks, aucs, status = _core.factor_pass(
        U, V, int(min(k, 2**62)), ex[0], ex[1], t_indptr, t_cols, t_rel, block[0], block[1], rule, threads
    )
    code, br, bc = status
    if not is_ok(code):
        user = row_ids[br] if row_ids is not None else br
        user = user.item() if isinstance(user, np.generic) else user
        raise ValueError(
            f"the score of user {user!r} and item column {int(bc)} is not finite: the product of `user_vectors` "
            "and `item_vectors` overflows float32; scale the factors down"
        )
    return cols, sc, lens, ranks, aucs
