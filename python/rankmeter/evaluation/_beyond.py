"""Beyond-accuracy and pairwise metrics: context inputs, item coding, kernel calls.

The metrics themselves run in C++ (``rankmeter/beyond.hpp``); this module turns
the context arguments of :func:`rankmeter.evaluate` (``train``,
``item_features``, ``item_similarity``, ``catalog``) into buffers over one dense
item code shared with the truth and the lists, builds the small per-item tables
(popularity, novelty), and aggregates exactly.

Item coding: when every id (truth, lists, train, feature/similarity rows,
catalog) is a non-negative int below max(2^22, 4 x the number of ids), the ids
are their own codes (no sort, no copy); otherwise all of them are factorised
jointly. Nothing here allocates n_users x n_users or n_items x n_items: the
pairwise metrics use the sum identities of SPEC §3.2, and a similarity matrix
is only read where the caller passed one.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from .. import _core
from .._aggregate import EXACT_SHIFT, limbs_to_int
from ..inputs import Truth, align, as_id_array, code_ids, id_label, to_truth
from ..metrics import SPECS

__all__ = ["Context", "run_beyond"]

_ID_LIMIT = 1 << 22


class Context:
    """The context arguments of one evaluation, as given (converted lazily)."""

    __slots__ = ("train", "item_features", "item_similarity", "catalog")

    def __init__(self, train=None, item_features=None, item_similarity=None, catalog=None, table_kw=None):
        self.train = None if train is None else to_truth_named(train, "train", table_kw or {})
        self.item_features = item_features
        self.item_similarity = item_similarity
        self.catalog = catalog


def to_truth_named(x: Any, what: str, table_kw: dict) -> Truth:
    try:
        return to_truth(x, what, **table_kw)
    except (TypeError, ValueError) as e:
        raise type(e)(str(e).replace("`truth`", f"`{what}`")) from None


def _missing(metric, arg: str, why: str) -> ValueError:
    return ValueError(f"metric {str(metric)!r} needs `{arg}` ({why}); pass {arg}=... to evaluate()")


# --------------------------------------------------------------------------- features / similarity
def _features(x: Any) -> tuple[np.ndarray, np.ndarray]:
    """(ids, float64 matrix) from a 2-D array (row = item id), a dict, an (ids, matrix) pair or a DataFrame."""
    if isinstance(x, dict):
        ids = as_id_array(list(x.keys()), "item_features ids")
        rows = [np.asarray(v, dtype=np.float64).ravel() for v in x.values()]
        if len({r.size for r in rows}) > 1:
            raise ValueError("`item_features` rows must all have the same length")
        mat = np.vstack(rows) if rows else np.zeros((0, 0))
    elif isinstance(x, tuple) and len(x) == 2:
        ids = as_id_array(x[0], "item_features ids")
        mat = np.asarray(x[1])
    elif hasattr(x, "index") and hasattr(x, "to_numpy"):  # pandas DataFrame
        ids = as_id_array(np.asarray(x.index), "item_features index")
        mat = x.to_numpy()
    else:
        mat = np.asarray(x)
        if mat.ndim != 2:
            raise ValueError(f"`item_features` must be 2-D (n_items x d), got shape {mat.shape}")
        ids = np.arange(mat.shape[0], dtype=np.int64)
    if mat.ndim != 2 or mat.shape[0] != ids.size:
        raise ValueError(f"`item_features` must have one row per item id: {ids.size} ids, matrix shape {mat.shape}")
    if mat.dtype.kind not in "fiu" or mat.dtype.kind == "b":
        raise TypeError(f"`item_features` must be numeric, got dtype {mat.dtype}")
    mat = np.asarray(mat, dtype=np.float64)
    if mat.size and not np.isfinite(mat).all():
        r = int(np.argwhere(~np.isfinite(mat))[0][0])
        raise ValueError(f"`item_features` must be finite; the row of item {ids[r]!r} is not")
    return ids, mat


def _similarity(x: Any) -> tuple[np.ndarray, Any]:
    """(ids, dense float64 matrix or scipy CSR) from a square array / sparse matrix or an (ids, matrix) pair."""
    if isinstance(x, tuple) and len(x) == 2:
        ids, m = as_id_array(x[0], "item_similarity ids"), x[1]
    else:
        m = x
        ids = None
    if hasattr(m, "tocsr"):
        m = m.tocsr()
        m.sort_indices()
    else:
        m = np.asarray(m)
        if m.dtype.kind not in "fiu" or m.dtype.kind == "b":
            raise TypeError(f"`item_similarity` must be numeric, got dtype {m.dtype}")
    if len(m.shape) != 2 or m.shape[0] != m.shape[1]:
        raise ValueError(f"`item_similarity` must be square (n_items x n_items), got shape {m.shape}")
    if ids is None:
        ids = np.arange(m.shape[0], dtype=np.int64)
    if ids.size != m.shape[0]:
        raise ValueError(f"`item_similarity` has {m.shape[0]} rows but {ids.size} ids")
    return ids, m


# --------------------------------------------------------------------------- coding
def _exact(values: np.ndarray, threads: int) -> tuple[int, int]:
    limbs, count = _core.exact_sum(np.ascontiguousarray(values, dtype=np.float64), threads)
    return limbs_to_int(limbs), int(count)


def _fraction_sum(num: int) -> int:
    """An integer count as an exact sum in units of 2^-1074 (so sum/count = num/count)."""
    return int(num) << EXACT_SHIFT


# --------------------------------------------------------------------------- main entry
_EMPTY = {"skip": 0, "zero": 1, "one": 2, "error": 3}


def run_beyond(p, cols: list, ctx: Context, threads: int):
    """Compute the beyond-accuracy columns ``cols`` (list of (col index, Metric)).

    Returns {col: (per-user values or None, exact sum, count, mean or None)}: per-user
    columns give values and an exact sum/count; catalog columns give only a mean.
    """
    metrics = [m for _, m in cols]
    check_context(metrics, ctx)
    t = p.truth
    # ordered lists as raw ids (+ scores)
    r_indptr, r_items = p.b_indptr, p.b_items
    r_scores = p.b_scores if any(m.name == "score_entropy" for m in metrics) else None
    train = ctx.train
    feat = (
        _features(ctx.item_features)
        if ctx.item_features is not None and any(_uses_features(m) for m in metrics)
        else None
    )
    sim = (
        _similarity(ctx.item_similarity)
        if any(m.name == "diversity" and m.options["similarity"] == "matrix" for m in metrics)
        else None
    )
    if sim is None and any(m.name == "diversity" and m.options["similarity"] == "matrix" for m in metrics):
        raise _missing(next(m for m in metrics if m.name == "diversity"), "item_similarity", _WHY["item_similarity"])
    catalog = None
    if ctx.catalog is not None:
        catalog = as_id_array(
            ctx.catalog if not isinstance(ctx.catalog, (set, frozenset)) else list(ctx.catalog), "catalog"
        )
    need_truth = any(m.name in ("fcp", "serendipity") for m in metrics)
    need_train = train is not None and any("train" in _needs(m) for m in metrics)
    # coverage and gini only need the set of train items (the default catalog)
    need_train_items = train is not None and catalog is None and any(m.name in ("coverage", "gini") for m in metrics)
    # keep only what the largest cutoff reads (0: whole lists)
    keep = 0 if any(m.k is None for m in metrics) else max(m.k for m in metrics)

    # The evaluated users' lists (aligned with the truth users, duplicates and max_items
    # applied, cut to `keep`), read on raw int ids; other ids are coded first.
    raw_ok = r_items.dtype == np.int64
    extra = []  # (name, ids) coded together with the kept list items
    if need_truth:
        extra.append(("truth", t.items))
    if need_train or need_train_items:
        extra.append(("train", train.items))
    if feat is not None:
        extra.append(("features", feat[0]))
    if sim is not None:
        extra.append(("similarity", sim[0]))
    if catalog is not None:
        extra.append(("catalog", catalog))
    if raw_ok:
        li, lt_raw, ls, st = _core.prepare_lists(
            t.n_users, p.rowmap, r_indptr, r_items, r_scores, p.dup_first, p.max_items or 0, keep, threads
        )
        _raise(st, p, None, "recs")
        coded, n_items, labels = code_ids([lt_raw] + [a for _, a in extra])
        lt = coded[0]
    else:
        coded, n_items, labels = code_ids([r_items] + [a for _, a in extra])
        li, lt, ls, st = _core.prepare_lists(
            t.n_users, p.rowmap, r_indptr, coded[0], r_scores, p.dup_first, p.max_items or 0, keep, threads
        )
        _raise(st, p, labels, "recs")
    code = {name: c for (name, _), c in zip(extra, coded[1:])}

    # train: distinct items per train user, popularity, histories aligned with the truth users
    pop_users = pop_inter = None
    h_rowmap = None
    n_train_users = 0
    tr_ip = tr_items = None
    if need_train or need_train_items:
        # popularity straight from the train rows (repeats counted once per user)
        pop_users, pop_inter, n_train_users = _core.train_popularity(train.indptr, code["train"], n_items, threads)
    if need_train:
        if any(
            m.name == "serendipity" or (m.name == "diversity" and m.options["similarity"] == "cooccurrence")
            for m in metrics
        ):  # these read the de-duplicated histories themselves
            tr_ip, tr_items, _, st = _core.prepare_lists(
                train.n_users, None, train.indptr, code["train"], None, True, 0, 0, threads
            )
        if any(m.name == "serendipity" for m in metrics):
            h_rowmap = _train_rowmap(t, train)

    # catalog: given, else the train items
    cat_mask = None
    if catalog is not None:
        cat_mask = np.zeros(n_items, dtype=bool)
        cat_mask[code["catalog"]] = True
    elif pop_users is not None:
        cat_mask = pop_users > 0

    X = has = None
    if feat is not None:
        X = np.zeros((n_items, feat[1].shape[1]), dtype=np.float64)
        has = np.zeros(n_items, dtype=np.uint8)
        norms = np.sqrt(np.einsum("ij,ij->i", feat[1], feat[1]))
        unit = np.divide(feat[1], norms[:, None], out=np.zeros_like(feat[1]), where=norms[:, None] > 0)
        X[code["features"]] = unit
        has[code["features"]] = 1

    t_codes = code.get("truth")
    out = {}
    counts_cache: dict = {}

    def counts_at(k):
        if k not in counts_cache:
            counts_cache[k] = _core.item_counts(li, lt, n_items, k, threads)
        return counts_cache[k]

    empty = _EMPTY[p.empty]
    for col, m in cols:
        k = m.k or 0
        o = m.options
        if m.name == "coverage":
            if cat_mask is None:
                raise _missing(m, "catalog", "or `train`, whose items are the default catalog")
            n_cat = int(np.count_nonzero(cat_mask))
            c = counts_at(k)
            out[col] = (None, 0, 0, (int(np.count_nonzero((c > 0) & cat_mask)) / n_cat) if n_cat else math.nan)
        elif m.name == "gini":
            c = counts_at(k)
            if o["over"] == "catalog":
                if cat_mask is None:
                    raise _missing(m, "catalog", "or `train`, whose items are the default catalog")
                v = c[cat_mask]
            else:
                v = c[c > 0]
            out[col] = (None, 0, 0, _gini(v))
        elif m.name == "personalization":
            lens = np.diff(li) if k == 0 else np.minimum(np.diff(li), k)
            n_users = int(np.count_nonzero(lens))
            pairs = n_users * (n_users - 1) // 2
            if pairs == 0:
                out[col] = (None, 0, 0, math.nan)
            elif o["similarity"] == "overlap":
                c = counts_at(k)
                same = int(np.sum(c * (c - 1) // 2, dtype=np.int64))
                kk = k if k else int(lens.max())
                out[col] = (None, 0, 0, 1.0 - same / (pairs * kk))
            else:
                total = _core.cosine_overlap_sum(li, lt, n_items, k, threads)
                out[col] = (None, 0, 0, 1.0 - total / pairs)
        elif m.name == "score_entropy":
            if ls is None:
                raise ValueError(
                    f"metric {str(m)!r} needs scores: pass recs with scores (a dict of item -> score, "
                    "a score column, Recs.from_scores or Recs.from_csr(..., scores))"
                )
            out[col] = (None, 0, 0, _core.score_entropy(li, lt, ls, n_items, k, threads))
        elif m.name in ("novelty", "arp"):
            table = _item_table(m, pop_users, pop_inter, n_train_users)
            vals = _core.mean_item_value(li, lt, table, k, m.name == "novelty" and o["divide_by"] == "k", threads)
            out[col] = (vals,) + _exact(vals, threads) + (None,)
        elif m.name == "diversity":
            if o["similarity"] == "features":
                if X is None:
                    raise _missing(m, "item_features", _WHY["item_features"])
                vals, st = _core.diversity_features(li, lt, X, has, k, threads)
                _raise(st, p, labels, "item_features")
            elif o["similarity"] == "matrix":
                ids_codes, mat = code["similarity"], sim[1]
                idx = np.full(n_items, -1, dtype=np.int64)
                idx[ids_codes] = np.arange(ids_codes.size, dtype=np.int64)
                if hasattr(mat, "tocsr"):
                    vals, st = _core.diversity_matrix(
                        li,
                        lt,
                        idx,
                        None,
                        mat.indptr.astype(np.int64),
                        mat.indices.astype(np.int64),
                        mat.data.astype(np.float64),
                        k,
                        threads,
                    )
                else:
                    vals, st = _core.diversity_matrix(
                        li, lt, idx, np.ascontiguousarray(mat, dtype=np.float64), None, None, None, k, threads
                    )
                _raise(st, p, labels, "item_similarity")
            else:
                if train is None:
                    raise _missing(m, "train", "co-occurrence of items in the train histories")
                iu_ip, iu_users = _item_users(tr_ip, tr_items, n_items)
                vals = _core.diversity_cooccurrence(li, lt, iu_ip, iu_users, k, threads)
            out[col] = (vals,) + _exact(vals, threads) + (None,)
        elif m.name == "serendipity":
            vals, st = _core.serendipity(
                li,
                lt,
                t.indptr,
                t_codes,
                t.grades,
                p.min_relevance,
                tr_ip,
                tr_items,
                h_rowmap,
                X,
                has,
                k,
                o["relevance"] == "all",
                empty,
                threads,
            )
            _raise(st, p, labels, "item_features")
            out[col] = (vals,) + _exact(vals, threads) + (None,)
        elif m.name == "fcp":
            conc, disc, st = _core.fcp_counts(
                li, lt, n_items, t.indptr, t_codes, t.grades, p.min_relevance, k, empty, threads
            )
            _raise(st, p, labels, "truth")
            tot = conc + disc
            no_rel = conc < 0
            with np.errstate(invalid="ignore", divide="ignore"):
                vals = np.where(tot > 0, conc / np.where(tot > 0, tot, 1), np.nan)
            if empty in (1, 2):
                vals[no_rel] = 0.0 if empty == 1 else 1.0
            if o["average"] == "pairs":
                c_sum = int(conc[~no_rel].sum())
                t_sum = int(tot[~no_rel].sum())
                out[col] = (vals, _fraction_sum(c_sum), t_sum, None)
            else:
                out[col] = (vals,) + _exact(vals, threads) + (None,)
        else:  # pragma: no cover - every beyond metric is handled above
            raise ValueError(f"metric {str(m)!r} is not a beyond-accuracy metric")
    return out


_WHY = {
    "train": "item popularity and user histories",
    "item_features": "one feature row per item id",
    "item_similarity": "an item x item similarity matrix",
}


def check_context(metrics, ctx: Context) -> None:
    """Every context argument the metrics need is there (checked before any work)."""
    for m in metrics:
        for arg in _needs(m):
            if getattr(ctx, arg) is None:
                raise _missing(m, arg, _WHY[arg])


def _needs(m) -> tuple:
    needs = list(SPECS[m.name].needs)
    if m.name == "diversity" and m.options["similarity"] == "features":
        needs.append("item_features")
    if m.name == "diversity" and m.options["similarity"] == "matrix":
        needs.append("item_similarity")
    if m.name == "diversity" and m.options["similarity"] == "cooccurrence":
        needs.append("train")
    return tuple(needs)


def _uses_features(m) -> bool:
    return "item_features" in _needs(m)


def _item_table(m, pop_users, pop_inter, n_train_users) -> np.ndarray:
    o = m.options
    if m.name == "novelty":
        pop = pop_users if o["popularity"] == "users" else pop_inter
        with np.errstate(divide="ignore"):
            table = -np.log2(pop / n_train_users) if n_train_users else np.full(pop.size, np.nan)
        cold = pop_users == 0
        if o["unseen"] == "skip":
            table[cold] = np.nan
        elif o["unseen"] == "zero":
            table[cold] = 0.0
        else:
            table[cold] = -math.log2(1.0 / n_train_users) if n_train_users else np.nan
        return table + 0.0  # -0.0 -> 0.0
    pop = (pop_users if o["popularity"] == "users" else pop_inter).astype(np.float64)
    cold = pop_users == 0
    if o["normalize"] == "max":
        mx = pop.max() if pop.size else 0.0
        pop = pop / mx if mx > 0 else np.zeros_like(pop)
    elif o["normalize"] == "total":
        tot = float(pop_inter.sum())
        pop = pop / tot if tot > 0 else np.zeros_like(pop)
    if o["unseen"] == "skip":
        pop[cold] = np.nan
    else:
        pop[cold] = 0.0
    return pop


def _gini(counts: np.ndarray) -> float:
    """Σ_j (2j - n - 1) c_j / ((n - 1) Σ c), counts sorted ascending (exact integers, one division)."""
    n = counts.size
    c = np.sort(counts.astype(np.int64))
    total = int(c.sum())
    if n < 2 or total == 0:
        return math.nan
    j = np.arange(1, n + 1, dtype=np.int64)
    num = (
        int(np.sum((2 * j - n - 1) * c, dtype=np.int64)) if n < (1 << 20) else sum(int(x) for x in (2 * j - n - 1) * c)
    )
    return num / ((n - 1) * total)


def _item_users(tr_ip: np.ndarray, tr_items: np.ndarray, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """item -> sorted distinct train rows (CSR), from the deduplicated train lists."""
    rows = np.repeat(np.arange(tr_ip.size - 1, dtype=np.int64), np.diff(tr_ip))
    order = np.argsort(tr_items, kind="stable")  # rows stay ascending within an item
    ip = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum(np.bincount(tr_items, minlength=n_items), out=ip[1:])
    return ip, np.ascontiguousarray(rows[order])


def _train_rowmap(t: Truth, train: Truth) -> Optional[np.ndarray]:
    """Train row of every truth user (-1: no history); None when the rows already match."""
    try:
        rowmap, _, _ = align(t, train)
    except ValueError as e:
        raise ValueError(str(e).replace("`recs`", "`train`")) from None
    return rowmap


_MESSAGES = {
    3: "`recs` lists item {item!r} more than once for user {user!r}; pass duplicates='first' to keep the first occurrence",
    4: "user {user!r} has no relevant item in `truth` and empty='error' (use empty='skip', 'zero' or 'one')",
    9: "`item_features` has no row for item {item!r} (in the top k of user {user!r}); every recommended item needs one",
    10: "`item_similarity` has no row for item {item!r} (in the top k of user {user!r}); every recommended item needs one",
}


def _raise(status, p, labels, what: str) -> None:
    code, uidx, item = status
    if code == 0:
        return
    user = p.users[uidx] if 0 <= uidx < p.users.size else uidx
    if isinstance(user, np.generic):
        user = user.item()
    msg = _MESSAGES.get(code, "invalid `" + what + "` input at user {user!r}")
    raise ValueError(msg.format(user=user, item=id_label(labels, int(item))))
