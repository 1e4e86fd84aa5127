"""Popularity and long-tail metrics (docs/metrics.md 3.19.13-3.19.19): per-item tables and kernel calls.

``shannon_entropy`` is a catalog-level value of the item-count histogram (``CatalogPart.shannon_entropy``),
so it merges exactly like coverage and gini. The per-user metrics read one table over the item codes, built
here from the train popularity (``_core.train_popularity``), and run ``_core.popularity_values``
(rankmeter/popularity.hpp) or, on raw int ids, the table means of ``_core.topk_pass``:

* ``tail_percentage`` -- RecBole's ``TailPercentage``: 1 for the long-tail train items, 0 otherwise;
* ``aplt`` / ``aclt`` -- 1 outside the short head (cold items included), mean or sum over the top k;
* ``surprisal`` -- RePlay's normalised self-information, sum over the top k / k;
* ``epc`` / ``efd`` -- Vargas & Castells' expected popularity complement and free discovery as Elliot computes
  them: rank-discounted, relevance-weighted, divided by the sum of the discounts;
* ``user_coverage`` -- 1 for a user served a hit (or any list, or a full list of k).

The head/tail splits order items by popularity, ties by item id (the sort key of ``_beyond.Prepared``), so
they do not depend on the item coding.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Optional

import numpy as np

from .. import _core
from .._aggregate import limbs_to_int

__all__ = [
    "POPULARITY_METRICS",
    "TABLE_METRICS",
    "check_popularity_options",
    "given_tail",
    "read_tail_items",
    "tail_fingerprint",
    "in_place",
    "needs_truth",
    "pop_table",
    "table_mode",
    "popularity_column",
]

# per-user metrics of this module (shannon_entropy is catalog-level: _aggregate.CatalogPart)
POPULARITY_METRICS = ("tail_percentage", "aplt", "aclt", "surprisal", "epc", "efd", "user_coverage")
# the ones that are one table mean/sum over the top k (read in place by topk_pass on raw int ids)
TABLE_METRICS = ("tail_percentage", "aplt", "aclt", "surprisal")

# popularity_values' `divide` (PopDivide) and topk_pass's table mode
_ITEMS, _K, _NONE, _DISCOUNT = 0, 1, 2, 3


def given_tail(m: Any) -> bool:
    """Whether the metric reads its long tail from the ``tail_items`` argument (tail="given")."""
    return m.name in ("tail_percentage", "aplt", "aclt") and m.options["tail"] == "given"


# the options of the popularity split, which tail="given" replaces: name -> metrics that have it
_SPLIT_OPTIONS = {"tail_ratio": ("tail_percentage",), "head_share": ("aplt", "aclt"), "popularity": ("aplt", "aclt")}


def check_popularity_options(m: Any) -> None:
    """tail="given" takes the tail from ``tail_items``: an option of the popularity split set with it is an error
    (it would have no effect)."""
    if not given_tail(m):
        return
    from ..metrics import SPECS

    for opt, names in _SPLIT_OPTIONS.items():
        if m.name in names and m.options[opt] != SPECS[m.name].options[opt][0]:
            raise ValueError(
                f"metric {str(m)!r}: {opt}= sets the popularity split, which tail='given' replaces by the "
                "`tail_items` argument; drop one of them"
            )


def read_tail_items(x: Any) -> np.ndarray:
    """The ``tail_items`` argument as an id array (any iterable of ids: list, set, array, pandas Series)."""
    from ..inputs import as_id_array

    if isinstance(x, (str, bytes)) or not hasattr(x, "__iter__"):
        raise TypeError(
            f"`tail_items` must be an iterable of item ids (a list, set or array), got {type(x).__name__}; "
            "pass tail_items=[...]"
        )
    ids = x if isinstance(x, np.ndarray) else list(x.tolist() if hasattr(x, "tolist") else x)
    if len(ids) == 0:
        return np.zeros(0, dtype=np.int64)  # no tail item (np.array([]) is float64: no id to misread)
    arr = as_id_array(ids, "tail_items")
    if arr.ndim != 1:
        raise ValueError(f"`tail_items` must be a flat collection of item ids, got shape {arr.shape}")
    return arr


def tail_fingerprint(ids: np.ndarray) -> str:
    """A digest of the set of tail items (so states of different tail sets do not merge)."""
    import hashlib

    u = np.unique(ids) if ids.dtype != object else np.array(sorted({str(v) for v in ids.tolist()}), dtype=object)
    h = hashlib.blake2b(digest_size=16)
    h.update(u.tobytes() if u.dtype != object else "\x00".join(u.tolist()).encode("utf-8"))
    return h.hexdigest()


def in_place(m: Any) -> bool:
    """Whether topk_pass computes the metric on raw int ids (no coding, no copy of the lists)."""
    if given_tail(m):
        return False  # the tail ids are coded with the lists
    if m.name == "shannon_entropy" or m.name in TABLE_METRICS:
        return True
    return m.name == "user_coverage" and m.options["served"] != "hit"


def needs_truth(m: Any) -> bool:
    """Whether the metric reads the truth items (relevance) of every user."""
    if m.name in ("epc", "efd"):
        return m.options["relevance"] == "binary"
    return m.name == "user_coverage" and m.options["served"] == "hit"


def table_mode(m: Any) -> int:
    """topk_pass's mode of a table metric: 0 the mean over the counted items, 1 the sum / k, 2 the sum."""
    return {"surprisal": _K, "aclt": _NONE}.get(m.name, _ITEMS)


