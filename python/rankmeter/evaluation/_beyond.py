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
pairwise metrics use exact sum identities (no pair loop where one exists), and a similarity matrix
is only read where the caller passed one.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from typing import Any, Optional

import numpy as np

from .. import _core
from .._aggregate import EXACT_SHIFT, CatalogPart, entropy_part, limbs_to_int, reads_catalog
from .._exposure_values import EQUAL_OPPORTUNITY
from .._status import MESSAGES, is_ok, message
from ..inputs import Truth, align, as_id_array, code_ids, id_label, to_truth
from ._calibration import calibration_column, read_item_categories
from ._costs import read_costs
from ._expected_exposure import EE_COLUMNS, ee_column
from ._exposure import (
    EXPOSURE_METRICS,
    GROUP_METRICS,
    HISTORY_METRICS,
    awrf_column,
    exposure_histograms,
    groups_fingerprint,
    needs_grades,
    read_item_groups,
)
from ._options import AUC_TIES, DUP_CODES, EMPTY_CODES
from ._popularity import (
    POPULARITY_METRICS,
    TABLE_METRICS,
    check_popularity_options,
    given_tail,
    in_place,
    needs_truth,
    pop_table,
    popularity_column,
    read_tail_items,
    table_mode,
    tail_fingerprint,
)
from ._propensity import IPS_METRICS, check_ips_options, ips_column, read_propensity
from ._subtopic import SUBTOPIC_METRICS, read_subtopics, subtopic_column

__all__ = ["Context", "run_beyond", "check_context", "context_needs"]

# Ids below max(_CODE_LIMIT, 4 x the number of ids read) are their own codes (the rule of inputs.code_ids)
_CODE_LIMIT = 1 << 22


class Context:
    """The context arguments of one evaluation, as given (converted lazily)."""

    __slots__ = (
        "train",
        "item_features",
        "item_similarity",
        "catalog",
        "subtopics",
        "costs",
        "tail_items",
        "item_categories",
        "propensity",
        "item_groups",
    )

    def __init__(
        self,
        train=None,
        item_features=None,
        item_similarity=None,
        catalog=None,
        subtopics=None,
        costs=None,
        tail_items=None,
        item_categories=None,
        propensity=None,
        item_groups=None,
        table_kw=None,
    ):
        self.train = None if train is None else to_truth_named(train, "train", table_kw or {})
        self.item_features = item_features
        self.item_similarity = item_similarity
        self.catalog = catalog
        self.subtopics = None if subtopics is None else read_subtopics(subtopics, table_kw or {})
        self.costs = None if costs is None else read_costs(costs, table_kw or {})
        self.tail_items = None if tail_items is None else read_tail_items(tail_items)
        self.item_categories = (
            None if item_categories is None else read_item_categories(item_categories, table_kw or {})
        )
        self.propensity = None if propensity is None else read_propensity(propensity, self.train)
        self.item_groups = None if item_groups is None else read_item_groups(item_groups, table_kw or {})


def to_truth_named(x: Any, what: str, table_kw: dict) -> Truth:
    try:
        return to_truth(x, what, **table_kw)
    except (TypeError, ValueError) as e:
        raise type(e)(str(e).replace("`truth`", f"`{what}`")) from None


# Under duplicates="miss" and "count" the kernels read every list as given (a repeated item at each of its
# positions: novelty, arp, diversity, gini and score_entropy count every occurrence in the top k, coverage
# the distinct items). These compare the items of a list as a set or as hits, where a repeat has no meaning:
# a list holding one is an error (docs/metrics.md 6.1).
_NO_REPEATS = (
    "personalization",
    "serendipity",
    "fcp",
    *SUBTOPIC_METRICS,
    "auc",
    "gauc",
    "lauc",
    *EQUAL_OPPORTUNITY,
)

# the metrics that read each evaluated user's train history (serendipity, miscalibration's p(g|u))
_HISTORY_READERS = ("serendipity", "miscalibration", *HISTORY_METRICS)

# The AUC family (docs/metrics.md 3.19.10-3.19.12): one kernel, rankmeter/auc.hpp
AUC_METRICS = ("auc", "gauc", "lauc")


def _list_policy(p: Any, metrics: list) -> Any:
    """The duplicates policy the beyond-accuracy kernels read the lists with."""
    if p.duplicates in ("miss", "count") and any(m.name in _NO_REPEATS for m in metrics):
        return DUP_CODES["error"]
    return DUP_CODES[p.duplicates]


def _raise_lists(status, p: Any, labels, metrics: list) -> None:
    """_raise for the lists' status, naming the metrics that cannot read a repeat under miss/count."""
    code, uidx, item = status
    if code == _core.Code.duplicate_recs and p.duplicates in ("miss", "count"):
        user = p.users[uidx] if 0 <= uidx < p.users.size else uidx
        user = user.item() if isinstance(user, np.generic) else user
        names = ", ".join(dict.fromkeys(str(m) for m in metrics if m.name in _NO_REPEATS))
        raise ValueError(
            f"`recs` lists item {id_label(labels, int(item))!r} more than once for user {user!r}: {names} "
            f"compare(s) the items of a list as a set or as hits, which a repeated item does not fit under "
            f"duplicates={p.duplicates!r}; evaluate {names} in another call with duplicates='first'"
        )
    _raise(status, p, labels, "recs")


def _missing(metric, arg: str, why: str) -> ValueError:
    return ValueError(f"metric {str(metric)!r} needs `{arg}` ({why}); pass {arg}=... with the metrics")


# --------------------------------------------------------------------------- features / similarity
def _is_matrix(x: Any) -> bool:
    """A 2-D matrix: scipy.sparse, a DataFrame or anything numpy sees as 2-D."""
    if hasattr(x, "tocsr") or (hasattr(x, "columns") and hasattr(x, "to_numpy")):
        return True
    return getattr(x, "ndim", None) == 2 or (isinstance(x, (list, tuple)) and np.ndim(x) == 2)


def _pair(x: Any, what: str) -> tuple[Any, Any]:
    """(ids, matrix) from an ``(ids, matrix)`` or ``(matrix, ids)`` pair."""
    a, b = x
    if _is_matrix(a) and not _is_matrix(b):
        a, b = b, a
    return as_id_array(list(a) if not isinstance(a, np.ndarray) else a, f"{what} ids"), b


