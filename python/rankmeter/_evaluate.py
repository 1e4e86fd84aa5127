"""``evaluate`` / ``partial``: validate, convert to buffers, one C++ pass, aggregate."""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping
from typing import Any, Iterable, Optional, Sequence, Union

import numpy as np

from . import _core
from ._aggregate import State, exact_mean, limbs_to_int
from ._beyond import Context, check_context, run_beyond
from ._convert import Recs, Truth, factorize_items, to_recs, to_truth
from ._presets import get_preset
from .metrics import Metric, parse

__all__ = ["evaluate", "partial", "Result"]

MetricsArg = Union[str, Metric, Iterable[Union[str, Metric]]]

_EMPTY = {"skip": 0, "zero": 1, "one": 2, "error": 3}
_DUPLICATES = ("error", "first")
_TIES = ("input", "trec", "item_desc", "average")
_DEFAULTS = {"empty": "skip", "duplicates": "error", "ties": "input"}
MAX_THREADS = 4096
_MAX_ITEMS_CAP = 2**62  # larger max_items values truncate nothing, like no max_items


# --------------------------------------------------------------------------- options
def resolve_threads(threads: Optional[int]) -> int:
    """``threads=`` argument, else RANKMETER_NUM_THREADS, else 0 (all cores)."""
    if threads is None:
        env = os.environ.get("RANKMETER_NUM_THREADS", "").strip()
        if not env:
            return 0
        try:
            threads = int(env)
        except ValueError:
            raise ValueError(f"RANKMETER_NUM_THREADS must be a positive integer, got {env!r}") from None
        if threads < 1 or threads > MAX_THREADS:
            raise ValueError(f"RANKMETER_NUM_THREADS must be a positive integer of at most {MAX_THREADS}, got {env!r}")
        return threads
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral):
        raise TypeError(f"`threads` must be a positive integer or None, got {threads!r}")
    if threads < 1:
        raise ValueError(f"`threads` must be a positive integer or None, got {threads}")
    if threads > MAX_THREADS:
        raise ValueError(f"`threads` must be at most {MAX_THREADS}, got {threads}")
    return int(threads)


def _choice(value: Any, allowed: Sequence[str], what: str) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"`{what}` must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return value


def _parse_metrics(metrics: MetricsArg, preset_options) -> tuple[list[str], list[Metric]]:
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    if not isinstance(metrics, Iterable):
        raise TypeError(f"`metrics` must be a metric name, a Metric or a list of them, got {type(metrics).__name__}")
    keys, parsed = [], []
    for m in metrics:
        keys.append(m if isinstance(m, str) else str(m))
        parsed.append(parse(m, preset_options))
    if not parsed:
        raise ValueError("`metrics` is empty: name at least one metric, e.g. ['ndcg@10']")
    return keys, parsed


# --------------------------------------------------------------------------- plan
class _Plan:
    """Everything the C++ pass needs, validated."""

    __slots__ = (
        "keys", "metrics", "columns", "key_to_col", "canon_to_col", "users", "truth", "recs", "rowmap", "labels",
        "t_items", "r_items", "r_indptr", "meta", "min_relevance", "empty", "dup_first", "max_items",
        "ctx", "b_indptr", "b_items", "b_scores", "preset",
    )


