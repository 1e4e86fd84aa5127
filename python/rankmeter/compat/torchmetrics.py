"""torchmetrics' retrieval metrics (``torchmetrics.retrieval``, ``torchmetrics.functional.retrieval``) on
rankmeter's fused pass.

Before::

    from torchmetrics.retrieval import RetrievalMAP, RetrievalNormalizedDCG
    from torchmetrics.functional.retrieval import retrieval_reciprocal_rank

After::

    from rankmeter.compat.torchmetrics import RetrievalMAP, RetrievalNormalizedDCG
    from rankmeter.compat.torchmetrics import retrieval_reciprocal_rank

    m = RetrievalMAP(top_k=10)
    for preds, target, indexes in batches:
        m.update(preds, target, indexes)  # accumulates
    value = m.compute()  # one batched rankmeter.evaluate(..., preset="torchmetrics") over every query
    m.reset()

The classes keep torchmetrics 1.9's life cycle (``update(preds, target, indexes)``, ``compute()``,
``reset()``), its constructor keywords (``top_k``, ``empty_target_action`` 'neg'/'pos'/'skip'/'error',
``ignore_index``, ``aggregation`` 'mean'/'median'/'min'/'max' or a callable ``f(values, dim=None)`` (given the
per-query values as a float32 tensor, or a float32 numpy array when the inputs were arrays),
``adaptive_k`` for ``RetrievalPrecision``, ``max_fpr`` for ``RetrievalAUROC``), its checks (same exception
types and messages) and its numbers (docs/metrics.md, "Migrating from torchmetrics"): the rows of every
``update`` are grouped by query as torchmetrics' ``compute`` groups them (``torch.sort(indexes)``, whose
order of the rows of one query decides the order of equal scores), and the values come from one
``rankmeter.evaluate(..., preset="torchmetrics")`` call over all queries (RetrievalFallOut and RetrievalAUROC:
one vectorised pass over the rows ranked by the preset's tie rules, as rankmeter has no metric for them).
The functional ``retrieval_*`` forms take one query each, as torchmetrics' do, and compute it in numpy on the
order of the preset's C++ reproduction of torch's sorts (a call of the batched pass costs more than one query's
work), so a loop that calls them once per query is not slower than torchmetrics' own.

Inputs: torch tensors or numpy arrays (torch is optional, imported only when a tensor is given). A CPU
tensor is read in place (``Tensor.numpy()``, no copy); a CUDA (or other device) tensor is moved to the CPU
once, in ``update``. ``compute()`` returns a float32 0-d ``torch.Tensor`` (torchmetrics' dtype) when the
inputs were tensors, else a ``numpy.float32``. ``update`` keeps references to the arrays it is given (as
torchmetrics keeps the tensors): do not change them in place before ``compute()``.

Not provided (torchmetrics 1.9 has them):

* ``RetrievalPrecisionRecallCurve`` and ``RetrievalRecallAtFixedPrecision``: they rank each query once by
  ``topk(max_k)`` and read every cutoff j of the curve from that one order, without the ``preds > 0``
  filter; rankmeter's precision@j/recall@j rank each cutoff by its own ``topk(j)``, so with equal scores
  across a position j the curve may differ (``rankmeter.presets.describe("torchmetrics")``, not reproduced).

Refused with a ``ValueError`` (they would give numbers other than torchmetrics', see ``unmatched``):
fractional targets strictly between 0 and 1 for the binary metrics, negative targets for
``RetrievalNormalizedDCG``, and ``max_fpr <= 0`` for ``RetrievalAUROC``.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import numpy as np

__all__ = [
    "RetrievalAUROC",
    "RetrievalFallOut",
    "RetrievalHitRate",
    "RetrievalMAP",
    "RetrievalMRR",
    "RetrievalMetric",
    "RetrievalNormalizedDCG",
    "RetrievalPrecision",
    "RetrievalRPrecision",
    "RetrievalRecall",
    "retrieval_auroc",
    "retrieval_average_precision",
    "retrieval_fall_out",
    "retrieval_hit_rate",
    "retrieval_normalized_dcg",
    "retrieval_precision",
    "retrieval_r_precision",
    "retrieval_recall",
    "retrieval_reciprocal_rank",
    "unmatched",
]

# what this module does not reproduce, each with its reason (docs/metrics.md, "Migrating from torchmetrics")
unmatched = (
    "torchmetrics computes in float32: values agree to float32's precision (relative ~1e-6), not bit for bit",
    "equal scores are ordered as torch's CPU sorts order them on Linux builds (GNU libstdc++); torch built on "
    "another C++ standard library (macOS, Windows) orders equal scores its own way",
    "targets strictly between 0 and 1 for the binary metrics are a ValueError: torchmetrics adds the fractions "
    "up as partial hits, rankmeter counts a target > 0 as one relevant document",
    "negative targets for RetrievalNormalizedDCG are a ValueError: torchmetrics adds them as negative gains, "
    "rankmeter's gains are max(grade, 0)",
    "RetrievalAUROC with max_fpr <= 0 is a ValueError (torchmetrics divides 0 by 0 or indexes out of range)",
    "RetrievalPrecisionRecallCurve / RetrievalRecallAtFixedPrecision are not provided: their one topk(max_k) "
    "order of equal scores is not the order of precision@j at each j",
)

_ACTIONS = ("error", "skip", "neg", "pos")
_AGGREGATIONS = ("mean", "median", "min", "max")


# --------------------------------------------------------------------------- inputs
def _torch_tensor(x: Any) -> bool:
    import sys

    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def _to_numpy(x: Any, name: str) -> np.ndarray:
    """A CPU tensor read in place, another device's tensor moved to the CPU once, an array as it is."""
    if _torch_tensor(x):
        if x.requires_grad:
            x = x.detach()
        if x.device.type != "cpu":
            x = x.cpu()
        if str(x.dtype) == "torch.bfloat16":  # no numpy dtype: as float32 (torchmetrics reads preds.float())
            return x.float().numpy()
        return x.numpy()
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, (list, tuple)):
        return np.asarray(x)
    raise TypeError(f"`{name}` must be a torch.Tensor or a numpy array, got {type(x).__name__}")