def _is_pandas_frame(x: Any) -> bool:
    return type(x).__module__.split(".")[0] == "pandas" and hasattr(x, "columns") and hasattr(x, "index")


def _features(x: Any) -> tuple[np.ndarray, np.ndarray]:
    """(ids, float64 matrix) from a 2-D array (row = item id), a dict, an (ids, matrix) or (matrix, ids)
    pair or a pandas DataFrame indexed by item id (any id type)."""
    if isinstance(x, dict):
        ids = as_id_array(list(x.keys()), "item_features ids")
        rows = [np.asarray(v, dtype=np.float64).ravel() for v in x.values()]
        if len({r.size for r in rows}) > 1:
            raise ValueError("`item_features` rows must all have the same length")
        mat = np.vstack(rows) if rows else np.zeros((0, 0))
    elif isinstance(x, tuple) and len(x) == 2:
        ids, mat = _pair(x, "item_features")
        mat = np.asarray(mat)
    elif _is_pandas_frame(x):
        ids = as_id_array(x.index.tolist(), "item_features index")
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


def _similarity_frame(x: Any) -> tuple[np.ndarray, np.ndarray]:
    """(ids, matrix) of a DataFrame whose index and columns are the same item ids (columns in any order)."""
    index, cols = x.index, x.columns
    if index.has_duplicates or cols.has_duplicates:
        dup = (index[index.duplicated()] if index.has_duplicates else cols[cols.duplicated()])[0]
        raise ValueError(f"`item_similarity` DataFrame lists item {dup!r} more than once in its index or columns")
    if len(cols) != len(index) or not cols.isin(index).all():
        extra = [c for c in cols.tolist() if c not in set(index.tolist())][:3]
        missing = [i for i in index.tolist() if i not in set(cols.tolist())][:3]
        raise ValueError(
            "`item_similarity` DataFrame must have the same item ids as index and as columns; "
            f"columns not in the index: {extra!r}, index ids not in the columns: {missing!r}"
        )
    if not cols.equals(index):
        x = x.reindex(columns=index)  # align the columns to the rows
    return as_id_array(index.tolist(), "item_similarity index"), x.to_numpy()


def _similarity_dict(x: dict) -> tuple[np.ndarray, Any]:
    """(ids, matrix) of ``{a: {b: sim}}``: pairs given in neither direction are 0; a pair given in one
    direction only counts for both (diversity reads unordered pairs). scipy CSR when scipy is
    importable, else dense."""
    for a, row in x.items():
        if not isinstance(row, dict):
            raise TypeError(
                f"`item_similarity` dict must map item -> {{item: similarity}}, got {type(row).__name__} for item {a!r}"
            )
    ids = as_id_array(
        list(dict.fromkeys(itertools.chain(x.keys(), *(r.keys() for r in x.values())))), "item_similarity ids"
    )
    index = {v: j for j, v in enumerate(ids.tolist())}  # row/column of every id
    n = ids.size
    rows = np.fromiter((index[a] for a, r in x.items() for _ in r), dtype=np.int64)
    cols = np.fromiter((index[b] for r in x.values() for b in r), dtype=np.int64, count=rows.size)
    try:
        vals = np.fromiter((v for r in x.values() for v in r.values()), dtype=np.float64, count=rows.size)
    except (TypeError, ValueError) as e:
        raise TypeError(f"`item_similarity` values must be numbers: {e}") from None
    # the mirror of every pair given in one direction only
    key = rows * max(n, 1) + cols
    mirror = ~np.isin(cols * max(n, 1) + rows, key)
    rows, cols = np.concatenate([rows, cols[mirror]]), np.concatenate([cols, rows[mirror]])
    vals = np.concatenate([vals, vals[mirror]])
    try:
        import scipy.sparse as sp
    except ImportError:
        m = np.zeros((n, n), dtype=np.float64)
        m[rows, cols] = vals
        return ids, m
    return ids, sp.csr_matrix((vals, (rows, cols)), shape=(n, n))


def _similarity(x: Any) -> tuple[np.ndarray, Any]:
    """(ids, dense float64 matrix or scipy CSR) from a square array / sparse matrix (row = item id),
    an (ids, matrix) or (matrix, ids) pair, a DataFrame whose index and columns are item ids, or a
    dict of dicts ``{a: {b: sim}}``."""
    ids = None
    if isinstance(x, dict):
        ids, m = _similarity_dict(x)
    elif isinstance(x, tuple) and len(x) == 2:
        ids, m = _pair(x, "item_similarity")
        if _is_pandas_frame(m):
            m = m.to_numpy()
    elif _is_pandas_frame(x):
        ids, m = _similarity_frame(x)
    else:
        m = x
    if hasattr(m, "tocsr"):
        m = m.tocsr()
        if not m.has_sorted_indices:
            m = m.copy()  # tocsr() of a CSR matrix is the caller's own object: sort a copy
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