def _align(truth: Truth, recs: Recs) -> tuple[Optional[np.ndarray], int, int]:
    """Row of recs for every truth user (None = identity), #missing, #ignored."""
    n_t, n_r = truth.n_users, recs.n_users
    if truth.users is None and recs.users is None:
        if n_t != n_r:
            raise ValueError(
                f"`recs` has {n_r} users but `truth` has {n_t}: positional inputs must have the same number "
                "of users (or carry user ids, e.g. dicts or users=)"
            )
        return None, 0, 0
    tu = truth.users if truth.users is not None else np.arange(n_t, dtype=np.int64)
    ru = recs.users if recs.users is not None else np.arange(n_r, dtype=np.int64)
    if tu.dtype == np.int64 and ru.dtype == np.int64:
        for arr, what in ((tu, "truth"), (ru, "recs")):
            if arr.size > 1:
                s = np.sort(arr)
                d = np.flatnonzero(s[1:] == s[:-1])
                if d.size:
                    raise ValueError(f"`{what}` lists user {int(s[d[0]])!r} more than once; user ids must be unique")
        sorter = np.argsort(ru, kind="stable")
        rs = ru[sorter]
        pos = np.searchsorted(rs, tu)
        pos_c = np.minimum(pos, max(rs.size - 1, 0))
        found = (rs[pos_c] == tu) if rs.size else np.zeros(n_t, dtype=bool)
        rowmap = np.where(found, sorter[pos_c] if rs.size else 0, -1).astype(np.int64)
    else:
        index: dict[Any, int] = {}
        for i, u in enumerate(ru.tolist()):
            if index.setdefault(u, i) != i:
                raise ValueError(f"`recs` lists user {u!r} more than once; user ids must be unique")
        tl = tu.tolist()
        if len(set(tl)) != len(tl):
            seen: set = set()
            dup = next(u for u in tl if u in seen or seen.add(u))
            raise ValueError(f"`truth` lists user {dup!r} more than once; user ids must be unique")
        rowmap = np.fromiter((index.get(u, -1) for u in tl), dtype=np.int64, count=n_t)
        found = rowmap >= 0
    n_found = int(np.count_nonzero(found))
    n_missing = n_t - n_found
    n_ignored = n_r - n_found
    if n_t == n_r and n_missing == 0 and np.array_equal(rowmap, np.arange(n_t)):
        rowmap = None
    return rowmap, n_missing, n_ignored


def _string_rank(ids: np.ndarray) -> np.ndarray:
    """Rank of every id in the order of the strings the ids print as (trec_eval's docno order)."""
    strs = np.array([str(x) for x in ids.tolist()], dtype=object) if ids.dtype != object else ids.astype(str)
    _, inv = np.unique(np.asarray(strs, dtype=str), return_inverse=True)
    return inv.astype(np.int64)


def _natural_rank(ids: np.ndarray) -> np.ndarray:
    if ids.dtype == np.int64 or all(isinstance(x, str) for x in ids.tolist()):
        _, inv = np.unique(ids if ids.dtype == np.int64 else ids.astype(str), return_inverse=True)
        return inv.astype(np.int64)
    raise TypeError("ties='item_desc' needs item ids of one kind (all ints or all strings)")


