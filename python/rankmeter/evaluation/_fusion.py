"""Rank fusion: several runs of one query set into one run (``rm.fuse``), and the search of a fusion's
weights or parameter for the best mean metric (``rm.optimize_fusion``).

The runs are read once into one CSR of ``n_runs * n_queries`` ranked lists with document codes shared by
every run; normalisation and fusion run in C++ (``_core.fusion_normalise``, ``_core.fusion_fuse``: one pass
per query, parallel over queries, the GIL released). Each method and normalisation is ranx's
(docs/fusion.md gives the formulas and ranx's names).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from .. import _core
from .._options import resolve_threads
from ..inputs import Recs, code_ids, factorize, is_frame, ranx_order, score_order, to_recs
from . import _fusion_train as _trained

__all__ = [
    "fuse",
    "optimize_fusion",
    "train_fusion",
    "training_lists",
    "FUSION_METHODS",
    "FUSION_NORMS",
    "prepare_runs",
    "Prepared",
]


@dataclass(frozen=True)
class _Method:
    transform: int  # FuseTransform of cpp/include/rankmeter/fusion.hpp
    combine: int  # FuseCombine
    weighted: bool  # takes one weight per run
    params: tuple[tuple[str, Any], ...]  # (name, default; _REQUIRED when it has none)
    rank_based: bool  # reads the positions of the lists (their order of equal scores matters)
    label: str  # ranx's name of the fused run


_REQUIRED = object()
_T = {"score": 0, "rrf": 1, "isr": 2, "rbc": 3, "borda": 4, "pos": 5, "seg": 6, "prob": 7, "slide": 8, "map": 9}
_C = {
    "sum": 0,
    "mnz": 1,
    "gmnz": 2,
    "log": 3,
    "logn": 4,
    "anz": 5,
    "max": 6,
    "min": 7,
    "med": 8,
    "wsum": 9,
    "wmnz": 10,
    "mixed": 11,
    "condorcet": 12,
}

# The one table of fusion methods: ranx's names (the keys of ranx.fuse's `method`), then aliases below.
FUSION_METHODS: dict[str, _Method] = {
    "sum": _Method(_T["score"], _C["sum"], False, (), False, "comb_sum"),
    "mnz": _Method(_T["score"], _C["mnz"], False, (), False, "comb_mnz"),
    "max": _Method(_T["score"], _C["max"], False, (), False, "comb_max"),
    "min": _Method(_T["score"], _C["min"], False, (), False, "comb_min"),
    "med": _Method(_T["score"], _C["med"], False, (), False, "comb_med"),
    "anz": _Method(_T["score"], _C["anz"], False, (), False, "comb_anz"),
    "gmnz": _Method(_T["score"], _C["gmnz"], False, (("gamma", _REQUIRED),), False, "comb_gmnz"),
    "wsum": _Method(_T["score"], _C["wsum"], True, (), False, "weighted_sum"),
    "wmnz": _Method(_T["score"], _C["wmnz"], True, (), False, "wmnz"),
    "mixed": _Method(_T["score"], _C["mixed"], True, (), False, "mixed"),
    "rrf": _Method(_T["rrf"], _C["sum"], False, (("k", 60),), True, "rrf"),
    "isr": _Method(_T["isr"], _C["mnz"], False, (), True, "isr"),
    "log_isr": _Method(_T["isr"], _C["log"], False, (), True, "log_isr"),
    "logn_isr": _Method(_T["isr"], _C["logn"], False, (("sigma", 0.01),), True, "logn_isr"),
    "rbc": _Method(_T["rbc"], _C["sum"], False, (("phi", _REQUIRED),), True, "rbc"),
    "bordafuse": _Method(_T["borda"], _C["sum"], False, (), True, "bordafuse"),
    "w_bordafuse": _Method(_T["borda"], _C["wsum"], True, (), True, "weighted_bordafuse"),
    "condorcet": _Method(_T["score"], _C["condorcet"], False, (), True, "condorcet"),
    "w_condorcet": _Method(_T["score"], _C["condorcet"], True, (), True, "weighted_condorcet"),
    "bayesfuse": _Method(_T["pos"], _C["sum"], False, (("log_odds", _REQUIRED),), True, "bayesfuse"),
    "posfuse": _Method(_T["pos"], _C["sum"], False, (("probs", _REQUIRED),), True, "posfuse"),
    "probfuse": _Method(_T["prob"], _C["sum"], False, (("probs", _REQUIRED),), True, "probfuse"),
    "segfuse": _Method(_T["seg"], _C["sum"], False, (("probs", _REQUIRED),), True, "segfuse"),
    "slidefuse": _Method(_T["slide"], _C["sum"], False, (("probs", _REQUIRED), ("w", _REQUIRED)), True, "slidefuse"),
    "mapfuse": _Method(_T["map"], _C["sum"], False, (("map_scores", _REQUIRED),), True, "mapfuse"),
}
_METHOD_ALIASES = {
    "combsum": "sum",
    "combmnz": "mnz",
    "combmax": "max",
    "combmin": "min",
    "combmed": "med",
    "combanz": "anz",
    "combgmnz": "gmnz",
    "borda": "bordafuse",
    "weighted_bordafuse": "w_bordafuse",
    "weighted_condorcet": "w_condorcet",
}
# normalisations: name -> FuseNorm code (7: Borda, done by the fusion kernel itself)
FUSION_NORMS: dict[Optional[str], int] = {
    None: 0,
    "min-max": 1,
    "max": 2,
    "sum": 3,
    "zmuv": 4,
    "rank": 5,
    "min-max-inverted": 6,
    "borda": 7,
}
_NORM_ALIASES = {"none": None, "min_max": "min-max", "min_max_inverted": "min-max-inverted", "z-score": "zmuv"}
_TIES = ("input", "ranx")
_BAYES_MIN_ODD = float(np.log(0.001 / 0.999))  # BayesFuse's log odds of a document a run lacks


def _method(method: Any) -> tuple[str, _Method]:
    if not isinstance(method, str):
        raise TypeError(f"`method` must be a string naming a fusion method, got {method!r}")
    name = _METHOD_ALIASES.get(method.lower(), method.lower())
    if name not in FUSION_METHODS:
        raise ValueError(f"`method`: unknown fusion method {method!r}; choose one of {sorted(FUSION_METHODS)}")
    return name, FUSION_METHODS[name]


def _norm(norm: Any) -> Optional[str]:
    if norm is not None and not isinstance(norm, str):
        raise TypeError(f"`norm` must be a string or None, got {norm!r}")
    n = _NORM_ALIASES.get(norm.lower(), norm.lower()) if isinstance(norm, str) else None
    if n not in FUSION_NORMS:
        raise ValueError(
            f"`norm`: unknown normalisation {norm!r}; choose one of {[k for k in FUSION_NORMS if k]} or None"
        )
    return n


# --------------------------------------------------------------------------- reading the runs
@dataclass
class Prepared:
    """The runs read once: ``n_runs * n_queries`` ranked lists (CSR, list ``r * n_queries + q``), shared
    document codes (``labels[code]`` the id; None: the ids are the codes) and the query ids."""

    indptr: np.ndarray
    codes: np.ndarray
    values: np.ndarray
    n_runs: int
    queries: np.ndarray
    labels: Optional[np.ndarray]
    has_scores: bool
    ties: str = "input"


def _is_run_object(x: Any) -> bool:
    """A ranx ``Run`` (or rankmeter.compat.ranx's): ``to_dict()`` and ``keys()``, not a table."""
    return (
        not isinstance(x, (Mapping, Recs))
        and hasattr(x, "to_dict")
        and hasattr(x, "keys")
        and not is_frame(x)
        and type(x).__name__ != "DataFrame"
    )


def _read_one(run: Any, i: int, ties: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, Optional[np.ndarray]]:
    """(users, indptr, items, scores or None) of one run, every list ranked best first."""
    given_order = False
    if _is_run_object(run):  # a ranx Run (or rankmeter.compat.ranx's): its own order, as ranx reads it
        run = run.to_dict()
        given_order = True
    try:
        recs = run if isinstance(run, Recs) else to_recs(run)
    except (TypeError, ValueError) as e:
        raise type(e)(f"runs[{i}]: {e}") from None
    if recs.indptr is None:
        items2d = recs.items_native
        keep = items2d != recs.pad
        indptr = np.zeros(items2d.shape[0] + 1, dtype=np.int64)
        np.cumsum(keep.sum(axis=1), out=indptr[1:])
        items, scores = items2d[keep], None
    else:
        indptr, items, scores = recs.indptr, recs.items_native, recs.scores
    n = indptr.size - 1
    if scores is None and int(indptr[-1]) == 0:
        scores = np.zeros(0, dtype=np.float64)  # no document: nothing to rank
    users = recs.users if recs.users is not None else np.arange(n, dtype=np.int64)
    if scores is not None and not given_order and recs.by_score:
        order = ranx_order(indptr, scores, "ranx") if ties == "ranx" else score_order(indptr, scores)
        items, scores = items[order], scores[order]
    return np.asarray(users), indptr, np.asarray(items), scores


def prepare_runs(runs: Any, ties: str = "input", threads: Optional[int] = None) -> Prepared:
    """Read the runs into one CSR of ``n_runs * n_queries`` ranked lists (see :class:`Prepared`)."""
    if isinstance(runs, (Mapping, str, bytes)) or not hasattr(runs, "__iter__"):
        raise TypeError("`runs` must be a list of runs (dicts {query: {doc: score}}, Recs or ranx Run objects)")
    runs = list(runs)
    if len(runs) < 1:
        raise ValueError("`runs` is empty: pass at least one run")
    if ties not in _TIES:
        raise ValueError(f"`ties` must be one of {_TIES}, got {ties!r}")
    read = [_read_one(r, i, ties) for i, r in enumerate(runs)]
    # queries: codes in order of first appearance over the runs
    all_users = [u for u, _, _, _ in read]
    kinds = {u.dtype.kind for u in all_users if u.size}
    allu = np.concatenate([u.astype(object) for u in all_users]) if len(kinds) > 1 else np.concatenate(all_users)
    if allu.dtype.kind in "iu":
        allu = allu.astype(np.int64)
    qcodes, queries = factorize(allu)
    nq = int(queries.size)
    R = len(read)
    lens = np.zeros((R, nq), dtype=np.int64)
    starts, row_q = [], []
    off = 0
    for r, (u, indptr, _, _) in enumerate(read):
        g = qcodes[off : off + u.size]
        off += u.size
        if np.unique(g).size != g.size:
            dup = queries[np.flatnonzero(np.bincount(g) > 1)[0]]
            raise ValueError(f"runs[{r}] lists query {dup!r} twice: give each query once per run")
        lens[r, g] = np.diff(indptr)
        row_q.append(g)
        starts.append(indptr)
    indptr_all = np.zeros(R * nq + 1, dtype=np.int64)
    np.cumsum(lens.ravel(), out=indptr_all[1:])
    total = int(indptr_all[-1])
    dest = np.empty(total, dtype=np.int64)
    pos = 0
    for r, (_, indptr, _, _) in enumerate(read):
        n_e = int(indptr[-1])
        row_len = np.diff(indptr)
        row = np.repeat(np.arange(row_len.size, dtype=np.int64), row_len)
        within = np.arange(n_e, dtype=np.int64) - indptr[row]
        dest[pos : pos + n_e] = indptr_all[r * nq + row_q[r][row]] + within
        pos += n_e
    item_arrays = []
    for _, _, items, _ in read:
        a = np.asarray(items)
        item_arrays.append(a.astype(np.int64) if a.dtype.kind in "iu" else a.astype(object))
    kinds_i = {a.dtype for a in item_arrays if a.size}
    if len(kinds_i) > 1:
        item_arrays = [a.astype(object) for a in item_arrays]
    coded, _, labels = code_ids(item_arrays)
    codes = np.empty(total, dtype=np.int64)
    values = np.zeros(total, dtype=np.float64)
    codes[dest] = np.concatenate(coded) if coded else np.zeros(0, dtype=np.int64)
    has_scores = all(s is not None for _, _, _, s in read)
    if has_scores:
        values[dest] = np.concatenate([s for _, _, _, s in read]) if read else values
    return Prepared(indptr_all, codes, values, R, queries, labels, has_scores, ties)


# --------------------------------------------------------------------------- fusing
def _params(name: str, m: _Method, params: Mapping[str, Any], n_runs: int) -> dict:
    known = {p for p, _ in m.params}
    extra = set(params) - known
    if extra:
        raise TypeError(
            f"fuse(method={name!r}) got unexpected parameter(s) {sorted(extra)}; it takes {sorted(known) or 'none'}"
        )
    out = {}
    for p, default in m.params:
        if p in params:
            out[p] = params[p]
        elif default is _REQUIRED:
            raise TypeError(f"fuse(method={name!r}) needs the parameter `{p}`")
        else:
            out[p] = default
    if name == "logn_isr" and not 0.0 <= float(out["sigma"]) <= 1.0:
        raise ValueError(f"`sigma` must be in [0, 1], got {out['sigma']!r}")
    for p in ("log_odds", "probs", "map_scores"):
        if p in out and len(out[p]) != n_runs:
            raise ValueError(f"`{p}` must hold one entry per run ({n_runs}), got {len(out[p])}")
    return out


def _weights(weights: Any, n_runs: int) -> np.ndarray:
    if weights is None:
        return np.ones(n_runs, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.size != n_runs:
        raise ValueError(f"`weights` must hold one number per run ({n_runs}), got {weights!r}")
    return w


def normalised(prep: Prepared, norm: Optional[str], threads: int) -> tuple[np.ndarray, np.ndarray]:
    """(codes, values) of the lists after normalisation (min-max-inverted re-ranks each list)."""
    code = FUSION_NORMS[norm]
    if code in (0, 7):
        return prep.codes, prep.values
    v = _core.fusion_normalise(prep.indptr, prep.values, code, threads)
    if code == 6:  # the inverted lists ranked again (ties="ranx": numba's quicksort, as ranx sorts the run again)
        if prep.ties == "ranx":
            order = ranx_order(prep.indptr, v, "ranx", threads or None)
        else:
            order = score_order(prep.indptr, v, None, threads or None)
        return prep.codes[order], v[order]
    return prep.codes, v


def fuse_prepared(
    prep: Prepared,
    name: str,
    m: _Method,
    weights: np.ndarray,
    params: Mapping[str, Any],
    norm: Optional[str],
    threads: int,
    normed: Optional[tuple[np.ndarray, np.ndarray]] = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, codes, scores) of the fused lists, candidates in order of first appearance."""
    codes, values = normed if normed is not None else normalised(prep, norm, threads)
    tables = table_indptr = map_scores = None
    missing = _BAYES_MIN_ODD if name == "bayesfuse" else 0.0
    if name in ("bayesfuse", "posfuse", "probfuse", "segfuse", "slidefuse"):
        key = "log_odds" if name == "bayesfuse" else "probs"
        arrs = [np.asarray(a, dtype=np.float64).ravel() for a in params[key]]
        table_indptr = np.zeros(len(arrs) + 1, dtype=np.int64)
        np.cumsum([a.size for a in arrs], out=table_indptr[1:])
        tables = np.concatenate(arrs) if arrs else np.zeros(0)
        if name == "bayesfuse":
            nq = (prep.indptr.size - 1) // prep.n_runs
            longest = np.diff(prep.indptr).reshape(prep.n_runs, nq).max(axis=1, initial=0)
            short = np.flatnonzero(longest > np.diff(table_indptr))
            if short.size:
                r = int(short[0])
                raise ValueError(f"`log_odds[{r}]` has {arrs[r].size} positions; run {r} lists {longest[r]} documents")
        if name == "probfuse" and np.any(np.diff(table_indptr) == 0):
            raise ValueError("`probs`: every run needs at least one segment")
    if name == "mapfuse":
        map_scores = np.asarray(params["map_scores"], dtype=np.float64)
    oi, oc, os_, bad = _core.fusion_fuse(
        prep.indptr,
        codes,
        values,
        prep.n_runs,
        m.transform,
        m.combine,
        norm == "borda",
        float(params.get("k", 60)),
        float(params.get("phi", 0.5)),
        float(params.get("gamma", 1.0)),
        float(params.get("sigma", 0.01)),
        missing,
        int(params.get("w", 1)),
        weights,
        tables,
        table_indptr,
        map_scores,
        threads,
    )
    if bad >= 0:
        raise ValueError(
            f"query {prep.queries[bad]!r}: a run lists one document twice; give each document once per query"
        )
    return oi, oc, os_


def _to_recs(prep: Prepared, oi: np.ndarray, oc: np.ndarray, os_: np.ndarray, threads: int) -> Recs:
    order = score_order(oi, os_, None, threads or None)
    codes, scores = oc[order], os_[order]
    items = codes if prep.labels is None else prep.labels[codes]
    return Recs(oi, items, scores, prep.queries, by_score=False)


def fuse(
    runs: Any,
    method: str = "wsum",
    weights: Optional[Sequence[float]] = None,
    norm: Optional[str] = "min-max",
    *,
    ties: str = "input",
    threads: Optional[int] = None,
    **params: Any,
) -> Recs:
    """Fuse several runs of the same queries into one run, as ``ranx.fuse`` does (docs/fusion.md).

    Parameters
    ----------
    runs:
        A list of runs, each what :func:`rankmeter.evaluate` accepts for ``recs`` with scores (dicts
        ``{query: {doc: score}}``, :class:`~rankmeter.Recs`, tables...) or a ranx ``Run`` (read in its own
        order). A query a run lacks is an empty list of that run. Ranked lists without scores serve the
        rank-based methods.
    method:
        ranx's method names: ``"sum"``, ``"mnz"``, ``"max"``, ``"min"``, ``"med"``, ``"anz"``, ``"gmnz"``
        (``gamma=``; also ``"combsum"``... ``"combgmnz"``), ``"wsum"``, ``"wmnz"``, ``"mixed"``, ``"rrf"``
        (``k=60``), ``"isr"``, ``"log_isr"``, ``"logn_isr"`` (``sigma=0.01``), ``"rbc"`` (``phi=``),
        ``"bordafuse"``, ``"w_bordafuse"``, ``"condorcet"``, ``"w_condorcet"``, ``"bayesfuse"``
        (``log_odds=``), ``"posfuse"``, ``"probfuse"``, ``"segfuse"`` (``probs=``), ``"slidefuse"``
        (``probs=``, ``w=``), ``"mapfuse"`` (``map_scores=``).
    weights:
        One weight per run for the weighted methods (None: 1 each).
    norm:
        ``"min-max"`` (default), ``"min-max-inverted"``, ``"max"``, ``"sum"``, ``"zmuv"``, ``"rank"``,
        ``"borda"`` or None, per query and run, before fusing.
    ties:
        Order of equal scores within a run's list, read by the rank-based methods: ``"input"`` (the order
        given) or ``"ranx"`` (numba's quicksort, as a ranx ``Run`` built from the dict orders them); also the
        order of the lists ``"min-max-inverted"`` ranks again. A ranx ``Run`` is read in its own order.
    threads:
        Threads of the C++ kernels (None: all).

    Returns
    -------
    Recs
        One list per query (queries in order of first appearance over the runs), documents by fused score
        descending (equal scores in order of first appearance), with their fused scores.
    """
    name, m = _method(method)
    n = _norm(norm)
    t = resolve_threads(threads)
    prep = prepare_runs(runs, ties, t)
    if not prep.has_scores and (not m.rank_based or n not in (None, "rank", "borda")):
        raise ValueError(
            f"fuse(method={name!r}, norm={n!r}) reads scores and a run has none: give scores, "
            "or use a rank-based method with norm=None"
        )
    if weights is not None and not m.weighted:
        raise TypeError(
            f"fuse(method={name!r}) takes no `weights` (weighted methods: "
            f"{sorted(k for k, v in FUSION_METHODS.items() if v.weighted)})"
        )
    w = _weights(weights, prep.n_runs)
    p = _params(name, m, params, prep.n_runs)
    oi, oc, os_ = fuse_prepared(prep, name, m, w, p, n, t)
    return _to_recs(prep, oi, oc, os_, t)


# --------------------------------------------------------------------------- optimising
def weight_grid(step: float, n_runs: int) -> list[tuple[float, ...]]:
    """ranx's grid of weight vectors: each weight in 0, step, 2 step, ..., 1 (rounded to step's decimals),
    every combination over the runs whose (float) sum equals 1.0, in itertools.product order."""
    digits = str(step)[::-1].find(".")
    values = [round(float(x), digits) for x in np.arange(0, 1 + step, step)]
    return [seq for seq in itertools.product(values, repeat=n_runs) if sum(seq) == 1.0]


def trials_of(
    name: str, m: _Method, weights: Any, step: Any, params: Mapping[str, Any], n_runs: int
) -> tuple[str, list, dict]:
    """(what is tried: "weights" or a parameter name, the trials, the fixed parameters)."""
    if m.weighted:
        if params:
            raise TypeError(
                f"optimize_fusion(method={name!r}) takes no parameters besides the weights: {sorted(params)}"
            )
        if weights is None:
            if isinstance(step, bool) or not (isinstance(step, (int, float)) and 0 < step <= 1):
                raise ValueError(f"`step` must be in (0, 1], got {step!r}")
            return "weights", weight_grid(step, n_runs), {}
        trials = [tuple(float(x) for x in _weights(w, n_runs)) for w in weights]
        if not trials:
            raise ValueError("`weights` is empty: give at least one weight vector")
        return "weights", trials, {}
    if weights is not None:
        raise TypeError(f"optimize_fusion(method={name!r}) takes no `weights`: it is not a weighted method")
    lists = {k: v for k, v in params.items() if isinstance(v, (list, tuple, np.ndarray)) and k not in _TABLES}
    if len(lists) != 1 or not len(next(iter(lists.values()))):
        raise ValueError(
            f"optimize_fusion(method={name!r}): give the values to try as one non-empty list-valued parameter of "
            f"{[p for p, _ in m.params if p not in _TABLES] or '(none: this method has nothing to try)'}"
        )
    key, vals = next(iter(lists.items()))
    return key, list(vals), {k: v for k, v in params.items() if k != key}


_TABLES = ("log_odds", "probs", "map_scores")


def run_trials(
    prep: Prepared,
    name: str,
    m: _Method,
    norm: Optional[str],
    key: str,
    trials: list,
    fixed: Mapping[str, Any],
    score: Any,
    threads: int,
) -> tuple[Any, list[float]]:
    """Fuse once per trial (the runs read and normalised once) and score each fused run with
    ``score(indptr, codes, scores)``; the last trial with the best score wins, as in ranx."""
    normed = normalised(prep, norm, threads)
    values: list[float] = []
    best, best_score = None, -np.inf
    for trial in trials:
        if key == "weights":
            w, p = np.asarray(trial, dtype=np.float64), _params(name, m, fixed, prep.n_runs)
        else:
            w, p = _weights(None, prep.n_runs), _params(name, m, {**fixed, key: trial}, prep.n_runs)
        s = float(score(*fuse_prepared(prep, name, m, w, p, norm, threads, normed)))
        values.append(s)
        if s >= best_score:
            best, best_score = trial, s
    return best, values


def optimize_fusion(
    truth: Any,
    runs: Any,
    metric: str = "ndcg",
    method: str = "wsum",
    norm: Optional[str] = "min-max",
    weights: Any = None,
    step: float = 0.1,
    *,
    ties: str = "input",
    threads: Optional[int] = None,
    evaluate_kw: Optional[Mapping[str, Any]] = None,
    **params: Any,
) -> tuple[Any, Any]:
    """Fuse with many weight vectors (or values of a method's parameter) and keep the best mean ``metric``.

    The runs are read and normalised once; each trial is one C++ fusion and one fused evaluation pass
    (:func:`rankmeter.evaluate` with ``evaluate_kw``). Weighted methods (``wsum``, ``wmnz``, ``mixed``,
    ``w_bordafuse``, ``w_condorcet``) try ``weights`` (a list of weight vectors) or, when it is None, ranx's
    grid for ``step`` (each weight a multiple of ``step`` in [0, 1], rounded to ``step``'s decimals, the
    weights summing to exactly 1.0, in ``itertools.product`` order). Other methods try the values of their one
    list-valued parameter (e.g. ``k=[10, 20, 60]`` for ``rrf``, ``gamma=[...]`` for ``gmnz``). As in ranx,
    the last trial with the best score wins.

    The trained methods (``probfuse``, ``slidefuse``, ``bayesfuse``, ``mapfuse``, ``posfuse``, ``segfuse``)
    train their table on ``truth`` over the normalised runs (:func:`rankmeter.train_fusion`, with
    ``evaluate_kw``'s ``min_relevance``), as ranx's optimize_fusion does: ``probfuse`` tries each
    ``n_segments=[...]``, ``slidefuse`` each ``w=[...]``; the others fuse once. ``best`` is then the parameters
    ``fuse`` takes (``{"probs": ...}``, ``{"probs": ..., "w": ...}``, ``{"log_odds": ...}``,
    ``{"map_scores": ...}``).

    Returns ``(best, table)``: the winning weights (a tuple) or ``{param: value}``, and a pandas DataFrame
    (a dict of lists without pandas) with one row per trial: the weights or value, and the mean metric.
    """
    from ._evaluate import evaluate

    name, m = _method(method)
    n = _norm(norm)
    t = resolve_threads(threads)
    if not isinstance(metric, str):
        raise TypeError(f"`metric` must be one metric name, got {metric!r}")
    prep = prepare_runs(runs, ties, t)
    ekw = dict(evaluate_kw or {})
    ekw.setdefault("threads", threads)

    def score(oi: np.ndarray, oc: np.ndarray, os_: np.ndarray) -> float:
        return float(evaluate(truth, _to_recs(prep, oi, oc, os_, t), [metric], **ekw)[metric])

    if name in _trained.TRAINED_METHODS:
        return _optimize_trained(truth, prep, name, m, n, weights, params, score, metric, ekw.get("min_relevance"), t)
    key, trials, fixed = trials_of(name, m, weights, step, params, prep.n_runs)

    values = None
    if name == "wsum" and key == "weights" and not evaluate_kw and len(trials) > 1:
        values = _wsum_fast(truth, prep, n, trials, metric, score, t)
    if values is None:
        best, values = run_trials(prep, name, m, n, key, trials, fixed, score, t)
    else:
        best = trials[max(i for i, v in enumerate(values) if v == max(values))] if values else None
    table = {key: trials, metric: values}
    out_best = best if key == "weights" else {key: best}
    try:
        import pandas as pd
    except ImportError:
        return out_best, table
    return out_best, pd.DataFrame(table)


def _optimize_trained(
    truth: Any,
    prep: Prepared,
    name: str,
    m: _Method,
    norm: Optional[str],
    weights: Any,
    params: Mapping[str, Any],
    score: Any,
    metric: str,
    min_relevance: Any,
    threads: int,
) -> tuple[Any, Any]:
    """optimize_fusion of a trained method: its table trained on ``truth`` over the normalised runs (as ranx's
    optimize_fusion trains it), then ``probfuse`` tries each ``n_segments``, ``slidefuse`` each ``w`` (the last
    best wins), the others fuse once. Returns the parameters ``fuse`` takes and the table of trials."""
    from ..inputs import to_truth

    if weights is not None:
        raise TypeError(f"optimize_fusion(method={name!r}) takes no `weights`: it is not a weighted method")
    table_key = _trained.TRAINED_METHODS[name]
    if table_key in params:
        raise TypeError(f"optimize_fusion(method={name!r}) trains `{table_key}` itself: do not pass it")
    try_key = {"probfuse": "n_segments", "slidefuse": "w"}.get(name)
    extra = set(params) - ({try_key} if try_key else set())
    if extra:
        raise TypeError(f"optimize_fusion(method={name!r}) got unexpected parameter(s) {sorted(extra)}")
    if try_key:
        if try_key not in params:
            raise ValueError(f"optimize_fusion(method={name!r}) needs `{try_key}`: the values to try (a list)")
        vals = params[try_key]
        trials = list(vals) if isinstance(vals, (list, tuple, np.ndarray)) else [vals]
        if not trials:
            raise ValueError(f"`{try_key}` is empty: give at least one value to try")
        for v in trials:
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < (1 if name == "probfuse" else 0):
                raise ValueError(f"`{try_key}` values must be ints >= {1 if name == 'probfuse' else 0}, got {v!r}")
    if norm not in (None, "rank", "borda") and not prep.has_scores:
        raise ValueError(f"optimize_fusion(norm={norm!r}) reads scores and a run has none: give scores or norm=None")
    tr = to_truth(truth)
    lists = training_lists(prep, norm, threads)
    indptr, hit, n_rel, nt = _trained.hit_lists(lists, lists.codes, tr, min_relevance)
    if nt == 0:
        raise ValueError("`truth` holds no query: training averages over the truth's queries")
    R = prep.n_runs
    ones = np.ones(R)
    if not try_key:  # trained once, fused once with the runs as fuse reads them
        table = _trained.train_tables(name, indptr, hit, n_rel, R, nt)
        value = float(score(*fuse_prepared(prep, name, m, ones, {table_key: table}, norm, threads)))
        rows: dict = {metric: [value]}
        best: Any = {table_key: table}
    else:  # the lists as training read them (normalised), fused without another normalisation
        fixed = _trained.train_tables(name, indptr, hit, n_rel, R, nt) if name == "slidefuse" else None
        out: list[float] = []
        best, best_score = None, -np.inf
        for v in trials:
            tab = fixed if fixed is not None else _trained.train_tables(name, indptr, hit, n_rel, R, nt, int(v))
            p = {"probs": tab, "w": int(v)} if name == "slidefuse" else {"probs": tab}
            s = float(score(*fuse_prepared(lists, name, m, ones, p, None, threads)))
            out.append(s)
            if s >= best_score:
                best, best_score = p, s
        rows = {try_key: trials, metric: out}
    try:
        import pandas as pd
    except ImportError:
        return best, rows
    return best, pd.DataFrame(rows)


# --------------------------------------------------------------------------- training
def training_lists(prep: Prepared, norm: Optional[str], threads: int) -> Prepared:
    """The lists training reads, normalised: with ``ties="ranx"`` sorted once more with numba's quicksort (ranx's
    training sorts the normalised ``Run``, which it builds unsorted, except after ``min-max-inverted``, already
    sorted, and ``norm=None``, the runs themselves); under ``"borda"`` each run lists every candidate of the
    query, its own first, then the others in order of first appearance over the runs (ranx: in a Python set's
    order)."""
    if norm == "borda":
        return _borda_lists(prep, threads)
    codes, values = normalised(prep, norm, threads)
    if prep.ties == "ranx" and norm not in (None, "min-max-inverted"):
        order = ranx_order(prep.indptr, values, "ranx", threads or None)
        codes, values = codes[order], values[order]
    return Prepared(prep.indptr, codes, values, prep.n_runs, prep.queries, prep.labels, True, prep.ties)


def _borda_lists(prep: Prepared, threads: int) -> Prepared:
    """Each run's lists extended to every candidate of the query (the run's own, valued 1 - i/N, then the others,
    valued 1/2 - (n - 1)/(2N), in order of first appearance over the runs): ranx's Borda-normalised runs as its
    training sorts them, the candidates a run lacks (equal values) in first-appearance order."""
    R = prep.n_runs
    nq = prep.queries.size
    oi, oc, _ = fuse_prepared(prep, "sum", FUSION_METHODS["sum"], np.ones(R), {}, None, threads)
    n_cand = np.diff(oi)
    cand_q = np.repeat(np.arange(nq, dtype=np.int64), n_cand)
    uniq = np.unique(np.concatenate([prep.codes, oc]))
    u = max(int(uniq.size), 1)
    lens = np.diff(prep.indptr)
    lst = np.repeat(np.arange(R * nq, dtype=np.int64), lens)
    pos = np.arange(prep.codes.size, dtype=np.int64) - prep.indptr[lst]
    run_of, q_of = lst // max(nq, 1), lst % max(nq, 1)
    el_key = q_of * u + np.searchsorted(uniq, prep.codes)
    cand_key = cand_q * u + np.searchsorted(uniq, oc)
    parts_list, parts_part, parts_idx, parts_code, parts_val = [], [], [], [], []
    n_of = lens.reshape(R, nq)
    N = n_cand.astype(np.float64)
    parts_list.append(lst)
    parts_part.append(np.zeros(lst.size, dtype=np.int64))
    parts_idx.append(pos)
    parts_code.append(prep.codes)
    parts_val.append(1.0 - pos / np.maximum(N[q_of], 1.0))
    for r in range(R):
        lacks = ~np.isin(cand_key, el_key[run_of == r])
        q = cand_q[lacks]
        parts_list.append(r * nq + q)
        parts_part.append(np.ones(q.size, dtype=np.int64))
        parts_idx.append(np.flatnonzero(lacks))
        parts_code.append(oc[lacks])
        parts_val.append(0.5 - (n_of[r, q] - 1) / (2.0 * np.maximum(N[q], 1.0)))
    lst_all = np.concatenate(parts_list)
    order = np.lexsort((np.concatenate(parts_idx), np.concatenate(parts_part), lst_all))
    indptr = np.zeros(R * nq + 1, dtype=np.int64)
    np.cumsum(np.bincount(lst_all, minlength=R * nq), out=indptr[1:])
    codes = np.concatenate(parts_code)[order]
    values = np.concatenate(parts_val)[order]
    return Prepared(indptr, codes, values, R, prep.queries, prep.labels, True, prep.ties)


def train_fusion(
    truth: Any,
    runs: Any,
    method: str,
    norm: Optional[str] = "min-max",
    *,
    n_segments: Optional[int] = None,
    min_relevance: Optional[float] = None,
    ties: str = "input",
    threads: Optional[int] = None,
) -> Any:
    """Train the table of one of ranx's trained fusion methods from relevance judgments (ranx's
    ``probfuse_train``, ``posfuse_train``, ``slidefuse_train``, ``segfuse_train``, ``bayesfuse_train``,
    ``mapfuse_train``; docs/fusion.md, "Training").

    Per run, over the truth's queries (a query a run lacks is an empty list; a query without relevant document
    counts, with no hit), from the hit lists ``h`` (1 where the document at that position is relevant):

    - ``posfuse`` / ``slidefuse``: ``p[i]`` = hits at position i / lists longer than i (Lillis et al. 2010;
      Lillis et al. 2008), an array as long as the run's longest list;
    - ``probfuse``: each list cut into ``n_segments`` segments of ``ceil(n / n_segments)`` positions;
      ``p[k]`` = mean over the queries of the share of relevant documents in segment k (0 for an empty segment)
      (Lillis et al. 2006), one row per run (a 2-D array);
    - ``segfuse``: segments [0, 5), [5, 15), [15, 35), ... (10 of them, 10 * 2**(k-1) - 5);
      ``p[k]`` = mean over the queries of (hits in segment k) / (segment size) (Shokouhi 2007);
    - ``bayesfuse``: intervals [0, 5), [5, 10), [10, 15), [15, 20), [20, 30), [30, 100), [100, 200),
      [200, 500), [500, 1000); ``a`` = mean precision in the interval (0.001 if 0), each of its positions gets
      ``ln(a / (1 - a))`` (1 - a taken as 0.001 if 0) (Aslam & Montague 2001); 1000 values per run;
    - ``mapfuse``: the run's MAP (average precision over |R|, 0 for a query without relevant document, mean
      over the queries) (Lillis et al. 2010), one float per run.

    Parameters
    ----------
    truth, runs:
        As for :func:`rankmeter.optimize_fusion` (runs as :func:`rankmeter.fuse` reads them).
    norm:
        The normalisation the table is trained under (the lists are read as ``fuse`` ranks them after it;
        only ``min-max-inverted`` reverses them; ``"borda"`` extends each run's lists to every candidate of the
        query, the run's own first, then the others in order of first appearance: ranx takes those in a Python
        set's order).
    n_segments:
        ProbFuse's number of segments (required for probfuse, refused otherwise).
    min_relevance:
        A document is relevant when its grade is >= ``min_relevance`` (None: grade > 0; ranx's level 1 on
        integer grades).
    ties:
        ``"input"`` or ``"ranx"`` (equal scores in numba's quicksort order, and the normalised lists sorted once
        more, as ranx's training sorts them).

    Returns
    -------
    ranx's form: a list of float64 arrays (posfuse, slidefuse, segfuse, bayesfuse), a 2-D array (probfuse) or a
    list of floats (mapfuse), to pass to ``fuse`` as ``probs`` / ``log_odds`` / ``map_scores``.
    """
    from ..inputs import to_truth

    name = _trained.check_method(method)
    k = _trained.check_n_segments(name, n_segments)
    n = _norm(norm)
    if min_relevance is not None and (
        isinstance(min_relevance, bool) or not isinstance(min_relevance, (int, float, np.integer, np.floating))
    ):
        raise TypeError(f"`min_relevance` must be a number or None, got {min_relevance!r}")
    t = resolve_threads(threads)
    tr = to_truth(truth)
    prep = prepare_runs(runs, ties, t)
    if n not in (None, "rank", "borda") and not prep.has_scores:
        raise ValueError(f"train_fusion(norm={n!r}) reads scores and a run has none: give scores or norm=None")
    lists = training_lists(prep, n, t)
    indptr, hit, n_rel, nt = _trained.hit_lists(lists, lists.codes, tr, min_relevance)
    if nt == 0:
        raise ValueError("`truth` holds no query: training averages over the truth's queries")
    return _trained.train_tables(name, indptr, hit, n_rel, prep.n_runs, nt, k)


# --------------------------------------------------------------------------- weighted sums, many weight vectors
_FAST_METRICS = ("ndcg", "mrr", "recall", "precision", "hit_rate")


def _wsum_fast(
    truth: Any, prep: Prepared, norm: Optional[str], trials: list, metric: str, score: Any, threads: int
) -> Optional[list[float]]:
    """The mean ``metric`` of every weight vector of a weighted sum, from the ranks of the relevant candidates
    only (``_core.fusion_wsum_ranks``: the per-run normalised values are built once, each weight vector is one
    pass over them). None when the metric or the truth is not one this path computes; the first trial is
    checked against :func:`rankmeter.evaluate` (the general path), and a difference also gives None."""
    from ..inputs import to_truth

    base, _, k_txt = metric.partition("@")
    if base not in _FAST_METRICS or (k_txt and not k_txt.isdigit()) or (base in ("precision",) and not k_txt):
        return None
    k = int(k_txt) if k_txt else None
    if k is not None and k < 1:
        return None
    try:
        tr = to_truth(truth)
    except (TypeError, ValueError):
        return None
    if tr.indptr is None or tr.users is None or tr.grades is None:
        return None
    grades_all = np.asarray(tr.grades, dtype=np.float64)
    if np.any(grades_all < 0) or not np.all(np.isfinite(grades_all)):
        return None
    R = prep.n_runs
    normed = normalised(prep, norm, threads)
    m = FUSION_METHODS["wsum"]
    cols = []
    oi = oc = None
    for r in range(R):  # the candidates once, and each run's value of each candidate (0 where it lacks it)
        e = np.zeros(R)
        e[r] = 1.0
        oi, oc, col = fuse_prepared(prep, "wsum", m, e, {}, norm, threads, normed)
        cols.append(col)
    assert oi is not None and oc is not None
    V = np.ascontiguousarray(np.stack(cols, axis=1)) if cols else np.zeros((0, R))
    nq = prep.queries.size
    # truth rows -> (fused query, candidate code)
    t_users = np.asarray(tr.users)
    t_len = np.diff(tr.indptr)
    t_row = np.repeat(np.arange(t_users.size), t_len)
    allq = np.concatenate([prep.queries.astype(object), t_users.astype(object)])
    qc, _ = factorize(allq)
    t_q = qc[nq:][t_row]  # >= nq: a truth query no run has
    t_items = np.asarray(tr.items_native)
    if prep.labels is None:
        if t_items.dtype.kind not in "iu":
            return None
        t_code = t_items.astype(np.int64)
    else:
        ic, _ = factorize(np.concatenate([prep.labels.astype(object), t_items.astype(object)]))
        t_code = ic[prep.labels.size :]
        t_code = np.where(t_code < prep.labels.size, t_code, -1)
    rel = grades_all > 0
    users_q = np.unique(t_row[rel])  # truth users with a relevant document (the users evaluate averages over)
    n_users = users_q.size
    if n_users == 0:
        return None
    # relevant candidates: join (query, code) of the truth's relevant rows with the candidates
    cand_q = np.repeat(np.arange(nq, dtype=np.int64), np.diff(oi))
    n_codes = int(max(oc.max(initial=-1), t_code.max(initial=-1))) + 2
    cand_key = cand_q * n_codes + oc
    keep = rel & (t_q < nq) & (t_code >= 0)
    t_key = t_q[keep] * n_codes + t_code[keep]
    order = np.argsort(cand_key, kind="stable")
    at = np.searchsorted(cand_key[order], t_key)
    at_c = np.minimum(at, max(cand_key.size - 1, 0))
    found = (at < cand_key.size) & (cand_key[order][at_c] == t_key) if cand_key.size else np.zeros(0, bool)
    rel_cand = order[at_c[found]]
    rel_grade = grades_all[keep][found]
    rel_user = t_row[keep][found]
    srt = np.argsort(rel_cand, kind="stable")
    rel_cand, rel_grade, rel_user = rel_cand[srt], rel_grade[srt], rel_user[srt]
    rel_indptr = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(np.bincount(cand_q[rel_cand], minlength=nq), out=rel_indptr[1:])
    # per truth user: |R| and the ideal DCG
    n_rel = np.bincount(t_row[rel], minlength=t_users.size).astype(np.float64)
    idcg = np.zeros(t_users.size)
    if base == "ndcg":
        g_rel = grades_all[rel]
        u_rel = t_row[rel]
        o = np.lexsort((-g_rel, u_rel))
        g_sorted, u_sorted = g_rel[o], u_rel[o]
        starts = np.searchsorted(u_sorted, u_sorted, side="left")
        pos = np.arange(u_sorted.size) - starts
        ok = pos < (k if k is not None else np.inf)
        np.add.at(idcg, u_sorted[ok], g_sorted[ok] / np.log2(pos[ok] + 2.0))
    W = np.ascontiguousarray(np.asarray(trials, dtype=np.float64).reshape(len(trials), R))
    out: list[float] = []
    chunk = max(1, int(2e7 // max(rel_cand.size, 1)))
    for lo in range(0, len(trials), chunk):
        ranks = _core.fusion_wsum_ranks(oi, V, rel_indptr, rel_cand, W[lo : lo + chunk], threads)
        out.extend(_metric_from_ranks(base, k, ranks, rel_grade, rel_user, n_rel, idcg, users_q, t_users.size))
    first = score(*fuse_prepared(prep, "wsum", m, W[0], {}, norm, threads, normed))
    if not abs(first - out[0]) <= 1e-9 * max(1.0, abs(first)):
        return None
    return out


def _metric_from_ranks(
    base: str,
    k: Optional[int],
    ranks: np.ndarray,
    grade: np.ndarray,
    user: np.ndarray,
    n_rel: np.ndarray,
    idcg: np.ndarray,
    users_q: np.ndarray,
    n_truth_users: int,
) -> list[float]:
    """Mean metric per trial (rows of ``ranks``) over the truth users with a relevant document."""
    T = ranks.shape[0]
    kk = np.inf if k is None else k
    inside = ranks < kk
    per = np.zeros((T, n_truth_users))
    if base == "ndcg":
        contrib = np.where(inside, grade / np.log2(ranks + 2.0), 0.0)
    elif base == "mrr":
        contrib = np.where(inside, 1.0 / (ranks + 1.0), 0.0)
    else:
        contrib = inside.astype(np.float64)
    rows = np.repeat(np.arange(T), user.size)
    cols = np.tile(user, T)
    if base == "mrr":
        np.maximum.at(per, (rows, cols), contrib.ravel())
    else:
        np.add.at(per, (rows, cols), contrib.ravel())
    if base == "ndcg":
        with np.errstate(invalid="ignore", divide="ignore"):
            per = np.where(idcg > 0, per / idcg, 0.0)
    elif base == "recall":
        per = per / np.maximum(n_rel, 1.0)
    elif base == "precision":
        per = per / float(k or 1)
    elif base == "hit_rate":
        per = (per > 0).astype(np.float64)
    return (per[:, users_q].sum(axis=1) / users_q.size).tolist()