# --------------------------------------------------------------------------- context, prepared once
class Prepared:
    """Everything the beyond-accuracy families read, prepared once per call.

    ``li``/``lt``/``ls``: the evaluated users' lists (aligned with the truth users,
    duplicates and ``max_items`` applied, cut to the largest cutoff) as CSR over one
    dense item code (``labels[code]`` is the item id; None: ids are codes); train
    popularity, histories, the catalog mask and unit feature vectors on the same code.
    """

    # arrays set only when a metric of the call reads them (None otherwise)
    li: Any
    lt: Any
    ls: Any
    labels: Any
    feat: Any
    sim: Any
    train: Any
    pop_users: Any
    pop_inter: Any
    h_rowmap: Any
    tr_ip: Any
    tr_items: Any
    cat_mask: Any
    X: Any
    has: Any

    def __init__(self, p: Any, metrics: list, ctx: Context, threads: int):
        self.p, self.ctx, self.threads = p, ctx, threads
        self.metrics = metrics
        t = p.truth
        # CSR, or a padded int64 array read in place (r_indptr None, r_lens: the length of every row)
        r_indptr, r_items, r_lens = p.b_indptr, p.b_items, p.b_lens
        r_scores = p.b_scores if any(m.name in ("score_entropy", "auc", "gauc") for m in metrics) else None
        train: Any = ctx.train
        feat = (
            _features(ctx.item_features)
            if ctx.item_features is not None and any(_uses_features(m) for m in metrics)
            else None
        )
        sim = _similarity(ctx.item_similarity) if any(_uses_similarity(m) for m in metrics) else None
        catalog = None
        if ctx.catalog is not None:
            catalog = as_id_array(
                ctx.catalog if not isinstance(ctx.catalog, (set, frozenset)) else list(ctx.catalog), "catalog"
            )
        need_truth = any(
            m.name in ("fcp", "serendipity", *AUC_METRICS, *IPS_METRICS, *EE_COLUMNS)
            or needs_truth(m)
            or needs_grades(m)
            for m in metrics
        )
        # the AUC family over catalog negatives leaves out each user's train items (seen="exclude")
        auc_seen = train is not None and any(_auc_catalog(m) and m.options["seen"] == "exclude" for m in metrics)
        need_train = (train is not None and any("train" in context_needs(m) for m in metrics)) or auc_seen
        # coverage and gini over the catalog only need the set of train items (the default catalog), as does the
        # AUC family over catalog negatives
        need_train_items = (
            train is not None and catalog is None and any(reads_catalog(m) or _auc_catalog(m) for m in metrics)
        )
        # keep only what the largest cutoff reads (0: whole lists)
        keep = 0 if any(m.k is None for m in metrics) else max(m.k for m in metrics)
        self.feat, self.sim, self.train = feat, sim, train
        self.dups = _list_policy(p, metrics)
        self._counts: dict = {}
        self._means: dict = {}
        if self._in_place(metrics, r_indptr, r_items, train, catalog, keep, need_train or need_train_items):
            return

        # read on raw int ids when possible; other ids are coded first
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
        if ctx.subtopics is not None and any(m.name in SUBTOPIC_METRICS for m in metrics):
            extra.append(("subtopics", ctx.subtopics.items))
        if ctx.tail_items is not None and any(given_tail(m) for m in metrics):
            extra.append(("tail_items", ctx.tail_items))
        if ctx.item_categories is not None and any(m.name == "miscalibration" for m in metrics):
            extra.append(("categories", ctx.item_categories.items))
        if ctx.propensity is not None and any(m.name in IPS_METRICS for m in metrics):
            extra.append(("propensity", ctx.propensity.ids))
        if ctx.item_groups is not None and any(m.name in GROUP_METRICS for m in metrics):
            extra.append(("groups", ctx.item_groups.items))
        li: Any
        lt: Any
        ls: Any
        coded: list[Any]
        self.raw_lists = False
        raw = None
        if r_items.dtype == np.int64 and all(m.name in AUC_METRICS for m in metrics) and extra:
            # the AUC kernel reads the lists as given (no copy): only the truth, train and catalog ids are coded,
            # and only when they are their own codes (a list item outside them is simply none of them)
            raw = code_ids([a for _, a in extra])
        if raw is not None and raw[2] is None:
            coded, n_items, labels = [None, *raw[0]], raw[1], None
            li = lt = ls = None
            self.raw_lists = True
            self.keep = keep
        elif r_items.dtype == np.int64:
            li, lt_raw, ls, st = _core.prepare_lists(
                t.n_users, p.rowmap, r_indptr, r_items, r_scores, self.dups, p.max_items or 0, keep, threads, r_lens
            )
            _raise_lists(st, p, None, metrics)
            coded, n_items, labels = code_ids([lt_raw] + [a for _, a in extra])
            lt = coded[0]
        else:
            coded, n_items, labels = code_ids([r_items] + [a for _, a in extra])
            li, lt, ls, st = _core.prepare_lists(
                t.n_users, p.rowmap, r_indptr, coded[0], r_scores, self.dups, p.max_items or 0, keep, threads
            )
            _raise_lists(st, p, labels, metrics)
        self.li, self.lt, self.ls, self.n_items, self.labels = li, lt, ls, n_items, labels
        # (lists read in place by the AUC kernel alone: no kept lengths are read)
        self.kept = np.diff(li) if li is not None else np.zeros(0, dtype=np.int64)
        self.code = {name: c for (name, _), c in zip(extra, coded[1:])}

        # train: popularity (repeats counted once per user), histories aligned with the truth users
        self.pop_users = self.pop_inter = None
        self.h_rowmap = self.tr_ip = self.tr_items = None
        self.n_train_users = 0
        # item popularity: read by every train reader but miscalibration (the histories only), and by the default
        # catalog
        need_pop = (
            need_train_items
            or auc_seen
            or (train is not None and any(m.name != "miscalibration" and "train" in context_needs(m) for m in metrics))
        )
        if need_pop:
            self.pop_users, self.pop_inter, self.n_train_users = _core.train_popularity(
                train.indptr, self.code["train"], n_items, threads
            )
        if need_train:
            deduped = auc_seen or any(
                (m.name in _HISTORY_READERS and m.name != "miscalibration") or _uses_cooccurrence(m) for m in metrics
            )
            if deduped:
                # these read the de-duplicated histories themselves
                self.tr_ip, self.tr_items, _, _ = _core.prepare_lists(
                    train.n_users, None, train.indptr, self.code["train"], None, DUP_CODES["first"], 0, 0, threads
                )
            elif any(m.name == "miscalibration" for m in metrics):
                # its kernel reads a repeated history item once (rankmeter/calibration.hpp): the rows as given
                self.tr_ip = np.ascontiguousarray(train.indptr, dtype=np.int64)
                self.tr_items = np.ascontiguousarray(self.code["train"], dtype=np.int64)
            if auc_seen or any(m.name in _HISTORY_READERS for m in metrics):
                self.h_rowmap = _train_rowmap(t, train)

        # catalog: given, else the train items
        self.cat_mask = None
        if catalog is not None:
            self.cat_mask = np.zeros(n_items, dtype=bool)
            self.cat_mask[self.code["catalog"]] = True
        elif self.pop_users is not None:
            self.cat_mask = self.pop_users > 0

        self.X = self.has = None
        if feat is not None:
            self.X = np.zeros((n_items, feat[1].shape[1]), dtype=np.float64)
            self.has = np.zeros(n_items, dtype=np.uint8)
            norms = np.sqrt(np.einsum("ij,ij->i", feat[1], feat[1]))
            unit = np.divide(feat[1], norms[:, None], out=np.zeros_like(feat[1]), where=norms[:, None] > 0)
            self.X[self.code["features"]] = unit
            self.has[self.code["features"]] = 1

    def _in_place(self, metrics: list, r_indptr, r_items, train, catalog, keep: int, use_train: bool) -> bool:
        """The catalog counts and popularity means in one pass over the lists as given (no copy, no
        coding), when only coverage, gini, plain personalization, arp and novelty are asked and every id
        is its own code; False (nothing set) otherwise. Same values as the general path."""
        p, threads = self.p, self.threads
        if r_items.dtype != np.int64 or not all(_in_place_metric(m) for m in metrics):
            return False
        if use_train and train.items.dtype != np.int64:
            return False
        if catalog is not None and catalog.dtype != np.int64:
            return False
        n_train = train.items.size if use_train else 0
        n_cat = catalog.size if catalog is not None else 0
        n_listed = int(r_indptr[-1]) if r_indptr is not None else int(p.b_lens.sum())
        total = n_train + n_cat + min(n_listed, p.truth.n_users * keep if keep else 2**62)
        hard_limit = max(_CODE_LIMIT, 4 * total)
        n_base = 0
        if catalog is not None:
            lo, hi = _core.int_range(catalog, threads)
            if lo < 0 or hi >= hard_limit:
                return False
            n_base = hi + 1
        tables = [m for m in metrics if m.name in ("arp", "novelty", *TABLE_METRICS)]
        n_train_users = 0
        pop_users = pop_inter = present = None
        if use_train:
            # one pass over the train rows: the range check and the popularity (or presence)
            got = _core.train_codes(
                np.ascontiguousarray(train.indptr), np.ascontiguousarray(train.items), hard_limit, bool(tables), threads
            )
            if got is None:
                return False
            n_codes, first, second, n_train_users = got
            n_base = max(n_base, n_codes)
            if tables:
                assert second is not None  # the popularity was asked for
                pop_users, pop_inter = _pad(first, n_base), _pad(second, n_base)
            else:
                present = _pad(first, n_base).view(bool)
        table_arrays = []
        if tables:
            if pop_users is None:  # pragma: no cover - arp/novelty need train (checked before)
                return False
            zero = np.zeros(1, dtype=np.int64)  # the last entry: every code past the train codes (cold)
            pu, pi = np.concatenate([pop_users, zero]), np.concatenate([pop_inter, zero])
            table_arrays = [np.ascontiguousarray(_item_table(m, pu, pi, n_train_users)) for m in tables]
        cutoffs = sorted({m.k or 0 for m in metrics if m.family == "catalog"})
        out = _core.topk_pass(
            p.truth.n_users,
            p.rowmap,
            r_indptr,
            r_items,
            self.dups,
            p.max_items or 0,
            keep,
            n_base,
            hard_limit,
            cutoffs,
            table_arrays,
            [m.k or 0 for m in tables],
            [
                int(m.name == "novelty" and m.options["divide_by"] == "k")
                if m.name in ("arp", "novelty")
                else table_mode(m)
                for m in tables
            ],
            threads,
            p.b_lens,
        )
        if out is None:  # an id that is not its own code: the general path codes them
            return False
        kept, counts, means, st = out
        _raise_lists(st, p, None, metrics)
        self.li = self.lt = self.ls = None
        self.kept = kept
        self.n_items = max(n_base, counts[0].size if counts else 0, 1)
        self.labels = None
        self.code = {}
        self.pop_users, self.pop_inter, self.n_train_users = pop_users, pop_inter, n_train_users
        self.h_rowmap = self.tr_ip = self.tr_items = None
        self.cat_mask = None
        if catalog is not None:
            self.cat_mask = np.zeros(max(n_base, 1), dtype=bool)
            self.cat_mask[catalog] = True
        elif pop_users is not None:
            self.cat_mask = pop_users > 0
        elif present is not None:
            self.cat_mask = present
        self.X = self.has = None
        self._counts = dict(zip(cutoffs, counts))
        self._means = {str(m): v for m, v in zip(tables, means)}
        return True

    def history(self) -> tuple:
        """The train items of every evaluated user (CSR over the truth users, item codes), or (None, None)."""
        return _history(self)

    def counts_at(self, k: int) -> np.ndarray:
        """How many users have each item (code) in their top k (0: whole lists)."""
        if k not in self._counts:
            self._counts[k] = _core.item_counts(self.li, self.lt, self.n_items, k, self.threads)
        return self._counts[k]

    def ids_of(self, codes: np.ndarray) -> np.ndarray:
        """Item ids of codes, as a sorted-key array (int64 or str) with the codes' order."""
        if self.labels is None:
            return codes.astype(np.int64, copy=False)
        ids = self.labels[codes]
        return ids if ids.dtype == np.int64 else ids.astype(object)

    def sorted_ids(self, codes: np.ndarray, *values: np.ndarray) -> tuple:
        """Item ids of ``codes`` sorted by id, and ``values`` in the same order."""
        ids = _sort_key(self.ids_of(codes))
        if self.labels is None:
            return (ids, *values)  # codes ascending are ids ascending
        order = np.argsort(ids, kind="stable")
        return (ids[order], *(v[order] for v in values))

    def catalog_ids(self) -> np.ndarray:
        return self.sorted_ids(np.flatnonzero(self.cat_mask))[0]

    def top_lengths(self, k: int) -> np.ndarray:
        return self.kept if k == 0 else np.minimum(self.kept, k)

    def popularity_fingerprint(self) -> str:
        """A digest of the item popularity that arp/novelty read (so states of different train don't merge)."""
        nz = np.flatnonzero(self.pop_users)
        ids, pu, pi = self.sorted_ids(nz, self.pop_users[nz], self.pop_inter[nz])
        h = hashlib.blake2b(digest_size=16)
        h.update(str(self.n_train_users).encode())
        h.update(ids.tobytes() if ids.dtype == np.int64 else "\x00".join(ids.tolist()).encode("utf-8"))
        h.update(np.ascontiguousarray(pu, dtype=np.int64).tobytes())
        h.update(np.ascontiguousarray(pi, dtype=np.int64).tobytes())
        return h.hexdigest()