def _rank(key: Optional[np.ndarray], codes: np.ndarray) -> np.ndarray:
    """An int64 sort key of ``codes`` that orders them by item id (``key``: the id sort key of every code; None:
    the codes are the ids)."""
    if key is None:
        return codes
    k = key[codes]
    if k.dtype == np.int64:
        return k
    rank = np.empty(codes.size, dtype=np.int64)
    rank[np.argsort(k, kind="stable")] = np.arange(codes.size, dtype=np.int64)
    return rank


def head_items(pop: np.ndarray, share: float, key: Optional[np.ndarray]) -> np.ndarray:
    """Codes of the short head: train items (pop > 0) by popularity descending, ties by smaller id first, up to
    and including the first item at which their cumulative popularity reaches ``share`` x the total."""
    codes = np.flatnonzero(pop > 0)
    if codes.size == 0:
        return codes
    p = pop[codes].astype(np.int64)
    order = np.lexsort((_rank(key, codes), -p))
    cum = np.cumsum(p[order])
    j = int(np.searchsorted(cum, share * float(cum[-1]), side="left"))
    return codes[order[: min(j, codes.size - 1) + 1]]


def recbole_tail(pop_inter: np.ndarray, ratio: float, key: Optional[np.ndarray]) -> np.ndarray:
    """Codes of RecBole's long tail: with ratio > 1 the train items interacted with at most ``ratio`` times,
    else the first max(int(n ratio), 1) of the n train items by (interactions, id) ascending."""
    codes = np.flatnonzero(pop_inter > 0)
    if codes.size == 0:
        return codes
    p = pop_inter[codes].astype(np.int64)
    if ratio > 1:
        return codes[p <= ratio]
    order = np.lexsort((_rank(key, codes), p))
    cut = max(int(codes.size * ratio), 1)
    return codes[order[:cut]]


def pop_table(m: Any, pop_users: np.ndarray, pop_inter: np.ndarray, n_train_users: int, key=None) -> np.ndarray:
    """The per-item table of a popularity metric over the item codes (``pop_*`` cover every code; 0 = cold)."""
    o = m.options
    n = pop_users.size
    if m.name == "tail_percentage":
        t = np.zeros(n, dtype=np.float64)
        t[recbole_tail(pop_inter, o["tail_ratio"], key)] = 1.0
        return t
    if m.name in ("aplt", "aclt"):
        pop = pop_users if o["popularity"] == "users" else pop_inter
        t = np.ones(n, dtype=np.float64)
        t[head_items(pop, o["head_share"], key)] = 0.0
        return t
    cold = pop_users == 0
    safe = np.where(cold, 1, pop_users).astype(np.float64)
    if m.name == "surprisal":
        # RePlay: log2(N / u_j) / log2(N), N the train users; a cold item weighs 1
        if n_train_users <= 1:
            return np.full(n, np.nan)
        t = np.log2(n_train_users / safe) / np.log2(n_train_users)
        t[cold] = 1.0
        return t
    if m.name == "epc":
        # Elliot: 1 - u_j / N, a cold item 1
        if n_train_users == 0:
            return np.ones(n, dtype=np.float64)
        t = 1.0 - safe / n_train_users
        t[cold] = 1.0
        return t
    if m.name == "efd":
        # Elliot: -log2(u_j / sum_i u_i), a cold item the largest value of a train item
        norm = float(pop_users.sum())
        if norm == 0:
            return np.full(n, np.nan)
        t = -np.log2(safe / norm)
        t[cold] = -math.log2(float(pop_users[~cold].min()) / norm)
        return t + 0.0
    if m.name == "user_coverage":
        return np.ones(n, dtype=np.float64)
    raise AssertionError(m.name)  # pragma: no cover - every table metric is above


def _key(prep: Any) -> Optional[np.ndarray]:
    """The rank of every item code of ``prep`` by item id (None: the codes are the ids)."""
    if prep.labels is None:
        return None
    codes = np.arange(prep.n_items, dtype=np.int64)
    order = prep.sorted_ids(codes, codes)[1]  # the codes in id order
    rank = np.empty(codes.size, dtype=np.int64)
    rank[order] = codes
    return rank


def _exact(values: np.ndarray, threads: int) -> tuple[int, int]:
    limbs, count = _core.exact_sum(np.ascontiguousarray(values, dtype=np.float64), threads)
    return limbs_to_int(limbs), int(count)


def _pad(a: np.ndarray, n: int) -> np.ndarray:
    return a if a.size >= n else np.concatenate([a, np.zeros(n - a.size, dtype=a.dtype)])


