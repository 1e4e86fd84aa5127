"""User segments: ``user_groups=`` of :func:`rankmeter.evaluate` / :func:`rankmeter.partial` (docs/fairness.md).

Every evaluated user belongs to exactly one group. A group's state holds the exact sums (integers in
units of 2^-1074, docs/metrics.md section 7) of its own users' values, so its mean equals
:func:`rankmeter.evaluate` restricted to those users bit for bit, and group states merge exactly over
any partition of the users. The per-group sums are taken with numpy and the C++ exact sum: the users are
sorted by group once, and every group's slice of a column is summed in one call (no per-user Python loop).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional

import numpy as np

from .. import _core
from .._aggregate import META_KEYS, State, _as_key_ids, _id_kind, _plain, limbs_to_int
from .._options import resolve_threads

__all__ = ["ActivityGroups", "activity_groups", "GroupedState", "resolve_groups", "grouped_state", "gap_table"]

_PERMUTATION_DOMAIN = 3  # the random stream of the group-label permutations (1, 2: compare's sign flips, bootstrap)
_EPS = 2.0**-52
_PARALLEL_SLICE = 1 << 18  # a group's slice at least this long is summed by every thread
# up to this many groups, each column is summed in one pass with per-group accumulators (_core.exact_sum_groups:
# 16 KiB per group and thread); beyond it, the column is reordered by group and each group's slice summed
_GROUPED_KERNEL = 64
_FIX = (
    "every evaluated user needs exactly one group: add them, e.g. "
    "user_groups={**groups, **dict.fromkeys(users_without_group, 'unknown')}, or for a pandas Series "
    "series.reindex(res.users, fill_value='unknown')"
)


# --------------------------------------------------------------------------- activity buckets
class ActivityGroups:
    """Users bucketed by their number of training interactions (see :func:`activity_groups`)."""

    __slots__ = ("bins", "labels", "_users", "_counts")

    def __init__(self, users: np.ndarray, counts: np.ndarray, bins: Sequence[int], labels: Sequence[Any]):
        self.bins = tuple(int(b) for b in bins)
        self.labels = tuple(labels)
        order = np.argsort(users, kind="stable")
        self._users = users[order]
        self._counts = counts[order]

    def counts(self, users: np.ndarray) -> np.ndarray:
        """The number of training interactions of each user (0 for a user absent from train)."""
        keys = _as_key_ids(np.asarray(users))
        out = np.zeros(keys.size, dtype=np.int64)
        if self._users.size and keys.size:
            _check_id_kinds(self._users, keys, "activity_groups(train) has")
            pos, found = _lookup(self._users, keys)
            out[found] = self._counts[pos[found]]
        return out

    def codes(self, users: np.ndarray) -> np.ndarray:
        """Each user's bucket: the index of its label."""
        return np.searchsorted(np.asarray(self.bins, dtype=np.int64), self.counts(users), side="right").astype(np.int64)

    def __repr__(self) -> str:
        return f"ActivityGroups(bins={list(self.bins)}, labels={list(self.labels)}, {self._users.size} train users)"