def _sort_key(ids: np.ndarray) -> np.ndarray:
    if ids.dtype == np.int64:
        return ids
    out = np.empty(ids.size, dtype=object)
    out[:] = [x if isinstance(x, str) else repr(x) for x in ids.tolist()]
    return out


# --------------------------------------------------------------------------- one function per family
# Per-user families return (values, exact sum, count); catalog-level ones are read from
# the CatalogPart of their cutoff (built once per cutoff by `catalog_part`).


def _popularity_mean(prep: Prepared, m: Any) -> tuple:
    divide_by_k = m.name == "novelty" and m.options["divide_by"] == "k"
    vals = prep._means.get(str(m))  # already computed by the in-place pass
    table = None
    if vals is None:
        table = _item_table(m, prep.pop_users, prep.pop_inter, prep.n_train_users)
        vals = _core.mean_item_value(prep.li, prep.lt, table, m.k or 0, divide_by_k, prep.threads)
    if divide_by_k:
        # CAPRI's sum over the top k / k: an empty top k sums to 0, so it scores 0 (the kernel gives NaN)
        vals[prep.kept == 0] = 0.0
    if m.name == "novelty" and m.options["average"] == "items":
        # the mean over every top-k item of every user (Recommenders' novelty), not over users
        assert table is not None  # average="items" is never read in place
        entries = table[prep.lt[_top_mask(prep.li, prep.top_lengths(m.k or 0))]]
        return (vals, *_exact(entries, prep.threads))
    return (vals, *_exact(vals, prep.threads))


