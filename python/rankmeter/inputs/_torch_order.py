"""torchmetrics' order of equal scores: ``ties="torch"``, ``"torch_topk"`` and ``"torch_average"``.

torchmetrics' retrieval metrics (torchmetrics 1.x, ``retrieval/base.py`` and
``functional/retrieval/*.py``) read the predictions as float32 (``preds.float()``), group the
rows by query with ``torch.sort(indexes)`` and rank each query's documents with
``torch.argsort(preds, descending=True)`` (recall, hit rate, R-precision, fall-out) or
``preds.topk(min(k, n))`` (precision, MAP, MRR, AUROC). On CPU these are the C++ standard
library's unstable algorithms, so equal scores come out in the order those algorithms leave
them (restated in C++, ``rankmeter/torch_order.hpp``; docs/metrics.md 6.3):

- the rows of all queries, in the order given, are sorted by query index: ``std::sort`` below
  32768 rows, a stable radix sort from 32768 rows on; each query's rows enter the ranking in
  the order that sort leaves them;
- ``"torch"``: ``torch.argsort(descending=True)`` (``std::sort``);
- ``"torch_topk"``: ``topk(min(k, n))`` at the metric's cutoff k (``std::nth_element`` then
  ``std::sort`` of the first k - 1, or ``std::partial_sort`` when 64 k <= n);
- ``"torch_average"``: scikit-learn's tie-averaged DCG (``ties="average"``) with the scores
  compared as float32 (torchmetrics' NDCG).

Scores equal as float32 are equal: every rule here ranks, and tests ``score > 0``, on the
scores rounded to float32. The query index of a list is its user id when the ids are
integers, else its position (the order of first appearance), as a port of torchmetrics code
numbers its queries.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from .. import _core
from .._options import resolve_threads
from ._align import score_order
from ._containers import Recs

__all__ = ["TORCH_TIES", "RADIX_MIN", "float32_scores", "torch_layout", "torch_order"]

TORCH_TIES = ("torch", "torch_topk", "torch_average")
# torch.sort of an int64 tensor of at least this many entries (and at most 2**31 - 1) is fbgemm's
# stable radix sort; below it, std::sort
RADIX_MIN = 32768
_RADIX_MAX = 2**31 - 1


def float32_scores(scores: np.ndarray) -> np.ndarray:
    """The scores rounded to float32 (torchmetrics' ``preds.float()``), as float64; beyond float32's
    range they become +-inf, as in torch."""
    with np.errstate(over="ignore"):
        return scores.astype(np.float32).astype(np.float64)


def torch_layout(recs: Recs) -> Optional[np.ndarray]:
    """Every list's rows (global CSR positions, list by list) in the order ``torch.sort(indexes)``
    leaves them when the lists are the rows of one tensor, list after list in the order given;
    None when that order is the given one (a stable sort: at most 16 rows, or a radix sort)."""
    indptr = recs.indptr
    assert indptr is not None  # lists ranked by score are CSR
    n = int(indptr[-1]) if indptr.size else 0
    if n <= 16 or RADIX_MIN <= n <= _RADIX_MAX:
        return None
    lens = np.diff(indptr)
    users = recs.users
    n_lists = lens.size
    if users is not None and users.dtype.kind in "iu":
        keys = np.ascontiguousarray(users, dtype=np.int64)
    else:
        keys = np.arange(n_lists, dtype=np.int64)
    perm = _core.stl_sort_int64(np.repeat(keys, lens))
    list_of = np.repeat(np.arange(n_lists, dtype=np.int64), lens)
    return perm[np.argsort(list_of[perm], kind="stable")]


def torch_order(
    recs: Recs, scores32: np.ndarray, ties: str, k: Optional[int], threads: Optional[int] = None
) -> np.ndarray:
    """The permutation ranking every list by its float32 scores as torch does under ``ties`` (k: the
    cutoff of ``"torch_topk"``, None: the list's length). ``"torch_average"`` keeps equal scores in
    input order (its tie groups are averaged afterwards)."""
    indptr = recs.indptr
    assert indptr is not None
    t = resolve_threads(threads)
    if ties == "torch_average":
        return score_order(indptr, scores32, None)
    layout = torch_layout(recs)
    keys = scores32 if layout is None else np.ascontiguousarray(scores32[layout])
    kk = -1 if ties == "torch" else (0 if k is None else int(min(k, 2**62)))
    order = _core.order_torch(indptr, keys, kk, t)
    return order if layout is None else layout[order]
