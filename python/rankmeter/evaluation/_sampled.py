"""Sampled evaluation of a factor model and Krichene & Rendle's correction (docs/model.md, "Sampled evaluation").

Each user's relevant items are ranked against ``n_negatives`` sampled items; the metrics of those sampled ranks
are reported with their bias-variance corrected estimates of the full-catalog metrics and, on request, the
exact full-catalog values (``evaluate_model``'s exact ranks).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable, Optional, Union

import numpy as np

from ..inputs import as_id_array, to_truth
from ..inputs._factors import check_factors, exclusion_csr
from ._auc_matrix import _columns, _rowmap
from ._model import evaluate_model

__all__ = ["evaluate_sampled", "SampledResult"]

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
DOMAIN_SAMPLED = 4  # the stream domains of cpp/include/rankmeter/significance.hpp use 1-3
_NAMES = {"recall": "recall", "hit_rate": "recall", "ndcg": "ndcg", "ap": "ap", "map": "ap", "precision": "precision"}
_NOCUT = {"rr": "rr", "mrr": "rr", "auc": "auc"}
_BLOCK = 1024  # users per block of gathered item vectors


def mix64(z: np.ndarray) -> np.ndarray:
    """splitmix64's output function on uint64 arrays (wraps mod 2^64 as the C++ does)."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def stream_words(seed: int, domain: int, rows: np.ndarray, count: int) -> np.ndarray:
    """Words 0 .. count-1 of the stream of ``resample_key(seed, domain, r)`` for every r of ``rows``:
    a (rows x count) uint64 grid, equal to ``_core.splitmix_words(seed, domain, r, count)`` row by row."""
    with np.errstate(over="ignore"):
        base = mix64(np.array([seed], dtype=np.uint64) + GOLDEN * np.uint64(domain))
        keys = mix64(base + GOLDEN * (rows.astype(np.uint64) + np.uint64(1)))
        w = GOLDEN * (np.arange(count, dtype=np.uint64) + np.uint64(1))
        return mix64(keys[:, None] + w[None, :])


def bounded(words: np.ndarray, n: np.ndarray) -> np.ndarray:
    """floor(word * n / 2^64) exactly (Lemire's multiply-shift, the ``bounded`` of significance.hpp), for
    n < 2^32, with uint64 arithmetic only."""
    n = n.astype(np.uint64)
    hi = words >> np.uint64(32)
    lo = words & np.uint64(0xFFFFFFFF)
    return (hi * n + ((lo * n) >> np.uint64(32))) >> np.uint64(32)


def _metric_spec(m: str) -> tuple[str, Optional[int]]:
    if not isinstance(m, str):
        raise TypeError(f"`metrics` entries must be strings such as 'ndcg@10', got {m!r}")
    name, _, cut = m.partition("@")
    if name in _NOCUT and not cut:
        return _NOCUT[name], None
    if name in _NAMES and cut:
        try:
            k = int(cut)
        except ValueError:
            k = 0
        if k >= 1:
            return _NAMES[name], k
    raise ValueError(
        f"`metrics` entry {m!r} is not supported here: use recall@k (hit_rate@k), ndcg@k, ap@k (map@k), "
        "precision@k, rr (mrr) or auc"
    )


def item_metric(kind: str, k: Optional[int], r: np.ndarray, n_neg: np.ndarray) -> np.ndarray:
    """The metric of one relevant item at rank r (1-based) among itself and n_neg negatives."""
    r = r.astype(np.float64)
    top = r <= (k or 0)
    if kind == "recall":
        return top.astype(np.float64)
    if kind == "precision":
        return top / float(k or 1)
    if kind == "ndcg":
        return np.where(top, 1.0 / np.log2(r + 1.0), 0.0)
    if kind == "ap":
        return np.where(top, 1.0 / r, 0.0)
    if kind == "rr":
        return 1.0 / r
    nn = np.asarray(n_neg, dtype=np.float64)
    return np.where(nn > 0, (nn - (r - 1.0)) / np.where(nn > 0, nn, 1.0), np.nan)  # auc


@lru_cache(maxsize=2)
def binom_matrix(n_full: int, m: int) -> np.ndarray:
    """A[r-1, s-1] = P(sampled rank s | full rank r) = Binom(s-1; m, (r-1)/(n_full-1)), r = 1..n_full."""
    from scipy.stats import binom

    p = np.arange(n_full, dtype=np.float64) / max(n_full - 1, 1)
    return binom.pmf(np.arange(m + 1)[None, :], m, p[:, None])