def _rank_by_score(recs: Recs, ties: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Order every list by score (descending); equal scores per `ties`. Vectorised."""
    indptr, items, scores = recs.indptr, recs.items, recs.scores
    row = np.repeat(np.arange(indptr.size - 1, dtype=np.int64), np.diff(indptr))
    if ties == "input":
        order = np.lexsort((-scores, row))
    else:
        key = _string_rank(items) if ties == "trec" else _natural_rank(items)
        order = np.lexsort((-key, -scores, row))
    return indptr, items[order], scores[order]


def _padded_to_csr(recs: Recs) -> tuple[np.ndarray, np.ndarray]:
    arr = recs.items
    valid = arr != recs.pad
    if arr.shape[1] > 1:
        inside = np.flatnonzero((valid[:, 1:] & ~valid[:, :-1]).any(axis=1))
        if inside.size:
            r = int(inside[0])
            user = recs.users[r] if recs.users is not None else r
            raise ValueError(f"`recs` row of user {user!r} has an item after the padding value {recs.pad}; pad only at the end")
    lens = valid.sum(axis=1)
    indptr = np.zeros(arr.shape[0] + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    return indptr, arr[valid]


def _plan(truth: Any, recs: Any, metrics: MetricsArg, *, preset, empty, duplicates, ties, min_relevance, max_items,
          context: Optional[dict] = None, columns: Optional[dict] = None) -> _Plan:
    pre = get_preset(preset)
    defaults = dict(_DEFAULTS)
    if pre is not None:
        defaults.update(pre.defaults)
    empty = defaults["empty"] if empty is None else empty
    duplicates = defaults["duplicates"] if duplicates is None else duplicates
    ties = defaults["ties"] if ties is None else ties
    _choice(empty, tuple(_EMPTY), "empty")
    _choice(duplicates, _DUPLICATES, "duplicates")
    _choice(ties, _TIES, "ties")
    if ties == "average":
        raise ValueError("ties='average' (tie-averaged gains) is not implemented yet; use 'input', 'trec' or 'item_desc'")
    if min_relevance is not None:
        if isinstance(min_relevance, bool) or not isinstance(min_relevance, numbers.Real):
            raise TypeError(f"`min_relevance` must be a number or None, got {min_relevance!r}")
        if not math.isfinite(float(min_relevance)):
            raise ValueError(f"`min_relevance` must be finite, got {min_relevance!r}")
        min_relevance = float(min_relevance)
    if max_items is not None:
        if isinstance(max_items, bool) or not isinstance(max_items, numbers.Integral):
            raise TypeError(f"`max_items` must be a positive integer or None, got {max_items!r}")
        if max_items < 1:
            raise ValueError(f"`max_items` must be a positive integer or None, got {max_items}")
        max_items = int(min(max_items, _MAX_ITEMS_CAP))

    keys, parsed = _parse_metrics(metrics, pre.metric_options if pre is not None else None)
    table_kw = {k: v for k, v in (columns or {}).items() if v is not None}
    ctx = Context(**(context or {}), table_kw=table_kw)
    check_context([m for m in parsed if m.family != "accuracy"], ctx)
    t = to_truth(truth, **table_kw)
    r = to_recs(recs, **table_kw)

    p = _Plan()
    p.preset = pre.name if pre is not None else None
    p.ctx = ctx
    p.keys, p.metrics = keys, parsed
    # Columns are deduplicated by canonical name; keys as passed map to them
    # separately (with a preset, "ndcg" may mean "ndcg(ideal=all)", whose
    # canonical name differs from the text).
    columns: list[Metric] = []
    canon_to_col: dict[str, int] = {}
    key_to_col: dict[str, int] = {}
    for key, m in zip(keys, parsed):
        name = str(m)
        if name not in canon_to_col:
            canon_to_col[name] = len(columns)
            columns.append(m)
        key_to_col[key] = canon_to_col[name]
    p.columns, p.key_to_col, p.canon_to_col = columns, key_to_col, canon_to_col

    # Every grade must be finite (checked here, vectorised, before any work).
    # (a sum is finite when every grade is, and costs no temporary array; only a
    # non-finite sum, which huge finite grades can also give, pays for the mask)
    if t.grades is not None and t.grades.size and not math.isfinite(float(np.add.reduce(t.grades))) \
            and not np.isfinite(t.grades).all():
        bad = int(np.argmax(~np.isfinite(t.grades)))
        row = int(np.searchsorted(t.indptr, bad, side="right") - 1)
        user = t.users[row] if t.users is not None else row
        item = t.items[bad]
        user, item = (x.item() if isinstance(x, np.generic) else x for x in (user, item))
        raise ValueError(f"`truth` grades must be finite; user {user!r} has grade {t.grades[bad]} for item {item!r}")

    rowmap, n_missing, n_ignored = _align(t, r)

    # Recommendations as buffers: ranked by score when the form carries only scores.
    r_indptr, r_items, r_scores = r.indptr, r.items, r.scores
    if r.by_score:
        r_indptr, r_items, r_scores = _rank_by_score(r, ties)
    p.b_indptr = p.b_items = p.b_scores = None
    if any(m.family != "accuracy" for m in parsed):
        # the beyond-accuracy kernels read the ordered lists as CSR of raw ids (+ scores)
        if r_indptr is None:
            p.b_indptr, p.b_items = _padded_to_csr(r)
        else:
            p.b_indptr, p.b_items, p.b_scores = r_indptr, r_items, r_scores
    needs_codes = t.items.dtype != np.int64 or r_items.dtype != np.int64
    if needs_codes and r_indptr is None:
        r_indptr, r_items = _padded_to_csr(r)
    if needs_codes:
        (t_items, r_codes), labels = factorize_items(t.items, r_items)
        r_items = r_codes
    else:
        t_items, labels = t.items, None

    p.truth, p.recs, p.rowmap, p.labels = t, r, rowmap, labels
    p.t_items, p.r_items, p.r_indptr = t_items, r_items, r_indptr
    p.users = t.users if t.users is not None else np.arange(t.n_users, dtype=np.int64)
    p.meta = {"n_users": t.n_users, "n_skipped": 0, "n_missing_recs": n_missing, "n_ignored_recs": n_ignored}
    p.min_relevance, p.empty = min_relevance, empty
    p.dup_first, p.max_items = duplicates == "first", max_items
    return p


_MESSAGES = {
    1: "`{side}` indptr is inconsistent at user {user!r}",
    2: "`truth` lists item {item!r} more than once for user {user!r}; a user's truth items must be unique",
    3: "`recs` lists item {item!r} more than once for user {user!r}; pass duplicates='first' to keep the first occurrence",
    4: "user {user!r} has no relevant item in `truth` and empty='error' (use empty='skip', 'zero' or 'one')",
    5: "`recs` row of user {user!r} has an item after the padding value at position {item}; pad only at the end",
    6: "internal error: recs row map out of range at user {user!r}",
    7: "one user's truth plus list holds {item} items; at most 2^29 per user are supported",
    8: "too many distinct (gain, log_base) combinations in one call (at most {item})",
}


def _run(p: _Plan, threads: Optional[int]):
    """Every column: the fused accuracy pass for the accuracy family, the beyond kernels
    for the rest. Returns (values per column (None: catalog-level), sums, counts, means)."""
    n_threads = resolve_threads(threads)
    n = len(p.columns)
    values: list = [None] * n
    sums, counts, means = [0] * n, [0] * n, [None] * n
    acc = [(i, m) for i, m in enumerate(p.columns) if m.family == "accuracy"]
    beyond = [(i, m) for i, m in enumerate(p.columns) if m.family != "accuracy"]
    if acc or not beyond:
        cols = [m for _, m in acc] or [parse("num_rel")]
        v, s, c = _accuracy_pass(p, cols, n_threads)
        for j, (i, _) in enumerate(acc):
            values[i], sums[i], counts[i] = v[j], s[j], c[j]
    else:
        p.meta["n_skipped"] = _count_no_relevant(p)
    if beyond:
        for i, (vals, s_, c_, mean) in run_beyond(p, beyond, p.ctx, n_threads).items():
            values[i], sums[i], counts[i], means[i] = vals, s_, c_, mean
    return values, sums, counts, means


def _count_no_relevant(p: _Plan) -> int:
    """Truth users without a relevant item (meta n_skipped when no accuracy column ran)."""
    t = p.truth
    if t.grades is None:
        has = np.diff(t.indptr) > 0
    else:
        g = t.grades
        rel = g >= p.min_relevance if p.min_relevance is not None else g > 0
        nonempty = np.diff(t.indptr) > 0
        has = np.zeros(t.n_users, dtype=bool)
        if rel.size:
            has[nonempty] = np.logical_or.reduceat(rel, t.indptr[:-1][nonempty])
    if p.empty == "error" and not has.all():
        u = int(np.argmin(has))
        user = p.users[u].item() if isinstance(p.users[u], np.generic) else p.users[u]
        raise ValueError(_MESSAGES[4].format(user=user, item=0))
    return int(t.n_users - np.count_nonzero(has)) if p.empty == "skip" else 0


def _accuracy_pass(p: _Plan, columns: list, threads: int):
    col_ints = np.array([m._column()[0] for m in columns], dtype=np.int64).reshape(-1, 5)
    col_floats = np.array([m._column()[1] for m in columns], dtype=np.float64).reshape(-1, 2)
    padded = p.r_indptr is None
    values, limbs, counts, n_skipped, status = _core.ranking_pass(
        p.truth.indptr,
        p.t_items,
        p.truth.grades,
        p.r_indptr,
        p.r_items,
        p.r_items.shape[1] if padded else 0,
        p.recs.pad if padded else -1,
        p.rowmap,
        col_ints,
        col_floats,
        p.min_relevance,
        _EMPTY[p.empty],
        p.dup_first,
        p.max_items or 0,
        threads,
        whole_lists=p.preset == "trec_eval",  # trec_eval checks whole lists for duplicates (SPEC §2.1)
    )
    code, uidx, item = status
    if code != 0:
        user = p.users[uidx] if 0 <= uidx < p.users.size else uidx
        if isinstance(user, np.generic):
            user = user.item()
        if code in (2, 3) and p.labels is not None:
            item = p.labels[item]
        side = "recs" if code == 1 and item == 1 else "truth"
        t = p.truth
        if code == 2 and t.source_rows is not None and 0 <= uidx < t.n_users:
            b, e = int(t.indptr[uidx]), int(t.indptr[uidx + 1])
            seg = t.items[b:e]
            pos = np.flatnonzero(seg == item) if seg.dtype != object else np.array(
                [j for j, x in enumerate(seg.tolist()) if x == item], dtype=np.int64)
            rows = np.sort(t.source_rows[b + pos])
            if rows.size >= 2:
                raise ValueError(f"`truth` column {t.source_col!r}: item {item!r} appears more than once for user "
                                 f"{user!r} (rows {int(rows[0])} and {int(rows[1])}); a user's truth items must be "
                                 "unique")
        raise ValueError(_MESSAGES.get(code, "invalid input at user {user!r}").format(user=user, item=item, side=side))
    p.meta["n_skipped"] = int(n_skipped)
    sums = [limbs_to_int(limbs[i]) for i in range(limbs.shape[0])]
    return values, sums, [int(c) for c in counts]


# --------------------------------------------------------------------------- Result
class Result:
    """The outcome of :func:`evaluate`.

    ``res[name]`` is the mean of a metric over the evaluated users, for the
    name as passed or its canonical form; ``res.per_user[name]`` the per-user
    values (float64, aligned with ``res.users``, NaN for skipped users);
    ``res.meta`` the user counts; ``res.state`` the mergeable exact state.
    """

    __slots__ = ("_values", "_key_to_col", "_canon_to_col", "_names", "_means", "users", "meta", "state", "per_user")

    def __init__(self, values, names: list[str], key_to_col: dict, canon_to_col: dict, state: State,
                 users, meta: dict, means: list):
        self._values = values
        self._names = names
        self._key_to_col = key_to_col
        self._canon_to_col = canon_to_col
        self.state = state
        self._means = means
        self.users = users
        self.meta = meta
        self.per_user = _PerUser(self)

    def _col(self, key: Any) -> int:
        """A name as passed to evaluate(), else the canonical form of a name or Metric."""
        if isinstance(key, Metric):
            canon = str(key)
        else:
            if key in self._key_to_col:
                return self._key_to_col[key]
            try:
                canon = str(parse(key))
            except (ValueError, TypeError):
                canon = None
        if canon in self._canon_to_col:
            return self._canon_to_col[canon]
        raise KeyError(f"{key!r} was not evaluated; available: {', '.join(self._names)}")

    def __getitem__(self, key: Any) -> float:
        return self._means[self._col(key)]

    def __contains__(self, key: Any) -> bool:
        try:
            self._col(key)
        except KeyError:
            return False
        return True

    def keys(self) -> list[str]:
        """Metric names in the order they were asked for."""
        return list(self._names)

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    @property
    def means(self) -> dict[str, float]:
        return {n: self[n] for n in self._names}

    def to_dict(self) -> dict[str, float]:
        return self.means

    def to_pandas(self):
        """One row per evaluated user (index: user id), one column per metric."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("Result.to_pandas() needs pandas: pip install pandas") from None
        users = self.users
        return pd.DataFrame(
            {n: self._values[self._col(n)] for n in self._names if self._values[self._col(n)] is not None},
            index=pd.Index(users if not isinstance(users, np.ndarray) or users.dtype != object else list(users), name="user"),
        )

    def __repr__(self) -> str:
        width = max([len(n) for n in self._names] + [6])
        lines = [f"rankmeter.Result ({self.meta['n_users']} users, {self.meta['n_skipped']} skipped)"]
        for n in self._names:
            lines.append(f"  {n:<{width}}  {self[n]:.6f}")
        return "\n".join(lines)


class _PerUser(Mapping):
    __slots__ = ("_res",)

    def __init__(self, res: Result):
        self._res = res

    def __getitem__(self, key: Any) -> np.ndarray:
        v = self._res._values[self._res._col(key)]
        if v is None:
            raise KeyError(f"{key!r} is a catalog-level metric: one value (res[{key!r}]), no per-user values")
        return v

    def __iter__(self):
        return iter(self._res._names)

    def __len__(self) -> int:
        return len(self._res._names)

    def __contains__(self, key: Any) -> bool:
        return key in self._res


# --------------------------------------------------------------------------- public
def evaluate(
    truth: Any,
    recs: Any,
    metrics: MetricsArg,
    *,
    preset: Optional[str] = None,
    threads: Optional[int] = None,
    empty: Optional[str] = None,
    duplicates: Optional[str] = None,
    ties: Optional[str] = None,
    min_relevance: Optional[float] = None,
    max_items: Optional[int] = None,
    train: Any = None,
    item_features: Any = None,
    item_similarity: Any = None,
    catalog: Any = None,
    user_col: Optional[str] = None,
    item_col: Optional[str] = None,
    relevance_col: Optional[str] = None,
    rank_col: Optional[str] = None,
    score_col: Optional[str] = None,
) -> Result:
    """Evaluate ranked recommendations against ground truth, every metric in one C++ pass.

    Parameters
    ----------
    truth : dict, list of lists, CSR tuple, long table, scipy.sparse, path or rankmeter.Truth
        Per user the relevant items with grades: ``{user: {item: grade}}``,
        ``{user: iterable_of_items}`` (grade 1), ``list[list[item]]`` (users
        0..n-1), ``(indptr, items[, grades])``, a pandas/polars/pyarrow table
        (user, item[, grade] columns), a users x items scipy.sparse matrix, a
        parquet path or a TREC qrels path, or ``Truth.from_*``.
    recs : dict, list of lists, 2-D int array, CSR tuple or rankmeter.Recs
        Per user the ranked list, best first: ``{user: [items]}``,
        ``{user: {item: score}}`` (ranked by score), ``list[list[item]]``, a
        padded ``n_users x k`` array (pad -1), a table with user, item and rank
        or score columns, a parquet or TREC run path, or ``Recs.from_*``.
    metrics : str, Metric or list of them
        ``"ndcg@10"``, ``"ap(denominator=hits)@20"``, ``"mrr"`` ...; see
        :func:`rankmeter.metrics.list`. All are computed in one pass.
    preset : str, optional
        A family of conventions matching another tool, e.g. ``"trec_eval"``.
    threads : int, optional
        Threads of the C++ pass; default ``RANKMETER_NUM_THREADS`` or all cores.
        Results are bit-identical for any value.
    empty : {'skip', 'zero', 'one', 'error'}
        Users whose truth has no relevant item: excluded (NaN, default), 0,
        1, or an error.
    duplicates : {'error', 'first'}
        The same item twice in one list: an error (default) or keep the first.
    ties : {'input', 'trec', 'item_desc'}
        Equal scores when ranking by score: input order (default), item id
        descending as strings (trec_eval), item id descending.
    min_relevance : float, optional
        Items are relevant when grade >= min_relevance (default: grade > 0).
        Gains of the DCG family still use the grade itself.
    max_items : int, optional
        Truncate every list to its first ``max_items`` items (trec_eval -M).
    train : any truth-like form, optional
        Training interactions (user, item): item popularity, user histories and the
        default catalog of the beyond-accuracy metrics (novelty, arp, serendipity,
        coverage, gini, diversity with similarity=cooccurrence).
    item_features : 2-D array (row = item id), dict, (ids, matrix) or DataFrame, optional
        Item feature vectors for diversity (similarity=features) and serendipity.
    item_similarity : square array or scipy.sparse (row/column = item id), or (ids, matrix), optional
        Item x item similarity for diversity(similarity=matrix).
    catalog : iterable of item ids, optional
        The catalog of coverage and gini (default: the items seen in ``train``).
    user_col, item_col, relevance_col, rank_col, score_col : str, optional
        Column names of long tables (pandas, polars, pyarrow, parquet paths);
        defaults ``user_id``, ``item_id``, ``relevance``, ``rank``, ``score``.

    Returns
    -------
    Result
        ``res[name]`` means, ``res.per_user[name]``, ``res.users``, ``res.meta``.

    Raises
    ------
    ValueError, TypeError
        On malformed input, unknown metrics or options; the message names the
        argument, the user and what was expected.

    Examples
    --------
    >>> import rankmeter as rm
    >>> res = rm.evaluate({"u1": {"a": 1, "b": 1}}, {"u1": ["a", "x", "b"]}, ["precision@2", "ap"])
    >>> res["precision@2"], round(res["ap"], 4)
    (0.5, 0.8333)
    """
    context = dict(train=train, item_features=item_features, item_similarity=item_similarity, catalog=catalog)
    columns = dict(user_col=user_col, item_col=item_col, relevance_col=relevance_col, rank_col=rank_col,
                   score_col=score_col)
    p = _plan(truth, recs, metrics, preset=preset, empty=empty, duplicates=duplicates, ties=ties,
              min_relevance=min_relevance, max_items=max_items, context=context, columns=columns)
    values, sums, counts, means = _run(p, threads)
    mergeable = [i for i, m in enumerate(p.columns) if m.family != "catalog"]
    state = State([str(p.columns[i]) for i in mergeable], [sums[i] for i in mergeable],
                  [counts[i] for i in mergeable], p.meta)
    means = [exact_mean(s, c) if mean is None else mean for s, c, mean in zip(sums, counts, means)]
    return Result(values, list(dict.fromkeys(p.keys)), p.key_to_col, p.canon_to_col, state, p.users, dict(p.meta),
                  means)


def partial(
    truth: Any,
    recs: Any,
    metrics: MetricsArg,
    *,
    preset: Optional[str] = None,
    threads: Optional[int] = None,
    empty: Optional[str] = None,
    duplicates: Optional[str] = None,
    ties: Optional[str] = None,
    min_relevance: Optional[float] = None,
    max_items: Optional[int] = None,
    train: Any = None,
    item_features: Any = None,
    item_similarity: Any = None,
    catalog: Any = None,
    user_col: Optional[str] = None,
    item_col: Optional[str] = None,
    relevance_col: Optional[str] = None,
    rank_col: Optional[str] = None,
    score_col: Optional[str] = None,
) -> State:
    """Evaluate one batch of users and return its mergeable exact :class:`State`.

    Same arguments as :func:`evaluate`. Merge the states of disjoint batches
    (``a.merge(b)``) and ``finalize()`` to get the means of all users, bit for
    bit equal to one :func:`evaluate` call. State names are canonical metric
    names (``"ap@10"`` for ``"map@10"``).

    Examples
    --------
    >>> import rankmeter as rm
    >>> a = rm.partial({1: {5: 1}}, {1: [5, 6]}, ["precision@2"])
    >>> b = rm.partial({2: {7: 1}}, {2: [8, 9]}, ["precision@2"])
    >>> a.merge(b).finalize()
    {'precision@2': 0.25}
    """
    context = dict(train=train, item_features=item_features, item_similarity=item_similarity, catalog=catalog)
    columns = dict(user_col=user_col, item_col=item_col, relevance_col=relevance_col, rank_col=rank_col,
                   score_col=score_col)
    p = _plan(truth, recs, metrics, preset=preset, empty=empty, duplicates=duplicates, ties=ties,
              min_relevance=min_relevance, max_items=max_items, context=context, columns=columns)
    catalog_level = [str(m) for m in p.columns if m.family == "catalog"]
    if catalog_level:
        raise ValueError(f"partial() cannot merge catalog-level metrics {catalog_level} yet (they need the item-count "
                         "histograms of every batch); evaluate them in one evaluate() call")
    _, sums, counts, _ = _run(p, threads)
    return State([str(m) for m in p.columns], sums, counts, p.meta)