def _diversity(prep: Prepared, m: Any) -> tuple:
    k, sim_kind, threads = m.k or 0, m.options["similarity"], prep.threads
    if sim_kind == "features":
        if prep.X is None:
            raise _missing(m, "item_features", _WHY["item_features"])
        vals, st = _core.diversity_features(prep.li, prep.lt, prep.X, prep.has, k, threads)
        _raise(st, prep.p, prep.labels, "item_features")
    elif sim_kind == "matrix":
        ids_codes, mat = prep.code["similarity"], prep.sim[1]
        idx = np.full(prep.n_items, -1, dtype=np.int64)
        idx[ids_codes] = np.arange(ids_codes.size, dtype=np.int64)
        if hasattr(mat, "tocsr"):
            vals, st = _core.diversity_matrix(
                prep.li,
                prep.lt,
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
                prep.li, prep.lt, idx, np.ascontiguousarray(mat, dtype=np.float64), None, None, None, k, threads
            )
        _raise(st, prep.p, prep.labels, "item_similarity")
    else:
        iu_ip, iu_users = _item_users(prep.tr_ip, prep.tr_items, prep.n_items)
        vals = _core.diversity_cooccurrence(prep.li, prep.lt, iu_ip, iu_users, k, threads)
    if m.options["one_item"] == "zero":
        # a top k of one item has no pair: diversity 0, and the user counts (RecTools' IntraListDiversity)
        vals[prep.top_lengths(k) == 1] = 0.0
    if m.options["divide_by"] == "items":
        # Evidently: the sum of the pairwise distances over the n items of the top k, divided by n (a one-item
        # list: 0), i.e. the mean over the n(n-1)/2 pairs times (n - 1) / 2
        n = prep.top_lengths(k).astype(np.float64)
        vals = np.where(n == 1, 0.0, vals * (n - 1.0) / 2.0)
    return (vals, *_exact(vals, threads))


def _serendipity(prep: Prepared, m: Any) -> tuple:
    p, t = prep.p, prep.p.truth
    X, has, iu_ip, iu_users = prep.X, prep.has, None, None
    if m.options["similarity"] == "cooccurrence":
        # the train co-occurrence cosine of item pairs (Microsoft Recommenders' default item similarity)
        iu_ip, iu_users = _item_users(prep.tr_ip, prep.tr_items, prep.n_items)
        X, has = np.zeros((prep.n_items, 0)), np.ones(prep.n_items, dtype=np.uint8)
    vals, st = _core.serendipity(
        prep.li,
        prep.lt,
        t.indptr,
        prep.code["truth"],
        t.grades,
        p.min_relevance,
        prep.tr_ip,
        prep.tr_items,
        prep.h_rowmap,
        X,
        has,
        m.k or 0,
        _core.SerendipityRelevance.__members__[m.options["relevance"]],
        iu_ip,
        iu_users,
        EMPTY_CODES[p.empty],
        prep.threads,
    )
    _raise(st, p, prep.labels, "item_features")
    if m.options["aggregate"] == "sum":
        # Evidently: 1 - Σ_j mean_h sim(f_j, f_h) over the J relevant top-k items j, where the default averages
        # (1 - mean_h cos) over them: 1 - J (1 - mean). Its distance matrix has a zero diagonal, so an item of the
        # history compared with itself has similarity 1 even when its feature vector is all zeros (cosine 0 here):
        # Z such items add Z / |H|.
        j, z, h = _serendipity_counts(prep, m.k or 0)
        vals = 1.0 - j * (1.0 - vals) - np.divide(z, h, out=np.zeros(z.size), where=h > 0)
    return (vals, *_exact(vals, prep.threads))