def correction_table(kind: str, k: Optional[int], n_full: int, m: int, gamma: float) -> np.ndarray:
    """The corrected value x[s-1] of sampled rank s: the minimiser over x of

        (1/N) sum_r [ (M(r) - sum_s A[r,s] x_s)^2 + gamma (sum_s A[r,s] x_s^2 - (sum_s A[r,s] x_s)^2) ]

    i.e. x = ((1 - gamma) A^T A + gamma diag(A^T 1))^-1 A^T M (Krichene & Rendle 2020, 4.3)."""
    A = binom_matrix(n_full, m)  # cached: one per (N, m), shared by the metrics of a call
    r = np.arange(1, n_full + 1)
    M = item_metric(kind, k, r, np.full(n_full, n_full - 1))
    mass = A.sum(axis=0)
    on = mass > 0  # sampled ranks that no full rank can give (N < m + 1) get 0
    A = A[:, on]
    lhs = (1.0 - gamma) * (A.T @ A) + gamma * np.diag(mass[on])
    x = np.zeros(m + 1, dtype=np.float64)
    x[on] = np.linalg.solve(lhs, A.T @ M)
    return x


class SampledResult:
    """What :func:`evaluate_sampled` returns: per metric the mean sampled value, its corrected estimate and
    (``full=True``) the exact full-catalog value, plus per-user values and the sampled rank of every truth entry."""

    def __init__(self, names, sampled, corrected, full, per_user, users, ranks, full_ranks, meta):
        self.metrics: list[str] = names
        self.sampled: dict[str, float] = sampled
        self.corrected: dict[str, float] = corrected
        self.full: Optional[dict[str, float]] = full
        self.per_user: dict[str, dict[str, np.ndarray]] = per_user
        self.users = users
        self.ranks: np.ndarray = ranks
        self.full_ranks: Optional[np.ndarray] = full_ranks
        self.meta: dict[str, Any] = meta

    def table(self) -> list[tuple[str, float, float, Optional[float]]]:
        """Rows ``(metric, sampled, corrected, full)`` (full is None without ``full=True``)."""
        return [
            (m, self.sampled[m], self.corrected[m], None if self.full is None else self.full[m]) for m in self.metrics
        ]

    def __repr__(self) -> str:
        lines = [f"{'metric':<14}{'sampled':>10}{'corrected':>11}{'full':>10}"]
        for m, s, c, f in self.table():
            lines.append(f"{m:<14}{s:>10.4f}{c:>11.4f}{'' if f is None else format(f, '.4f'):>10}")
        return "\n".join(lines)


def _forbidden(t_indptr, t_cols, ex_indptr, ex_cols, n_rows, n_items):
    """Per row, the sorted distinct columns a negative may not be: the truth items and the excluded ones."""
    lens_t = np.diff(t_indptr)
    rows = [np.repeat(np.arange(n_rows, dtype=np.int64), lens_t)]
    cols = [t_cols]
    if ex_indptr is not None:
        rows.append(np.repeat(np.arange(n_rows, dtype=np.int64), np.diff(ex_indptr)))
        cols.append(ex_cols)
    r = np.concatenate(rows)
    c = np.concatenate(cols)
    ok = (c >= 0) & (c < n_items)
    key = np.unique(r[ok] * n_items + c[ok])
    f_rows, f_cols = key // n_items, key % n_items
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(f_rows, minlength=n_rows), out=indptr[1:])
    return indptr, f_cols


def sample_negatives(words, rows, weights, f_indptr, f_cols):
    """Draw j of row u: x = bounded(word, W_u) in [0, W_u), W_u the weight of u's eligible items; the item is
    the eligible item i with E_u(i-1) <= x < E_u(i), E_u the cumulative eligible weight (inverse CDF). Returns
    (items, W_u); a row with W_u = 0 draws nothing (items -1)."""
    cum = np.cumsum(weights.astype(np.int64))
    total = int(cum[-1]) if cum.size else 0
    f_w = weights[f_cols].astype(np.int64)
    f_cum = np.zeros(f_cols.size + 1, dtype=np.int64)
    np.cumsum(f_w, out=f_cum[1:])
    fw_row = f_cum[f_indptr[rows + 1]] - f_cum[f_indptr[rows]]
    W = total - fw_row
    if np.any(W >= 2**32):
        raise ValueError("the total sampling weight of a user must stay below 2^32")
    x = bounded(words, np.maximum(W, 0)[:, None]).astype(np.int64)
    n_items = weights.size
    # y = x + weight of the forbidden items at or before the drawn item, found by a fixed point: y only grows,
    # and stops once the item found at y has no forbidden item between the last guess and it.
    span = n_items + 1
    f_rows = np.repeat(np.arange(f_indptr.size - 1, dtype=np.int64), np.diff(f_indptr))
    fkey = f_rows * span + f_cols  # sorted: rows, then columns
    fsum = f_cum  # fsum[p]: weight of the first p forbidden entries
    y = x.copy()
    base = (rows * span)[:, None]
    while True:
        item = np.searchsorted(cum, y, side="right")  # smallest i with cum[i] > y
        pos = np.searchsorted(fkey, base + item, side="right")  # forbidden entries of the row at or before item
        add = fsum[pos] - fsum[f_indptr[rows]][:, None]
        y_new = x + add
        if np.array_equal(y_new, y):
            break
        y = y_new
    item = np.where(W[:, None] > 0, item, -1)
    return item, W


