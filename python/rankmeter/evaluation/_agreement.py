"""``agreement``: how much two runs agree, per user, with exact means (docs/metrics.md, "Agreement between runs").

The two runs are read like ``evaluate``'s ``recs`` (dicts of lists or of score dicts, :class:`~rankmeter.Recs`,
tables, padded arrays, paths), lists given by score are ranked with the same ``ties=`` rules, the users of both
runs are joined and the items of both coded jointly (int ids as they are). One C++ pass (``_core.agreement_values``,
rankmeter/agreement.hpp: parallel over users, the GIL released) computes every metric for every user; the means
are exact sums taken in the same pass (ExactSum, exact_sum.hpp) divided by the number of users with a value.

These metrics compare two runs, not a run with the truth, so they are not rows of the single-run registry
(cpp/include/rankmeter/metrics.def): their names, options and cutoffs are parsed from the one table below,
:data:`AGREEMENT_METRICS` (docs/architecture.md).
"""

from __future__ import annotations

import contextlib
import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Optional, Union, cast

import numpy as np

from .. import _core
from .._aggregate import _as_key_ids, _check_kinds, _disjoint_union, exact_mean, limbs_to_int
from .._options import resolve_threads
from ..inputs import (
    RANX_TIES,
    Recs,
    align,
    check_id_kinds,
    factorize_items,
    padded_to_csr,
    ranx_order,
    score_order,
    tie_key,
    to_recs,
)
from ..inputs._align import item_after_pad

__all__ = ["agreement", "AgreementResult", "AgreementState", "AGREEMENT_METRICS", "AgreementMetric", "parse_agreement"]


# --------------------------------------------------------------------------- the table of agreement metrics
@dataclass(frozen=True)
class _Spec:
    code: int  # AgreeKind of cpp/include/rankmeter/agreement.hpp
    options: tuple[tuple[str, Any], ...]  # (name, default); None: no default (the metric's cutoff for ref_k)
    needs_k: bool  # the formula divides by the cutoff
    symmetric: bool  # the same value with the runs swapped
    summary: str


# The one table of agreement metrics (names, options, defaults); docs/metrics.md gives each formula and origin.
AGREEMENT_METRICS: dict[str, _Spec] = {
    "overlap": _Spec(0, (), False, True, "|A_k ∩ B_k|, the number of items both top-k lists hold"),
    "intersection": _Spec(
        1, (("ref_k", None),), False, False, "|A_k ∩ B_ref_k| / |A_k| (RecTools Intersection; ref_k defaults to k)"
    ),
    "jaccard": _Spec(2, (), False, True, "|A_k ∩ B_k| / |A_k ∪ B_k| (1 for two empty lists)"),
    "rbo": _Spec(
        3,
        (("p", 0.9), ("variant", "ext")),
        False,
        True,
        "rank-biased overlap (Webber, Moffat & Zobel 2010): variant='ext' extrapolated, 'min' the lower bound",
    ),
    "kendall_tau": _Spec(4, (), False, True, "Kendall's tau of the shared items' positions in both lists"),
    "spearman": _Spec(5, (), False, True, "Spearman's rho of the shared items' positions in both lists"),
    "unexpectedness": _Spec(6, (), True, False, "1 - |A_k ∩ B_k| / k (RePlay Unexpectedness; B the baseline)"),
}
_ALIASES = {"kendall": "kendall_tau", "tau": "kendall_tau", "spearman_rho": "spearman", "rank_biased_overlap": "rbo"}
_RBO_VARIANTS = {"ext": 0, "min": 1}
_GRAMMAR = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*(?:\((.*)\))?\s*(?:@\s*(.*?))?\s*$")
_MAX_K = 2**62
# the orders of equal scores ``agreement`` offers (evaluate's rules that rank a list on its own)
TIES = ("item", "input", "item_desc", "trec", *RANX_TIES)
MISSING = ("empty", "skip", "run_a")


