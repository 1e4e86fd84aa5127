"""Exact aggregation and mergeable partial results (:class:`State`).

The C++ pass sums each column's per-user values without rounding: every double
is an integer multiple of 2^-1074, and the core returns the exact integer
``S`` such that the sum is ``S * 2^-1074`` (as 32-bit digits, "limbs"). Python's
integers hold it exactly, so partial sums from different threads, batches or
processes merge by integer addition, and the mean is ``(S / 2^1074) / n``: the
exact sum rounded once to the nearest double (CPython's int/int division is
correctly rounded), then divided by the count, which is what
``math.fsum(values) / n`` gives. The means therefore do not depend on the
thread count, the order of users or how users were split.

Catalog-level metrics (coverage, Gini, personalization) have no per-user
values; a state carries what they are computed from instead: integer
item-count histograms keyed by item id (and per list length for the cosine
personalization), the number of users with a non-empty top k, and the catalog.
Histograms merge by integer addition, and the value is always computed from
the (merged) histogram by the same code, so a merged state gives the one-call
value bit for bit. Score entropy merges through a log-sum-exp triple.

A state also holds the ids of its evaluated users, so merging two states that
share a user is an error naming the user instead of a silent double count.
"""

from __future__ import annotations

import json
import math
import struct
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional, Union

import numpy as np

from ._exposure_values import EQUAL_OPPORTUNITY, eo_key, exposure_table, exposure_value, merge_exposure
from .metrics import Metric, parse

__all__ = [
    "State",
    "Means",
    "CatalogPart",
    "exact_mean",
    "limbs_to_int",
    "reads_catalog",
    "EXACT_SHIFT",
    "META_KEYS",
]

EXACT_SHIFT = 1074  # sums are integers in units of 2^-1074
_ONE = 1 << EXACT_SHIFT
_MAGIC = b"RMST"
_VERSION = 2
META_KEYS = ("n_users", "n_skipped", "n_missing_recs", "n_ignored_recs", "n_tied_users")
_SHARD_RECIPE = (
    "states merge only when they hold different users (partition by user). To evaluate recommendations "
    "sharded across files against one truth, call partial(truth, shard, ..., missing='skip') per shard (each "
    "shard then evaluates only its own users) and add the truth users that no shard recommends to with "
    "partial(truth, {}, ..., users=...) or evaluate them once; see 'Evaluating in pieces' in docs/metrics.md"
)


def limbs_to_int(limbs: np.ndarray) -> int:
    """The exact integer held by one row of 32-bit-digit limbs (signed int64 each)."""
    total = 0
    nz = np.flatnonzero(limbs)  # a sum holds a few nonzero limbs among its many
    for i, limb in zip(nz.tolist(), limbs[nz].tolist()):
        total += limb << (32 * i)
    return total


def exact_mean(total: int, count: int) -> float:
    """Correctly rounded ``total * 2^-1074``, divided by ``count``; NaN when count is 0."""
    if count == 0:
        return math.nan
    try:
        s = total / _ONE
    except OverflowError:
        s = math.inf if total > 0 else -math.inf
    return s / count


# --------------------------------------------------------------------------- names
def canonical(key: Any) -> Optional[str]:
    """The canonical name of a metric spelling or object (None when it does not parse)."""
    if isinstance(key, Metric):
        return str(key)
    try:
        return str(parse(key))
    except (ValueError, TypeError):
        return None