def _serendipity_counts(prep: Prepared, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per truth user: the relevant truth items in the top k (as the kernels read the lists), those of them that
    are in the user's history with an all-zero feature vector, and the size of the history (distinct train items
    with a feature row)."""
    p, t = prep.p, prep.p.truth
    n_users = t.n_users
    lens = prep.top_lengths(k)
    mask = _top_mask(prep.li, lens)
    user = np.repeat(np.arange(n_users, dtype=np.int64), np.diff(prep.li))[mask]
    codes = prep.lt[mask]
    t_user = np.repeat(np.arange(n_users, dtype=np.int64), np.diff(t.indptr))
    grades = t.grades if t.grades is not None else np.ones(t_user.size)
    rel = grades >= p.min_relevance if p.min_relevance is not None else grades > 0
    width = max(int(prep.n_items), 1)
    zeros = np.zeros(n_users, dtype=np.float64)
    keys = np.sort(t_user[rel] * width + prep.code["truth"][rel])
    if keys.size == 0 or codes.size == 0:
        return zeros, zeros, zeros
    r_key = user * width + codes
    hit = keys[np.minimum(np.searchsorted(keys, r_key), keys.size - 1)] == r_key
    n_rel = np.bincount(user[hit], minlength=n_users).astype(np.float64)
    # histories: the train row of each truth user, its distinct items that have a feature row
    has = prep.has.astype(bool)
    zero_vec = has & ~np.any(prep.X != 0.0, axis=1)
    h_rows = prep.h_rowmap if prep.h_rowmap is not None else np.arange(n_users, dtype=np.int64)
    tr_row = np.repeat(np.arange(prep.tr_ip.size - 1, dtype=np.int64), np.diff(prep.tr_ip))
    with_feat = has[prep.tr_items]
    h_size = np.bincount(tr_row[with_feat], minlength=prep.tr_ip.size - 1).astype(np.float64)
    ok = h_rows >= 0
    h = np.zeros(n_users, dtype=np.float64)
    h[ok] = h_size[h_rows[ok]]
    # relevant top-k items with a zero vector that the user's history holds
    cand = hit & zero_vec[codes]
    cu, cc = user[cand], codes[cand]
    hr = h_rows[cu]
    tr_keys = np.sort(tr_row * width + prep.tr_items)
    c_key = np.where(hr >= 0, hr * width + cc, -1)
    in_hist = (c_key >= 0) & (tr_keys[np.minimum(np.searchsorted(tr_keys, c_key), max(tr_keys.size - 1, 0))] == c_key)
    z = np.bincount(cu[in_hist], minlength=n_users).astype(np.float64) if tr_keys.size else zeros
    return n_rel, z, h


def _fcp(prep: Prepared, m: Any) -> tuple:
    p, t = prep.p, prep.p.truth
    empty = EMPTY_CODES[p.empty]
    conc, disc, st = _core.fcp_counts(
        prep.li,
        prep.lt,
        prep.n_items,
        t.indptr,
        prep.code["truth"],
        t.grades,
        p.min_relevance,
        m.k or 0,
        empty,
        prep.threads,
    )
    _raise(st, p, prep.labels, "truth")
    tot = conc + disc
    no_rel = conc < 0
    with np.errstate(invalid="ignore", divide="ignore"):
        vals = np.where(tot > 0, conc / np.where(tot > 0, tot, 1), np.nan)
    if p.empty in ("zero", "one"):
        vals[no_rel] = 0.0 if p.empty == "zero" else 1.0
    if m.options["average"] == "pairs":
        return vals, _fraction_sum(int(conc[~no_rel].sum())), int(tot[~no_rel].sum())
    return (vals, *_exact(vals, prep.threads))


def _auc_catalog(m: Any) -> bool:
    """Whether an AUC-family metric counts the catalog items outside the list as negatives."""
    return m.name == "lauc" or (m.name in ("auc", "gauc") and m.options["negatives"] == "catalog")


def _history(prep: Prepared) -> tuple:
    """The train items of every evaluated user (CSR over the truth users, item codes), or (None, None)."""
    if prep.tr_ip is None:
        return None, None
    n_users = prep.p.truth.n_users
    rows = np.arange(n_users, dtype=np.int64) if prep.h_rowmap is None else np.asarray(prep.h_rowmap, np.int64)
    if prep.h_rowmap is None and prep.tr_ip.size - 1 != n_users:  # pragma: no cover - align maps unequal rows
        raise AssertionError("train rows do not match the truth users")
    if prep.h_rowmap is None:  # the train rows are the truth users: the histories as they are
        return prep.tr_ip, prep.tr_items
    has = rows >= 0
    starts = np.zeros(n_users, dtype=np.int64)
    lens = np.zeros(n_users, dtype=np.int64)
    starts[has] = prep.tr_ip[rows[has]]
    lens[has] = prep.tr_ip[rows[has] + 1] - starts[has]
    ip = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(lens, out=ip[1:])
    idx = np.arange(int(ip[-1]), dtype=np.int64) - np.repeat(ip[:-1] - starts, lens)
    return ip, np.ascontiguousarray(prep.tr_items[idx])


def _auc(prep: Prepared, m: Any) -> tuple:
    """auc, gauc and lauc: per-user values from the AUC kernel; gauc's mean weighs users by their positives
    (an exact sum of P_u AUC_u over the exact count of positives, so it merges like any other mean)."""
    p, t = prep.p, prep.p.truth
    catalog_mode = _auc_catalog(m)
    mask = h_ip = h_items = None
    if catalog_mode:
        if prep.cat_mask is None:
            raise _missing(m, "catalog", "every item a user could be shown, or `train`, whose items are the default")
        mask = np.ascontiguousarray(prep.cat_mask, dtype=np.uint8)
        if m.options["seen"] == "exclude":
            h_ip, h_items = _history(prep)
    max_fpr = float(m.options.get("max_fpr", 1.0))
    if prep.raw_lists:  # the lists as given, read in place with the call's duplicates policy and cutoffs
        rowmap, ip, items, lens = p.rowmap, p.b_indptr, p.b_items, p.b_lens
        scores = None if m.name == "lauc" else p.b_scores
        dups, max_items, keep = prep.dups, p.max_items or 0, prep.keep
    else:  # the prepared lists (coded, duplicates handled, cut): read as given
        rowmap, ip, items, lens = None, prep.li, prep.lt, None
        scores = None if m.name == "lauc" else prep.ls
        dups, max_items, keep = DUP_CODES["miss"], 0, 0
    rel, pos, neg, num2, vals, st = _core.auc_values(
        t.n_users,
        rowmap,
        ip,
        items,
        scores,
        lens,
        dups,
        max_items,
        keep,
        prep.n_items,
        t.indptr,
        prep.code["truth"],
        t.grades,
        p.min_relevance,
        mask,
        h_ip,
        h_items,
        m.k or 0,
        max_fpr,
        AUC_TIES[m.options["ties"]],
        prep.threads,
    )
    _raise_lists(st, p, prep.labels, prep.metrics)
    left_out = getattr(p, "left_out", None)
    if left_out is not None:
        # users the call's `missing` leaves out (kept for another metric): no value and, for gauc, no weight
        vals[left_out] = np.nan
        pos[left_out] = neg[left_out] = 0
    # a user without a relevant truth item follows `empty` (the accuracy pass raises first under "error"); one
    # with relevant items whose candidates hold no positive or no negative follows `one_class`
    no_rel = rel == 0
    if left_out is not None:
        no_rel &= ~left_out
    if p.empty == "error" and no_rel.any():
        u = int(np.flatnonzero(no_rel)[0])
        user = p.users[u].item() if isinstance(p.users[u], np.generic) else p.users[u]
        raise ValueError(f"user {user!r} has no relevant item in `truth` and empty='error' (metric {str(m)!r})")
    if m.name == "gauc":
        # users without a positive or a negative are left out of GAUC (weight 0), whatever `empty` says
        ok = (pos > 0) & (neg > 0)
        terms = np.where(ok, num2 / np.where(ok, 2.0 * neg, 1.0), 0.0)
        limbs, _ = _core.exact_sum(np.ascontiguousarray(terms), prep.threads)
        return vals, limbs_to_int(limbs), int(pos[ok].sum())
    one_class = (rel > 0) & ((pos == 0) | (neg == 0))
    if left_out is not None:
        one_class &= ~left_out
    policy = m.options["one_class"]
    if policy != "skip":
        vals[one_class] = 0.0 if policy == "zero" else 1.0
    if p.empty in ("zero", "one"):
        vals[no_rel] = 0.0 if p.empty == "zero" else 1.0
    return (vals, *_exact(vals, prep.threads))


PER_USER_FAMILIES = {
    "novelty": _popularity_mean,
    "arp": _popularity_mean,
    "diversity": _diversity,
    "serendipity": _serendipity,
    "fcp": _fcp,
    **dict.fromkeys(POPULARITY_METRICS, popularity_column),
    **dict.fromkeys(SUBTOPIC_METRICS, subtopic_column),
    **dict.fromkeys(AUC_METRICS, _auc),
    "miscalibration": calibration_column,
    **dict.fromkeys(IPS_METRICS, ips_column),
    "awrf": awrf_column,
    "awrf_ndcg": awrf_column,
    **dict.fromkeys(EE_COLUMNS, ee_column),  # expected exposure, docs/metrics.md 3.23.10
}


def catalog_part(prep: Prepared, k: int, metrics: list) -> CatalogPart:
    """The item-count histogram (and what else the metrics at cutoff ``k`` read) as a CatalogPart."""
    c = prep.counts_at(k)
    nz = np.flatnonzero(c)
    ids, counts = prep.sorted_ids(nz, c[nz].astype(np.int64))
    lens = prep.top_lengths(k)
    part = CatalogPart(ids, counts, int(np.count_nonzero(lens)), int(lens.max()) if lens.size else 0)
    if any(m.name == "personalization" and m.options["similarity"] == "cosine" for m in metrics):
        part.len_ids, part.len_values, part.len_counts = _length_histogram(prep, k, lens)
    if any(m.name == "score_entropy" for m in metrics):
        if prep.ls is None:
            m = next(m for m in metrics if m.name == "score_entropy")
            raise ValueError(
                f"metric {str(m)!r} needs scores: pass recs with scores (a dict of item -> score, "
                "a score column, Recs.from_scores or Recs.from_csr(..., scores))"
            )
        part.entropy = entropy_part(prep.ls[_top_mask(prep.li, lens)])
    if any(m.name in EXPOSURE_METRICS for m in metrics):
        part.exposure = exposure_histograms(prep, k, metrics)
    return part


def _top_mask(li: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """Mask of the entries of every list that lie in its top ``lens[u]``."""
    full = np.diff(li)
    if np.array_equal(full, lens):
        return np.ones(int(li[-1]), dtype=bool)
    pos = np.arange(int(li[-1]), dtype=np.int64) - np.repeat(li[:-1], full)
    return pos < np.repeat(lens, full)


def _length_histogram(prep: Prepared, k: int, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per (item id, top-k length) user counts, sorted by id then length."""
    mask = _top_mask(prep.li, lens)
    codes = prep.lt[mask]
    entry_len = np.repeat(lens, lens)
    uniq_lens = np.unique(lens[lens > 0])
    if uniq_lens.size == 0:
        z = np.zeros(0, dtype=np.int64)
        return prep.sorted_ids(z)[0], z, z
    li_idx = np.searchsorted(uniq_lens, entry_len)
    nl = uniq_lens.size
    if prep.n_items * nl <= (1 << 26):
        hist = np.bincount(codes * nl + li_idx, minlength=prep.n_items * nl)
        keys = np.flatnonzero(hist)
        cnt = hist[keys]
    else:
        keys, cnt = np.unique(codes * nl + li_idx, return_counts=True)
    item_codes, len_vals = keys // nl, uniq_lens[keys % nl]
    ids = _sort_key(prep.ids_of(item_codes))
    order = np.lexsort((len_vals, ids)) if prep.labels is not None else np.arange(ids.size)
    return ids[order], len_vals[order].astype(np.int64), cnt[order].astype(np.int64)