def _check_types(preds: np.ndarray, target: np.ndarray, binary: bool) -> tuple[np.ndarray, np.ndarray]:
    """torchmetrics' ``_check_retrieval_target_and_prediction_types``: flattened float32 preds and targets."""
    # torch.bool, torch.long, torch.int or a floating dtype (torch.uint8, int8 and int16 are refused)
    if not (target.dtype.kind in "bf" or target.dtype in (np.int32, np.int64)):
        raise ValueError("`target` must be a tensor of booleans, integers or floats")
    if preds.dtype.kind != "f":
        raise ValueError("`preds` must be a tensor of floats")
    t = target.reshape(-1)
    if binary and t.size and (t.max() > 1 or t.min() < 0):
        raise ValueError("`target` must contain `binary` values")
    if t.dtype.kind == "f":
        if binary and np.any((t > 0) & (t < 1)):
            raise ValueError(
                "`target` holds values strictly between 0 and 1: torchmetrics adds them up as partial hits, "
                "rankmeter.compat.torchmetrics counts a target > 0 as relevant; pass 0/1 targets "
                "(e.g. `target > 0.5`)"
            )
        t = t.astype(np.float32, copy=False)
    else:
        t = t.astype(np.int64, copy=False)
    with np.errstate(over="ignore"):
        p = preds.reshape(-1).astype(np.float32, copy=False)
    return p, t


def _check_top_k(top_k: Any) -> None:
    if top_k is not None and not (isinstance(top_k, int) and top_k > 0):
        raise ValueError("`top_k` has to be a positive integer or None")


# --------------------------------------------------------------------------- grouping
class _Grouped:
    """The rows grouped by query as torchmetrics' ``compute`` groups them: ``rows`` (positions in the
    concatenated inputs) in the order ``torch.sort(indexes)`` leaves them, ``indptr`` the queries' bounds,
    ``queries`` the sorted distinct indexes."""

    def __init__(self, indexes: np.ndarray, sort: bool = True) -> None:
        from .. import _core
        from ..inputs._torch_order import RADIX_MIN

        n = indexes.size
        idx = np.ascontiguousarray(indexes, dtype=np.int64)
        if not sort:  # one query's rows as given (the functional forms: no grouping sort)
            self.rows = np.arange(n, dtype=np.int64)
        elif n < RADIX_MIN:  # torch.sort of an int64 tensor: std::sort below RADIX_MIN rows
            self.rows = _core.stl_sort_int64(idx)
        else:  # and a stable radix sort from there: a stable counting sort gives the same order
            self.rows = _stable_group(idx)
        keys = idx[self.rows]
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if n else np.zeros(0, np.int64)
        self.queries = keys[starts]
        self.indptr = np.r_[starts, n].astype(np.int64)


def _stable_group(idx: np.ndarray) -> np.ndarray:
    """The rows in the order of a stable sort of ``idx``: rankmeter's counting sort (``_core.group_rows``) when
    the indexes span a range of at most 4 rows per value, else numpy's stable argsort."""
    from .. import _core

    lo, hi = int(idx.min()), int(idx.max())
    if hi - lo >= 4 * idx.size:
        return np.argsort(idx, kind="stable")
    codes = idx - lo if lo else idx
    _indptr, order, _bad = _core.group_rows(np.ascontiguousarray(codes, dtype=np.int64), hi - lo + 1, None)
    return order