class Means(dict):
    """The means of a finalized :class:`State`: ``{name as asked: mean}``.

    Like a :class:`rankmeter.Result`, it answers to every spelling of a metric
    that was asked for: the name as passed, its canonical form, aliases
    (``"map@10"`` / ``"ap@10"``) and ``Metric`` objects. ``meta`` holds the
    user counts.
    """

    def __init__(self, values: Mapping[str, float], canon: Mapping[str, str], meta: Mapping[str, int]):
        super().__init__(values)
        self._canon = dict(canon)  # canonical name -> key as asked
        self.meta = dict(meta)

    def __missing__(self, key: Any) -> float:
        c = canonical(key) if isinstance(key, (str, Metric)) else None
        if c is not None and c in self._canon:
            return dict.__getitem__(self, self._canon[c])
        raise KeyError(f"{key!r} was not evaluated; available: {', '.join(self)}")

    def __contains__(self, key: object) -> bool:
        if dict.__contains__(self, key):
            return True
        c = canonical(key) if isinstance(key, (str, Metric)) else None
        return c is not None and c in self._canon

    def get(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __repr__(self) -> str:
        return f"Means({dict.__repr__(self)}, meta={self.meta})"


# --------------------------------------------------------------------------- ids
IdArray = np.ndarray  # int64 (kind "int") or object array of str (kind "str")


def _id_kind(ids: np.ndarray) -> str:
    return "int" if ids.dtype.kind in "iu" else "str"


def _all_str(ids: np.ndarray) -> bool:
    """Every id a str: one C pass of pandas' type inference when pandas is loaded (the usual case with
    string ids), else a Python pass."""
    pd = sys.modules.get("pandas")
    if pd is not None:
        return bool(pd.api.types.infer_dtype(ids, skipna=False) == "string")
    return all(isinstance(x, str) for x in ids.tolist())


def _as_key_ids(ids: np.ndarray) -> np.ndarray:
    """Ids as a sortable array: int64 for ints, an object array of str for anything else
    (a str id stays itself; other hashables are keyed by their repr)."""
    if ids.dtype.kind in "iu":
        return np.ascontiguousarray(ids, dtype=np.int64)
    if ids.dtype == object and _all_str(ids):
        return ids.copy()
    out = np.empty(ids.size, dtype=object)
    out[:] = [x if isinstance(x, str) else repr(x) for x in ids.tolist()]
    return out


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _check_kinds(a: np.ndarray, b: np.ndarray, what: str) -> None:
    if a.size and b.size and _id_kind(a) != _id_kind(b):
        raise ValueError(
            f"cannot merge states whose {what} ids are of different kinds: {_plain(a[0])!r} vs {_plain(b[0])!r}"
        )


def _sorted_union_counts(ids: list[np.ndarray], counts: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Sum the counts of equal ids over several (ids, counts) pairs; ids come back sorted."""
    if len(ids) == 1:
        return ids[0], counts[0]
    allv = np.concatenate(ids)
    allc = np.concatenate(counts)
    if allv.size == 0:
        return allv, allc.astype(np.int64)
    uniq, inv = np.unique(allv, return_inverse=True)
    out = np.zeros(uniq.size, dtype=np.int64)
    np.add.at(out, inv.reshape(-1), allc)
    return uniq, out


# --------------------------------------------------------------------------- catalog parts
def reads_catalog(m: Metric) -> bool:
    """Whether a catalog-level metric's value reads the catalog (the ``catalog`` argument, else the
    items of ``train``): coverage, and gini over the catalog (see docs/metrics.md)."""
    return m.family == "catalog" and "catalog" in m.reads


class CatalogPart:
    """What the catalog-level metrics at one cutoff are computed from (exact integers).

    ``ids``/``counts``: how many users have each item in their top k (sorted by id,
    zero counts left out); ``lens``: per (item, top-k length) counts for the cosine
    personalization (``len_ids``, ``len_values``, ``len_counts``, sorted by id then
    length); ``nonempty``: users with a non-empty top k; ``max_len``: the longest top k;
    ``entropy``: (max score, Σ e^(s-max), Σ (s-max) e^(s-max)) of the pooled scores.
    """

    __slots__ = ("ids", "counts", "len_ids", "len_values", "len_counts", "nonempty", "max_len", "entropy", "exposure")

    def __init__(
        self,
        ids,
        counts,
        nonempty,
        max_len,
        len_ids=None,
        len_values=None,
        len_counts=None,
        entropy=None,
        exposure=None,
    ):
        self.ids = ids
        self.counts = counts
        self.nonempty = int(nonempty)
        self.max_len = int(max_len)
        self.len_ids, self.len_values, self.len_counts = len_ids, len_values, len_counts
        self.entropy = entropy
        # the exposure histograms of exposure_gini / exposure_disparity (name -> int64 or id array; see
        # _exposure_values.py), or None
        self.exposure = exposure

    @staticmethod
    def merge_all(parts: Sequence[CatalogPart]) -> CatalogPart:
        for p in parts[1:]:
            _check_kinds(parts[0].ids, p.ids, "item")
        ids, counts = _sorted_union_counts([p.ids for p in parts], [p.counts for p in parts])
        len_ids = len_values = len_counts = None
        if all(p.len_ids is not None for p in parts):
            if len(parts) == 1:
                len_ids, len_values, len_counts = parts[0].len_ids, parts[0].len_values, parts[0].len_counts
            else:
                allv = np.concatenate([p.len_ids for p in parts])
                alll = np.concatenate([p.len_values for p in parts])
                allc = np.concatenate([p.len_counts for p in parts])
                order = np.lexsort((alll, allv))
                allv, alll, allc = allv[order], alll[order], allc[order]
                if allv.size:
                    new = np.ones(allv.size, dtype=bool)
                    new[1:] = (allv[1:] != allv[:-1]) | (alll[1:] != alll[:-1])
                    starts = np.flatnonzero(new)
                    len_ids, len_values = allv[starts], alll[starts]
                    len_counts = np.add.reduceat(allc, starts)
                else:
                    len_ids, len_values, len_counts = allv, alll, allc
        entropy = None
        if all(p.entropy is not None for p in parts):
            entropy = _merge_entropy([p.entropy for p in parts])
        return CatalogPart(
            ids,
            counts,
            sum(p.nonempty for p in parts),
            max(p.max_len for p in parts),
            len_ids,
            len_values,
            len_counts,
            entropy,
            merge_exposure([p.exposure for p in parts]),
        )

    # ---- values
    def coverage(self, catalog: np.ndarray, outside: str = "skip") -> float:
        """Recommended catalog items / catalog size; ``outside="count"``: every distinct recommended item,
        in the catalog or not, over the catalog size (CAPRI, RecTools, Recommenders: can exceed 1)."""
        if catalog.size == 0:
            return math.nan
        if outside == "count":
            return int(np.count_nonzero(self.counts)) / catalog.size
        return int(np.count_nonzero(_in_sorted(catalog, self.ids))) / catalog.size

    def gini(self, catalog: Optional[np.ndarray], over: str, divisor: str = "n_minus_1") -> float:
        if over == "catalog":
            assert catalog is not None
            pos = np.searchsorted(self.ids, catalog) if self.ids.size else np.zeros(catalog.size, dtype=np.int64)
            pos = np.minimum(pos, max(self.ids.size - 1, 0))
            found = self.ids[pos] == catalog if self.ids.size else np.zeros(catalog.size, dtype=bool)
            v = np.where(found, self.counts[pos] if self.ids.size else 0, 0)
        else:
            v = self.counts[self.counts > 0]
        return gini(v, divisor)

    def personalization(self, similarity: str, k: Optional[int]) -> float:
        pairs = self.nonempty * (self.nonempty - 1) // 2
        if pairs == 0:
            return math.nan
        if similarity == "overlap":
            c = self.counts.astype(np.int64)
            same = (
                int(np.sum(c * (c - 1) // 2, dtype=np.int64))
                if c.size and int(c.max()) < (1 << 31)
                else sum(x * (x - 1) // 2 for x in c.tolist())
            )
            kk = k if k else self.max_len
            return 1.0 - same / (pairs * kk)
        if similarity == "evidently":
            # Evidently's code: 1 - (Σ c_i² - N k) / (k N (N - 1)), which takes every top k to hold k items
            # (each user's overlap with itself counted as k): exact integers, one division
            c = self.counts.astype(np.int64)
            squares = (
                int(np.sum(c * c, dtype=np.int64))
                if c.size and int(c.max()) < (1 << 31)
                else sum(x * x for x in c.tolist())
            )
            kk = k if k else self.max_len
            n = self.nonempty
            return 1.0 - (squares - n * kk) / (kk * n * (n - 1))
        return 1.0 - _cosine_total(self.len_ids, self.len_values, self.len_counts) / pairs

    def shannon_entropy(self, base: float, normalize: str) -> float:
        """-Σ p_i log p_i over the recommended items, p_i = c_i / Σ c (docs/metrics.md 3.19.13), the terms summed
        once, correctly rounded (math.fsum), from the (merged) histogram, so a merged state gives the one-call value
        bit for bit; NaN without a listed item. normalize="distinct" divides by the number of distinct recommended
        items (RecBole's ShannonEntropy)."""
        c = self.counts[self.counts > 0]
        if c.size == 0:
            return math.nan
        p = c.astype(np.float64) / float(int(c.sum()))
        h = -math.fsum((p * np.log(p)).tolist()) / math.log(base) + 0.0
        return h / c.size if normalize == "distinct" else h

    def score_entropy(self) -> float:
        if self.entropy is None or not math.isfinite(self.entropy[0]):
            return math.nan
        _, z, a = self.entropy
        return math.log(z) - a / z


def _in_sorted(values: np.ndarray, sorted_ids: np.ndarray) -> np.ndarray:
    if sorted_ids.size == 0 or values.size == 0:
        return np.zeros(values.size, dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_ids, values), sorted_ids.size - 1)
    return sorted_ids[pos] == values


def gini(counts: np.ndarray, divisor: str = "n_minus_1") -> float:
    """Σ_j (2j - n - 1) c_j / ((n - 1) Σ c), counts sorted ascending (exact integers, one division);
    ``divisor="n"``: / (n Σ c) (RecBole's GiniIndex)."""
    n = counts.size
    c = np.sort(np.asarray(counts, dtype=np.int64))
    total = int(c.sum())
    if n < (2 if divisor == "n_minus_1" else 1) or total == 0:
        return math.nan
    j = np.arange(1, n + 1, dtype=np.int64)
    if n < (1 << 20) and int(c[-1]) < (1 << 40):
        num = int(np.sum((2 * j - n - 1) * c, dtype=np.int64))
    else:
        num = sum(int(a) * int(b) for a, b in zip((2 * j - n - 1).tolist(), c.tolist()))
    return num / ((n - 1 if divisor == "n_minus_1" else n) * total)


def _cosine_total(ids: np.ndarray, lens: np.ndarray, counts: np.ndarray) -> float:
    """Σ over unordered user pairs of |L_u ∩ L_v| / sqrt(|L_u| |L_v|), from per (item, length) counts.

    Within one length l an item shared by c users gives C(c, 2) / l (summed as exact
    integers per length); across lengths, ((Σ_l a_l)^2 - Σ_l a_l^2) / 2 with
    a_l = c_l / sqrt(l), only for items seen at two or more lengths. The order of
    the float sums is fixed by the sorted histogram, so equal histograms give equal
    values whatever produced them.
    """
    if ids.size == 0:
        return 0.0
    c = counts.astype(np.int64)
    within = 0.0
    for length in np.unique(lens).tolist():
        sel = c[lens == length]
        within += int(np.sum(sel * (sel - 1) // 2, dtype=np.int64)) / length
    starts = np.flatnonzero(np.concatenate(([True], ids[1:] != ids[:-1])))
    multi = np.diff(np.append(starts, ids.size)) > 1
    cross = 0.0
    if multi.any():
        a = c / np.sqrt(lens.astype(np.float64))
        s = np.add.reduceat(a, starts)[multi]
        q = np.add.reduceat(a * a, starts)[multi]
        cross = float(np.sum((s * s - q) / 2.0))
    return within + cross


def _merge_entropy(parts: Sequence[tuple[float, float, float]]) -> tuple[float, float, float]:
    live = [p for p in parts if math.isfinite(p[0])]
    if not live:
        return (-math.inf, 0.0, 0.0)
    m = max(p[0] for p in live)
    z = math.fsum(zz * math.exp(mm - m) for mm, zz, _ in live)
    a = math.fsum(math.exp(mm - m) * (aa + (mm - m) * zz) for mm, zz, aa in live)
    return (m, z, a)


def entropy_part(scores: np.ndarray) -> tuple[float, float, float]:
    """(max, Σ e^(s-max), Σ (s-max) e^(s-max)) of a vector of scores."""
    if scores.size == 0:
        return (-math.inf, 0.0, 0.0)
    m = float(scores.max())
    x = scores - m
    e = np.exp(x)
    return (m, math.fsum(e.tolist()) if e.size < 4096 else float(np.sum(e)), float(np.sum(e * x)))


# --------------------------------------------------------------------------- State
def _hex_sum(s: Any) -> int:
    """An exact sum as written by ``to_bytes`` (hex); anything else means corrupt bytes."""
    try:
        return int(s, 16)
    except ValueError:
        raise ValueError(f"`data` is corrupt (the exact sum {str(s)[:20]!r}... is not hexadecimal)") from None


class State:
    """Mergeable, exact partial result of an evaluation (see :func:`rankmeter.partial`).

    Holds, per metric column, the exact sum of the per-user values and their
    count (catalog-level columns: item-count histograms instead), the user
    counters of ``Result.meta`` and the ids of the evaluated users. States of
    disjoint sets of users merge exactly (``a.merge(b)``, ``State.merge_all``),
    in any order, and ``finalize()`` gives the same means as one
    :func:`rankmeter.evaluate` call over all the users, bit for bit. A user in
    two merged states is a ``ValueError`` naming the user. ``to_bytes()`` /
    ``State.from_bytes()`` carry a state between processes in a compact,
    versioned binary form.
    """

    __slots__ = ("names", "keys", "sums", "counts", "meta", "_users", "_users_sorted", "parts", "catalog", "context")

    def __init__(
        self,
        names: Sequence[str],
        sums: Sequence[int],
        counts: Sequence[int],
        meta: Mapping[str, int],
        users: Optional[np.ndarray] = None,
        *,
        keys: Optional[Sequence[tuple[str, int]]] = None,
        parts: Optional[Mapping[int, CatalogPart]] = None,
        catalog: Optional[np.ndarray] = None,
        context: Optional[Mapping[str, str]] = None,
        users_sorted: bool = False,
    ):
        if not (len(names) == len(sums) == len(counts)):
            raise ValueError("names, sums and counts must have the same length")
        self.names = tuple(names)
        self.keys = tuple(keys) if keys is not None else tuple((n, i) for i, n in enumerate(self.names))
        self.sums = [int(s) for s in sums]
        self.counts = [int(c) for c in counts]
        self.meta = {k: int(meta.get(k, 0)) for k in META_KEYS}
        self._users = _as_key_ids(np.zeros(0, dtype=np.int64) if users is None else np.asarray(users))
        self._users_sorted = users_sorted
        self.parts = dict(parts or {})  # cutoff (0: whole lists) -> CatalogPart
        self.catalog = catalog  # sorted catalog ids, or None
        self.context = dict(context or {})  # context name -> fingerprint

    # ---- users
    @property
    def users(self) -> np.ndarray:
        """The evaluated users' ids, sorted (int64, or str for any other id kind)."""
        if not self._users_sorted:
            self._users = np.sort(self._users, kind="stable")
            self._users_sorted = True
        return self._users

    # ---- merging
    def merge(self, other: State) -> State:
        """A new state covering the users of both (they must be disjoint sets of users)."""
        if not isinstance(other, State):
            raise TypeError(f"`other` must be a rankmeter.State, got {type(other).__name__}")
        return State.merge_all([self, other])

    @staticmethod
    def merge_all(states: Iterable[State]) -> State:
        """Merge any number of states (at least one) of disjoint users, in one pass."""
        states = list(states)
        if not states:
            raise ValueError("`states` is empty")
        for s in states:
            if not isinstance(s, State):
                raise TypeError(f"`states` must hold rankmeter.State objects, got {type(s).__name__}")
        first = states[0]
        for s in states[1:]:
            if s.names != first.names:
                raise ValueError(f"cannot merge states of different metrics: {list(first.names)} vs {list(s.names)}")
            if sorted(s.parts) != sorted(first.parts):
                raise ValueError("cannot merge states: their catalog-level metrics read different cutoffs")
            if not _same_ids(s.catalog, first.catalog):
                raise ValueError(
                    "cannot merge states evaluated against different catalogs (the `catalog` or `train` of each "
                    "partial() call must be the same)"
                )
            if s.context != first.context:
                diff = sorted(
                    k for k in set(s.context) | set(first.context) if s.context.get(k) != first.context.get(k)
                )
                raise ValueError(
                    f"cannot merge states evaluated with different context ({', '.join(diff)}): pass the same "
                    "train / item_features / item_similarity to every partial() call"
                )
            _check_kinds(first._users, s._users, "user")
        users = _disjoint_union([s._users for s in states]) if len(states) > 1 else first._users
        keys = list(first.keys)
        seen = {k for k, _ in keys}
        for s in states[1:]:
            for k, c in s.keys:
                if k not in seen:
                    keys.append((k, c))
                    seen.add(k)
        parts = {k: CatalogPart.merge_all([s.parts[k] for s in states]) for k in first.parts}
        return State(
            first.names,
            [sum(s.sums[i] for s in states) for i in range(len(first.names))],
            [sum(s.counts[i] for s in states) for i in range(len(first.names))],
            {k: sum(s.meta[k] for s in states) for k in META_KEYS},
            users,
            keys=keys,
            parts=parts,
            catalog=first.catalog,
            context=first.context,
            users_sorted=len(states) > 1 or first._users_sorted,
        )

    # ---- values
    def _value(self, i: int) -> float:
        name = self.names[i]
        m = parse(name)
        if m.family != "catalog":
            return exact_mean(self.sums[i], self.counts[i])
        part = self.parts[m.k or 0]
        if m.name == "coverage":
            assert self.catalog is not None
            return part.coverage(self.catalog, m.options["outside"])
        if m.name == "gini":
            return part.gini(self.catalog, m.options["over"], m.options["divisor"])
        if m.name == "personalization":
            return part.personalization(m.options["similarity"], m.k)
        if m.name == "score_entropy":
            return part.score_entropy()
        if m.name == "shannon_entropy":
            return part.shannon_entropy(m.options["log_base"], m.options["normalize"])
        if m.name in ("exposure_gini", "exposure_disparity", "item_mad", *EQUAL_OPPORTUNITY):
            return exposure_value(part, m, self.catalog)
        raise ValueError(f"unknown catalog metric {name!r}")  # pragma: no cover - every catalog metric is above

    def exposure(self, metric: Any) -> Any:
        """The exposures behind an ``exposure_gini`` or ``exposure_disparity`` column, as a pandas DataFrame.

        ``exposure_gini``: one row per item (index ``item``; the catalog's items under ``over=catalog``, the
        exposed ones under ``over=recommended``), most exposed first: ``exposure`` (E_i, the sum over users of the
        attention of i's position) and ``share`` (E_i / sum E). ``exposure_disparity``: one row per group of
        ``item_groups`` (index ``group``; ``(no group)`` last under ``ungrouped=own``): ``exposure``, ``share``,
        ``target`` (the target share) and ``gap`` (share - target; the metric is half the sum of |gap|). The
        table is computed from the state's integer histograms, so a merged state gives the one-call table.
        """
        key = str(metric) if isinstance(metric, Metric) else metric
        col = dict(self.keys).get(key)
        if col is None:
            try:
                canon = str(parse(key))
            except (ValueError, TypeError):
                canon = None
            col = next((i for i, n in enumerate(self.names) if n == canon), None)
        if col is None:
            raise KeyError(f"{metric!r} was not evaluated; available: {', '.join(k for k, _ in self.keys)}")
        m = parse(self.names[col])
        if m.name not in ("exposure_gini", "exposure_disparity"):
            raise ValueError(
                f"{metric!r} has no exposure table: ask for it of an exposure_gini or exposure_disparity column"
            )
        return exposure_table(self.parts[m.k or 0].exposure, m, self.catalog)

    def values(self) -> list[float]:
        """The value of every column (mean, or the catalog-level value), in column order."""
        return [self._value(i) for i in range(len(self.names))]

    def finalize(self) -> Means:
        """The means: ``{metric name as asked: mean}`` (NaN when no user has a value).

        Answers to every spelling of the metrics asked for (aliases, canonical
        names, ``Metric`` objects), like a :class:`rankmeter.Result`; ``.meta``
        holds the user counts.
        """
        vals = self.values()
        out = {k: vals[c] for k, c in self.keys}
        canon: dict[str, str] = {}
        for k, c in self.keys:
            canon.setdefault(self.names[c], k)
        return Means(out, canon, self.meta)

    # ---- bytes
    def to_bytes(self) -> bytes:
        """Versioned little-endian binary form (see :meth:`from_bytes`).

        Layout: ``RMST``, u16 version, u32 header length, a UTF-8 JSON header
        (names, keys, sums as hex, counts, meta, catalog-part scalars, context
        fingerprints, and the kind/length of every id or count block), then the
        blocks: int64 arrays as raw little-endian bytes, string ids as u32
        lengths followed by their UTF-8 bytes.
        """
        blocks: list[bytes] = []
        layout: list[list[Any]] = []

        def put(arr: Optional[np.ndarray]) -> Optional[int]:
            if arr is None:
                return None
            kind, data = _encode_ids(arr)
            layout.append([kind, int(arr.size), len(data)])
            blocks.append(data)
            return len(layout) - 1

        header: dict[str, Any] = {
            "names": list(self.names),
            "keys": [[k, c] for k, c in self.keys],
            "sums": [format(s, "x") if s >= 0 else "-" + format(-s, "x") for s in self.sums],
            "counts": self.counts,
            "meta": self.meta,
            "users": put(self.users),
            "catalog": put(self.catalog),
            "context": self.context,
            "parts": {},
        }
        for k, p in self.parts.items():
            header["parts"][str(k)] = {
                "ids": put(p.ids),
                "counts": put(p.counts),
                "len_ids": put(p.len_ids),
                "len_values": put(p.len_values),
                "len_counts": put(p.len_counts),
                "nonempty": p.nonempty,
                "max_len": p.max_len,
                "entropy": None if p.entropy is None else [repr(float(x)) for x in p.entropy],
                "exposure": None if p.exposure is None else {n: put(a) for n, a in sorted(p.exposure.items())},
            }
        header["blocks"] = layout
        hb = json.dumps(header, separators=(",", ":")).encode("utf-8")
        return b"".join([_MAGIC, struct.pack("<HI", _VERSION, len(hb)), hb, *blocks])

    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview]) -> State:
        """Rebuild a state written by :meth:`to_bytes`."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"`data` must be bytes, got {type(data).__name__}")
        data = bytes(data)
        try:
            if data[:4] != _MAGIC:
                raise ValueError("`data` is not a rankmeter state (bad magic)")
            version, hl = struct.unpack_from("<HI", data, 4)
            if version == 1:
                raise ValueError(
                    "`data` is a rankmeter state of version 1 (rankmeter 0.1), which does not record its users and "
                    "cannot be merged safely; evaluate the batch again with this rankmeter"
                )
            if version != _VERSION:
                raise ValueError(
                    f"`data` is a rankmeter state of version {version}; this rankmeter reads version {_VERSION}"
                )
            off = 10
            if off + hl > len(data):
                raise ValueError("`data` is truncated")
            header = json.loads(data[off : off + hl].decode("utf-8"))
            off += hl
            arrays = []
            for kind, n, nbytes in header["blocks"]:
                if off + nbytes > len(data):
                    raise ValueError("`data` is truncated")
                arrays.append(_decode_ids(kind, int(n), data[off : off + nbytes]))
                off += nbytes
            if off != len(data):
                raise ValueError("`data` has trailing bytes")

            def get(i: Optional[int]) -> Optional[np.ndarray]:
                return None if i is None else arrays[i]

            parts = {}
            for k, p in header["parts"].items():
                ent = p["entropy"]
                parts[int(k)] = CatalogPart(
                    get(p["ids"]),
                    get(p["counts"]),
                    p["nonempty"],
                    p["max_len"],
                    get(p["len_ids"]),
                    get(p["len_values"]),
                    get(p["len_counts"]),
                    None if ent is None else tuple(float(x) for x in ent),
                    None if p.get("exposure") is None else {n: get(i) for n, i in p["exposure"].items()},
                )
            names = [str(n) for n in header["names"]]
            catalog = get(header["catalog"])
            for n in names:
                m = parse(n)
                # what finalize() reads must be there: a catalog metric's histogram (and the catalog
                # of coverage / gini over the catalog); untrusted bytes get a clear error, not a KeyError later
                if m.family == "catalog":
                    if (m.k or 0) not in parts:
                        raise ValueError(f"`data` is corrupt (no item histogram for {n!r})")
                    if reads_catalog(m) and catalog is None:
                        raise ValueError(f"`data` is corrupt (no catalog for {n!r})")
                    exposure = parts[m.k or 0].exposure
                    if m.name in ("exposure_gini", "exposure_disparity", "item_mad") and exposure is None:
                        raise ValueError(f"`data` is corrupt (no exposure histogram for {n!r})")
                    if m.name in EQUAL_OPPORTUNITY and (exposure is None or f"{eo_key(m)}|num" not in exposure):
                        raise ValueError(f"`data` is corrupt (no group counts for {n!r})")
            if not (len(names) == len(header["sums"]) == len(header["counts"])):
                raise ValueError("`data` is corrupt (names, sums and counts differ in length)")
            for key, col in header["keys"]:
                if not 0 <= int(col) < len(names):
                    raise ValueError(f"`data` is corrupt (key {key!r} points to no column)")
            return cls(
                names,
                [_hex_sum(s) for s in header["sums"]],
                header["counts"],
                header["meta"],
                get(header["users"]),
                keys=[(str(k), int(c)) for k, c in header["keys"]],
                parts=parts,
                catalog=catalog,
                context=header["context"],
                users_sorted=True,
            )
        except struct.error:
            raise ValueError("`data` is truncated or corrupt") from None
        except UnicodeDecodeError:
            raise ValueError("`data` is corrupt (its header is not UTF-8)") from None
        except (KeyError, IndexError, TypeError, AttributeError, OverflowError, json.JSONDecodeError) as e:
            raise ValueError(f"`data` is corrupt ({type(e).__name__}: {e})") from None

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return (
            self.names == other.names
            and self.sums == other.sums
            and self.counts == other.counts
            and self.meta == other.meta
            and np.array_equal(self.users, other.users)
            and self.to_bytes() == other.to_bytes()
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        means = ", ".join(f"{n}={v:.6g}" for n, v in self.finalize().items())
        return f"State(n_users={self.meta['n_users']}, {means})"


def _same_ids(a: Optional[np.ndarray], b: Optional[np.ndarray]) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a.shape == b.shape and bool(np.all(a == b))


def _disjoint_union(arrays: list[np.ndarray]) -> np.ndarray:
    allv = np.concatenate(arrays)
    allv.sort(kind="stable")
    if allv.size > 1:
        dup = np.flatnonzero(allv[1:] == allv[:-1])
        if dup.size:
            user = _plain(allv[dup[0]])
            raise ValueError(f"user {user!r} is in more than one of the states being merged; {_SHARD_RECIPE}")
    return allv


def _encode_ids(arr: np.ndarray) -> tuple[str, bytes]:
    if arr.dtype.kind in "iu":
        return "i8", np.ascontiguousarray(arr, dtype="<i8").tobytes()
    if arr.dtype.kind == "f":  # item_mad's grades (docs/metrics.md 3.23.9)
        return "f8", np.ascontiguousarray(arr, dtype="<f8").tobytes()
    enc = [str(x).encode("utf-8") for x in arr.tolist()]
    lens = np.fromiter((len(e) for e in enc), dtype="<u4", count=len(enc))
    return "str", lens.tobytes() + b"".join(enc)


def _decode_ids(kind: str, n: int, raw: bytes) -> np.ndarray:
    if kind == "i8":
        if len(raw) != 8 * n:
            raise ValueError("`data` is corrupt (an id block has the wrong size)")
        return np.frombuffer(raw, dtype="<i8").astype(np.int64)
    if kind == "f8":
        if len(raw) != 8 * n:
            raise ValueError("`data` is corrupt (a number block has the wrong size)")
        return np.frombuffer(raw, dtype="<f8").astype(np.float64)
    if kind != "str":
        raise ValueError(f"`data` is corrupt (unknown block kind {kind!r})")
    if not 0 <= n <= len(raw) // 4:
        raise ValueError("`data` is corrupt (a string block has the wrong size)")
    lens = np.frombuffer(raw[: 4 * n], dtype="<u4").astype(np.int64)
    ends = np.cumsum(lens) + 4 * n
    if n and int(ends[-1]) != len(raw):
        raise ValueError("`data` is corrupt (a string block has the wrong size)")
    out = np.empty(n, dtype=object)
    starts = ends - lens
    out[:] = [raw[s:e].decode("utf-8") for s, e in zip(starts.tolist(), ends.tolist())]
    return out