def activity_groups(
    train: Any, bins: Sequence[int] = (1, 10), labels: Optional[Sequence[Any]] = None, *, user_col: Optional[str] = None
) -> ActivityGroups:
    """User groups by activity: the number of interactions of each user in ``train``.

    ``bins`` are increasing thresholds: with ``bins=[1, 10]`` a user with fewer than 1 interaction
    (absent from ``train``) is ``"cold"``, with 1 to 9 ``"regular"``, with 10 or more ``"heavy"``.
    Other bins get labels ``"<1"``, ``"1-9"``, ``">=10"`` unless ``labels`` (one more than ``bins``)
    names them. ``train`` is any truth-like form (a long table of (user, item) rows, a dict, ...);
    its interactions are its (user, item) pairs as read. Pass the result as ``user_groups=``.

    >>> import rankmeter as rm
    >>> groups = rm.activity_groups({"a": [1, 2, 3], "b": [1]}, bins=[1, 3])
    >>> groups.codes(["a", "b", "c"]).tolist(), groups.labels
    ([2, 1, 0], ('cold', 'regular', 'heavy'))
    """
    from ..inputs import to_truth

    if isinstance(bins, (str, bytes)) or not isinstance(bins, Iterable):
        raise TypeError(f"`bins` must be a list of increasing interaction counts, e.g. [1, 10], got {bins!r}")
    b = list(bins)
    if not b or not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in b):
        raise TypeError(f"`bins` must be a non-empty list of int interaction counts, e.g. [1, 10], got {bins!r}")
    if any(x < 1 for x in b) or any(y <= x for x, y in zip(b, b[1:])):
        raise ValueError(f"`bins` must be strictly increasing counts >= 1, e.g. [1, 10], got {b}")
    if labels is None:
        if len(b) == 2:
            labels = ("cold", "regular", "heavy")
        else:
            edges = [0, *b]
            labels = tuple(
                [f"<{b[0]}"]
                + [f"{lo}" if hi - lo == 1 else f"{lo}-{hi - 1}" for lo, hi in zip(edges[1:], edges[2:])]
                + [f">={b[-1]}"]
            )
    labels = tuple(labels)
    if len(labels) != len(b) + 1:
        raise ValueError(f"`labels` must name {len(b) + 1} buckets (one more than `bins`), got {len(labels)}")
    if len(set(labels)) != len(labels):
        raise ValueError(f"`labels` must be distinct, got {list(labels)}")
    if train is None:
        raise TypeError("`train` is required: the interactions whose count per user makes the buckets")
    t = to_truth(train, "train", **({"user_col": user_col} if user_col is not None else {}))
    users = t.users if t.users is not None else np.arange(t.n_users, dtype=np.int64)
    return ActivityGroups(_as_key_ids(np.asarray(users)), np.diff(t.indptr).astype(np.int64), b, labels)