def popularity_column(prep: Any, m: Any) -> tuple:
    """(per-user values, exact sum, count) of a popularity metric."""
    p, k, threads = prep.p, m.k or 0, prep.threads
    if m.name == "user_coverage" and m.options["served"] != "hit":
        lens = prep.top_lengths(k)
        vals = (lens > 0) if (m.options["served"] == "any" or not k) else (lens >= k)
        vals = vals.astype(np.float64)
        return (vals, *_exact(vals, threads))
    vals = prep._means.get(str(m))  # computed by the in-place pass
    n_rel = None
    if vals is None:
        n = max(int(prep.n_items), 1)
        zero = np.zeros(0, dtype=np.int64)  # no train (user_coverage): every item cold
        pu = _pad(zero if prep.pop_users is None else prep.pop_users, n)
        pi = _pad(zero if prep.pop_inter is None else prep.pop_inter, n)
        if given_tail(m):
            table = np.zeros(n, dtype=np.float64)
            table[prep.code["tail_items"]] = 1.0
        else:
            table = np.ascontiguousarray(pop_table(m, pu, pi, prep.n_train_users, _key(prep)))
        divide = table_mode(m)
        log_discount = False
        if m.name in ("epc", "efd"):
            divide, log_discount = _DISCOUNT, m.options["discount"] == "log"
        elif m.name == "user_coverage":
            divide = _NONE
        t = p.truth
        rel = needs_truth(m)
        vals, n_rel = _core.popularity_values(
            prep.li,
            prep.lt,
            table,
            k,
            divide,
            log_discount,
            t.indptr if rel else None,
            prep.code["truth"] if rel else None,
            t.grades if rel else None,
            p.min_relevance if rel else None,
            threads,
        )
    if m.name == "surprisal":
        # RePlay: an empty list scores 0; one train user or none leaves the normalisation undefined
        vals[prep.kept == 0] = 0.0
        if prep.n_train_users <= 1:
            vals[:] = np.nan
    elif m.name == "user_coverage":
        vals = (vals > 0).astype(np.float64)
    if n_rel is not None and m.name in ("epc", "efd"):
        no_rel = n_rel == 0
        left_out = getattr(p, "left_out", None)
        if left_out is not None:
            no_rel &= ~left_out
        if p.empty == "error" and no_rel.any():
            u = int(np.flatnonzero(no_rel)[0])
            user = p.users[u].item() if isinstance(p.users[u], np.generic) else p.users[u]
            raise ValueError(f"user {user!r} has no relevant item in `truth` and empty='error' (metric {str(m)!r})")
        vals[no_rel] = {"skip": np.nan, "zero": 0.0, "one": 1.0}[p.empty]
    if m.name == "efd" and prep.pop_users is not None and not prep.pop_users.any():
        vals[:] = np.nan  # no train item: no free-discovery value for any user
    return (vals, *_exact(vals, threads))


def popularity_groups(train: Any, head_share: float = 0.8, labels: Sequence[Any] = ("head", "tail")) -> Any:
    """The items of ``train`` in two popularity groups, for ``item_groups=``: the short head and the long tail.

    An item's popularity is the number of users of ``train`` with it (a repeat counted once per user). The short
    head is the split of ``pop_reo`` / ``pop_rsp`` (docs/metrics.md 3.23.5): items by popularity descending
    (ties: smaller id first), up to and including the first at which the cumulative popularity reaches
    ``head_share`` x the total; the long tail is every other item of ``train``. Items never in ``train`` are in
    neither group (``ungrouped=`` decides whether they count). Returns a dict item id -> ``labels[0]`` (head) or
    ``labels[1]`` (tail), items in id order.

    >>> import rankmeter as rm
    >>> rm.popularity_groups({"a": [1, 2], "b": [1, 3], "c": [1]}, head_share=0.5)
    {1: 'head', 2: 'tail', 3: 'tail'}
    """
    from ..inputs import to_truth

    if isinstance(head_share, bool) or not isinstance(head_share, (int, float, np.integer, np.floating)):
        raise TypeError(f"`head_share` must be a number in (0, 1], got {head_share!r}")
    if not 0.0 < float(head_share) <= 1.0:
        raise ValueError(f"`head_share` must be in (0, 1], got {head_share!r}")
    if isinstance(labels, (str, bytes)) or len(labels) != 2 or labels[0] == labels[1]:
        raise ValueError(f"`labels` must be two distinct names (head, tail), got {labels!r}")
    t = to_truth(train)
    items = np.asarray(t.items)
    if items.size == 0:
        raise ValueError("`train` has no interaction: popularity groups need some")
    ids, code = np.unique(items, return_inverse=True)
    code = code.ravel().astype(np.int64)
    user = np.repeat(np.arange(t.n_users, dtype=np.int64), np.diff(t.indptr))
    pairs = np.unique(user * ids.size + code)  # each (user, item) once
    pop = np.bincount(pairs % ids.size, minlength=ids.size).astype(np.int64)
    head = np.zeros(ids.size, dtype=bool)
    head[head_items(pop, float(head_share), None)] = True  # codes ascending are ids ascending
    names = [labels[0], labels[1]]
    return dict(zip(ids.tolist(), [names[v] for v in np.where(head, 0, 1).tolist()]))