@dataclass(frozen=True)
class AgreementMetric:
    """A parsed agreement metric: its name, cutoff (None: whole lists) and options (defaults filled in)."""

    name: str
    k: Optional[int]
    options: tuple[tuple[str, Any], ...]

    def option(self, key: str) -> Any:
        return dict(self.options)[key]

    def __str__(self) -> str:
        spec = AGREEMENT_METRICS[self.name]
        defaults = dict(spec.options)
        shown = []
        for key, val in self.options:
            if key == "ref_k" and val == self.k:
                continue
            if defaults.get(key) is not None and val == defaults[key]:
                continue
            shown.append(f"{key}={_fmt(val)}")
        opts = f"({', '.join(shown)})" if shown else ""
        return f"{self.name}{opts}{'' if self.k is None else f'@{self.k}'}"


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return repr(int(v)) if v.is_integer() else repr(v)
    return str(v)


def _did_you_mean(name: str) -> str:
    close = difflib.get_close_matches(name, [*AGREEMENT_METRICS, *_ALIASES], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _positive_int(text: str, what: str) -> int:
    if not re.fullmatch(r"\s*\d+\s*", text):
        raise ValueError(f"{what} must be a positive integer, got {text!r}")
    v = int(text)
    if v < 1 or v > _MAX_K:
        raise ValueError(f"{what} must be a positive integer of at most 2**62, got {v}")
    return v


def parse_agreement(text: Union[str, AgreementMetric]) -> AgreementMetric:
    """Parse ``name``, ``name@k`` or ``name(option=value, ...)@k`` of an agreement metric (see
    :data:`AGREEMENT_METRICS`). Unknown names and options are a ValueError."""
    if isinstance(text, AgreementMetric):
        return text
    if not isinstance(text, str):
        raise TypeError(f"an agreement metric must be a string like 'rbo@10', got {text!r}")
    m = _GRAMMAR.match(text)
    if not m:
        raise ValueError(f"cannot parse agreement metric {text!r}; expected 'name', 'name@k' or 'name(option=value)@k'")
    raw, opt_text, k_text = m.group(1).lower(), m.group(2), m.group(3)
    name = _ALIASES.get(raw, raw)
    if name not in AGREEMENT_METRICS:
        from ..metrics import list as metric_names

        hint = (
            f"; {raw!r} scores one run against the truth: use rankmeter.evaluate"
            if raw in metric_names()
            else _did_you_mean(raw)
        )
        raise ValueError(f"unknown agreement metric {raw!r} in {text!r} (known: {', '.join(AGREEMENT_METRICS)}){hint}")
    spec = AGREEMENT_METRICS[name]
    k = None if k_text is None else _positive_int(k_text, f"the cutoff in {text!r}")
    if spec.needs_k and k is None:
        raise ValueError(f"{name} divides by its cutoff: give one, e.g. '{name}@10' (in {text!r})")
    given: dict[str, str] = {}
    if opt_text is not None and opt_text.strip():
        for part in opt_text.split(","):
            if "=" not in part:
                raise ValueError(f"cannot parse option {part.strip()!r} in {text!r}; expected option=value")
            key, val = (s.strip() for s in part.split("=", 1))
            if key in given:
                raise ValueError(f"option {key!r} given twice in {text!r}")
            given[key] = val
    known = dict(spec.options)
    for key in given:
        if key not in known:
            close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            takes = ", ".join(known) if known else "no options"
            raise ValueError(f"{name} has no option {key!r} (it takes {takes}) in {text!r}{hint}")
    opts: list[tuple[str, Any]] = []
    for key, default in spec.options:
        if key == "p":
            try:
                p = float(given[key]) if key in given else float(default)
            except ValueError:
                raise ValueError(f"rbo's p must be a number in (0, 1), got {given[key]!r} in {text!r}") from None
            if not 0.0 < p < 1.0:
                raise ValueError(f"rbo's p must be in (0, 1) (the persistence), got {given[key]!r} in {text!r}")
            opts.append((key, p))
        elif key == "variant":
            v = given.get(key, default).lower()
            if v not in _RBO_VARIANTS:
                raise ValueError(
                    f"rbo's variant must be 'ext' (extrapolated) or 'min' (lower bound), got {given[key]!r} in {text!r}"
                )
            opts.append((key, v))
        elif key == "ref_k":
            ref = _positive_int(given[key], f"ref_k in {text!r}") if key in given else k
            opts.append((key, ref))
    return AgreementMetric(name, k, tuple(opts))


# --------------------------------------------------------------------------- reading the runs
@dataclass
class _Run:
    recs: Recs
    items: Any  # int64 ids, or Coded / object ids (CSR order, ranked)
    starts: np.ndarray  # per row: where its list starts in `items`
    lens: np.ndarray  # per row: its length
    padded: bool


def _read_run(run: Any, which: str, ties: str, table_kw: dict, threads: int) -> _Run:
    try:
        r = run if isinstance(run, Recs) else to_recs(run, **table_kw)
    except (TypeError, ValueError) as e:
        raise type(e)(f"`{which}`: {e}") from None
    if r.indptr is None:  # a padded 2-D array of int ids: read in place
        items2d = np.ascontiguousarray(r.items_native, dtype=np.int64)
        lens, bad = _core.padded_lengths(items2d, int(r.pad), threads)
        if bad >= 0:
            raise ValueError(f"`{which}`: {item_after_pad(r, bad)}")
        w = items2d.shape[1]
        starts = np.arange(items2d.shape[0], dtype=np.int64) * w
        return _Run(r, items2d.reshape(-1), starts, np.asarray(lens, dtype=np.int64), True)
    side: Any = r.coded if r.coded is not None else r.items_native
    if isinstance(side, np.ndarray) and side.dtype == np.int32:
        side = side.astype(np.int64)
    if r.by_score:
        if ties in RANX_TIES:
            order = ranx_order(r.indptr, r.scores, ties, threads or None)
        else:
            key = None if ties == "input" else tie_key(r.items, ties)
            order = score_order(r.indptr, r.scores, key, threads or None)
        side = side.with_codes(side.codes[order]) if r.coded is not None else side[order]
    return _Run(r, side, r.indptr[:-1], np.diff(r.indptr), False)


def _flat(run: _Run) -> Any:
    """The run's items as one CSR array (a padded run loses its pads), starts and lengths to match."""
    if not run.padded:
        return run.items
    indptr, items = padded_to_csr(run.recs)
    run.starts, run.lens = indptr[:-1], np.diff(indptr)
    return np.ascontiguousarray(items, dtype=np.int64)


def _users(run: _Run) -> np.ndarray:
    r = run.recs
    return r.users if r.users is not None else np.arange(r.n_users, dtype=np.int64)


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


# --------------------------------------------------------------------------- the result
class AgreementResult:
    """The outcome of :func:`agreement`.

    ``res[name]`` is the mean of a metric over the users with a value (the name as passed or its canonical
    form); ``res.per_user[name]`` the per-user values (float64, aligned with ``res.users``; NaN where the
    metric has no value for a user, see docs/metrics.md); ``res.counts[name]`` how many users have a value;
    ``res.meta`` the user counts (``n_users``, ``n_only_a``, ``n_only_b``, ``n_left_out``); ``res.state`` the
    exact sums behind the means, an :class:`AgreementState` that merges with the states of other users.
    """

    __slots__ = ("_names", "_key_to_col", "_values", "_means", "_counts", "_sums", "_canon", "users", "meta")

    def __init__(self, names, key_to_col, values, means, counts, users, meta, sums=None, canon=None):
        self._names, self._key_to_col = names, key_to_col
        self._values, self._means, self._counts = values, means, counts
        self._sums, self._canon = sums, canon
        self.users, self.meta = users, meta

    @property
    def state(self) -> AgreementState:
        """The exact sums, counts, users and user counts of this result as a mergeable :class:`AgreementState`."""
        if self._sums is None or self._canon is None:  # pragma: no cover - agreement() always gives them
            raise ValueError("this result holds no exact sums")
        return AgreementState(
            self._canon, self._names, self._key_to_col, self._sums, self._counts, self.meta, self.users
        )

    def _col(self, key: Any) -> int:
        if isinstance(key, str) and key in self._key_to_col:
            return self._key_to_col[key]
        try:
            canon = str(parse_agreement(key))
        except (TypeError, ValueError):
            canon = None
        if canon is not None and canon in self._key_to_col:
            return self._key_to_col[canon]
        raise KeyError(f"{key!r} was not computed; available: {', '.join(self._names)}")

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
    def per_user(self) -> dict[str, np.ndarray]:
        return {n: self._values[self._col(n)] for n in self._names}

    @property
    def counts(self) -> dict[str, int]:
        return {n: self._counts[self._col(n)] for n in self._names}

    @property
    def means(self) -> dict[str, float]:
        return {n: self[n] for n in self._names}

    def to_dict(self) -> dict[str, float]:
        return self.means

    def to_pandas(self):
        """One row per user (index: user id), one column per metric."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("AgreementResult.to_pandas() needs pandas: pip install pandas") from None
        users = self.users
        index = pd.Index(list(users) if users.dtype == object else users, name="user")
        return pd.DataFrame(self.per_user, index=index)

    def __repr__(self) -> str:
        width = max([len(n) for n in self._names] + [6])
        lines = [f"rankmeter.AgreementResult ({self.meta['n_users']} users)"]
        lines += [f"  {n:<{width}}  {self[n]:.6f}" for n in self._names]
        return "\n".join(lines)


# --------------------------------------------------------------------------- agreement
class AgreementState:
    """Mergeable, exact partial result of :func:`agreement` (``res.state``).

    Per metric the exact sum of the per-user values (an integer in units of 2^-1074, as the means of
    :func:`agreement` are taken) and how many users have a value, the user counts of ``res.meta`` and the
    compared users' ids. States of disjoint sets of users merge exactly, in any order (``a.merge(b)``,
    ``AgreementState.merge_all``), and ``finalize()`` gives the means one :func:`agreement` call over all those
    users gives, bit for bit: run it on batches of users (each batch holding both runs' lists of its users) and
    merge. A user in two merged states is a ``ValueError`` naming the user.
    """

    __slots__ = ("names", "asked", "keys", "sums", "counts", "meta", "_users")

    def __init__(
        self,
        names: Any,
        asked: Any,
        keys: dict[str, int],
        sums: Any,
        counts: Any,
        meta: dict[str, int],
        users: np.ndarray,
    ):
        self.names = tuple(names)  # the canonical metric of each column
        self.asked = tuple(asked)  # the names as the first call passed them
        self.keys = dict(keys)  # a name as passed (or canonical) -> its column
        self.sums = [int(x) for x in sums]
        self.counts = [int(x) for x in counts]
        self.meta = {k: int(v) for k, v in meta.items()}
        self._users = _as_key_ids(np.asarray(users))

    @property
    def users(self) -> np.ndarray:
        """The compared users' ids, sorted (int64, or str for any other id kind)."""
        return np.sort(self._users, kind="stable")

    def merge(self, other: AgreementState) -> AgreementState:
        """A new state covering the users of both (they must be disjoint sets of users)."""
        if not isinstance(other, AgreementState):
            raise TypeError(f"`other` must be a rankmeter.AgreementState, got {type(other).__name__}")
        return AgreementState.merge_all([self, other])

    @staticmethod
    def merge_all(states: Iterable[AgreementState]) -> AgreementState:
        """Merge any number of states (at least one) of disjoint users, in one pass."""
        states = list(states)
        if not states:
            raise ValueError("`states` is empty")
        for st in states:
            if not isinstance(st, AgreementState):
                raise TypeError(f"`states` must hold rankmeter.AgreementState objects, got {type(st).__name__}")
        first = states[0]
        for st in states[1:]:
            if st.names != first.names:
                raise ValueError(
                    f"cannot merge agreement states of different metrics: {list(first.names)} vs {list(st.names)}"
                )
            _check_kinds(first._users, st._users, "user")
        users = _disjoint_union([st._users for st in states]) if len(states) > 1 else first._users
        keys = dict(first.keys)
        for st in states[1:]:
            for k, c in st.keys.items():
                keys.setdefault(k, c)
        return AgreementState(
            first.names,
            first.asked,
            keys,
            [sum(st.sums[i] for st in states) for i in range(len(first.names))],
            [sum(st.counts[i] for st in states) for i in range(len(first.names))],
            {k: sum(st.meta.get(k, 0) for st in states) for k in first.meta},
            users,
        )

    def finalize(self) -> dict[str, float]:
        """``{name: mean}`` for the names as the (first) call passed them, exact: the means of one :func:`agreement`
        call over all the merged users, bit for bit."""
        return {k: exact_mean(self.sums[self.keys[k]], self.counts[self.keys[k]]) for k in self.asked}

    def __getitem__(self, key: str) -> float:
        """The exact mean of one metric (a name as passed or its canonical form)."""
        if key not in self.keys:
            with contextlib.suppress(TypeError, ValueError):
                key = str(parse_agreement(key))
        if key not in self.keys:
            raise KeyError(f"{key!r} was not computed; available: {', '.join(self.asked)}")
        c = self.keys[key]
        return exact_mean(self.sums[c], self.counts[c])

    def __repr__(self) -> str:
        return f"AgreementState({list(self.names)}, users={self._users.size})"


def agreement(
    run_a: Any,
    run_b: Any,
    metrics: Union[str, AgreementMetric, Iterable[Union[str, AgreementMetric]]],
    *,
    ties: str = "item",
    missing: str = "empty",
    threads: Optional[int] = None,
    user_col: Optional[str] = None,
    item_col: Optional[str] = None,
    rank_col: Optional[str] = None,
    score_col: Optional[str] = None,
) -> AgreementResult:
    """How much two runs agree, per user, every metric in one C++ pass (docs/metrics.md, "Agreement between runs").

    Parameters
    ----------
    run_a, run_b : any form ``evaluate`` accepts for ``recs``
        ``{user: [items]}``, ``{user: {item: score}}`` (ranked by score), lists of lists, a padded
        ``n_users x k`` int array (pad -1), a long table, a parquet or TREC run path, or :class:`~rankmeter.Recs`.
        ``run_b`` is the reference (RecTools' ``ref_reco``) or baseline (RePlay's ``base_recommendations``) of
        the asymmetric metrics. A list must not repeat an item within the positions a metric reads (ValueError).
    metrics : str or list of str
        Per user, with A_k and B_k the top k of each run (the whole list without ``@k``; shorter lists as they are):

        - ``overlap@k``: |A_k ∩ B_k|.
        - ``intersection(ref_k=k)@k``: |A_k ∩ B_ref_k| / |A_k| (RecTools ``Intersection``); no value (NaN) when
          A_k is empty, as RecTools has no row for such a user.
        - ``jaccard@k``: |A_k ∩ B_k| / |A_k ∪ B_k|; 1 for two empty lists.
        - ``rbo(p=0.9, variant=ext)@k``: rank-biased overlap (Webber, Moffat & Zobel 2010) of the two top-k
          prefixes, X_d = |A_:d ∩ B_:d|: ``variant=ext`` extrapolated (their eq. 32, lists of unequal length
          allowed), ``variant=min`` the lower bound (eq. 11: no agreement past the prefixes). Two empty lists: 1
          (ext) or 0 (min); one empty list: 0.
        - ``kendall_tau@k`` / ``spearman@k``: Kendall's tau (= tau-b: positions never tie) and Spearman's rho of
          the shared items' positions in A_k and in B_k (as ``scipy.stats`` on those positions); no value (NaN)
          for fewer than 2 shared items.
        - ``unexpectedness@k``: 1 - |A_k ∩ B_k| / k (RePlay ``Unexpectedness``, ``run_b`` the baseline); 0 when
          either whole list is empty, as RePlay gives.
    ties : {'item', 'input', 'item_desc', 'trec', 'ranx', 'ranx_comparable', 'ranx_dict'}
        Equal scores when a run is given by score, as in :func:`rankmeter.evaluate` (default: item id ascending).
    missing : {'empty', 'skip', 'run_a'}
        A user one run lacks: compared with an empty list (``'empty'``, default: every user of either run);
        left out (``'skip'``: only users of both runs); or the users of ``run_a`` only, a user ``run_b`` lacks
        compared with an empty list (``'run_a'``: RecTools' and RePlay's users). Counted in ``res.meta``.
    threads : int, optional
        Threads of the C++ pass (default ``RANKMETER_NUM_THREADS`` or all cores); results are identical for any value.
    user_col, item_col, rank_col, score_col : str, optional
        Column names of long tables, as in :func:`rankmeter.evaluate`.

    Returns
    -------
    AgreementResult
        ``res[name]`` exact means over the users with a value, ``res.per_user[name]``, ``res.counts[name]``,
        ``res.users`` (``run_a``'s users in its order, then those only ``run_b`` has), ``res.meta``.

    Examples
    --------
    >>> import rankmeter as rm
    >>> res = rm.agreement({"u": ["a", "b", "c"]}, {"u": ["b", "a", "d"]}, ["overlap@3", "jaccard@3", "kendall_tau@3"])
    >>> res["overlap@3"], res["jaccard@3"], res["kendall_tau@3"]
    (2.0, 0.5, -1.0)
    """
    if isinstance(metrics, (str, AgreementMetric)):
        metrics = [metrics]
    if not isinstance(metrics, Iterable):
        raise TypeError(f"`metrics` must be a metric name or a list of them, got {type(metrics).__name__}")
    metrics = list(metrics)  # read once: a generator gives the keys and the parsed metrics
    keys = [m if isinstance(m, str) else str(m) for m in metrics]
    parsed = [parse_agreement(m) for m in metrics]
    if not parsed:
        raise ValueError("`metrics` is empty: name at least one agreement metric, e.g. ['rbo@10']")
    if not isinstance(ties, str) or ties not in TIES:
        raise ValueError(
            f"`ties` must be one of {', '.join(map(repr, TIES))} for agreement (the rules that rank a list on its "
            f"own), got {ties!r}"
        )
    if not isinstance(missing, str) or missing not in MISSING:
        raise ValueError(f"`missing` must be one of {', '.join(map(repr, MISSING))}, got {missing!r}")
    t = resolve_threads(threads)
    table_kw = {
        k: v
        for k, v in dict(user_col=user_col, item_col=item_col, rank_col=rank_col, score_col=score_col).items()
        if v is not None
    }

    a = _read_run(run_a, "run_a", ties, table_kw, t)
    b = _read_run(run_b, "run_b", ties, table_kw, t)

    # users: run_a's in its order, then those only run_b has
    rowmap, n_only_a, n_only_b = align(cast(Any, a.recs), b.recs, ("run_a", "run_b"), require_match=False)
    n_a, n_b = a.recs.n_users, b.recs.n_users
    rm_ab = np.arange(n_a, dtype=np.int64) if rowmap is None else rowmap
    ua = _users(a)
    if missing == "skip":
        a_row = np.flatnonzero(rm_ab >= 0).astype(np.int64)
        b_row = rm_ab[a_row]
        users = ua[a_row]
    else:
        a_row, b_row, users = np.arange(n_a, dtype=np.int64), rm_ab, ua
        if missing == "empty" and n_only_b:
            taken = np.zeros(n_b, dtype=bool)
            taken[rm_ab[rm_ab >= 0]] = True
            extra = np.flatnonzero(~taken).astype(np.int64)
            new = _users(b)[extra]
            users = (
                np.concatenate([ua, new])
                if ua.dtype == new.dtype
                else np.concatenate([ua.astype(object), new.astype(object)])
            )
            a_row = np.concatenate([a_row, np.full(extra.size, -1, dtype=np.int64)])
            b_row = np.concatenate([b_row, extra])
    n_left_out = n_a + n_b - (n_a - n_only_a) - users.size

    # items: int ids as they are, others coded jointly over both runs
    a_items, b_items = a.items, b.items
    if not (isinstance(a_items, np.ndarray) and a_items.dtype == np.int64) or not (
        isinstance(b_items, np.ndarray) and b_items.dtype == np.int64
    ):
        check_id_kinds(a.recs.item_values(), b.recs.item_values(), ("run_a", "run_b"), "item")
        (a_items, b_items), _ = factorize_items(_flat(a), _flat(b))
    a_items = np.ascontiguousarray(a_items, dtype=np.int64)
    b_items = np.ascontiguousarray(b_items, dtype=np.int64)

    def rows(run: _Run, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if row.size == run.starts.size and (row.size == 0 or (row[0] == 0 and np.all(np.diff(row) == 1))):
            return np.ascontiguousarray(run.starts, dtype=np.int64), np.ascontiguousarray(run.lens, dtype=np.int64)
        has = row >= 0
        r = np.where(has, row, 0)
        start = np.where(has, run.starts[r] if run.starts.size else 0, 0).astype(np.int64)
        length = np.where(has, run.lens[r] if run.lens.size else 0, 0).astype(np.int64)
        return start, length

    a_start, a_len = rows(a, a_row)
    b_start, b_len = rows(b, b_row)

    cols: list[AgreementMetric] = []
    key_to_col: dict[str, int] = {}
    for key, m in zip(keys, parsed):
        canon = str(m)
        if canon not in key_to_col:
            key_to_col[canon] = len(cols)
            cols.append(m)
        key_to_col[key] = key_to_col[canon]
    opts = [dict(m.options) for m in cols]
    values, bad, side, limbs, count = _core.agreement_values(
        a_items,
        a_start,
        a_len,
        b_items,
        b_start,
        b_len,
        np.array([AGREEMENT_METRICS[m.name].code for m in cols], dtype=np.int32),
        np.array([m.k or 0 for m in cols], dtype=np.int64),
        np.array([o.get("ref_k") or m.k or 0 for m, o in zip(cols, opts)], dtype=np.int64),
        np.array([o.get("p", 0.9) for o in opts], dtype=np.float64),
        np.array([_RBO_VARIANTS[o.get("variant", "ext")] for o in opts], dtype=np.int32),
        t,
    )
    if bad >= 0:
        raise _duplicate_error(a if side == 0 else b, "run_a" if side == 0 else "run_b", users[bad], cols, side)
    n = users.size
    per = [values[c * n : (c + 1) * n] for c in range(len(cols))]
    counts = [int(x) for x in count]
    sums = [limbs_to_int(limbs[c]) for c in range(len(cols))]
    means = [exact_mean(sums[c], counts[c]) for c in range(len(cols))]
    meta = {"n_users": int(n), "n_only_a": int(n_only_a), "n_only_b": int(n_only_b), "n_left_out": int(n_left_out)}
    return AgreementResult(
        list(dict.fromkeys(keys)), key_to_col, per, means, counts, users, meta, sums, [str(m) for m in cols]
    )


def _duplicate_error(run: _Run, which: str, user: Any, cols: list, side: int) -> ValueError:
    """The error of a list repeating an item within the positions the metrics read."""
    uids = _users(run)
    row = int(np.flatnonzero(uids == user)[0]) if uids.dtype != object else [*uids.tolist()].index(user)
    ks = [(m.k if side == 0 else dict(m.options).get("ref_k") or m.k) for m in cols]
    read = None if any(k is None for k in ks) else max(ks)
    start, length = int(run.starts[row]), int(run.lens[row])
    if read is not None:
        length = min(length, read)
    items = run.items
    if isinstance(items, np.ndarray):
        items = items[start : start + length]
    else:  # coded string ids
        items = items.labels[items.codes[start : start + length]]
    seen: set = set()
    item = next((x for x in items.tolist() if x in seen or seen.add(x)), None)  # type: ignore[func-returns-value]
    where = "" if read is None else f" within its top {read}"
    return ValueError(
        f"`{which}` lists item {_plain(item)!r} more than once for user {_plain(user)!r}{where}; agreement metrics "
        "compare lists of distinct items: remove the repeats (keep each item's first position)"
    )