# --------------------------------------------------------------------------- resolving user_groups=
def _lookup(sorted_keys: np.ndarray, users: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    pos = np.searchsorted(sorted_keys, users)
    pos_c = np.minimum(pos, max(sorted_keys.size - 1, 0))
    found = (pos < sorted_keys.size) & (sorted_keys[pos_c] == users) if sorted_keys.size else np.zeros(users.size, bool)
    return pos_c, np.asarray(found, dtype=bool)


def _check_id_kinds(keys: np.ndarray, users: np.ndarray, what: str) -> None:
    if keys.size and users.size and _id_kind(keys) != _id_kind(users):
        raise ValueError(
            f"`user_groups`: {what} {_id_kind(keys)} user ids (e.g. {_plain(keys[0])!r}) but the evaluated users "
            f"have {_id_kind(users)} ids (e.g. {_plain(users[0])!r}): no user can match; give the groups by the "
            "users' ids as they appear in truth and recs"
        )


def _is_missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _factorize(values: np.ndarray) -> tuple[list, np.ndarray]:
    """Sorted distinct labels and each value's code (-1: no group, None or NaN)."""
    if values.dtype.kind == "f":
        bad = np.isnan(values)
        labels, codes = np.unique(values[~bad], return_inverse=True)
        out = np.full(values.size, -1, dtype=np.int64)
        out[~bad] = codes.reshape(-1)
        return [_plain(x) for x in labels], out
    if values.dtype != object:
        labels, codes = np.unique(values, return_inverse=True)
        return [_plain(x) for x in labels], codes.reshape(-1).astype(np.int64)
    try:  # pandas' hash factorizer: no Python pass over the users (None and NaN come back as -1)
        import pandas as pd

        codes_pd, uniques = pd.factorize(values, sort=True, use_na_sentinel=True)
        return [_plain(x) for x in uniques.tolist()], np.asarray(codes_pd, dtype=np.int64)
    except (ImportError, TypeError):  # no pandas, or labels of several kinds (1 and "a") that do not sort
        pass
    vals = values.tolist()
    distinct = {v for v in vals if not _is_missing(v)}
    try:
        labels_l = sorted(distinct)
    except TypeError:  # labels of several kinds (1 and "a"): by kind, then value
        labels_l = sorted(distinct, key=lambda v: (type(v).__name__, repr(v)))
    index = {v: i for i, v in enumerate(labels_l)}
    return labels_l, np.fromiter((index.get(v, -1) for v in vals), dtype=np.int64, count=len(vals))


def _from_pairs(keys: np.ndarray, values: np.ndarray, what: str) -> tuple[list, np.ndarray, np.ndarray]:
    """(labels, sorted key ids, their codes) from a user -> group pairing; a user with two groups is an error."""
    labels, codes = _factorize(values)
    return _dedupe(keys, labels, codes, what)


def _dedupe(keys: np.ndarray, labels: list, codes: np.ndarray, what: str) -> tuple[list, np.ndarray, np.ndarray]:
    k = _as_key_ids(keys)
    if k.size > 1 and bool(np.all(k[1:] > k[:-1])):  # sorted and distinct already (e.g. a Series on user ids)
        return labels, k, codes
    order = np.argsort(k, kind="stable")
    k, codes = k[order], codes[order]
    if k.size > 1:
        same = np.flatnonzero(k[1:] == k[:-1])
        clash = same[codes[same] != codes[same + 1]]
        if clash.size:
            i = int(clash[0])
            a, b = (labels[c] if c >= 0 else None for c in (codes[i], codes[i + 1]))
            raise ValueError(
                f"`user_groups`: user {_plain(k[i])!r} has two groups in {what} ({a!r} and {b!r}); "
                "every user belongs to exactly one group"
            )
        keep = np.ones(k.size, dtype=bool)
        keep[1:] = k[1:] != k[:-1]
        k, codes = k[keep], codes[keep]
    return labels, k, codes


def _truth_column(truth: Any, name: str, table_kw: dict) -> tuple[np.ndarray, np.ndarray]:
    from ..inputs import _frame

    x = _frame.collect_lazy(truth)
    if not _frame.is_frame(x):
        if isinstance(x, str) or hasattr(x, "__fspath__"):
            kind = None
            try:
                from ..inputs._sources import classify

                kind = classify(x)
            except Exception:
                kind = None
            if kind == "parquet":
                import pyarrow.parquet as pq

                x = pq.read_table(x)
        if not _frame.is_frame(x):
            raise TypeError(
                f"`user_groups={name!r}` names a column of the truth table, but `truth` is a "
                f"{type(truth).__name__}, not a table: pass a mapping user -> group or a pandas Series instead"
            )
    ucol = table_kw.get("truth_user_col") or table_kw.get("user_col") or _frame.DEFAULTS["user_col"]
    cols = _frame._columns(x)
    if name not in cols:
        raise ValueError(
            f"`user_groups={name!r}` names a column the truth table does not have (its columns are "
            f"{', '.join(map(str, cols))})"
        )
    users = _frame._column(x, ucol, "truth")
    k = _frame._kind(x)
    if k == "pandas":
        vals = x[name].to_numpy(dtype=object) if hasattr(x[name], "cat") else x[name].to_numpy()
    elif k == "polars":
        vals = x.get_column(name).to_numpy()
    else:
        vals = np.asarray(x.column(name).to_pylist(), dtype=object)
    if vals.dtype.kind in "US":
        vals = vals.astype(object)
    return np.asarray(users), np.asarray(vals)


def resolve_groups(spec: Any, users: np.ndarray, truth: Any = None, table_kw: Optional[dict] = None) -> tuple:
    """``(labels, codes)``: the group labels (their order is the rows of ``by_group()``) and each evaluated
    user's group index. Every user must get a group; an error names those without one."""
    users_k = _as_key_ids(np.asarray(users))
    if isinstance(spec, ActivityGroups):
        return list(spec.labels), spec.codes(users_k)
    if isinstance(spec, str):
        k, v = _truth_column(truth, spec, table_kw or {})
        labels, keys, kc = _from_pairs(k, v, f"column {spec!r} of the truth table")
    elif type(spec).__name__ == "Series" and hasattr(spec, "index"):
        s = spec
        if hasattr(s, "cat"):  # a categorical: its categories are the groups, used or not
            labels = [_plain(c) for c in s.cat.categories.tolist()]
            labels, keys, kc = _dedupe(
                s.index.to_numpy(), labels, s.cat.codes.to_numpy().astype(np.int64), "the Series"
            )
        else:
            try:  # pandas factorizes its own (e.g. Arrow-backed string) columns without a copy to objects
                import pandas as pd

                codes_pd, uniques = pd.factorize(s, sort=True, use_na_sentinel=True)
                labels = [_plain(x) for x in list(uniques)]
                labels, keys, kc = _dedupe(s.index.to_numpy(), labels, np.asarray(codes_pd, np.int64), "the Series")
            except TypeError:  # labels of several kinds that do not sort
                vals = s.to_numpy()
                if vals.dtype.kind in "US":
                    vals = vals.astype(object)
                labels, keys, kc = _from_pairs(s.index.to_numpy(), vals, "the Series")
    elif isinstance(spec, Mapping):
        keys_in = np.asarray(list(spec.keys()))
        if keys_in.dtype.kind not in "iu":
            keys_in = np.asarray(list(spec.keys()), dtype=object)
        vals = np.empty(len(spec), dtype=object)
        vals[:] = list(spec.values())
        labels, keys, kc = _from_pairs(keys_in, vals, "the mapping")
    else:
        raise TypeError(
            "`user_groups` must be a mapping user -> group, a pandas Series (index: user), the name of a column of "
            f"the truth table or rankmeter.activity_groups(train, bins=...), got {type(spec).__name__}"
        )
    codes = np.full(users_k.size, -1, dtype=np.int64)
    if users_k.size:
        _check_id_kinds(keys, users_k, "the groups are given for")
        if keys.shape == users_k.shape and bool(np.all(keys == users_k)):  # the groups of exactly these users
            codes = np.asarray(kc, dtype=np.int64)
        else:
            pos, found = _lookup(keys, users_k)
            codes[found] = kc[pos[found]]
    bad = np.flatnonzero(codes < 0)
    if bad.size:
        shown = ", ".join(repr(_plain(users_k[i])) for i in bad[:5].tolist())
        more = f" and {bad.size - 5} more" if bad.size > 5 else ""
        raise ValueError(f"`user_groups` gives no group to {bad.size} evaluated user(s): {shown}{more}; {_FIX}")
    return labels, codes


# --------------------------------------------------------------------------- group states
def _label_key(v: Any) -> tuple:
    return (type(v).__name__, v)


def grouped_state(
    state: State, values: list, users: np.ndarray, labels: list, codes: np.ndarray, threads: Optional[int]
) -> GroupedState:
    """One exact state per group, from the per-user values of every column."""
    n_threads = resolve_threads(threads)
    bad = [state.names[i] for i, v in enumerate(values) if v is None]
    if bad:
        raise ValueError(
            f"`user_groups`: {', '.join(bad)} is a catalog-level metric (one value for all users, no per-user "
            "values), so it has no per-group mean; evaluate it in a call without user_groups"
        )
    n_groups = len(labels)
    small = np.uint8 if n_groups <= 1 << 8 else np.uint16 if n_groups <= 1 << 16 else np.int64
    order = np.argsort(codes.astype(small), kind="stable")  # a radix sort for 8- and 16-bit codes
    bounds = np.searchsorted(codes[order], np.arange(n_groups + 1), side="left")
    sums = [[0] * len(values) for _ in range(n_groups)]
    counts = [[0] * len(values) for _ in range(n_groups)]
    codes64 = np.ascontiguousarray(codes, dtype=np.int64) if 0 < n_groups <= _GROUPED_KERNEL else None
    for i, v in enumerate(values):
        if codes64 is not None:  # one pass over the column, per-group exact accumulators
            g_limbs, g_counts = _core.exact_sum_groups(
                np.ascontiguousarray(v, dtype=np.float64), codes64, n_groups, n_threads
            )
            for g in range(n_groups):
                sums[g][i], counts[g][i] = limbs_to_int(g_limbs[g]), int(g_counts[g])
        else:  # many groups: the column in group order, each group's slice summed
            vs = np.ascontiguousarray(np.asarray(v, dtype=np.float64)[order])
            for g in range(n_groups):
                a, b = int(bounds[g]), int(bounds[g + 1])
                if a == b:
                    continue
                # a short slice in one thread: waking a team costs more than it sums (the sum is exact either way)
                limbs, count = _core.exact_sum(vs[a:b], n_threads if b - a >= _PARALLEL_SLICE else 1)
                sums[g][i], counts[g][i] = limbs_to_int(limbs), int(count)
        if sum(s[i] for s in sums) != state.sums[i] or sum(c[i] for c in counts) != state.counts[i]:
            raise ValueError(
                f"`user_groups`: {state.names[i]} is a pooled aggregate (not a mean of per-user values), so it has "
                "no per-group mean; evaluate it in a call without user_groups"
            )
    su = np.asarray(users)[order]
    groups = {}
    for g, label in enumerate(labels):
        a, b = int(bounds[g]), int(bounds[g + 1])
        groups[label] = State(
            state.names, sums[g], counts[g], {"n_users": b - a}, su[a:b], keys=state.keys, context=state.context
        )
    return GroupedState(state, groups)


def _state_fields(s: State) -> tuple[tuple, dict]:
    """The constructor arguments of a :class:`State` equal to ``s`` (its fields, shared, not copied)."""
    return (s.names, s.sums, s.counts, s.meta, s._users), {
        "keys": s.keys,
        "parts": s.parts,
        "catalog": s.catalog,
        "context": s.context,
        "users_sorted": s._users_sorted,
    }


class GroupedState(State):
    """The mergeable exact state of an evaluation with ``user_groups=``: a :class:`rankmeter.State` of
    all users (its means are those of the call without groups) that also holds ``groups``, label ->
    the State of that group's users.

    Merge the states of disjoint batches (``a.merge(b)``, ``GroupedState.merge_all``) in any order:
    every group's means are those of one call, bit for bit. A group's state counts its users in
    ``meta['n_users']`` (the other counts are kept for all users only).
    """

    __slots__ = ("groups",)

    def __init__(self, total: State, groups: Mapping[Any, State]):
        args, kw = _state_fields(total)
        super().__init__(*args, **kw)
        self.groups = dict(groups)

    @property
    def total(self) -> State:
        """The state of all users, without the groups (a plain :class:`rankmeter.State`)."""
        args, kw = _state_fields(self)
        return State(*args, **kw)

    @property
    def labels(self) -> list:
        return list(self.groups)

    def merge(self, other: State) -> GroupedState:
        if not isinstance(other, GroupedState):
            raise TypeError(
                f"`other` must be a GroupedState (a partial(..., user_groups=...) result), got {type(other).__name__}"
            )
        return GroupedState.merge_all([self, other])

    @staticmethod
    def merge_all(states: Iterable[State]) -> GroupedState:
        states = list(states)
        if not states:
            raise ValueError("`states` is empty")
        for s in states:
            if not isinstance(s, GroupedState):
                raise TypeError(
                    "`states` must hold GroupedState objects (partial(..., user_groups=...)), got "
                    f"{type(s).__name__}; a plain State has no groups"
                )
        grouped = [s for s in states if isinstance(s, GroupedState)]
        total = State.merge_all([s.total for s in grouped])
        labels: list = []
        seen: set = set()
        for s in grouped:
            for label in s.groups:
                if label not in seen:
                    seen.add(label)
                    labels.append(label)
        try:
            labels.sort()
        except TypeError:
            labels.sort(key=_label_key)
        groups = {lab: State.merge_all([s.groups[lab] for s in grouped if lab in s.groups]) for lab in labels}
        return GroupedState(total, groups)

    def group_means(self) -> dict:
        """``{label: Means}``: each group's means."""
        return {label: s.finalize() for label, s in self.groups.items()}

    def by_group(self):
        """A pandas DataFrame: one row per group (index ``group``), ``n_users``, then one column per metric."""
        return _frame_by_group(self, self.groups)

    def gaps(self):
        """Gap summaries per metric (docs/fairness.md): max - min, min / max, Elliot's MAD (no p-value)."""
        return gap_table(self.by_group(), None)

    def to_bytes(self) -> bytes:
        """``RMGS``, u32 count, then the total and every group (label as JSON, then the State's bytes)."""
        import json

        out = [b"RMGS", struct.pack("<I", len(self.groups))]
        tb = self.total.to_bytes()
        out += [struct.pack("<Q", len(tb)), tb]
        for label, s in self.groups.items():
            try:
                lb = json.dumps(label).encode("utf-8")
            except TypeError:
                raise ValueError(
                    f"group label {label!r} cannot be written: labels must be str, int, float or None"
                ) from None
            sb = s.to_bytes()
            out += [struct.pack("<I", len(lb)), lb, struct.pack("<Q", len(sb)), sb]
        return b"".join(out)

    @classmethod
    def from_bytes(cls, data: Any) -> GroupedState:
        import json

        data = bytes(data)
        if data[:4] != b"RMGS":
            raise ValueError("`data` is not a rankmeter grouped state (bad magic)")
        try:
            (n,) = struct.unpack_from("<I", data, 4)
            off = 8
            (tl,) = struct.unpack_from("<Q", data, off)
            total = State.from_bytes(data[off + 8 : off + 8 + tl])
            off += 8 + tl
            groups = {}
            for _ in range(n):
                (ll,) = struct.unpack_from("<I", data, off)
                label = json.loads(data[off + 4 : off + 4 + ll].decode("utf-8"))
                off += 4 + ll
                (sl,) = struct.unpack_from("<Q", data, off)
                groups[label] = State.from_bytes(data[off + 8 : off + 8 + sl])
                off += 8 + sl
        except (struct.error, UnicodeDecodeError, json.JSONDecodeError):
            raise ValueError("`data` is truncated or corrupt") from None
        if off != len(data):
            raise ValueError("`data` has trailing bytes")
        return cls(total, groups)

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, GroupedState):
            return NotImplemented
        return self.to_bytes() == other.to_bytes()

    __hash__ = None

    def __repr__(self) -> str:
        return f"GroupedState({len(self.groups)} groups, {self.total!r})"


