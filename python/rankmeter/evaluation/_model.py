"""Evaluation straight from user and item factors (docs/model.md).

``evaluate_model`` makes the score matrix of the factors tile by tile (``rankmeter/model.hpp``) and, while a
tile is in cache, takes each user's top k and the exact full-catalog rank of every truth item; the matrix is
never stored. The lists go through :func:`evaluate` like any recommendations; ``auc``, ``gauc`` and ``rr``
without a cutoff come from the exact ranks and counts over every eligible item, the values
``evaluate(truth, Recs.from_scores(M, n_items, exclude=exclude), ...)`` gives on the materialised matrix ``M``.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional, Union

import numpy as np

from .. import _core
from .._aggregate import State, limbs_to_int
from .._options import check_k, resolve_threads
from ..inputs import Recs, as_id_array, to_truth
from ..inputs._factors import check_block, check_factors, exclusion_csr, factor_pass
from ..metrics import Metric, parse
from ._auc_matrix import _columns, _rowmap
from ._evaluate import evaluate
from ._options import AUC_TIES
from ._result import Result

__all__ = ["evaluate_model"]

_EMPTY = ("skip", "zero", "one", "error")
_RANKED = ("auc", "gauc", "rr")  # without a cutoff: over the full eligible catalog, from the exact ranks


def _is_ranked(m: Metric) -> bool:
    return m.name in _RANKED and m.k is None


def _check_ranked(m: Metric) -> None:
    if m.name in ("auc", "gauc"):
        if m.options.get("negatives") != "scored":
            raise ValueError(
                f"metric {str(m)!r}: evaluate_model scores every item not excluded, so negatives='catalog' does "
                "not apply; leave `negatives` at its default"
            )
        if m.options.get("max_fpr", 1.0) != 1.0:
            raise ValueError(f"metric {str(m)!r}: evaluate_model computes the full AUC only (max_fpr=1)")


def _truth_rows(t: Any, rowmap: Optional[np.ndarray], n_rows: int, cols: np.ndarray, rel: np.ndarray) -> tuple:
    """The truth as CSR over the factor rows (rows without a truth user are empty), and each truth entry's
    position in it."""
    lens = np.diff(t.indptr)
    rows = np.arange(t.n_users, dtype=np.int64) if rowmap is None else rowmap
    row_len = np.zeros(n_rows, dtype=np.int64)
    row_len[rows] = lens
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(row_len, out=indptr[1:])
    # entry p of truth user u goes to indptr[rows[u]] + (p - t.indptr[u])
    where = np.repeat(indptr[:-1][rows] - t.indptr[:-1], lens) + np.arange(t.indptr[-1], dtype=np.int64)
    r_cols = np.empty(cols.size, dtype=np.int64)
    r_rel = np.empty(cols.size, dtype=np.uint8)
    r_cols[where] = cols
    r_rel[where] = rel
    return indptr, r_cols, r_rel, where


def _exact(vals: np.ndarray, threads: int) -> tuple[int, int]:
    limbs, count = _core.exact_sum(np.ascontiguousarray(vals), threads)
    return limbs_to_int(limbs), int(count)


def evaluate_model(
    truth: Any,
    user_vectors: Any,
    item_vectors: Any,
    metrics: Union[str, Metric, Iterable[Union[str, Metric]]],
    *,
    exclude: Any = None,
    k: Optional[int] = None,
    score: str = "dot",
    user_ids: Any = None,
    item_ids: Any = None,
    block: Any = None,
    threads: Optional[int] = None,
    empty: Optional[str] = None,
    min_relevance: Optional[float] = None,
    ranks: bool = False,
    **options: Any,
) -> Any:
    """Evaluate a factor model (user and item embeddings) without materialising its score matrix.

    The scores of ``user_vectors`` (``n_users x dim``) against ``item_vectors`` (``n_items x dim``) are made one
    tile of ``block`` users x items at a time (float32; :func:`rankmeter.factor_scores` defines each score), the
    ``exclude`` items (e.g. the training interactions, as in ``Recs.from_scores``) are masked in the tile, and
    while the tile is in cache each user's top ``k`` and the exact full-catalog rank of every truth item are
    taken. Memory: the factors, a packed copy of ``item_vectors``, one tile per thread and the top-k lists.

    Parameters
    ----------
    truth : any form :func:`rankmeter.evaluate` reads
        The held-out items per user. Users are matched to the rows of ``user_vectors`` by ``user_ids``
        (default: the row index), items to the rows of ``item_vectors`` by ``item_ids`` (default: the row
        index); a truth item that is no row counts as relevant (for ``empty``) but is never ranked.
    user_vectors, item_vectors : 2-D arrays (float32; float64 and integers are rounded to float32 once)
        Finite values, the same number of columns.
    metrics : metric names or Metric objects
        Any metric of :func:`rankmeter.evaluate` with a cutoff of at most ``k`` (computed on the top-k lists),
        and, without a cutoff, ``auc``, ``gauc`` and ``rr`` (alias ``mrr``) over every item not excluded.
    exclude : scipy.sparse matrix (n_users x n_items) or CSR pair (indptr, item_rows), optional
        Items never recommended and never ranked for a user.
    k : int, optional
        Length of the lists (default: the largest cutoff asked for).
    score : "dot" or "cosine"
        Cosine scores the rows scaled to unit length (a zero row scores 0 with every item).
    block : int or (int, int), optional
        Users (and items) per tile; default (192, 1024). The results do not depend on it.
    threads, empty, min_relevance
        As in :func:`rankmeter.evaluate`; ``threads`` also runs the tiles (OpenMP over users).
    ranks : bool
        Also return the exact rank of every truth entry (int64, aligned with ``Truth`` entries in truth order;
        0 for an item that is excluded or no row).
    **options
        Passed on to :func:`rankmeter.evaluate` for the list metrics (``train=``, ``item_features=``...);
        ``catalog`` defaults to the item rows (``item_ids``).

    Returns
    -------
    Result
        As :func:`rankmeter.evaluate` returns it (means, ``per_user``, ``users``, ``meta``, a mergeable
        ``state``); with ``ranks=True`` the pair ``(result, ranks)``.

    Notes
    -----
    Rank of truth item c of user u (1-based, its position in u's full list of eligible items):
    ``rank = 1 + #{j eligible: s_j > s_c} + #{j eligible: s_j = s_c, j < c}`` (equal scores in column order,
    ``ties="input"`` of ``Recs.from_scores``). Without a cutoff: ``rr_u = 1 / min rank`` over the relevant
    items (0 when none is eligible); ``auc_u = (#{(p, q): s_p > s_q} + 1/2 #{(p, q): s_p = s_q}) / (P N)`` over
    the P relevant eligible items and the N other eligible items (a tie counts 0 with ``auc(ties=strict)``, 1
    with ``ties=optimistic``; the auc and gauc of one call share one rule), computed as the integer
    ``2 P N AUC = sum_l c_l (2 nb_l + w ne_l)`` of ``auc_scores`` (docs/metrics.md 3.19.10); ``gauc`` weighs each
    user's AUC by P (3.19.11). Every value equals that of ``evaluate(truth, Recs.from_scores(M, n, exclude=
    exclude), metrics)`` on ``M = factor_scores(user_vectors, item_vectors)`` with ``n = k`` for the list metrics
    and ``n = n_items`` for those without a cutoff, bit for bit, for any ``block`` and ``threads``
    (docs/model.md).

    Examples
    --------
    >>> import numpy as np, rankmeter as rm
    >>> U = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    >>> V = np.array([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]], dtype=np.float32)
    >>> res = rm.evaluate_model({0: [1], 1: [0]}, U, V, ["hit_rate@2", "auc", "mrr"])
    >>> res["hit_rate@2"], res["auc"], res["mrr"]
    (0.0, 0.0, 0.3333333333333333)
    """
    if not isinstance(ranks, bool):
        raise TypeError(f"`ranks` must be True or False, got {ranks!r}")
    given = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
    if not given:
        raise ValueError("`metrics` is empty: name at least one metric")
    keys = [m if isinstance(m, str) else str(m) for m in given]
    parsed = [parse(m) for m in given]
    ranked = [(key, m) for key, m in zip(keys, parsed) if _is_ranked(m)]
    listed = [(key, m) for key, m in zip(keys, parsed) if not _is_ranked(m)]
    for _, m in ranked:
        _check_ranked(m)
    # one pass counts the AUC of every ranked auc/gauc metric: they share one `ties` rule
    auc_rules = {m.options["ties"] for _, m in ranked if m.name in ("auc", "gauc")}
    if len(auc_rules) > 1:
        raise ValueError(
            f"evaluate_model computes auc and gauc in one pass with one `ties` rule, got {sorted(auc_rules)}: "
            "evaluate each rule in its own call"
        )
    cutoffs = [m.k for _, m in listed if m.k is not None]
    for key, m in listed:
        if m.k is None and m.family != "catalog":
            raise ValueError(
                f"metric {key!r} needs a cutoff here (e.g. '{m.name}@10'): the lists are the top k; only auc, "
                "gauc and rr (mrr) are computed over the full catalog without one"
            )
    if k is None:
        if not cutoffs:
            k = 1 if ranked else None
        else:
            k = max(cutoffs)
        if k is None:
            raise ValueError("`k` is needed: give it, or a metric with a cutoff")
    k = int(check_k(k, "`k`") or 0)
    for key, m in listed:
        if m.k is not None and m.k > k:
            raise ValueError(f"metric {key!r} has a cutoff above k={k}: raise `k` to at least {m.k}")
    if empty is not None and empty not in _EMPTY:
        raise ValueError(f"`empty` must be one of {_EMPTY}, got {empty!r}")
    n_threads = resolve_threads(threads)
    blk = check_block(block)

    U, V = check_factors(user_vectors, item_vectors, score)
    n_users, n_items = U.shape[0], V.shape[0]
    rows_ids = None
    if user_ids is not None:
        rows_ids = np.array(as_id_array(user_ids, "user_ids"), copy=True)
        if rows_ids.size != n_users:
            raise ValueError(f"`user_ids` has {rows_ids.size} ids but `user_vectors` has {n_users} rows")
    ids = np.arange(n_items, dtype=np.int64) if item_ids is None else _item_labels(item_ids, n_items)
    t = to_truth(truth)
    rowmap = _rowmap(t.users, t.n_users, rows_ids, n_users)
    cols = _columns(t.items, None if item_ids is None else ids, n_items)
    if t.grades is None:
        rel = np.ones(cols.size, dtype=np.uint8)
    elif min_relevance is None:
        rel = (t.grades > 0).astype(np.uint8)
    else:
        rel = (t.grades >= min_relevance).astype(np.uint8)
    t_indptr, t_cols, t_rel, where = _truth_rows(t, rowmap, n_users, cols, rel)
    ex = exclusion_csr(exclude, (n_users, n_items), "user_vectors x item_vectors")
    auc_rule = AUC_TIES[auc_rules.pop() if auc_rules else "half"]
    cols2, sc2, lens, rank_rows, (rel_n, pos, neg, num2, auc) = factor_pass(
        U, V, k, ex, t_indptr, t_cols, t_rel, blk, n_threads, rows_ids, auc_rule
    )
    recs = Recs._of_lists(cols2, sc2, lens, None if item_ids is None else ids, rows_ids)
    truth_ranks = rank_rows[where]

    options.setdefault("catalog", ids)  # the catalog of a model: its item rows
    common = dict(threads=threads, empty=empty, min_relevance=min_relevance, **options)
    as_given = [g for g, m in zip(given, parsed) if not _is_ranked(m)]
    base = evaluate(t, recs, as_given or ["num_rel"], **common)
    if not ranked:
        return (base, truth_ranks) if ranks else base

    # the full-catalog columns, per truth user (rows in truth order)
    urow = np.arange(t.n_users, dtype=np.int64) if rowmap is None else rowmap
    rel_u, pos_u, neg_u, num2_u, auc_u = rel_n[urow], pos[urow], neg[urow], num2[urow], auc[urow]
    pol = empty or "skip"
    no_rel = rel_u == 0
    if pol == "error" and no_rel.any():
        u = int(np.flatnonzero(no_rel)[0])
        user = t.users[u] if t.users is not None else u
        user = user.item() if isinstance(user, np.generic) else user
        raise ValueError(f"user {user!r} has no relevant item in `truth` and empty='error'")
    lens_t = np.diff(t.indptr)
    owner = np.repeat(np.arange(t.n_users, dtype=np.int64), lens_t)
    hit = (truth_ranks > 0) & (rel > 0)
    best = np.full(t.n_users, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(best, owner[hit], truth_ranks[hit])
    extra = []
    for key, m in ranked:
        if m.name == "rr":
            vals = np.where(best < np.iinfo(np.int64).max, 1.0 / np.maximum(best, 1).astype(np.float64), 0.0)
            vals[no_rel] = {"skip": np.nan, "zero": 0.0, "one": 1.0, "error": np.nan}[pol]
            s, c = _exact(vals, n_threads)
        elif m.name == "gauc":
            ok = (pos_u > 0) & (neg_u > 0)
            vals = auc_u.copy()
            terms = np.where(ok, num2_u / np.where(ok, 2.0 * neg_u, 1.0), 0.0)
            s, _ = _exact(terms, n_threads)
            c = int(pos_u[ok].sum())
        else:
            vals = auc_u.copy()
            policy = m.options["one_class"]
            if policy != "skip":
                vals[(rel_u > 0) & ((pos_u == 0) | (neg_u == 0))] = 0.0 if policy == "zero" else 1.0
            if pol in ("zero", "one"):
                vals[no_rel] = 0.0 if pol == "zero" else 1.0
            s, c = _exact(vals, n_threads)
        extra.append((key, m, vals, s, c))
    result = _combine(base, listed, extra, keys)
    return (result, truth_ranks) if ranks else result


def _item_labels(item_ids: Any, n_items: int) -> np.ndarray:
    ids = as_id_array(item_ids, "item_ids")
    if ids.size != n_items:
        raise ValueError(f"`item_ids` has {ids.size} ids but `item_vectors` has {n_items} rows")
    return ids


def _combine(base: Result, listed: list, extra: list, keys: list) -> Result:
    """One Result: the list columns of ``base`` (in its column order), then the full-catalog columns."""
    st = base.state
    n_base = len(st.names) if listed else 0
    values = list(base._values[:n_base])
    names = list(st.names[:n_base])
    sums, counts = list(st.sums[:n_base]), list(st.counts[:n_base])
    key_to_col = {k: c for k, c in st.keys if c < n_base}
    canon_to_col = {n: i for i, n in enumerate(names)}
    for key, m, vals, s, c in extra:
        canon = str(m)
        if canon not in canon_to_col:
            canon_to_col[canon] = len(names)
            names.append(canon)
            values.append(vals)
            sums.append(s)
            counts.append(c)
        key_to_col[key] = canon_to_col[canon]
    state = State(
        names,
        sums,
        counts,
        st.meta,
        base.users,
        keys=[(k, key_to_col[k]) for k in dict.fromkeys(keys)],
        parts=st.parts,
        catalog=st.catalog,
        context=st.context,
    )
    return Result(
        values,
        list(dict.fromkeys(keys)),
        key_to_col,
        canon_to_col,
        state,
        base.users,
        dict(base.meta),
        state.values(),
    )