def run_beyond(p: Any, cols: list, ctx: Context, threads: int) -> tuple[dict, dict, Optional[np.ndarray], dict]:
    """Compute the beyond-accuracy columns ``cols`` (list of (col index, Metric)).

    Returns ``(per_user, parts, catalog, context)``: per-user columns as
    {col: (values, exact sum, count)}; the CatalogPart of every cutoff a catalog-level
    column reads; the sorted catalog ids (None when no column needs them); and the
    fingerprints of the context the values depend on (for safe merging).

    Under ties="evidently" on lists ranked by score, the top k of a user is every tie group
    whose average position is <= k (Evidently's ``rank(ascending=False) <= k``): the columns of
    each cutoff then read lists cut that way, whole.
    """
    if getattr(p, "evidently_scores", None) is None:
        return _run_beyond(p, cols, ctx, threads)
    out: dict = {}
    parts: dict = {}
    catalog = None
    context: dict = {}
    for k in sorted({m.k or 0 for _, m in cols}):
        group = [(c, m) for c, m in cols if (m.k or 0) == k]
        q = _evidently_cut(p, k) if k else p
        o, pa, cat, fp = _run_beyond(q, [(c, m.with_options(k=None)) for c, m in group], ctx, threads)
        out.update(o)
        if 0 in pa:
            parts[k] = pa[0]
        catalog = cat if cat is not None else catalog
        context.update(fp)
    return out, parts, catalog, context


def _evidently_cut(p: Any, k: int) -> Any:
    """A copy of the plan whose score-ranked lists keep, per user, the tie groups whose average position
    (a + b) / 2 is at most k; tie groups are runs of equal scores (the lists are ordered by score)."""
    import copy

    ip, items, scores = p.b_indptr, p.b_items, p.b_scores
    n = scores.size
    row_len = np.diff(ip)
    row_of = np.repeat(np.arange(row_len.size, dtype=np.int64), row_len)
    pos = np.arange(n, dtype=np.int64) - ip[:-1][row_of] + 1
    start = np.ones(n, dtype=bool)
    if n > 1:
        start[1:] = (row_of[1:] != row_of[:-1]) | (scores[1:] != scores[:-1])
    gid = np.cumsum(start) - 1
    first = np.flatnonzero(start)
    a = pos[first][gid]
    b = a + np.diff(np.append(first, n))[gid] - 1
    keep = a + b <= 2 * k
    new_ip = np.zeros(ip.size, dtype=np.int64)
    np.cumsum(np.bincount(row_of[keep], minlength=row_len.size), out=new_ip[1:])
    q = copy.copy(p)
    q.b_indptr, q.b_items, q.b_scores = new_ip, items[keep], scores[keep]
    return q