def _frame_by_group(total: State, groups: Mapping[Any, State]):
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("by_group() needs pandas: pip install pandas") from None
    names = [k for k, _ in total.keys]
    rows = []
    for s in groups.values():
        means = s.finalize()
        rows.append([s.meta["n_users"], *(means[k] for k in names)])
    labels = list(groups)
    df = pd.DataFrame(rows, columns=["n_users", *names], index=pd.Index(labels, name="group", dtype=object))
    df["n_users"] = df["n_users"].astype(np.int64)
    return df


# --------------------------------------------------------------------------- gaps
def _gaps(means: np.ndarray) -> tuple[float, float, float]:
    m = means[~np.isnan(means)]
    if m.size < 2:
        return math.nan, math.nan, math.nan
    hi, lo = float(m.max()), float(m.min())
    ratio = lo / hi if hi != 0 else math.nan
    i, j = np.triu_indices(m.size, 1)
    mad = float(np.mean(np.abs(m[i] - m[j])))
    return hi - lo, ratio, mad


def permutation_pvalues(
    values: np.ndarray, codes: np.ndarray, n_groups: int, n_permutations: int, seed: int, threads: int = 0
) -> np.ndarray:
    """Per column of ``values`` (users x metrics, NaN: no value), the p-value ``(c + 1) / (R + 1)`` of the
    range of the group means under ``R`` random permutations of the group labels; ``c`` counts the
    permutations whose range is at least the observed one (within a rounding tolerance)."""
    n, n_cols = values.shape
    valid = ~np.isnan(values)
    w = np.where(valid, values, 0.0)
    gamma = 2.0 * max(n, 1) * _EPS * (np.abs(w).max(axis=0) if n else np.zeros(n_cols))

    flat_w = np.ascontiguousarray(w).reshape(-1)
    flat_v = np.ascontiguousarray(valid, dtype=np.float64).reshape(-1)
    col = np.arange(n_cols, dtype=np.int64)

    def ranges(c: np.ndarray) -> np.ndarray:
        # every (group, column) sum in one bincount over the users x columns values, in row order
        idx = (c[:, None] * n_cols + col).reshape(-1)
        s = np.bincount(idx, weights=flat_w, minlength=n_groups * n_cols).reshape(n_groups, n_cols)
        k = np.bincount(idx, weights=flat_v, minlength=n_groups * n_cols).reshape(n_groups, n_cols)
        with np.errstate(invalid="ignore", divide="ignore"):
            m = np.where(k > 0, s / np.where(k > 0, k, 1), np.nan)
        has = (k > 0).sum(axis=0)
        out = np.nanmax(np.where(k > 0, m, -np.inf), axis=0) - np.nanmin(np.where(k > 0, m, np.inf), axis=0)
        out[has < 2] = math.nan
        return out

    observed = ranges(codes)
    # every permutation's ranges in C++ (rankmeter/significance.hpp: the same words, order and sums as
    # ``ranges(codes[np.argsort(words, kind="stable")])``, bit for bit; tests/evaluation/test_groups.py)
    permuted = _core.group_permutation_ranges(
        np.ascontiguousarray(w, dtype=np.float64),
        np.ascontiguousarray(valid, dtype=np.float64),
        np.ascontiguousarray(codes, dtype=np.int64),
        int(n_groups),
        int(n_permutations),
        int(seed),
        threads,
    )
    hits = (permuted >= observed - gamma).sum(axis=0).astype(np.int64)
    p = (hits + 1) / (n_permutations + 1)
    p[np.isnan(observed)] = math.nan
    return p