def _segment_sum(values: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    lens = np.diff(indptr)
    out = np.zeros(lens.size, dtype=np.float64)
    nz = lens > 0
    if values.size:
        out[nz] = np.add.reduceat(values.astype(np.float64, copy=False), indptr[:-1][nz])
    return out


def _rank_in_query(order_pos: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """Position of each ranked row within its query (0 = best), rows given in ranked order."""
    lens = np.diff(indptr)
    return np.arange(order_pos.size, dtype=np.int64) - np.repeat(indptr[:-1], lens)


def _torch_rank(g: _Grouped, scores32: np.ndarray, k: int) -> np.ndarray:
    """The grouped rows' permutation ranking each query as torch does: ``argsort(descending=True)`` (k=-1)
    or ``topk(min(k, n))`` (k=0: the whole list)."""
    from .. import _core
    from .._options import resolve_threads

    return _core.order_torch(g.indptr, np.ascontiguousarray(scores32, dtype=np.float64), k, resolve_threads(None))


# --------------------------------------------------------------------------- per-query values
def _evaluate(g: _Grouped, preds: np.ndarray, target: np.ndarray, name: str) -> np.ndarray:
    """Every query's value of the rankmeter metric ``name`` under preset='torchmetrics', in one call."""
    import rankmeter as rm

    from ..inputs._containers import Recs
    from ..inputs._torch_order import torch_layout

    n = preds.size
    ids = np.arange(n, dtype=np.int64)
    # the preset groups rows that arrive grouped by query through torch.sort again (its layout L): hand it
    # the rows so arranged that this second sort leaves them in the order torch's one sort of the inputs did
    probe = Recs.from_csr(g.indptr, ids, users=g.queries)
    layout = torch_layout(probe)
    if layout is not None:
        p, t = np.empty_like(preds), np.empty_like(target)
        p[layout], t[layout] = preds, target
        preds, target = p, t
    # truth: the rows with a non-zero target only (a 0 target is no relevant document and no gain; a query
    # whose rows are all 0 keeps an empty truth list, so every query stays a user, in the order of g.queries)
    nz = target != 0
    t_indptr = np.zeros(g.indptr.size, dtype=np.int64)
    np.cumsum(np.add.reduceat(nz, g.indptr[:-1], dtype=np.int64), out=t_indptr[1:])
    t_grades = target[nz].astype(np.float32, copy=False)
    truth = rm.Truth.from_csr(t_indptr, ids[nz], grades=t_grades, users=g.queries)
    recs = rm.Recs.from_csr(g.indptr, ids, scores=preds, users=g.queries, by_score=True)
    res = rm.evaluate(truth, recs, [name], preset="torchmetrics")
    return np.asarray(res.per_user[name], dtype=np.float64)


def _fall_out(g: _Grouped, preds: np.ndarray, target: np.ndarray, top_k: Optional[int]) -> np.ndarray:
    """Non-relevant documents among the top k (torch.argsort order) / non-relevant documents, per query."""
    neg = (target == 0).astype(np.float64)
    order = _torch_rank(g, preds, -1)
    pos = _rank_in_query(order, g.indptr)
    k = np.inf if top_k is None else top_k
    hit = _segment_sum(neg[order] * (pos < k), g.indptr)
    total = _segment_sum(neg, g.indptr)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, hit / np.where(total > 0, total, 1), 0.0)


def _auroc(g: _Grouped, preds: np.ndarray, target: np.ndarray, top_k: Optional[int], max_fpr: Any) -> np.ndarray:
    """ROC AUC of each query's top k (``topk(min(k, n))``), as ``binary_auroc`` computes it: scores outside
    [0, 1] through a float32 sigmoid (per query), equal scores one threshold, trapezoids (partial AUC with
    McClish's correction when max_fpr < 1); 0 when the top k lacks a positive or a negative."""
    n_q = g.indptr.size - 1
    s = preds
    t = target > 0
    order = _torch_rank(g, s, 0 if top_k is None else int(top_k))
    pos = _rank_in_query(order, g.indptr)
    lens = np.diff(g.indptr)
    k = lens if top_k is None else np.minimum(lens, top_k)
    sel = order[pos < np.repeat(k, lens)]  # the rows of the top k, query by query
    q = np.repeat(np.arange(n_q), k)
    ss, tt = s[sel], t[sel]
    n_pos = np.bincount(q, weights=tt, minlength=n_q)
    n_neg = k - n_pos
    valid = (n_pos > 0) & (n_neg > 0)
    out = np.zeros(n_q, dtype=np.float64)
    if not valid.any():
        return out
    if max_fpr is not None and max_fpr > 1:
        raise IndexError("index out of range: `max_fpr` > 1 (torchmetrics' partial AUC indexes past the curve)")
    # binary_auroc's input formatting: preds outside [0, 1] go through a sigmoid (float32)
    outside = np.bincount(q, weights=((ss < 0) | (ss > 1)), minlength=n_q) > 0
    if outside.any():
        sig = outside[q]
        with np.errstate(over="ignore"):
            x = ss[sig].astype(np.float32)
            ss = ss.copy()
            ss[sig] = (np.float32(1) / (np.float32(1) + np.exp(-x))).astype(np.float32)
    # ROC points: per query, scores descending, one point per distinct score
    o = np.lexsort((-ss.astype(np.float64), q))
    qs, sv, tv = q[o], ss[o], tt[o].astype(np.float64)
    last = np.r_[(qs[1:] != qs[:-1]) | (sv[1:] != sv[:-1]), True]
    starts = np.r_[0, np.cumsum(k)[:-1]]
    ctp = np.cumsum(tv)
    cfp = np.cumsum(1.0 - tv)
    # the rows stay grouped by query (q is the primary key): per row, the counts before its query
    base = np.repeat(np.r_[0.0, ctp][starts], k)
    basef = np.repeat(np.r_[0.0, cfp][starts], k)
    tps = (ctp - base)[last]
    fps = (cfp - basef)[last]
    qp = qs[last]
    first = np.r_[True, qp[1:] != qp[:-1]]
    ptp = np.r_[0.0, tps[:-1]]
    pfp = np.r_[0.0, fps[:-1]]
    ptp[first] = 0.0
    pfp[first] = 0.0
    P, N = n_pos[qp], n_neg[qp]
    okp = (P > 0) & (N > 0)
    P1, N1 = np.where(okp, P, 1.0), np.where(okp, N, 1.0)
    x0, x1, y0, y1 = pfp / N1, fps / N1, ptp / P1, tps / P1
    m = 1.0 if max_fpr is None or max_fpr == 1 else float(max_fpr)
    if m >= 1.0:
        area = (x1 - x0) * (y1 + y0) / 2.0
    else:
        full = x1 <= m
        cross = (x0 <= m) & (x1 > m)
        with np.errstate(invalid="ignore", divide="ignore"):
            w = np.where(cross, (m - x0) / np.where(cross, x1 - x0, 1.0), 0.0)
        yi = y0 + w * (y1 - y0)
        area = np.where(full, (x1 - x0) * (y1 + y0) / 2.0, np.where(cross, (m - x0) * (y0 + yi) / 2.0, 0.0))
    auc: np.ndarray = np.bincount(qp, weights=area, minlength=n_q)
    if m < 1.0:
        lo = 0.5 * m * m
        auc = 0.5 * (1.0 + (auc - lo) / (m - lo))
    out[valid] = auc[valid]
    return out


# --------------------------------------------------------------------------- aggregation
def _aggregate(values: np.ndarray, aggregation: Any, as_tensor: bool) -> Any:
    if as_tensor:
        import torch

        v = torch.from_numpy(values.astype(np.float32))
        if aggregation == "mean":
            return v.mean()
        if aggregation == "median":
            return v.median()
        if aggregation == "min":
            return v.min()
        if aggregation == "max":
            return v.max()
        return aggregation(v, dim=None)
    v32 = values.astype(np.float32)
    if aggregation == "mean":
        return np.float32(values.mean())
    if aggregation == "median":  # torch's median of an even count: the lower middle value
        return np.float32(np.quantile(v32, 0.5, method="lower"))
    if aggregation == "min":
        return v32.min()
    if aggregation == "max":
        return v32.max()
    return aggregation(v32, dim=None)


def _zero(as_tensor: bool) -> Any:
    if as_tensor:
        import torch

        return torch.tensor(0.0, dtype=torch.float32)
    return np.float32(0.0)


# --------------------------------------------------------------------------- the classes
class RetrievalMetric:
    """torchmetrics' ``RetrievalMetric`` life cycle: ``update`` accumulates rows, ``compute`` evaluates every
    query in one batched pass, ``reset`` forgets the rows."""

    _binary = True
    _empty_is_negative_free = False  # RetrievalFallOut: a query is empty when it has no negative target

    def __init__(
        self,
        empty_target_action: str = "neg",
        ignore_index: Optional[int] = None,
        aggregation: Union[str, Callable] = "mean",
        **kwargs: Any,
    ) -> None:
        if kwargs:
            raise TypeError(
                f"{type(self).__name__}: unexpected keyword argument(s) {sorted(kwargs)} (torchmetrics' Metric "
                "keywords such as dist_sync_on_step have no meaning here): remove them"
            )
        if empty_target_action not in _ACTIONS:
            raise ValueError(f"Argument `empty_target_action` received a wrong value `{empty_target_action}`.")
        self.empty_target_action = empty_target_action
        if ignore_index is not None and not isinstance(ignore_index, int):
            raise ValueError("Argument `ignore_index` must be an integer or None.")
        self.ignore_index = ignore_index
        if not (aggregation in _AGGREGATIONS or callable(aggregation)):
            raise ValueError(
                "Argument `aggregation` must be one of `mean`, `median`, `min`, `max` or a custom callable function"
                f"which takes tensor of values, but got {aggregation}."
            )
        self.aggregation = aggregation
        self.reset()

    def reset(self) -> None:
        """Forget every row given to ``update``."""
        self.indexes: list[np.ndarray] = []
        self.preds: list[np.ndarray] = []
        self.target: list[np.ndarray] = []
        self._tensors = False

    def update(self, preds: Any, target: Any, indexes: Any) -> None:
        """Check the rows as torchmetrics does, drop those whose target is ``ignore_index``, keep the rest."""
        if indexes is None:
            raise ValueError("Argument `indexes` cannot be None")
        tensors = any(_torch_tensor(x) for x in (preds, target, indexes))
        i = _to_numpy(indexes, "indexes")
        p = _to_numpy(preds, "preds")
        t = _to_numpy(target, "target")
        if i.shape != p.shape or p.shape != t.shape:
            raise ValueError("`indexes`, `preds` and `target` must be of the same shape")
        if i.dtype != np.int64:
            raise ValueError("`indexes` must be a tensor of long integers")
        if self.ignore_index is not None:
            keep = t != self.ignore_index
            i, p, t = i[keep], p[keep], t[keep]
        if not i.size or not i.shape:
            raise ValueError("`indexes`, `preds` and `target` must be non-empty and non-scalar tensors")
        p, t = _check_types(p, t, self._binary)
        if not self._binary and np.any(t < 0):
            raise ValueError(
                "`target` holds negative values: torchmetrics adds them to the DCG as negative gains, rankmeter's "
                "gains are max(grade, 0); pass non-negative targets"
            )
        self.indexes.append(i.reshape(-1))
        self.preds.append(p)
        self.target.append(t)
        self._tensors = self._tensors or tensors

    def __call__(self, preds: Any, target: Any, indexes: Any) -> Any:
        """torchmetrics' ``forward``: the value of this batch alone; the rows are also accumulated."""
        one = type(self).__new__(type(self))
        one.__dict__.update(self.__dict__)
        one.reset()
        one.update(preds, target, indexes)
        self.update(preds, target, indexes)
        return one.compute()

    forward = __call__

    def _values(self, g: _Grouped, preds: np.ndarray, target: np.ndarray) -> np.ndarray:  # pragma: no cover
        """Every query's value; ``preds`` and ``target`` are the rows in the grouped order (``g.indptr``)."""
        raise NotImplementedError

    def compute(self) -> Any:
        """The aggregate of every query's value (one batched pass over all queries)."""
        if not self.indexes:
            raise ValueError("No samples to concatenate")
        one = len(self.indexes) == 1
        indexes = self.indexes[0] if one else np.concatenate(self.indexes)
        preds = self.preds[0] if one else np.concatenate(self.preds)
        target = self.target[0] if one else np.concatenate(self.target)
        g = _Grouped(indexes)
        # the rows in the grouped order, what every per-query pass below reads
        p_rows, t_rows = preds[g.rows], target[g.rows]
        starts = g.indptr[:-1]
        if self._empty_is_negative_free:  # (1 - target).sum() == 0: every target is 1
            empty = ~np.logical_or.reduceat(t_rows != 1, starts)
            what = "negative"
        else:  # target.sum() == 0 (targets are >= 0): every target is 0
            empty = ~np.logical_or.reduceat(t_rows != 0, starts)
            what = "positive"
        if self.empty_target_action == "error" and empty.any():
            raise ValueError(f"`compute` method was provided with a query with no {what} target.")
        self._check_compute(g, empty)
        values = self._values(g, p_rows, t_rows) if not empty.all() else np.zeros(empty.size)
        if self.empty_target_action == "skip":
            values = values[~empty]
        else:
            values = np.where(empty, 1.0 if self.empty_target_action == "pos" else 0.0, values)
        if values.size == 0:
            return _zero(self._tensors)
        return _aggregate(values, self.aggregation, self._tensors)

    def _check_compute(self, g: _Grouped, empty: np.ndarray) -> None:
        """Errors torchmetrics raises only once a query reaches the metric (a query that is not empty)."""


def _at(name: str, k: Optional[int]) -> str:
    return name if k is None else f"{name}@{int(k)}"


class RetrievalNormalizedDCG(RetrievalMetric):
    """``torchmetrics.retrieval.RetrievalNormalizedDCG``: tie-averaged nDCG@top_k, linear gains (graded
    non-negative targets)."""

    _binary = False

    def __init__(
        self,
        empty_target_action: str = "neg",
        ignore_index: Optional[int] = None,
        top_k: Optional[int] = None,
        aggregation: Union[str, Callable] = "mean",
        **kwargs: Any,
    ) -> None:
        super().__init__(empty_target_action, ignore_index, aggregation, **kwargs)
        _check_top_k(top_k)
        self.top_k = top_k

    def _values(self, g: _Grouped, preds: np.ndarray, target: np.ndarray) -> np.ndarray:
        return _evaluate(g, preds, target, _at("ndcg", self.top_k))


class _LooseTopK(RetrievalMetric):
    """RetrievalMAP and RetrievalMRR: torchmetrics checks their ``top_k`` loosely (``top_k or n``)."""

    _name = ""

    def __init__(
        self,
        empty_target_action: str = "neg",
        ignore_index: Optional[int] = None,
        top_k: Optional[int] = None,
        aggregation: Union[str, Callable] = "mean",
        **kwargs: Any,
    ) -> None:
        super().__init__(empty_target_action, ignore_index, aggregation, **kwargs)
        if top_k is not None and not isinstance(top_k, int) and top_k <= 0:
            raise ValueError(f"Argument ``top_k`` has to be a positive integer or None, but got {top_k}")
        self.k = top_k

    def _check_compute(self, g: _Grouped, empty: np.ndarray) -> None:
        k = self.k
        if not k or empty.all():
            return
        if isinstance(k, int) and k < 0:
            raise RuntimeError("selected index k out of range")
        # torch's topk(min(k, n)) gets the float k itself when k <= n
        if not isinstance(k, int) and k <= int(np.diff(g.indptr)[~empty].max()):
            raise TypeError(f"topk(): argument 'k' must be int, not {type(k).__name__}")

    def _values(self, g: _Grouped, preds: np.ndarray, target: np.ndarray) -> np.ndarray:
        k = self.k if self.k and isinstance(self.k, int) else None  # top_k or n; a float k >= every n
        return _evaluate(g, preds, target, _at(self._name, k))


class RetrievalMAP(_LooseTopK):
    """``torchmetrics.retrieval.RetrievalMAP``: precision at the hit positions within top_k, averaged over
    the hits (a document with pred <= 0 is no hit)."""

    _name = "ap"


class RetrievalMRR(_LooseTopK):
    """``torchmetrics.retrieval.RetrievalMRR``: 1 / rank of the first hit within top_k (pred > 0)."""

    _name = "rr"


class _TopK(RetrievalMetric):
    _name = ""

    def __init__(
        self,
        empty_target_action: str = "neg",
        ignore_index: Optional[int] = None,
        top_k: Optional[int] = None,
        aggregation: Union[str, Callable] = "mean",
        **kwargs: Any,
    ) -> None:
        super().__init__(empty_target_action, ignore_index, aggregation, **kwargs)
        _check_top_k(top_k)
        self.top_k = top_k

    def _values(self, g: _Grouped, preds: np.ndarray, target: np.ndarray) -> np.ndarray:
        return _evaluate(g, preds, target, _at(self._name, self.top_k))


class RetrievalRecall(_TopK):
    """``torchmetrics.retrieval.RetrievalRecall``: hits (pred > 0) in the top_k / relevant documents."""

    _name = "recall"


class RetrievalHitRate(_TopK):
    """``torchmetrics.retrieval.RetrievalHitRate``: 1 when a relevant document is in the top_k."""

    _name = "hit_rate"


class RetrievalPrecision(RetrievalMetric):
    """``torchmetrics.retrieval.RetrievalPrecision``: hits (pred > 0) in the top_k / top_k
    (/ min(top_k, n) with ``adaptive_k=True``)."""

    def __init__(
        self,
        empty_target_action: str = "neg",
        ignore_index: Optional[int] = None,
        top_k: Optional[int] = None,
        adaptive_k: bool = False,
        aggregation: Union[str, Callable] = "mean",
        **kwargs: Any,
    ) -> None:
        super().__init__(empty_target_action, ignore_index, aggregation, **kwargs)
        _check_top_k(top_k)
        if not isinstance(adaptive_k, bool):
            raise ValueError("`adaptive_k` has to be a boolean")
        self.top_k = top_k
        self.adaptive_k = adaptive_k

    def _values(self, g: _Grouped, preds: np.ndarray, target: np.ndarray) -> np.ndarray:
        name = "precision(short_lists=evidently)" if self.adaptive_k and self.top_k is not None else "precision"
        return _evaluate(g, preds, target, _at(name, self.top_k))


class RetrievalRPrecision(RetrievalMetric):
    """``torchmetrics.retrieval.RetrievalRPrecision``: hits in the top R / R (R = relevant documents)."""

    def _values(self, g: _Grouped, preds: np.ndarray, target: np.ndarray) -> np.ndarray:
        return _evaluate(g, preds, target, "r_precision")


class RetrievalFallOut(_TopK):
    """``torchmetrics.retrieval.RetrievalFallOut``: non-relevant documents in the top_k / non-relevant
    documents; a query without a negative target is the empty one (``empty_target_action='pos'`` by
    default)."""

    _empty_is_negative_free = True

    def __init__(
        self,
        empty_target_action: str = "pos",
        ignore_index: Optional[int] = None,
        top_k: Optional[int] = None,
        aggregation: Union[str, Callable] = "mean",
        **kwargs: Any,
    ) -> None:
        super().__init__(empty_target_action, ignore_index, top_k, aggregation, **kwargs)

    def _values(self, g: _Grouped, preds: np.ndarray, target: np.ndarray) -> np.ndarray:
        return _fall_out(g, preds, target, self.top_k)


class RetrievalAUROC(_TopK):
    """``torchmetrics.retrieval.RetrievalAUROC``: ROC AUC of each query's top_k documents (partial AUC with
    McClish's correction up to ``max_fpr``)."""

    def __init__(
        self,
        empty_target_action: str = "neg",
        ignore_index: Optional[int] = None,
        top_k: Optional[int] = None,
        max_fpr: Optional[float] = None,
        aggregation: Union[str, Callable] = "mean",
        **kwargs: Any,
    ) -> None:
        super().__init__(empty_target_action, ignore_index, top_k, aggregation, **kwargs)
        if max_fpr is not None and not isinstance(max_fpr, float) and 0 < max_fpr <= 1:
            raise ValueError(f"Arguments `max_fpr` should be a float in range (0, 1], but got: {max_fpr}")
        if max_fpr is not None and not max_fpr > 0:
            raise ValueError(
                f"Argument `max_fpr` must be > 0, got {max_fpr}: torchmetrics' partial AUC is undefined there "
                "(0 / 0); pass a float in (0, 1]"
            )
        self.max_fpr = max_fpr

    def _values(self, g: _Grouped, preds: np.ndarray, target: np.ndarray) -> np.ndarray:
        return _auroc(g, preds, target, self.top_k, self.max_fpr)


# --------------------------------------------------------------------------- functional forms
# One query each, as torchmetrics' functional API: computed here on the query's rows in numpy (a call of the
# batched pass costs more than one query's work), ranked by the preset's own C++ reproduction of torch's sorts
# (the same order rankmeter.evaluate uses under preset="torchmetrics"), so a loop over queries is not slower
# than torchmetrics' own loop.
def _one(preds: Any, target: Any, binary: bool) -> tuple[np.ndarray, np.ndarray, bool]:
    """torchmetrics' ``_check_retrieval_functional_inputs`` for one query."""
    tensors = _torch_tensor(preds) or _torch_tensor(target)
    p = _to_numpy(preds, "preds")
    t = _to_numpy(target, "target")
    if p.shape != t.shape:
        raise ValueError("`preds` and `target` must be of the same shape")
    if not p.size or not p.shape:
        raise ValueError("`preds` and `target` must be non-empty and non-scalar tensors")
    p, t = _check_types(p, t, binary)
    if not binary and np.any(t < 0):
        raise ValueError(
            "`target` holds negative values: torchmetrics adds them to the DCG as negative gains, rankmeter's "
            "gains are max(grade, 0); pass non-negative targets"
        )
    return p, t, tensors


def _order(p: np.ndarray, k: int) -> np.ndarray:
    """One query's rows ranked as torch ranks them: ``argsort(descending=True)`` (k=-1) or ``topk(min(k, n))``
    (its first min(k, n) rows)."""
    from .. import _core

    return _core.order_torch(np.array([0, p.size], dtype=np.int64), p.astype(np.float64), k, 1)


def _scalar(v: float, tensors: bool) -> Any:
    if tensors:
        import torch

        return torch.tensor(v, dtype=torch.float32)
    return np.float32(v)


def _filtered(p: np.ndarray, t: np.ndarray) -> np.ndarray:
    """torch.where(preds > 0, target, 0): a document with pred <= 0 is no hit."""
    return np.where(p > 0, t, 0)


def retrieval_normalized_dcg(preds: Any, target: Any, top_k: Optional[int] = None) -> Any:
    """``torchmetrics.functional.retrieval.retrieval_normalized_dcg`` of one query: tie-averaged DCG (equal
    float32 preds share the mean discount of their positions) over the ideal DCG, linear gains."""
    p, t, tensors = _one(preds, target, False)
    top_k = p.size if top_k is None else top_k
    _check_top_k(top_k)
    if not t.any():
        return _scalar(0.0, tensors)
    n = p.size
    discount = 1.0 / np.log2(np.arange(n, dtype=np.float64) + 2.0)
    discount[top_k:] = 0.0
    cum = np.cumsum(discount)
    _, inv, counts = np.unique(-p.astype(np.float64), return_inverse=True, return_counts=True)
    gains = np.bincount(inv.reshape(-1), weights=t.astype(np.float64), minlength=counts.size) / counts
    ends = np.cumsum(counts) - 1
    spans = np.diff(np.r_[0.0, cum[ends]])
    dcg = float((gains * spans).sum())
    ideal = float((np.sort(t.astype(np.float64))[::-1] * discount).sum())
    return _scalar(dcg / ideal, tensors)


def _loose(p: np.ndarray, top_k: Any) -> int:
    """``top_k or n`` and what torch's topk(min(k, n)) does with it (RetrievalMAP, RetrievalMRR)."""
    k = top_k or p.size
    if not isinstance(k, int) and k <= 0:
        raise ValueError(f"Argument ``top_k`` has to be a positive integer or None, but got {k}.")
    if isinstance(k, int) and k < 0:
        raise RuntimeError("selected index k out of range")
    if not isinstance(k, int):
        if k <= p.size:
            raise TypeError(f"topk(): argument 'k' must be int, not {type(k).__name__}")
        return p.size
    return min(k, p.size)


def retrieval_average_precision(preds: Any, target: Any, top_k: Optional[int] = None) -> Any:
    """``torchmetrics.functional.retrieval.retrieval_average_precision`` of one query."""
    p, t, tensors = _one(preds, target, True)
    k = _loose(p, top_k)
    ranked = _filtered(p, t)[_order(p, k)[:k]]
    pos = np.flatnonzero(ranked > 0) + 1.0
    if not pos.size:
        return _scalar(0.0, tensors)
    return _scalar(float(np.mean(np.arange(1, pos.size + 1) / pos)), tensors)


def retrieval_reciprocal_rank(preds: Any, target: Any, top_k: Optional[int] = None) -> Any:
    """``torchmetrics.functional.retrieval.retrieval_reciprocal_rank`` of one query."""
    p, t, tensors = _one(preds, target, True)
    k = _loose(p, top_k)
    ranked = _filtered(p, t)[_order(p, k)[:k]]
    pos = np.flatnonzero(ranked > 0)
    return _scalar(1.0 / (pos[0] + 1.0) if pos.size else 0.0, tensors)


def retrieval_precision(preds: Any, target: Any, top_k: Optional[int] = None, adaptive_k: bool = False) -> Any:
    """``torchmetrics.functional.retrieval.retrieval_precision`` of one query."""
    p, t, tensors = _one(preds, target, True)
    if not isinstance(adaptive_k, bool):
        raise ValueError("`adaptive_k` has to be a boolean")
    if top_k is None or (adaptive_k and top_k > p.size):
        top_k = p.size
    _check_top_k(top_k)
    if not t.any():
        return _scalar(0.0, tensors)
    k = min(top_k, p.size)
    return _scalar(float(_filtered(p, t)[_order(p, k)[:k]].sum()) / top_k, tensors)


def _argsorted(p: np.ndarray, t: np.ndarray, top_k: Optional[int]) -> np.ndarray:
    """The targets in torch.argsort(descending=True) order, cut at top_k."""
    return t[_order(p, -1)][: p.size if top_k is None else top_k]


def retrieval_recall(preds: Any, target: Any, top_k: Optional[int] = None) -> Any:
    """``torchmetrics.functional.retrieval.retrieval_recall`` of one query."""
    p, t, tensors = _one(preds, target, True)
    _check_top_k(p.size if top_k is None else top_k)
    total = float(t.sum())
    if not total:
        return _scalar(0.0, tensors)
    return _scalar(float(_argsorted(p, _filtered(p, t), top_k).sum()) / total, tensors)


def retrieval_hit_rate(preds: Any, target: Any, top_k: Optional[int] = None) -> Any:
    """``torchmetrics.functional.retrieval.retrieval_hit_rate`` of one query."""
    p, t, tensors = _one(preds, target, True)
    _check_top_k(p.size if top_k is None else top_k)
    return _scalar(float(_argsorted(p, t, top_k).sum() > 0), tensors)


def retrieval_r_precision(preds: Any, target: Any) -> Any:
    """``torchmetrics.functional.retrieval.retrieval_r_precision`` of one query."""
    p, t, tensors = _one(preds, target, True)
    r = int(t.sum())
    if not r:
        return _scalar(0.0, tensors)
    return _scalar(float(_argsorted(p, t, r).sum()) / r, tensors)


def retrieval_fall_out(preds: Any, target: Any, top_k: Optional[int] = None) -> Any:
    """``torchmetrics.functional.retrieval.retrieval_fall_out`` of one query (0 without a negative target)."""
    p, t, tensors = _one(preds, target, True)
    _check_top_k(p.size if top_k is None else top_k)
    neg = 1 - t
    total = float(neg.sum())
    if not total:
        return _scalar(0.0, tensors)
    return _scalar(float(_argsorted(p, neg, top_k).sum()) / total, tensors)


def retrieval_auroc(preds: Any, target: Any, top_k: Optional[int] = None, max_fpr: Optional[float] = None) -> Any:
    """``torchmetrics.functional.retrieval.retrieval_auroc`` of one query (0 when its top k lacks a positive
    or a negative target)."""
    p, t, tensors = _one(preds, target, True)
    k = top_k or p.size
    _check_top_k(k)
    if max_fpr is not None and not isinstance(max_fpr, float) and 0 < max_fpr <= 1:
        raise ValueError(f"Arguments `max_fpr` should be a float in range (0, 1], but got: {max_fpr}")
    if max_fpr is not None and not max_fpr > 0:
        raise ValueError(
            f"Argument `max_fpr` must be > 0, got {max_fpr}: torchmetrics' partial AUC is undefined there (0 / 0); "
            "pass a float in (0, 1]"
        )
    g = _Grouped(np.zeros(p.size, dtype=np.int64), sort=False)
    return _scalar(float(_auroc(g, p, t, k, max_fpr)[0]), tensors)