def _run_beyond(p: Any, cols: list, ctx: Context, threads: int) -> tuple[dict, dict, Optional[np.ndarray], dict]:
    metrics = [m for _, m in cols]
    check_context(metrics, ctx)
    prep = Prepared(p, metrics, ctx, threads)
    out = {}
    for col, m in cols:
        if m.name in PER_USER_FAMILIES:
            out[col] = PER_USER_FAMILIES[m.name](prep, m)
    catalog_cols = [m for m in metrics if m.family == "catalog"]
    parts = {
        k: catalog_part(prep, k, [m for m in catalog_cols if (m.k or 0) == k])
        for k in sorted({m.k or 0 for m in catalog_cols})
    }
    catalog = None
    if any(reads_catalog(m) for m in catalog_cols):
        if prep.cat_mask is None:
            m = next(m for m in catalog_cols if reads_catalog(m))
            raise _missing(m, "catalog", "or `train`, whose items are the default catalog")
        catalog = prep.catalog_ids()
    context = {}
    if prep.pop_users is not None and any(m.name in ("novelty", "arp", *POPULARITY_METRICS) for m in metrics):
        context["popularity"] = prep.popularity_fingerprint()
    if ctx.tail_items is not None and any(given_tail(m) for m in metrics):
        context["tail_items"] = tail_fingerprint(ctx.tail_items)
    if ctx.propensity is not None and any(m.name in IPS_METRICS for m in metrics):
        context["propensity"] = ctx.propensity.fingerprint()
    if ctx.item_groups is not None and any(m.name in GROUP_METRICS for m in metrics):
        context["item_groups"] = groups_fingerprint(ctx.item_groups)
    return out, parts, catalog, context


_WHY = {
    "train": "item popularity and user histories",
    "item_features": "one feature row per item id",
    "item_similarity": "an item x item similarity matrix",
    "subtopics": "the subtopic judgments: user, subtopic, item and grade columns",
    "tail_items": "the long-tail item ids, as tail=given reads them",
    "item_categories": "a mapping item -> category or list of categories, or an item/category table",
    "propensity": "a mapping item -> propensity, (items, propensities), or 'popularity' with `train`",
    "item_groups": "a mapping item -> group or list of groups (provider, category, head/tail), or an item/group table",
}


def check_context(metrics, ctx: Context) -> None:
    """Every context argument the metrics need is there, and the options go together (checked before any
    work)."""
    for m in metrics:
        if m.name == "novelty" and m.options["average"] == "items" and m.options["divide_by"] == "k":
            raise ValueError(
                f"metric {str(m)!r}: average='items' is the mean over every top-k item, divide_by='k' a per-user "
                "sum / k; pick one"
            )
        check_popularity_options(m)
        check_ips_options(m)
        for arg in context_needs(m):
            if getattr(ctx, arg) is None:
                raise _missing(m, arg, _WHY[arg])
    if ctx.tail_items is not None and not any(given_tail(m) for m in metrics):
        raise ValueError(
            "`tail_items` is read only by aplt, aclt and tail_percentage with tail='given' (none is asked for): "
            "add tail=given to those metrics, e.g. 'aplt(tail=given)@10', or leave tail_items out"
        )


def context_needs(m) -> tuple:
    """The context arguments a metric needs with its options (the registry's ``needs``)."""
    return m.needs


def _pad(a: np.ndarray, n: int) -> np.ndarray:
    """``a`` with zeros appended up to length ``n``."""
    return a if a.size >= n else np.concatenate([a, np.zeros(n - a.size, dtype=a.dtype)])


def _in_place_metric(m) -> bool:
    """Read by topk_pass: catalog counts (coverage, gini, plain personalization) and popularity means."""
    if m.name == "personalization":
        return m.options["similarity"] != "cosine"
    if m.name == "novelty":
        return m.options["average"] == "users"
    return m.name in ("coverage", "gini", "arp") or in_place(m)


def _uses_features(m) -> bool:
    return "item_features" in context_needs(m)


def _uses_similarity(m) -> bool:
    return m.name == "diversity" and m.options["similarity"] == "matrix"


def _uses_cooccurrence(m) -> bool:
    return m.name == "diversity" and m.options["similarity"] == "cooccurrence"


def _item_table(m, pop_users, pop_inter, n_train_users) -> np.ndarray:
    if m.name in TABLE_METRICS:
        return pop_table(m, pop_users, pop_inter, n_train_users)  # codes are ids here (the in-place pass)
    o = m.options
    if m.name == "novelty":
        pop = pop_users if o["popularity"] == "users" else pop_inter
        # the share of an item: of the train users, or (interaction_share) of the train rows
        n = int(pop_inter.sum()) if o["popularity"] == "interaction_share" else n_train_users
        with np.errstate(divide="ignore"):
            table = -np.log2(pop / n) if n else np.full(pop.size, np.nan)
        cold = pop_users == 0
        if o["unseen"] == "skip":
            table[cold] = np.nan
        elif o["unseen"] == "zero":
            table[cold] = 0.0
        else:
            table[cold] = -math.log2(1.0 / n) if n else np.nan
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
        rowmap, _, _ = align(t, train, ("truth", "train"), require_match=False)
    except ValueError as e:
        raise ValueError(str(e).replace("`recs`", "`train`")) from None
    return rowmap


def _raise(status, p, labels, what: str) -> None:
    code, uidx, item = status
    if is_ok(code):
        return
    user = p.users[uidx] if 0 <= uidx < p.users.size else uidx
    if isinstance(user, np.generic):
        user = user.item()
    if code not in MESSAGES:  # pragma: no cover - every code a beyond kernel returns has a message
        raise ValueError("invalid `" + what + f"` input at user {user!r}")
    raise ValueError(message(code, user=user, item=id_label(labels, int(item)), side=what))