def gap_table(by_group: Any, pvalues: Optional[np.ndarray]):
    """Per metric: ``max_minus_min``, ``min_max_ratio``, ``mad`` of the group means (groups with a mean),
    and ``p_value`` when permutation p-values are given."""
    import pandas as pd

    metrics = [c for c in by_group.columns if c != "n_users"]
    rows = [_gaps(by_group[c].to_numpy(dtype=np.float64)) for c in metrics]
    df = pd.DataFrame(rows, columns=["max_minus_min", "min_max_ratio", "mad"], index=pd.Index(metrics, name="metric"))
    if pvalues is not None:
        df["p_value"] = pvalues
    return df


def check_permutation_args(n_permutations: Any, seed: Any) -> None:
    if isinstance(n_permutations, bool) or not isinstance(n_permutations, (int, np.integer)) or n_permutations < 0:
        raise ValueError(f"`n_permutations` must be an int >= 0 (0: no test), got {n_permutations!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"`seed` must be an int in [0, 2**64), got {seed!r}")


__all__ += ["permutation_pvalues", "check_permutation_args", "META_KEYS"]


def check_groups_spec(spec: Any) -> None:
    """The form of ``user_groups=``, checked before any work."""
    if isinstance(spec, (ActivityGroups, str, Mapping)) or (type(spec).__name__ == "Series" and hasattr(spec, "index")):
        return
    raise TypeError(
        "`user_groups` must be a mapping user -> group, a pandas Series (index: user), the name of a column of "
        f"the truth table or rankmeter.activity_groups(train, bins=...), got {type(spec).__name__}"
    )


__all__ += ["check_groups_spec"]