def evaluate_sampled(
    truth: Any,
    user_vectors: Any,
    item_vectors: Any,
    metrics: Union[str, Iterable[str]],
    *,
    n_negatives: int = 100,
    sampling: str = "uniform",
    train: Any = None,
    seed: int = 0,
    correction: str = "bias_variance",
    gamma: float = 0.01,
    full: bool = False,
    user_ids: Any = None,
    item_ids: Any = None,
) -> SampledResult:
    """Sampled evaluation of a factor model, with Krichene & Rendle's corrected estimates of the full metrics.

    Each relevant truth item c of user u is ranked among itself and ``n_negatives`` items drawn for u from the
    items that are neither u's truth items nor in ``train`` for u:

        s(u, c) = 1 + #{j sampled : v_j > v_c} + #{j sampled : v_j = v_c, j < c}

    (draws with replacement, so a negative drawn twice counts twice; ties in column order as in
    ``Recs.from_scores``). Scores are float32 dot products of ``user_vectors`` and ``item_vectors`` computed with
    numpy (``einsum``), which may differ in the last bits from :func:`rankmeter.factor_scores`.

    Parameters
    ----------
    truth : any truth form of :func:`rankmeter.evaluate`
        Held-out items per user; an entry with grade <= 0 is not ranked (and never a negative).
    user_vectors, item_vectors : array (n_users x dim), (n_items x dim)
        The factors; rows are users and items (or ``user_ids`` / ``item_ids`` label them).
    metrics : str or list of str
        ``recall@k`` (``hit_rate@k``), ``ndcg@k``, ``ap@k`` (``map@k``), ``precision@k``, ``rr`` (``mrr``), ``auc``.
        Per relevant item at sampled rank s among m negatives: [s <= k], [s <= k] / log2(s + 1), [s <= k] / s,
        [s <= k] / k, 1 / s, (m - s + 1) / m; averaged over the user's relevant items, then over users.
    n_negatives : int, default 100
        Draws per user.
    sampling : {"uniform", "popularity"}
        Uniform over eligible items, or proportional to each item's number of ``train`` entries (items without
        one are never drawn).
    train : scipy.sparse (n_users x n_items) or CSR pair, optional
        Excluded items per user (never negatives, never ranked), and the popularity counts.
    seed : int
        Draw j of the user at row u is word j of the counter-based stream ``resample_key(seed, 4, u)`` of
        cpp/include/rankmeter/significance.hpp, so it does not depend on order, batch or the other users.
    correction : {"bias_variance", "none"}
        ``"bias_variance"``: each sampled rank s is mapped to x_s, the minimiser of
        sum_r [(M(r) - sum_s P(s|r) x_s)^2 + gamma Var(x_S | r)] over full ranks r = 1..N, with
        P(s|r) = Binom(s - 1; m, (r - 1)/(N - 1)) and N the mean number of eligible negatives + 1 (Krichene &
        Rendle, "On Sampled Metrics for Item Recommendation", KDD 2020, section 4.3). ``"none"``: the raw value.
        Uniform sampling only.
    gamma : float, default 0.01
        The bias-variance trade-off weight, in (0, 1] (0, the pure least-squares form, is singular when
        N < n_negatives + 1 and ill-conditioned at realistic N).
    full : bool
        Also compute the exact full-catalog values (``evaluate_model``'s exact ranks, ranked against every
        eligible non-truth item).

    Returns
    -------
    SampledResult

    Raises
    ------
    TypeError, ValueError
        A bad argument, named in the message.

    Examples
    --------
    >>> import numpy as np, rankmeter as rm
    >>> U = np.array([[1.0, 0.0]], dtype=np.float32)
    >>> V = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.0]], dtype=np.float32)
    >>> res = rm.evaluate_sampled({0: [0]}, U, V, ["recall@1"], n_negatives=5, correction="none")
    >>> res.sampled["recall@1"]
    1.0
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    names = list(metrics)
    if not names:
        raise ValueError("`metrics` is empty: name at least one metric")
    specs = [_metric_spec(m) for m in names]
    if isinstance(n_negatives, bool) or not isinstance(n_negatives, (int, np.integer)) or n_negatives < 1:
        raise ValueError(f"`n_negatives` must be a positive integer, got {n_negatives!r}")
    n_neg = int(n_negatives)
    if sampling not in ("uniform", "popularity"):
        raise ValueError(f"`sampling` must be 'uniform' or 'popularity', got {sampling!r}")
    if correction not in ("bias_variance", "none"):
        raise ValueError(f"`correction` must be 'bias_variance' or 'none', got {correction!r}")
    if correction == "bias_variance" and sampling != "uniform":
        raise ValueError(
            "`correction`='bias_variance' assumes uniform sampling (the binomial P(sampled rank | full rank)); "
            "use correction='none' with sampling='popularity'"
        )
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or not 0.0 < float(gamma) <= 1.0:
        raise ValueError(f"`gamma` must be a number in (0, 1], got {gamma!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**64:
        raise ValueError(f"`seed` must be an integer in [0, 2^64), got {seed!r}")
    if not isinstance(full, bool):
        raise TypeError(f"`full` must be True or False, got {full!r}")
    if sampling == "popularity" and train is None:
        raise ValueError("`train` is needed for sampling='popularity' (the popularity counts)")

    U, V = check_factors(user_vectors, item_vectors)
    n_rows, n_items = U.shape[0], V.shape[0]
    rows_ids = None
    if user_ids is not None:
        rows_ids = np.array(as_id_array(user_ids, "user_ids"), copy=True)
        if rows_ids.size != n_rows:
            raise ValueError(f"`user_ids` has {rows_ids.size} ids but `user_vectors` has {n_rows} rows")
    ids = None
    if item_ids is not None:
        ids = as_id_array(item_ids, "item_ids")
        if ids.size != n_items:
            raise ValueError(f"`item_ids` has {ids.size} ids but `item_vectors` has {n_items} rows")
    t = to_truth(truth)
    rowmap = _rowmap(t.users, t.n_users, rows_ids, n_rows)
    urow = np.arange(t.n_users, dtype=np.int64) if rowmap is None else rowmap
    cols = _columns(t.items, ids, n_items)
    rel = np.ones(cols.size, dtype=bool) if t.grades is None else (np.asarray(t.grades) > 0)
    lens = np.diff(t.indptr)
    owner = np.repeat(np.arange(t.n_users, dtype=np.int64), lens)
    ex_indptr, ex_cols = exclusion_csr(train, (n_rows, n_items), "user_vectors x item_vectors")

    # truth columns per factor row (every entry, relevant or not, is kept out of the negatives)
    t_row_of = urow[owner]
    order = np.argsort(t_row_of, kind="stable")
    t_indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(t_row_of, minlength=n_rows), out=t_indptr[1:])
    f_indptr, f_cols = _forbidden(t_indptr, cols[order], ex_indptr, ex_cols, n_rows, n_items)
    if sampling == "uniform":
        weights = np.ones(n_items, dtype=np.int64)
    else:
        weights = np.bincount(ex_cols if ex_cols is not None else np.zeros(0, np.int64), minlength=n_items).astype(
            np.int64
        )

    # an entry is ranked when relevant, an item row, and not excluded for its user
    in_range = (cols >= 0) & (cols < n_items)
    excluded = np.zeros(cols.size, dtype=bool)
    if ex_indptr is not None and cols.size:
        ex_key = np.repeat(np.arange(n_rows, dtype=np.int64), np.diff(ex_indptr)) * n_items + ex_cols
        excluded = np.isin(t_row_of * n_items + np.where(in_range, cols, 0), ex_key) & in_range
    ranked = rel & in_range & ~excluded

    # sampled ranks, users in blocks (draws depend on the row only)
    s_rank = np.zeros(cols.size, dtype=np.int64)
    m_user = np.zeros(t.n_users, dtype=np.int64)
    for b0 in range(0, t.n_users, _BLOCK):
        users = np.arange(b0, min(b0 + _BLOCK, t.n_users))
        rows = urow[users]
        words = stream_words(int(seed), DOMAIN_SAMPLED, rows, n_neg)
        neg, W = sample_negatives(words, rows, weights, f_indptr, f_cols)
        m_user[users] = np.where(W > 0, n_neg, 0)
        negc = np.maximum(neg, 0)
        ns = np.einsum("ud,und->un", U[rows], V[negc], dtype=np.float32, optimize=False)
        e0, e1 = t.indptr[b0], t.indptr[users[-1] + 1]
        ent = np.arange(e0, e1)
        ent = ent[ranked[ent]]
        if ent.size == 0:
            continue
        eu = owner[ent] - b0
        c = cols[ent]
        cs = np.einsum("ed,ed->e", U[urow[owner[ent]]], V[c], dtype=np.float32, optimize=False)
        nsc, nid = ns[eu], neg[eu]
        above = (nsc > cs[:, None]) | ((nsc == cs[:, None]) & (nid < c[:, None]))
        above &= nid >= 0
        s_rank[ent] = 1 + above.sum(axis=1)

    # full ranks: among every eligible item that is not a truth item of the user
    f_rank = None
    n_elig = n_items - (f_indptr[urow + 1] - f_indptr[urow])  # eligible negatives per user
    if full:
        _, r_all = evaluate_model(
            t,
            U,
            V,
            ["mrr"],
            exclude=None if ex_indptr is None else (ex_indptr, ex_cols),
            k=1,
            user_ids=rows_ids,
            item_ids=ids,
            ranks=True,
        )
        f_rank = _without_other_truth(r_all, owner, in_range & ~excluded)
    n_full = max(round(float(n_elig.mean())) + 1, 2) if t.n_users else 2

    sampled: dict[str, float] = {}
    corrected: dict[str, float] = {}
    fullv: dict[str, float] = {}
    per_user: dict[str, dict[str, np.ndarray]] = {}
    ent_m = m_user[owner]
    for name, (kind, k) in zip(names, specs):
        v_s = item_metric(kind, k, np.maximum(s_rank, 1), ent_m)
        pu = {"sampled": _per_user(v_s, ranked, owner, t.n_users)}
        if correction == "bias_variance":
            x = correction_table(kind, k, n_full, n_neg, float(gamma))
            v_c = np.where(ent_m > 0, x[np.clip(s_rank - 1, 0, n_neg)], v_s)
        else:
            v_c = v_s
        pu["corrected"] = _per_user(v_c, ranked, owner, t.n_users)
        sampled[name] = float(np.nanmean(pu["sampled"])) if np.any(~np.isnan(pu["sampled"])) else float("nan")
        corrected[name] = float(np.nanmean(pu["corrected"])) if np.any(~np.isnan(pu["corrected"])) else float("nan")
        if full and f_rank is not None:
            v_f = item_metric(kind, k, np.maximum(f_rank, 1), n_elig[owner])
            pu["full"] = _per_user(v_f, ranked, owner, t.n_users)
            fullv[name] = float(np.nanmean(pu["full"])) if np.any(~np.isnan(pu["full"])) else float("nan")
        per_user[name] = pu
    users = t.users if t.users is not None else np.arange(t.n_users)
    meta = dict(
        n_negatives=n_neg,
        sampling=sampling,
        seed=int(seed),
        correction=correction,
        gamma=float(gamma),
        n_full=n_full,
        replacement=True,
    )
    return SampledResult(
        names, sampled, corrected, fullv if full else None, per_user, users, np.where(ranked, s_rank, 0), f_rank, meta
    )


def _per_user(v: np.ndarray, ranked: np.ndarray, owner: np.ndarray, n_users: int) -> np.ndarray:
    """Mean over each user's ranked entries (NaN where it has none, or the value is NaN)."""
    ok = ranked & ~np.isnan(v)
    s = np.bincount(owner[ok], weights=v[ok], minlength=n_users)
    c = np.bincount(owner[ok], minlength=n_users)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(c > 0, s / np.maximum(c, 1), np.nan)


def _without_other_truth(r_all: np.ndarray, owner: np.ndarray, eligible: np.ndarray) -> np.ndarray:
    """evaluate_model's exact rank of each truth entry less the user's other eligible truth entries above it."""
    key_r = np.where(eligible, r_all, 0)
    order = np.lexsort((key_r, owner))
    o, r = owner[order], key_r[order]
    # within a user, entries sorted by rank: the number of eligible entries before this one
    pos = np.arange(order.size)
    first = np.searchsorted(o, o, side="left")
    n_zero_before = np.zeros(order.size, dtype=np.int64)
    zero = (r == 0).astype(np.int64)
    cz = np.concatenate([[0], np.cumsum(zero)])
    n_zero_before = cz[pos] - cz[first]
    before = pos - first - n_zero_before
    out = np.zeros(order.size, dtype=np.int64)
    out[order] = np.where(r > 0, r - before, 0)
    return out
