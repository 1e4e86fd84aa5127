"""Propensity-weighted metrics (docs/metrics.md 3.19.21-3.19.26): the ``propensity`` argument, Yang et al.'s
popularity propensities and the columns of ``ips_*``.

Each relevant item i of a user weighs w_i = 1 / p_i (clipped at ``cap`` when cap > 0); the per-user values come
from one kernel, ``_core.ips_values`` (rankmeter/propensity.hpp). ``normalize="snips"`` is Yang et al.'s
self-normalised estimator: the weights of a user's relevant items are rescaled to average 1. An item without a
propensity (absent from the mapping, or p = 0: an item never seen in the log) is an error under
``unknown="error"`` and weighs 0 under ``unknown="zero"`` (RecPack's rule for items of zero count).
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np

from .. import _core
from .._aggregate import limbs_to_int

__all__ = [
    "IPS_METRICS",
    "Propensity",
    "read_propensity",
    "popularity_propensity",
    "check_propensity",
    "check_ips_options",
    "check_known",
    "ips_column",
]

IPS_METRICS = ("ips_precision", "ips_recall", "ips_ndcg", "ips_rr", "ips_hit_rate", "ips_ap")
_KIND = {name: i for i, name in enumerate(IPS_METRICS)}  # IpsKind of rankmeter/propensity.hpp

_ARG = "propensity"
_FORMS = (
    "a dict item -> propensity, a pandas Series (index = item), a pair (items, propensities), "
    "rm.popularity_propensity(train, gamma=...) or 'popularity' (from `train`, gamma=1)"
)


class Propensity:
    """The ``propensity`` argument as checked arrays: distinct item ids and their propensities (finite, >= 0)."""

    __slots__ = ("ids", "p")

    def __init__(self, ids: np.ndarray, p: np.ndarray):
        self.ids, self.p = ids, p

    def fingerprint(self) -> str:
        """A digest of the (item, propensity) pairs (so states of different propensities do not merge)."""
        if self.ids.dtype == object:
            order = np.argsort(np.array([str(v) for v in self.ids.tolist()], dtype=object), kind="stable")
        else:
            order = np.argsort(self.ids, kind="stable")
        ids, p = self.ids[order], self.p[order]
        h = hashlib.blake2b(digest_size=16)
        h.update(ids.tobytes() if ids.dtype != object else "\x00".join(str(v) for v in ids.tolist()).encode("utf-8"))
        h.update(np.ascontiguousarray(p, dtype=np.float64).tobytes())
        return h.hexdigest()


def _values(x: Any) -> np.ndarray:
    try:
        p = np.asarray(list(x.tolist() if hasattr(x, "tolist") else x), dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"`{_ARG}` must map items to numbers (propensities); pass {_FORMS}") from None
    return p


def read_propensity(x: Any, train: Any = None) -> Propensity:
    """The ``propensity`` argument (any of its forms) as a :class:`Propensity`, checked before any work."""
    from ..inputs import as_id_array

    if isinstance(x, str):
        if x != "popularity":
            raise ValueError(f"`{_ARG}` as a string must be 'popularity', got {x!r}; or pass {_FORMS}")
        if train is None:
            raise ValueError(
                f"{_ARG}='popularity' computes the propensities from the train popularity: pass train=... too, "
                "or give the propensities"
            )
        return _popularity(train, 1.0)
    if isinstance(x, Propensity):
        return x
    if isinstance(x, dict):
        ids_list, vals = list(x.keys()), list(x.values())
    elif hasattr(x, "index") and hasattr(x, "to_numpy") and getattr(x, "ndim", 2) == 1:  # pandas Series
        ids_list, vals = list(x.index.tolist()), x.to_numpy()
    elif isinstance(x, tuple) and len(x) == 2:
        ids_list, vals = x
        ids_list = list(ids_list.tolist() if hasattr(ids_list, "tolist") else ids_list)
    else:
        raise TypeError(f"`{_ARG}` must be {_FORMS}; got {type(x).__name__}")
    p = _values(vals)
    if p.ndim != 1 or len(ids_list) != p.size:
        raise ValueError(f"`{_ARG}` needs one propensity per item: got {len(ids_list)} items and {p.size} values")
    ids = as_id_array(ids_list, _ARG) if len(ids_list) else np.zeros(0, dtype=np.int64)
    bad = ~np.isfinite(p) | (p < 0)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"`{_ARG}` must hold finite numbers >= 0; item {_plain(ids[j])!r} has {p[j]!r} "
            "(0: an item never seen, weighed by unknown=)"
        )
    if ids.size:
        uniq = np.unique(ids) if ids.dtype != object else None
        n_distinct = uniq.size if uniq is not None else len(set(ids.tolist()))
        if n_distinct != ids.size:
            raise ValueError(f"`{_ARG}` gives an item twice: give one propensity per item")
    return Propensity(ids, p)


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _popularity(train: Any, gamma: float) -> Propensity:
    items = train.items
    if items.size == 0:
        return Propensity(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))
    if items.dtype == object:
        d: dict = {}
        for v in items.tolist():
            d[v] = d.get(v, 0) + 1
        ids = np.empty(len(d), dtype=object)
        ids[:] = list(d.keys())
        n = np.fromiter(d.values(), dtype=np.float64, count=len(d))
    else:
        ids, counts = np.unique(items, return_counts=True)
        n = counts.astype(np.float64)
    q = n ** ((gamma + 1.0) / 2.0)
    return Propensity(ids, q / math.fsum(q.tolist()))


def popularity_propensity(train: Any, gamma: float = 1.0, **table_kw: Any) -> tuple[np.ndarray, np.ndarray]:
    """Yang et al.'s popularity propensities of the items of ``train``: p_i proportional to n_i^((gamma+1)/2).

    Parameters
    ----------
    train : any truth form (dict user -> items, table, CSR, ...)
        The interaction log; n_i is the number of its entries holding item i.
    gamma : float, default 1.0
        The exponent of the popularity power law (Yang et al. 2018, eq. 10); any finite number.
    **table_kw
        ``user_col``, ``item_col``, ... when ``train`` is a table.

    Returns
    -------
    (items, propensities) : tuple of arrays
        The distinct train items and p_i = n_i^((gamma+1)/2) / sum_j n_j^((gamma+1)/2), which the
        ``propensity=`` argument of :func:`rankmeter.evaluate` takes. With gamma = 1, p_i = n_i / sum_j n_j:
        RecPack's ``IPSMetric.fit``. Yang et al. give p up to a constant factor, which SNIPS cancels.

    Notes
    -----
    docs/metrics.md 3.19.21. Yang, Cui, Biega, Estrin: "Unbiased offline recommender evaluation for
    missing-not-at-random implicit feedback", RecSys 2018.

    Examples
    --------
    >>> import rankmeter as rm
    >>> items, p = rm.popularity_propensity({1: [10, 11], 2: [10]}, gamma=1.0)
    >>> items.tolist(), p.tolist()
    ([10, 11], [0.6666666666666666, 0.3333333333333333])
    """
    from ..inputs import to_truth

    if isinstance(gamma, bool) or not isinstance(gamma, (int, float, np.integer, np.floating)):
        raise TypeError(f"`gamma` must be a number, got {type(gamma).__name__}")
    if not math.isfinite(float(gamma)):
        raise ValueError(f"`gamma` must be finite, got {gamma!r}")
    pr = _popularity(to_truth(train, "train", **table_kw), float(gamma))
    return pr.ids, pr.p


def check_ips_options(m: Any) -> None:
    """cap= is a clip of the inverse propensities: 0 (none) or a positive number."""
    if m.name in IPS_METRICS and m.options["cap"] < 0:
        raise ValueError(
            f"metric {str(m)!r}: cap= clips the inverse propensities 1 / p at a positive value (0: no clip), "
            f"got {m.options['cap']!r}"
        )


def check_propensity(pr: Any, metrics: list) -> None:
    """``propensity`` is read by the ips_* metrics only: given without one, the call is refused."""
    if pr is not None and not any(m.name in IPS_METRICS for m in metrics):
        raise ValueError(
            "`propensity` is read by the propensity-weighted metrics only (ips_precision, ips_recall, ips_ndcg, "
            "ips_rr, ips_hit_rate, ips_ap), and none is asked for: ask for one (e.g. 'ips_ndcg@10'), or drop "
            "`propensity`"
        )


def weight_table(pr: Propensity, codes: np.ndarray, n_items: int, m: Any) -> np.ndarray:
    """w over the item codes: 1 / p clipped at cap (cap > 0); NaN (unknown="error") or 0 (unknown="zero") for an
    item without a propensity or with p = 0."""
    w = np.full(n_items, np.nan, dtype=np.float64)
    with np.errstate(divide="ignore"):
        inv = np.where(pr.p > 0, 1.0 / np.where(pr.p > 0, pr.p, 1.0), np.nan)
    w[codes] = inv
    cap = float(m.options["cap"])
    if cap > 0:
        w = np.where(np.isnan(w), w, np.minimum(w, cap))
    if m.options["unknown"] == "zero":
        w[np.isnan(w)] = 0.0
    return np.ascontiguousarray(w)


def _relevant(t: Any, min_relevance: Any) -> np.ndarray:
    g = t.grades
    if g is None:
        return np.ones(t.items.size, dtype=bool)
    g = np.asarray(g, dtype=np.float64)
    return g >= min_relevance if min_relevance is not None else g > 0


def _unknown_error(m: Any, item: Any, user: Any) -> ValueError:
    return ValueError(
        f"metric {str(m)!r}: relevant item {_plain(item)!r} of user {_plain(user)!r} has no propensity "
        "(absent from `propensity`, or 0: never seen in the log); give it one, or weigh such items 0 "
        f"with unknown='zero' (RecPack), e.g. '{m.name}(unknown=zero)'"
    )


def check_known(p: Any, metrics: list) -> None:
    """Under unknown="error", every relevant truth item has a propensity > 0: checked while planning, before
    any metric runs (the error names the first such item of the lowest user)."""
    pr = p.ctx.propensity
    strict = [m for m in metrics if m.name in IPS_METRICS and m.options["unknown"] == "error"]
    if pr is None or not strict:
        return
    t = p.truth
    items = t.items
    if items.size == 0:
        return
    rel = _relevant(t, p.min_relevance)
    known_ids = pr.ids[pr.p > 0]
    if items.dtype != object and known_ids.dtype != object:
        known = np.isin(items, known_ids)
    else:
        seen = set(known_ids.tolist())
        known = np.fromiter((v in seen for v in items.tolist()), dtype=bool, count=items.size)
    bad = rel & ~known
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        row = int(np.searchsorted(t.indptr, j, side="right") - 1)
        raise _unknown_error(strict[0], items[j], p.users[row])


def ips_column(prep: Any, m: Any) -> tuple:
    """(per-user values, exact sum, count) of a propensity-weighted metric."""
    p, k, threads = prep.p, m.k or 0, prep.threads
    t = p.truth
    n = max(int(prep.n_items), 1)
    pr: Propensity = prep.ctx.propensity
    w = weight_table(pr, prep.code["propensity"], n, m)
    t_codes = prep.code["truth"]
    if m.options["unknown"] == "error" and t_codes.size:
        bad = _relevant(t, p.min_relevance) & np.isnan(w[t_codes])
        if bad.any():  # found while planning (check_known); kept for a plan made another way
            j = int(np.flatnonzero(bad)[0])
            row = int(np.searchsorted(t.indptr, j, side="right") - 1)
            raise _unknown_error(m, t.items[j], p.users[row] if p.users is not None else row)
    vals, n_rel = _core.ips_values(
        prep.li,
        prep.lt,
        w,
        k,
        _KIND[m.name],
        m.options["normalize"] == "snips",
        t.indptr,
        t_codes,
        t.grades,
        p.min_relevance,
        threads,
    )
    no_rel = n_rel == 0
    left_out = getattr(p, "left_out", None)
    if left_out is not None:
        no_rel &= ~left_out
    if p.empty == "error" and no_rel.any():
        u = int(np.flatnonzero(no_rel)[0])
        user = _plain(p.users[u]) if p.users is not None else u
        raise ValueError(f"user {user!r} has no relevant item in `truth` and empty='error' (metric {str(m)!r})")
    vals[no_rel] = {"skip": np.nan, "zero": 0.0, "one": 1.0}[p.empty]
    limbs, count = _core.exact_sum(np.ascontiguousarray(vals, dtype=np.float64), threads)
    return vals, limbs_to_int(limbs), int(count)
